package csvdata

import (
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/slotd/slotd/booking"
)

// cohortHeader is the header of a cohort file: one patient id and one tag
// a line (a vaccination campaign's "health workers", "65+").
var cohortHeader = []string{"patient_id", "tag"}

// CohortReport is what a cohort import read: its rows, how many were new,
// and the refused lines (those are not imported; the rest are).
type CohortReport struct {
	Rows   int         `json:"rows"`
	Added  int         `json:"added"`
	Errors []LineError `json:"errors"`
}

// ReadCohorts reads a cohort file (header patient_id,tag), up to
// MaxImportBytes and MaxImportRows, into its valid rows and the report of
// its refused lines. An unreadable file or another header is an error of
// line 1.
func ReadCohorts(r io.Reader) ([]booking.CohortRow, CohortReport, error) {
	rep := CohortReport{Errors: []LineError{}}
	cr := csv.NewReader(&limited{r: r, n: MaxImportBytes})
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = len(cohortHeader)
	head, err := cr.Read()
	if be, ok := errors.AsType[*booking.Error](err); ok {
		return nil, rep, be
	}
	if err != nil {
		return nil, rep, booking.Errorf(booking.CodeInvalidRequest, "line 1: not a CSV header: %s", csvErr(err))
	}
	for i := range head {
		head[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(head[i], "\ufeff")))
	}
	if strings.Join(head, ",") != strings.Join(cohortHeader, ",") {
		return nil, rep, booking.Errorf(booking.CodeInvalidRequest, "line 1: the header must be %s", strings.Join(cohortHeader, ","))
	}
	var rows []booking.CohortRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if be, ok := errors.AsType[*booking.Error](err); ok {
			return nil, rep, be
		}
		if pe, ok := errors.AsType[*csv.ParseError](err); ok {
			if pe.Err == csv.ErrFieldCount {
				rep.Errors = append(rep.Errors, lineError(pe.StartLine, "expected %d columns (%s)", len(cohortHeader), strings.Join(cohortHeader, ",")))
				continue
			}
			rep.Errors = append(rep.Errors, LineError{Line: pe.StartLine, Message: csvErr(err), Key: csvErr(err)})
			break // the rest cannot be read reliably
		}
		if err != nil {
			return nil, rep, err
		}
		line, _ := cr.FieldPos(0)
		if rep.Rows++; rep.Rows > MaxImportRows {
			return nil, rep, booking.Errorf(booking.CodeInvalidRequest, "line %d: at most %d rows per file", line, MaxImportRows)
		}
		id, err := strconv.ParseInt(strings.TrimSpace(rec[0]), 10, 64)
		tag := strings.TrimSpace(rec[1])
		switch {
		case err != nil || id < 1 || id > booking.MaxID:
			rep.Errors = append(rep.Errors, lineError(line, "patient_id must be an id 1 to %d", int64(booking.MaxID)))
		case booking.CohortTag(tag) == "" || unsafe(tag):
			rep.Errors = append(rep.Errors, lineError(line, "tag must be 1 to %d characters and not start with = + - @", booking.MaxCohortTag))
		default:
			rows = append(rows, booking.CohortRow{PatientID: id, Tag: tag})
		}
		if len(rep.Errors) >= maxErrors {
			rep.Errors = append(rep.Errors, lineError(line, "too many refused lines: fix those above and run again"))
			break
		}
	}
	return rows, rep, nil
}

// WriteInvitations writes a batch of invitation codes for letters: a
// header, then one code a line with its schedule.
func WriteInvitations(w io.Writer, scheduleID int64, codes []string) error {
	cw := NewWriter(w)
	if err := cw.Write("code", "schedule_id"); err != nil {
		return err
	}
	id := strconv.FormatInt(scheduleID, 10)
	for _, c := range codes {
		if err := cw.Write(c, id); err != nil {
			return err
		}
	}
	return cw.Flush()
}
