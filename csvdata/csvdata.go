// Package csvdata reads and writes the clinic's CSV files: the import of
// departments, doctors, schedules and patients (with a dry run, line
// numbers in every error and idempotent re-runs), and the exports (a
// doctor's day, the appointments of a period), every cell safe to open in
// a spreadsheet. Every change goes through the service.Service.
package csvdata

import (
	"encoding/csv"
	"io"
	"strings"
)

// Writer writes CSV whose cells cannot be taken for formulas: a cell a
// spreadsheet would evaluate (starting with = + - @, a tab or a carriage
// return) is prefixed with a single quote, as OWASP's CSV injection advice
// says. The quote shows; the formula does not run.
type Writer struct{ w *csv.Writer }

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: csv.NewWriter(w)} }

// Write writes one record, each cell made safe.
func (w *Writer) Write(cells ...string) error {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = SafeCell(c)
	}
	return w.w.Write(out)
}

// Flush writes what is buffered and reports the first error.
func (w *Writer) Flush() error {
	w.w.Flush()
	return w.w.Error()
}

// SafeCell is c, prefixed with ' when a spreadsheet would evaluate it.
func SafeCell(c string) string {
	if c == "" {
		return c
	}
	switch c[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + c
	}
	return c
}

// unsafe reports whether an imported cell could be evaluated as a formula
// when exported again: import refuses it rather than store it.
func unsafe(c string) bool {
	return c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0]))
}
