package i18n

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The package's own formats are translated too.
func TestOwnKeysComplete(t *testing.T) {
	b, err := os.ReadFile("i18n.go")
	if err != nil {
		t.Fatal(err)
	}
	keys := KeysInGo(string(b))
	if len(keys) < 2 {
		t.Fatalf("found %d keys", len(keys))
	}
	for _, p := range Check(keys) {
		t.Error(p)
	}
}

// Check catches a missing key and a translation that lost a verb.
func TestCheckFails(t *testing.T) {
	if p := Check([]string{"no such sentence %d"}); len(p) != len(Languages)-1 {
		t.Errorf("a missing key gave %v", p)
	}
	Translations["fr"]["x %d y %s"] = "x y %s"
	defer delete(Translations["fr"], "x %d y %s")
	found := false
	for _, p := range Check([]string{"x %d y %s"}) {
		found = found || strings.Contains(p, "has verbs")
	}
	if !found {
		t.Error("a lost verb was not found")
	}
}

func TestPick(t *testing.T) {
	for _, c := range []struct{ choice, accept, fallback, want string }{
		{"", "zh-CN,zh;q=0.9,en;q=0.5", "en", "zh-Hans"},
		{"", "zh", "en", "zh-Hans"},
		{"", "vi-VN", "fr", "vi"},
		{"", "fr-CA,fr;q=0.8", "en", "fr"},
		{"", "de-DE", "fr", "fr"},
		{"", "", "vi", "vi"},
		{"fr", "zh", "en", "fr"},
		{"xx", "vi", "en", "vi"},
		{"", "garbage;;", "zh-Hans", "zh-Hans"},
		{"", "", "", "en"},
	} {
		if got := Pick(c.choice, c.accept, c.fallback); got != c.want {
			t.Errorf("Pick(%q, %q, %q) = %q, want %q", c.choice, c.accept, c.fallback, got, c.want)
		}
	}
}

func TestFormats(t *testing.T) {
	at := time.Date(2026, 12, 7, 9, 5, 0, 0, time.UTC)
	for lang, want := range map[string][]string{
		"en":      {"Monday", "December", "09:05", "1,234,567", "décembre"},
		"fr":      {"lundi", "décembre", "09:05", "1\u202f234\u202f567", ""},
		"vi":      {"Thứ Hai", "tháng 12", "09:05", "1.234.567", ""},
		"zh-Hans": {"星期一", "2026年12月7日", "09:05", "1,234,567", ""},
	} {
		p := New(lang)
		got := p.Date(at) + " " + p.Month(2026, time.December) + " " + p.Clock(at) + " " + p.Number(1234567)
		for _, w := range want[:4] {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", lang, got, w)
			}
		}
	}
}

// A language's one Printer, shared by every answer, formats the same from
// many goroutines at once as from one (under -race: nothing it holds is
// written while it formats).
func TestPrinterShared(t *testing.T) {
	at := time.Date(2026, 12, 7, 9, 5, 0, 0, time.UTC)
	format := func(p *Printer, i int) string {
		return p.DateTime(at.Add(time.Duration(i)*time.Hour)) + "|" + p.Number(int64(i)*1000) + "|" +
			p.Money(MustCurrency("EUR"), int64(i)*150) + "|" + p.T("Appointment confirmed")
	}
	for _, l := range Languages {
		if New(l.Tag) != New(l.Tag) {
			t.Fatalf("%s: a new Printer per call", l.Tag)
		}
		var want []string
		for i := range 50 {
			want = append(want, format(New(l.Tag), i))
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for i := range 50 {
					if got := format(New(l.Tag), i); got != want[i] {
						t.Errorf("%s: %q, alone %q", l.Tag, got, want[i])
					}
				}
			})
		}
		wg.Wait()
	}
	if New("xx") != New("en") {
		t.Fatal("an unsupported language is not English's printer")
	}
}

// BenchmarkProblemTitle is what each refusal's answer pays to word its title.
func BenchmarkProblemTitle(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = New(Languages[i%len(Languages)].Tag).T("Slot full")
	}
}

