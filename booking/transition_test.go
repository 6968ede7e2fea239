package booking

import (
	"testing"
	"time"
)

// Why a cancel changed nothing, and what a staff click does.
func TestCancelRefusalAndStaffTransition(t *testing.T) {
	a := Appointment{ID: 1, PatientID: 7, Status: StatusBooked, StartAt: t0.Add(time.Hour)}
	for name, tc := range map[string]struct {
		a       Appointment
		patient int64
		at      time.Time
		cutoff  time.Duration
		want    Code
	}{
		"another patient's": {a, 8, t0, 0, CodeNotFound},
		"started":           {a, 7, a.StartAt, 0, CodeAlreadyStarted},
		"completed":         {Appointment{PatientID: 7, Status: StatusCompleted, StartAt: a.StartAt}, 0, t0, 0, CodeInvalidTransition},
		"cancelled already": {Appointment{PatientID: 7, Status: StatusCancelled}, 7, t0, 0, ""},
		"within the cutoff": {a, 7, t0, 2 * time.Hour, CodeCancelCutoff},
		"staff, no cutoff":  {a, 0, t0, 0, CodeInvalidTransition},
	} {
		if got := ErrorCode(CancelRefusal(tc.a, tc.patient, tc.at, tc.cutoff)); got != tc.want {
			t.Errorf("%s: %s, want %s", name, got, tc.want)
		}
	}
	if noop, err := StaffTransition(StatusCompleted, StatusCompleted, t0, t0); !noop || err != nil {
		t.Fatalf("a repeated click: %v %v", noop, err)
	}
	if _, err := StaffTransition(StatusHeld, StatusCompleted, t0, t0); ErrorCode(err) != CodeInvalidTransition {
		t.Fatalf("HELD -> COMPLETED: %v", err)
	}
	if _, err := StaffTransition(StatusBooked, StatusCancelled, t0, t0); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("staff cancel through Transition: %v", err)
	}
	if noop, err := StaffTransition(StatusBooked, StatusNoShow, t0, t0); noop || err != nil {
		t.Fatalf("BOOKED -> NO_SHOW: %v %v", noop, err)
	}
	if _, err := StaffTransition(StatusBooked, StatusNoShow, t0.Add(time.Minute), t0); ErrorCode(err) != CodeNotStarted {
		t.Fatalf("a no-show before the start: %v", err)
	}
}

// One suspension notice per patient, naming their earliest appointment.
func TestSuspensionNotices(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	ns := SuspensionNotices(5, []Appointment{
		{ID: 4, PatientID: 1, StartAt: at(30)}, {ID: 2, PatientID: 1, StartAt: at(10)},
		{ID: 3, PatientID: 2, StartAt: at(10)}, {ID: 1, PatientID: 2, StartAt: at(10)},
		{ID: 9, PatientID: 3, StartAt: at(0)},
	})
	want := []Notification{{Kind: NotifySuspension, AppointmentID: 1, SuspensionID: 5}, {Kind: NotifySuspension, AppointmentID: 2, SuspensionID: 5}, {Kind: NotifySuspension, AppointmentID: 9, SuspensionID: 5}}
	if len(ns) != len(want) {
		t.Fatalf("%+v", ns)
	}
	for i := range want {
		if ns[i] != want[i] {
			t.Fatalf("%+v, want %+v", ns, want)
		}
	}
}

// ARRIVED holds the place; it comes only from BOOKED and leaves for what a
// clinic records of a visit (seen, gone unseen, called off), and staff
// mark it completed or a no-show once it has started.
func TestArrivedTransitions(t *testing.T) {
	if !StatusArrived.Active() || !StatusArrived.Valid() {
		t.Fatal("ARRIVED must be a known active state")
	}
	for _, from := range Statuses {
		if want := from == StatusBooked; CanTransition(from, StatusArrived) != want {
			t.Errorf("%s -> ARRIVED allowed: %v, want %v", from, !want, want)
		}
	}
	for _, to := range []Status{StatusCompleted, StatusNoShow, StatusCancelled} {
		if !CanTransition(StatusArrived, to) {
			t.Errorf("ARRIVED -> %s refused", to)
		}
	}
	for _, to := range []Status{StatusHeld, StatusBooked, StatusExpired} {
		if CanTransition(StatusArrived, to) {
			t.Errorf("ARRIVED -> %s allowed", to)
		}
	}
	for _, to := range []Status{StatusCompleted, StatusNoShow} {
		if noop, err := StaffTransition(StatusArrived, to, t0, t0); noop || err != nil {
			t.Errorf("staff ARRIVED -> %s: %v %v", to, noop, err)
		}
		if _, err := StaffTransition(StatusArrived, to, t0.Add(time.Minute), t0); ErrorCode(err) != CodeNotStarted {
			t.Errorf("staff ARRIVED -> %s before the start: %v", to, err)
		}
	}
}
