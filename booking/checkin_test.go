package booking

import (
	"strings"
	"testing"
	"time"
)

var testCodes = NewCheckInCodes([]byte("check-in test key"))

// A code is 8 characters of the alphabet, stable for an id, different
// between ids and keys, and read back however it is typed.
func TestCheckInCodes(t *testing.T) {
	c := testCodes.Code(42)
	if len(c) != CheckInCodeLen || strings.Trim(c, checkInAlphabet) != "" {
		t.Fatalf("code %q: want %d characters of %s", c, CheckInCodeLen, checkInAlphabet)
	}
	if testCodes.Code(42) != c || testCodes.Code(43) == c || NewCheckInCodes([]byte("another key")).Code(42) == c {
		t.Fatal("a code must be the id's under its key, and only its")
	}
	d := testCodes.Display(42)
	if d != c[:4]+"-"+c[4:] {
		t.Fatalf("display %q of %q", d, c)
	}
	// Look-alikes are read as the alphabet's characters.
	typo := strings.NewReplacer("0", "o", "1", "l").Replace(strings.ToLower(d))
	for _, typed := range []string{c, d, strings.ToLower(c), " " + c[:4] + " " + c[4:] + " ", typo} {
		if !testCodes.Verify(42, typed) {
			t.Errorf("%q is 42's code %q typed", typed, c)
		}
	}
	for _, typed := range []string{"", c[:7], c + "0", strings.Repeat("A", 200), "U" + c[1:], testCodes.Code(43)} {
		if testCodes.Verify(42, typed) {
			t.Errorf("%q verified as 42's code", typed)
		}
	}
	if (CheckInCodes{}).Verify(42, c) || (CheckInCodes{}).Valid() {
		t.Fatal("codes without a key verify nothing")
	}
}

// The check-in decision table: who, which code, which state, when.
func TestDecideCheckIn(t *testing.T) {
	start := t0.Add(2 * time.Hour)
	p := DefaultPolicy
	booked := Appointment{ID: 42, PatientID: 7, DoctorID: 3, Status: StatusBooked, StartAt: start}
	in := func(st Status) Appointment { a := booked; a.Status = st; return a }
	code := testCodes.Code(42)
	patient := CheckInRequest{AppointmentID: 42, PatientID: 7, Code: code, Codes: testCodes}
	staff := CheckInRequest{AppointmentID: 42, Codes: testCodes}
	doctor := CheckInRequest{AppointmentID: 42, DoctorID: 3, Codes: testCodes}
	with := func(r CheckInRequest, f func(*CheckInRequest)) CheckInRequest { f(&r); return r }
	open := start.Add(-time.Hour)
	for name, tc := range map[string]struct {
		a    Appointment
		r    CheckInRequest
		now  time.Time
		noop bool
		want Code
	}{
		"the patient with the code, at the start":        {booked, patient, start, false, ""},
		"the patient, as the window opens":               {booked, patient, open, false, ""},
		"the patient, as the window closes":              {booked, patient, start.Add(15 * time.Minute), false, ""},
		"a minute before the window":                     {booked, patient, open.Add(-time.Minute), false, CodeCheckInTooEarly},
		"a minute after the window":                      {booked, patient, start.Add(16 * time.Minute), false, CodeCheckInClosed},
		"the patient without a code":                     {booked, with(patient, func(r *CheckInRequest) { r.Code = "" }), start, false, CodeBadCheckInCode},
		"the patient with another appointment's code":    {booked, with(patient, func(r *CheckInRequest) { r.Code = testCodes.Code(43) }), start, false, CodeBadCheckInCode},
		"another patient, with the right code":           {booked, with(patient, func(r *CheckInRequest) { r.PatientID = 8 }), start, false, CodeNotFound},
		"another doctor":                                 {booked, with(doctor, func(r *CheckInRequest) { r.DoctorID = 4 }), start, false, CodeNotFound},
		"the doctor, no code":                            {booked, doctor, start, false, ""},
		"an admin, no code":                              {booked, staff, start, false, ""},
		"an admin with a wrong code (the kiosk)":         {booked, with(staff, func(r *CheckInRequest) { r.Code = "AAAAAAAA" }), start, false, CodeBadCheckInCode},
		"already arrived: answered as it is":             {in(StatusArrived), patient, start, true, ""},
		"already arrived, after the window":              {in(StatusArrived), staff, start.Add(time.Hour), true, ""},
		"already arrived, a wrong code is still wrong":   {in(StatusArrived), with(patient, func(r *CheckInRequest) { r.Code = "AAAAAAAA" }), start, false, CodeBadCheckInCode},
		"held (unpaid)":                                  {in(StatusHeld), patient, start, false, CodeInvalidTransition},
		"cancelled":                                      {in(StatusCancelled), staff, start, false, CodeInvalidTransition},
		"completed":                                      {in(StatusCompleted), staff, start, false, CodeInvalidTransition},
		"a no-show":                                      {in(StatusNoShow), staff, start, false, CodeInvalidTransition},
		"expired":                                        {in(StatusExpired), staff, start, false, CodeInvalidTransition},
		"a server without a key refuses patients' codes": {booked, with(patient, func(r *CheckInRequest) { r.Codes = CheckInCodes{} }), start, false, CodeBadCheckInCode},
	} {
		noop, err := DecideCheckIn(tc.a, tc.r, p, tc.now)
		if ErrorCode(err) != tc.want || noop != tc.noop {
			t.Errorf("%s: noop %v, %v; want noop %v, %q", name, noop, err, tc.noop, tc.want)
		}
	}
	// Too early names when the window opens.
	_, err := DecideCheckIn(booked, patient, p, t0)
	if e, ok := err.(*Error); !ok || e.OpensAt == nil || !e.OpensAt.Equal(open) {
		t.Fatalf("too early: %#v, want opensAt %s", err, open)
	}
	// The policy moves the window.
	wide := p
	wide.CheckInBeforeMinutes, wide.CheckInAfterMinutes = 180, 0
	if _, err := DecideCheckIn(booked, patient, wide, t0); err != nil {
		t.Fatalf("three hours before, with a 180-minute window: %v", err)
	}
	if _, err := DecideCheckIn(booked, patient, wide, start.Add(time.Second)); ErrorCode(err) != CodeCheckInClosed {
		t.Fatalf("after the start, with no minute after: %v", err)
	}
}

