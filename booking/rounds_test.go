package booking

import (
	"testing"
	"time"
)

func TestRoundClock(t *testing.T) {
	opens := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	r := Round{ID: 1, OpensAt: opens, ClosesAt: opens.Add(time.Hour), State: RoundOpen, Quota: 1}
	for _, c := range []struct {
		at        time.Time
		state     string
		status    string
		accepting bool
		code      Code
	}{
		{opens.Add(-time.Second), RoundOpen, RoundOpen, false, CodeNotOpenYet},
		{opens, RoundOpen, RoundOpen, true, ""},
		{opens.Add(time.Hour - time.Nanosecond), RoundOpen, RoundOpen, true, ""},
		{opens.Add(time.Hour), RoundOpen, RoundClosed, false, CodeSlotClosed},
		{opens, RoundDraft, RoundDraft, false, CodeNotOpenYet},
		{opens, RoundClosed, RoundClosed, false, CodeSlotClosed},
	} {
		r.State = c.state
		if got := r.Status(c.at); got != c.status {
			t.Errorf("%s at %v: status %s, want %s", c.state, c.at, got, c.status)
		}
		if got := r.Accepting(c.at); got != c.accepting {
			t.Errorf("%s at %v: accepting %v", c.state, c.at, got)
		}
		e := r.Refusal(c.at, 7)
		switch {
		case c.code == "" && e != nil:
			t.Errorf("%s at %v: refused %v", c.state, c.at, e)
		case c.code != "" && (e == nil || e.Code != c.code || e.SlotID != 7):
			t.Errorf("%s at %v: refusal %v, want %s", c.state, c.at, e, c.code)
		case c.code == CodeNotOpenYet && (e.OpensAt == nil || !e.OpensAt.Equal(opens)):
			t.Errorf("%s at %v: not-open-yet without OpensAt", c.state, c.at)
		}
	}
}

func TestRoundTransition(t *testing.T) {
	for _, c := range []struct {
		from, to string
		noop     bool
		code     Code
	}{
		{RoundDraft, RoundOpen, false, ""},
		{RoundOpen, RoundClosed, false, ""},
		{RoundDraft, RoundClosed, false, ""},
		{RoundOpen, RoundOpen, true, ""},
		{RoundOpen, RoundDraft, false, CodeInvalidTransition},
		{RoundClosed, RoundOpen, false, CodeInvalidTransition},
		{RoundDraft, "LIVE", false, CodeInvalidRequest},
	} {
		noop, err := RoundTransition(c.from, c.to)
		if noop != c.noop || ErrorCode(err) != c.code {
			t.Errorf("%s -> %s: noop %v err %v", c.from, c.to, noop, err)
		}
	}
}