func TestMoney(t *testing.T) {
	vnd, eur, cny := MustCurrency("VND"), MustCurrency("EUR"), MustCurrency("CNY")
	if vnd.Digits != 0 || eur.Digits != 2 || cny.Digits != 2 {
		t.Fatalf("minor units: VND %d EUR %d CNY %d", vnd.Digits, eur.Digits, cny.Digits)
	}
	for _, c := range []struct {
		lang  string
		cur   Currency
		minor int64
		want  string
	}{
		{"fr", eur, 123450, "1\u00a0234,50"},
		{"en", eur, 2500, "€"},
		{"vi", vnd, 150000, "150.000"},
		{"vi", vnd, 150000, "₫"},
		{"zh-Hans", cny, 5000, "50.00"},
	} {
		if got := New(c.lang).Money(c.cur, c.minor); !strings.Contains(got, c.want) {
			t.Errorf("Money(%s, %s, %d) = %q, want it to contain %q", c.lang, c.cur.Code, c.minor, got, c.want)
		}
	}
	for _, c := range []struct {
		cur  Currency
		in   string
		want int64
		ok   bool
	}{
		{eur, "25", 2500, true}, {eur, "25,5", 2550, true}, {eur, "0.05", 5, true}, {eur, "", 0, true},
		{eur, "1.234", 0, false}, {eur, "-1", 0, false}, {eur, "abc", 0, false},
		{vnd, "150000", 150000, true}, {vnd, "150000.5", 0, false},
	} {
		got, ok := c.cur.ParseAmount(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("%s.ParseAmount(%q) = %d, %v; want %d, %v", c.cur.Code, c.in, got, ok, c.want, c.ok)
		}
	}
	if _, err := ParseCurrency("XYZW"); err == nil {
		t.Error("a bad currency was accepted")
	}
}

// Sentence translates an error's format with its arguments, falls back to
// its message, and writes a time in the zone and language.
func TestSentence(t *testing.T) {
	utc := time.UTC
	at := time.Date(2026, 12, 7, 7, 0, 0, 0, utc)
	fr := New("fr")
	for _, c := range []struct {
		p               *Printer
		message, format string
		args            []any
		want            string
	}{
		{fr, "floor must be 1 to 9", "floor must be %d to %d", []any{1, 9}, "floor doit être de 1 à 9"},
		{fr, "shutting down", "", nil, "arrêt en cours"},
		{fr, "never translated", "never translated %d", []any{1}, "never translated"},
		{New("en"), "beds must be 1 to 1000", "beds must be 1 to %d", []any{1000}, "beds must be 1 to 1000"},
		{New("en"), "the round opens at 2026-12-07T07:00:00Z", "the round opens at %s", []any{at}, "the round opens at " + New("en").DateTime(at) + " (UTC)"},
		{fr, "the round opens at 2026-12-07T07:00:00Z", "the round opens at %s", []any{at}, "la campagne ouvre le " + fr.DateTime(at) + " (UTC)"},
	} {
		if got := c.p.Sentence(c.message, c.format, c.args, utc); got != c.want {
			t.Errorf("%s %q: %q, want %q", c.p.Lang(), c.format, got, c.want)
		}
	}
}

// TestClock24Hour: every language writes times on the 24-hour clock with
// two-digit hours, Chinese too (no 上午/下午, no am/pm).
func TestClock24Hour(t *testing.T) {
	for _, l := range Languages {
		p := New(l.Tag)
		for at, want := range map[time.Time]string{
			time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC):   "07:00",
			time.Date(2026, 12, 7, 15, 30, 0, 0, time.UTC): "15:30",
		} {
			got := p.Clock(at)
			if got != want {
				t.Errorf("%s: Clock(%s) = %q, want %q", l.Tag, at.Format("15:04"), got, want)
			}
			if dt := p.DateTime(at); strings.ContainsAny(dt, "上下午") || strings.Contains(strings.ToLower(dt), "pm") {
				t.Errorf("%s: DateTime = %q: a 12-hour clock", l.Tag, dt)
			}
		}
	}
}
