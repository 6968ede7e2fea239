package booking

import (
	"fmt"
	"testing"
	"time"
)

func TestReleasedAndDecideExpiry(t *testing.T) {
	at := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	expired := []Appointment{
		{ID: 1, SlotID: 7, PatientID: 3, Status: StatusExpired},
		{ID: 2, SlotID: 8, PatientID: 4, Status: StatusExpired},
		{ID: 5, SlotID: 7, PatientID: 6, Status: StatusExpired},
	}
	x := DecideExpiry(Actor{Role: ActorSystem, ID: "sweep"}, expired, at)
	if fmt.Sprint(x.Release.Places) != "map[7:2 8:1]" || fmt.Sprint(x.Release.EndOffers) != "map[EXPIRED:[1 2 5]]" {
		t.Fatalf("release = %+v", x.Release)
	}
	if len(x.Notify) != 3 || len(x.Audit) != 3 {
		t.Fatalf("expiry = %+v", x)
	}
	for i, n := range x.Notify {
		e := x.Audit[i]
		if n != (Notification{Kind: NotifyExpiry, AppointmentID: expired[i].ID}) || e.Action != "expire" || e.EntityID != expired[i].ID ||
			e.ActorID != "sweep" || AuditPatient(e) != expired[i].PatientID || e.Before != `{"status":"HELD","slotId":`+fmt.Sprint(expired[i].SlotID)+`,"patientId":`+fmt.Sprint(expired[i].PatientID)+`}` {
			t.Fatalf("effect %d: %+v %+v", i, n, e)
		}
	}
	if x := DecideExpiry(Actor{}, nil, at); len(x.Notify)+len(x.Audit)+len(x.Release.Places) != 0 {
		t.Fatalf("nothing expired: %+v", x)
	}
	r := Released([]Appointment{{ID: 9, SlotID: 1, Status: StatusCancelled}, {ID: 10, SlotID: 1, Status: StatusBooked}})
	if fmt.Sprint(r.EndOffers) != "map[ACCEPTED:[10] DECLINED:[9]]" || r.Places[1] != 2 {
		t.Fatalf("released = %+v", r)
	}
}

func TestCheckSuspension(t *testing.T) {
	from := time.Date(2026, 6, 1, 8, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	got, err := CheckSuspension(Suspension{ID: 9, DoctorID: 3, From: from.Add(999 * time.Nanosecond), To: from.Add(time.Hour + 1999*time.Nanosecond),
		Reason: "r", CreatedAt: from, LiftedAt: &from})
	want := Suspension{Scope: ScopeDoctor, DoctorID: 3, From: from.UTC(), To: from.Add(time.Hour + time.Microsecond).UTC(), Reason: "r"}
	if err != nil || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Fatalf("CheckSuspension = %+v (%v), want %+v", got, err, want)
	}
	for name, s := range map[string]Suspension{
		"within one microsecond": {DoctorID: 3, From: from, To: from.Add(999 * time.Nanosecond)},
		"backwards":              {DoctorID: 3, From: from, To: from.Add(-time.Hour)},
		"no doctor":              {From: from, To: from.Add(time.Hour)},
		"a clinic with a doctor": {Scope: ScopeClinic, DoctorID: 3, From: from, To: from.Add(time.Hour)},
	} {
		if _, err := CheckSuspension(s); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%s: %v, want invalid-request", name, err)
		}
	}
	if e := SuspensionNotFound(Suspension{Scope: ScopeDepartment}); ErrorCode(e) != CodeNotFound || e.Error() == SuspensionNotFound(want).Error() {
		t.Fatalf("not found: %v / %v", e, SuspensionNotFound(want))
	}
}

func TestDecideLeave(t *testing.T) {
	at := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	held := &Appointment{ID: 4, Status: StatusHeld}
	for name, tc := range map[string]struct {
		e       *WaitlistEntry
		a       *Appointment
		changed bool
		cancel  bool
		code    Code
	}{
		"none":                 {e: nil, code: CodeNotFound},
		"another patient's":    {e: &WaitlistEntry{PatientID: 2, State: EntryWaiting}, code: CodeNotFound},
		"waiting":              {e: &WaitlistEntry{PatientID: 1, State: EntryWaiting, Position: 3}, changed: true},
		"offered":              {e: &WaitlistEntry{PatientID: 1, State: EntryOffered}, a: held, changed: true, cancel: true},
		"offered, offer ended": {e: &WaitlistEntry{PatientID: 1, State: EntryOffered}, a: &Appointment{ID: 4, Status: StatusCancelled}, changed: true},
		"cancelled already":    {e: &WaitlistEntry{PatientID: 1, State: EntryCancelled, UpdatedAt: at.Add(-time.Hour)}},
		"fulfilled":            {e: &WaitlistEntry{PatientID: 1, State: EntryFulfilled}, a: held},
	} {
		d, err := DecideLeave(tc.e, tc.a, 1, at)
		switch {
		case tc.code != "":
			if ErrorCode(err) != tc.code {
				t.Errorf("%s: %v, want %s", name, err, tc.code)
			}
		case err != nil || d.Changed != tc.changed || d.CancelOffer != tc.cancel:
			t.Errorf("%s: %+v (%v)", name, d, err)
		case tc.changed && (d.Answer.State != EntryCancelled || !d.Answer.UpdatedAt.Equal(at) || d.Answer.Position != 0):
			t.Errorf("%s: answered %+v", name, d.Answer)
		case !tc.changed && fmt.Sprintf("%+v", d.Answer) != fmt.Sprintf("%+v", *tc.e):
			t.Errorf("%s: answered %+v, want the entry as it is", name, d.Answer)
		}
	}
}
