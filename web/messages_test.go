package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

// channelBox is a notifier that keeps the channel each code asked for.
type channelBox struct {
	mu    sync.Mutex
	chans []string
}

func (b *channelBox) Notify(_ context.Context, m notify.Message) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.chans = append(b.chans, m.Channel)
	return nil
}

func (b *channelBox) got() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.chans...)
}

// TestSigninOffersTheChannels: with SMS and e-mail configured the sign-in
// page lets the patient choose, the choice reaches the notifier and the
// next page (and its "new code" form) keeps it; with e-mail alone it says
// the code goes there, with no choice.
func TestSigninOffersTheChannels(t *testing.T) {
	box := &channelBox{}
	s := newSite(t, withoutSamples(), withPatients("+33600000001"), withConfig(func(c *Config) {
		c.Notifier, c.CodeChannels = box, []string{notify.ChannelSMS, notify.ChannelEmail}
	}))
	c := s.srv.Client()
	c.Jar, _ = cookiejar.New(nil)
	res, err := c.Get(s.url + "/signin")
	must(t, err)
	page := readAll(t, res)
	if !strings.Contains(page, `name="channel" value="sms" checked`) || !strings.Contains(page, `name="channel" value="email"`) {
		t.Fatalf("no choice of channel:\n%s", mainOf(page))
	}
	form := url.Values{"phone": {"+33600000001"}, "channel": {"email"},
		"csrf": {between(between(page, `action="/signin"`, `</form>`), `name="csrf" value="`, `"`)}}
	res, err = c.PostForm(s.url+"/signin", form)
	must(t, err)
	page = readAll(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "to the e-mail address it has for you (by text message") ||
		!strings.Contains(page, `name="channel" value="email"`) {
		t.Fatalf("code step: %d\n%s", res.StatusCode, mainOf(page))
	}
	if got := box.got(); len(got) != 1 || got[0] != notify.ChannelEmail {
		t.Fatalf("the notifier got channels %v", got)
	}
	// A channel not offered is not passed on.
	form.Set("channel", "fax")
	res, err = c.PostForm(s.url+"/signin", form)
	must(t, err)
	readAll(t, res)
	if got := box.got(); len(got) != 2 || got[1] != "" {
		t.Fatalf("the notifier got channels %v", got)
	}

	only := newSite(t, withoutSamples(), withConfig(func(c *Config) { c.CodeChannels = []string{notify.ChannelEmail} }))
	res, err = http.Get(only.url + "/signin")
	must(t, err)
	page = readAll(t, res)
	if strings.Contains(page, `name="channel"`) || !strings.Contains(page, "to the e-mail address the clinic has for this number") {
		t.Fatalf("e-mail only:\n%s", mainOf(page))
	}
}

// TestStaffSeePatientMessages: the patient's messages page shows each
// message's kind, channel, state and reason in the reader's language,
// newest first; the dashboard shows the channels.
func TestStaffSeePatientMessages(t *testing.T) {
	s := newSite(t, withoutSamples(), withConfig(func(c *Config) {}))
	ctx := context.Background()
	p, err := s.store.CreatePatient(ctx, booking.Patient{Name: "Ada", Phone: "+33600000009", Email: "ada@example.org"})
	must(t, err)
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	_, err = s.store.RecordMessages(ctx, []booking.MessageAttempt{{Key: "a", PatientID: p.ID, Kind: notify.KindConfirmation, Channel: "sms",
		State: booking.MessageFailed, Reason: "21211: The 'To' number +33******09 is not a valid phone number.", At: at}})
	must(t, err)
	_, err = s.store.RecordMessages(ctx, []booking.MessageAttempt{{Key: "b", PatientID: p.ID, Kind: notify.KindLoginCode, Channel: "email",
		State: booking.MessageSent, At: at.Add(time.Minute)}})
	must(t, err)
	get := func(path, lang string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", s.url+path, nil)
		tok, _ := s.signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		req.AddCookie(&http.Cookie{Name: langCookie, Value: lang})
		res, err := http.DefaultClient.Do(req)
		must(t, err)
		body := readAll(t, res)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		return mainOf(body)
	}
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		page := get(fmt.Sprintf("/staff/patients/%d/messages", p.ID), l.Tag)
		code, failed := strings.Index(page, pr.T("sign-in code")), strings.Index(page, pr.T("booking confirmed"))
		if code < 0 || failed < 0 || code > failed || !strings.Contains(page, "<strong>"+pr.T("failed")+"</strong>") ||
			!strings.Contains(page, "21211: The &#39;To&#39; number") || strings.Contains(page, "ada@") {
			t.Fatalf("%s: messages page:\n%s", l.Tag, page)
		}
	}
	if list := get("/staff/patients", "en"); !strings.Contains(list, fmt.Sprintf(`href="/staff/patients/%d/messages"`, p.ID)) {
		t.Fatalf("the patients page does not link to the messages:\n%s", list)
	}
	// The dashboard: a site given Deliveries shows its channels.
	d := s.svc.Deliveries(service.DeliveriesOptions{Notifier: &channelBox{}, Channels: []string{"sms", "email"}})
	s.pages.deliveries = d
	must(t, d.Notify(ctx, notify.Message{Kind: notify.KindReminder, PatientID: p.ID, IdempotencyKey: "r1"}))
	if dash := get("/staff/dashboard", "en"); !strings.Contains(dash, "SMS: working") || !strings.Contains(dash, "e-mail: working") {
		t.Fatalf("dashboard channels:\n%s", between(dash, `id="channels"`, "</section>"))
	}
}
