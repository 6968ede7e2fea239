// Package i18n is slotd's languages: which one a person reads (a choice,
// Accept-Language, the clinic default), the message catalogs of every
// visible sentence (golang.org/x/text/message), and CLDR formats of dates,
// times, numbers and money (go-playground/locales, golang.org/x/text).
//
// A sentence's key is its English text, so a page's template stays
// readable and English needs no catalog; catalog/<lang>.json maps each key
// to its translation. TestCatalogsComplete finds every key used in web and
// notify and fails when a language lacks one.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/go-playground/locales"
	"github.com/go-playground/locales/en_GB"
	"github.com/go-playground/locales/fr"
	"github.com/go-playground/locales/vi"
	"github.com/go-playground/locales/zh_Hans"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Language is a BCP 47 tag of a supported language.
type Language struct {
	Tag  string // "zh-Hans", the page's lang attribute
	Name string // its own name, for the switch
}

// Languages are the supported languages, English first.
var Languages = []Language{
	{"en", "English"}, {"zh-Hans", "简体中文"}, {"vi", "Tiếng Việt"}, {"fr", "Français"},
}

//go:embed catalog/*.json
var catalogFS embed.FS

var (
	cat     = catalog.NewBuilder(catalog.Fallback(language.English))
	tags    []language.Tag
	matcher language.Matcher
	cldr    = map[string]locales.Translator{"en": en_GB.New(), "zh-Hans": zh_Hans.New(), "vi": vi.New(), "fr": fr.New()}
	// Translations holds every catalog (language → key → text), for the
	// completeness test.
	Translations = map[string]map[string]string{}
	// printers holds one Printer per language, built once: building one
	// per answer (a tag parsed, a printer made) was 4 % of the server's
	// CPU while an opening's refusals were answered.
	printers = map[string]*Printer{}
)

func init() {
	for _, l := range Languages {
		tags = append(tags, language.MustParse(l.Tag))
		if l.Tag == "en" {
			continue
		}
		b, err := catalogFS.ReadFile("catalog/" + l.Tag + ".json")
		if err != nil {
			panic(err)
		}
		m := map[string]string{}
		if err := json.Unmarshal(b, &m); err != nil {
			panic(fmt.Sprintf("i18n: catalog %s: %v", l.Tag, err))
		}
		Translations[l.Tag] = m
		for k, v := range m {
			if err := cat.SetString(language.MustParse(l.Tag), k, v); err != nil {
				panic(err)
			}
		}
	}
	matcher = language.NewMatcher(tags)
	for _, l := range Languages {
		printers[l.Tag] = &Printer{lang: l.Tag, p: message.NewPrinter(language.MustParse(l.Tag), message.Catalog(cat)), l: cldr[l.Tag]}
	}
}

// Supported returns tag when it is a supported language, else "".
func Supported(tag string) string {
	for _, l := range Languages {
		if l.Tag == tag {
			return tag
		}
	}
	return ""
}

// Pick chooses the language: the person's own choice when supported, else
// the best match of the Accept-Language header, else fallback. A header
// that matches nothing (confidence No) keeps the clinic's fallback.
func Pick(choice, acceptLanguage, fallback string) string {
	if t := Supported(choice); t != "" {
		return t
	}
	if acceptLanguage != "" {
		want, _, err := language.ParseAcceptLanguage(acceptLanguage)
		if err == nil && len(want) > 0 {
			_, i, conf := matcher.Match(want...)
			if conf != language.No {
				return Languages[i].Tag
			}
		}
	}
	if t := Supported(fallback); t != "" {
		return t
	}
	return "en"
}

// Printer writes one language. One is shared by every caller in its
// language and safe for concurrent use: nothing in it changes once built,
// message.Printer formats in a pooled state of its own and the CLDR
// translator only reads its tables.
type Printer struct {
	lang string
	p    *message.Printer
	l    locales.Translator
}

// Lang is the printer's language tag, one of Languages.
func (p *Printer) Lang() string { return p.lang }

// New returns the printer of lang (English when unsupported).
func New(lang string) *Printer {
	if p, ok := printers[lang]; ok {
		return p
	}
	return printers["en"]
}

// T translates key and fills its fmt verbs with args, in the language's
// number format.
func (p *Printer) T(key string, args ...any) string { return p.p.Sprintf(key, args...) }

// Date is a day with its weekday, e.g. "lundi 7 décembre 2026".
func (p *Printer) Date(t time.Time) string { return p.l.FmtDateFull(t) }

// ShortDate is a compact day, e.g. "7 déc. 2026".
func (p *Printer) ShortDate(t time.Time) string { return p.l.FmtDateMedium(t) }

// Clock is a time of day on the 24-hour clock, e.g. "09:05". Chinese
// reads it too, as Chinese hospitals' booking apps do, not CLDR's
// 12-hour "上午9:05".
func (p *Printer) Clock(t time.Time) string {
	if clock24[p.lang] {
		return t.Format("15:04")
	}
	return p.l.FmtTimeShort(t)
}

// clock24 are the languages whose CLDR short time is on the 12-hour clock
// but whose pages use the 24-hour one.
var clock24 = map[string]bool{"zh-Hans": true}

// DateTime is a day and a time.
func (p *Printer) DateTime(t time.Time) string { return p.T("%s, %s", p.Date(t), p.Clock(t)) }

// Month is a month's heading, e.g. "décembre 2026".
func (p *Printer) Month(year int, m time.Month) string {
	// The year as text: a number verb would group it ("2 026").
	return p.T("%[1]s %[2]s", p.l.MonthWide(m), strconv.Itoa(year))
}

// Weekdays are the short names of Monday to Sunday.
func (p *Printer) Weekdays() []string {
	out := make([]string, 7)
	for i := range out {
		out[i] = p.l.WeekdayAbbreviated(time.Weekday((i + 1) % 7))
	}
	return out
}

// Weekday is the full name of d.
func (p *Printer) Weekday(d time.Weekday) string { return p.l.WeekdayWide(d) }

// Number formats n with the language's grouping.
func (p *Printer) Number(n int64) string { return p.l.FmtNumber(float64(n), 0) }