// The window's sides are validated with the policy.
func TestPolicyCheckInWindowValidation(t *testing.T) {
	if err := DefaultPolicy.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{{CheckInBeforeMinutes: -1}, {CheckInAfterMinutes: MaxCheckInMinutes + 1}} {
		if ErrorCode(p.Validate()) != CodeInvalidRequest {
			t.Errorf("%+v validated", p)
		}
	}
}

// The outcome names the metric counts under.
func TestCheckInOutcome(t *testing.T) {
	for _, tc := range []struct {
		repeat bool
		err    error
		want   string
	}{
		{false, nil, CheckInArrived}, {true, nil, CheckInRepeat},
		{false, Errorf(CodeCheckInClosed, "x"), string(CodeCheckInClosed)},
		{false, NotFound("appointment"), string(CodeNotFound)},
		{false, Errorf(CodeUnavailable, "x"), CheckInOther},
	} {
		if got := CheckInOutcome(tc.repeat, tc.err); got != tc.want {
			t.Errorf("%v %v: %s, want %s", tc.repeat, tc.err, got, tc.want)
		}
	}
}

// The automatic no-show: only BOOKED ordinary appointments, only with the
// grace on, only once it has passed since the start.
func TestAutoNoShow(t *testing.T) {
	start := t0.Add(time.Hour)
	a := Appointment{ID: 1, Status: StatusBooked, StartAt: start}
	p := DefaultPolicy
	p.NoShowGraceMinutes = 10
	in := func(st Status) Appointment { b := a; b.Status = st; return b }
	round := a
	round.RoundID = 3
	for name, tc := range map[string]struct {
		p    Policy
		a    Appointment
		now  time.Time
		want bool
	}{
		"booked, the grace passed":      {p, a, start.Add(10 * time.Minute), true},
		"booked, within the grace":      {p, a, start.Add(9 * time.Minute), false},
		"the grace off":                 {DefaultPolicy, a, start.Add(24 * time.Hour), false},
		"arrived: checked in, not gone": {p, in(StatusArrived), start.Add(time.Hour), false},
		"held":                          {p, in(StatusHeld), start.Add(time.Hour), false},
		"completed":                     {p, in(StatusCompleted), start.Add(time.Hour), false},
		"a room allocation":             {p, round, start.Add(time.Hour), false},
	} {
		if got := tc.p.AutoNoShow(tc.a, tc.now); got != tc.want {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	if ErrorCode(Policy{NoShowGraceMinutes: MaxCheckInMinutes + 1}.Validate()) != CodeInvalidRequest {
		t.Fatal("a grace over a day validated")
	}
}
