package i18n

import (
	"fmt"
	"slices"
	"time"
)

// Sentence is an error's sentence in p's language, for the API's answers:
// format filled with args when the catalog holds format, else message when
// it holds that, else message as it is (English). A time.Time argument
// reads in loc and the language with its zone named ("lundi 7 décembre
// 2026, 09:00 (Europe/Paris)"), in English too, as on the web pages.
func (p *Printer) Sentence(message, format string, args []any, loc *time.Location) string {
	var local []any
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			if local == nil {
				local = slices.Clone(args)
			}
			local[i] = p.T("%s (%s)", p.DateTime(t.In(loc)), loc.String())
		}
	}
	if p.lang != "en" {
		if _, ok := Translations[p.lang][format]; ok && format != "" {
			if local == nil {
				local = args
			}
			return p.T(format, local...)
		}
		if _, ok := Translations[p.lang][message]; ok && message != "" {
			return p.T(message)
		}
	}
	if local != nil && format != "" {
		// English keeps fmt's plain numbers; only the time changes.
		return fmt.Sprintf(format, local...)
	}
	return message
}
