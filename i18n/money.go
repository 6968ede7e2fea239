package i18n

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/currency"
)

// Currency is the clinic's ISO 4217 currency. Every fee and payment amount
// is an integer count of its minor units (cents of EUR, fen of CNY, whole
// đồng of VND, which has none).
type Currency struct {
	Code   string
	Digits int // minor-unit digits from CLDR: 2 for EUR and CNY, 0 for VND
	unit   currency.Unit
}

// ParseCurrency reads an ISO 4217 code such as "EUR", "CNY" or "VND".
func ParseCurrency(code string) (Currency, error) {
	u, err := currency.ParseISO(code)
	if err != nil {
		return Currency{}, fmt.Errorf("i18n: unknown currency %q (want an ISO 4217 code such as EUR, CNY, VND)", code)
	}
	digits, _ := currency.Standard.Rounding(u)
	return Currency{Code: u.String(), Digits: digits, unit: u}, nil
}

// MustCurrency is ParseCurrency for codes known to be valid.
func MustCurrency(code string) Currency {
	c, err := ParseCurrency(code)
	if err != nil {
		panic(err)
	}
	return c
}

// Money formats minor units of c in p's language, e.g. "€ 1 234,50".
func (p *Printer) Money(c Currency, minor int64) string {
	if c.Code == "" {
		c = MustCurrency("EUR")
	}
	return p.p.Sprint(currency.NarrowSymbol(c.unit.Amount(float64(minor) / math.Pow10(c.Digits))))
}

// ParseAmount reads a staff-typed amount in major units ("12.50", "12,50",
// "50000") into minor units; ok is false for anything else, negative
// amounts and more decimals than the currency has.
func (c Currency) ParseAmount(s string) (int64, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", ".")
	if s == "" {
		return 0, true
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > c.Digits || whole == "" || strings.HasPrefix(whole, "-") || strings.HasPrefix(whole, "+") {
		return 0, false
	}
	frac += strings.Repeat("0", c.Digits-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
