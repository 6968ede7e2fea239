package storetest

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// peopleService is a Service over s at the suite's now.
func peopleService(s booking.Store) *service.Service {
	return service.NewService(s, service.Options{Now: func() time.Time { return now }})
}

// asPatient is the caller a patient's token makes.
func asPatient(p booking.Patient) booking.Actor {
	return booking.Actor{Role: booking.RolePatient, ID: strconv.FormatInt(p.ID, 10)}
}

func child(name string) booking.PersonInput {
	return booking.PersonInput{Name: name, BirthDate: "2015-03-02", Sex: "female", Relation: booking.RelationChild, Consent: true}
}

// testPeople: an account adds, lists, edits and removes the people it
// manages, within the policy's maxPeople; another account's person is not
// found; removal is refused while the person holds an active appointment;
// erasing the account erases its people.
func testPeople(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := peopleService(s)
	acc, other := f.patient(), f.patient()

	_, err := svc.AddPerson(f.ctx, acc.ID, booking.PersonInput{Name: "Kid", BirthDate: "2015-03-02", Relation: booking.RelationChild})
	wantCode(t, err, booking.CodeInvalidRequest) // no consent
	bad := child("Kid")
	bad.Relation = booking.RelationSelf
	_, err = svc.AddPerson(f.ctx, acc.ID, bad)
	wantCode(t, err, booking.CodeInvalidRequest)

	pol, err := svc.ClinicPolicy(f.ctx)
	must(t, err)
	if pol.MaxPeople != booking.DefaultMaxPeople {
		t.Fatalf("maxPeople = %d, want the default %d", pol.MaxPeople, booking.DefaultMaxPeople)
	}
	pol.MaxPeople = 3
	_, err = svc.SetClinicPolicy(f.ctx, pol)
	must(t, err)

	kid, err := svc.AddPerson(f.ctx, acc.ID, child(" Kid "))
	must(t, err)
	if kid.ManagerID != acc.ID || kid.Name != "Kid" || kid.Relation != booking.RelationChild || kid.ConsentAt == nil || !kid.Active {
		t.Fatalf("added %+v", kid)
	}
	mum := child("Mum")
	mum.Relation, mum.BirthDate = booking.RelationParent, "1960-01-31"
	parent, err := svc.AddPerson(f.ctx, acc.ID, mum)
	must(t, err)
	_, err = svc.AddPerson(f.ctx, acc.ID, child("Third"))
	wantCode(t, err, booking.CodeConflict) // the account and two people are 3
	_, err = svc.AddPerson(f.ctx, kid.ID, child("Grandchild"))
	wantCode(t, err, booking.CodeNotFound) // a managed person is no account

	ps, err := svc.People(f.ctx, acc.ID, booking.Page{})
	must(t, err)
	if len(ps) != 3 || ps[0].ID != acc.ID || ps[1].ID != kid.ID || ps[2].ID != parent.ID || ps[1].BirthDate != "2015-03-02" {
		t.Fatalf("people = %+v", ps)
	}
	page, err := svc.People(f.ctx, acc.ID, booking.Page{After: acc.ID, Limit: 1})
	must(t, err)
	if len(page) != 1 || page[0].ID != kid.ID {
		t.Fatalf("second page = %+v", page)
	}
	theirs, err := svc.People(f.ctx, other.ID, booking.Page{})
	must(t, err)
	if len(theirs) != 1 || theirs[0].ID != other.ID {
		t.Fatalf("the other account's people = %+v", theirs)
	}

	name, rel := "Kiddo", booking.RelationOther
	edited, err := svc.UpdatePerson(f.ctx, acc.ID, kid.ID, service.PersonPatch{Name: &name, Relation: &rel})
	must(t, err)
	if edited.Name != "Kiddo" || edited.Relation != rel || edited.BirthDate != "2015-03-02" || edited.Sex != "female" {
		t.Fatalf("edited %+v", edited)
	}
	_, err = svc.UpdatePerson(f.ctx, other.ID, kid.ID, service.PersonPatch{Name: &name})
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.UpdatePerson(f.ctx, acc.ID, acc.ID, service.PersonPatch{Name: &name})
	wantCode(t, err, booking.CodeNotFound) // the account's own row is its profile
	bd := "not a date"
	_, err = svc.UpdatePerson(f.ctx, acc.ID, kid.ID, service.PersonPatch{BirthDate: &bd})
	wantCode(t, err, booking.CodeInvalidRequest)

	// Removal: refused while booked, then the person is erased.
	a := f.mustBook(f.slot(2).ID, kid)
	_, err = svc.RemovePerson(f.ctx, other.ID, kid.ID)
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.RemovePerson(f.ctx, acc.ID, kid.ID)
	wantCode(t, err, booking.CodeConflict)
	_, err = svc.Cancel(f.ctx, a.ID, acc.ID) // the account cancels its person's appointment
	must(t, err)
	removed, err := svc.RemovePerson(f.ctx, acc.ID, kid.ID)
	must(t, err)
	if removed.ErasedAt == nil || removed.Name != "" || removed.Active {
		t.Fatalf("removed %+v", removed)
	}
	_, err = svc.RemovePerson(f.ctx, acc.ID, kid.ID)
	wantCode(t, err, booking.CodeNotFound)
	if ps, err = svc.People(f.ctx, acc.ID, booking.Page{}); err != nil || len(ps) != 2 {
		t.Fatalf("people after removal = %+v, %v", ps, err)
	}
	// A removed person frees a place under the cap.
	again, err := svc.AddPerson(f.ctx, acc.ID, child("Again"))
	must(t, err)

	// Erasing the account erases its people.
	_, err = svc.ErasePatient(f.ctx, acc.ID, "asked to be forgotten")
	must(t, err)
	for _, id := range []int64{parent.ID, again.ID} {
		p, err := s.GetPatient(f.ctx, id)
		must(t, err)
		if p.ErasedAt == nil || p.Name != "" {
			t.Errorf("person %d after the account's erasure: %+v", id, p)
		}
	}
}

// testRaceAddPeople: many additions at once pass the cap by none.
func testRaceAddPeople(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := peopleService(s)
	acc := f.patient()
	const n = 12
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = svc.AddPerson(f.ctx, acc.ID, child(fmt.Sprintf("Kid %d", i)))
		}()
	}
	close(start)
	wg.Wait()
	added := 0
	for _, err := range errs {
		switch booking.ErrorCode(err) {
		case "":
			added++
		case booking.CodeConflict:
		default:
			t.Errorf("unexpected answer: %v", err)
		}
	}
	ps, err := svc.People(f.ctx, acc.ID, booking.Page{})
	must(t, err)
	if added != booking.DefaultMaxPeople-1 || len(ps) != booking.DefaultMaxPeople {
		t.Fatalf("added %d, people %d; want %d and %d", added, len(ps), booking.DefaultMaxPeople-1, booking.DefaultMaxPeople)
	}
}

// testBookForPerson: an account books for a person it manages, whose caps
// are their own; naming another account's person is not found and writes
// nothing; the account's list shows both its and its people's appointments.
func testBookForPerson(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := peopleService(s)
	acc, other := f.patient(), f.patient()
	kid, err := svc.AddPerson(f.ctx, acc.ID, child("Kid"))
	must(t, err)
	theirs, err := svc.AddPerson(f.ctx, other.ID, child("Their kid"))
	must(t, err)
	pol, err := svc.ClinicPolicy(f.ctx)
	must(t, err)
	pol.MaxActive = 1
	_, err = svc.SetClinicPolicy(f.ctx, pol)
	must(t, err)

	sl, sl2 := f.slot(3), f.slot(3)
	self, err := svc.ActFor(f.ctx, asPatient(acc), 0)
	must(t, err)
	mine := svc.BookFor(f.ctx, self, sl.ID, "me")
	must(t, mine.Err)
	forKid, err := svc.ActFor(f.ctx, asPatient(acc), kid.ID)
	must(t, err)
	if forKid.PatientID != kid.ID || forKid.Staff {
		t.Fatalf("acting %+v", forKid)
	}
	// The same slot: the overlap rule and the caps are the kid's own.
	kids := svc.BookFor(f.ctx, forKid, sl.ID, "kid")
	must(t, kids.Err)
	if kids.Appointment.PatientID != kid.ID {
		t.Fatalf("booked for %d, want the kid %d", kids.Appointment.PatientID, kid.ID)
	}
	wantCode(t, svc.BookFor(f.ctx, self, sl2.ID, "me-2").Err, booking.CodeLimitReached)
	wantCode(t, svc.BookFor(f.ctx, forKid, sl2.ID, "kid-2").Err, booking.CodeLimitReached)

	// Another account's person, and a patient who is nobody's person.
	for _, id := range []int64{theirs.ID, other.ID} {
		_, err = svc.ActFor(f.ctx, asPatient(acc), id)
		wantCode(t, err, booking.CodeNotFound)
	}
	if got := f.getSlot(sl2.ID).BookedCount; got != 0 {
		t.Fatalf("slot 2 booked %d after refusals", got)
	}
	as, err := svc.Appointments(f.ctx, theirs.ID, "", booking.Page{})
	must(t, err)
	if len(as) != 0 {
		t.Fatalf("their kid has %d appointments", len(as))
	}

	list, err := svc.AccountAppointments(f.ctx, acc.ID, "", booking.Page{})
	must(t, err)
	if len(list) != 2 || list[0].ID != kids.Appointment.ID || list[1].ID != mine.Appointment.ID {
		t.Fatalf("account's list = %+v", list)
	}
	// Its pages run across the people, newest first; a status narrows them.
	page, err := svc.AccountAppointments(f.ctx, acc.ID, booking.StatusBooked, booking.Page{Limit: 1})
	must(t, err)
	if len(page) != 1 || page[0].ID != kids.Appointment.ID {
		t.Fatalf("account's first page of one = %+v", page)
	}
	page, err = svc.AccountAppointments(f.ctx, acc.ID, booking.StatusBooked, booking.Page{After: page[0].ID, Limit: 1})
	must(t, err)
	if len(page) != 1 || page[0].ID != mine.Appointment.ID {
		t.Fatalf("account's second page of one = %+v", page)
	}
	if l, err := svc.AccountAppointments(f.ctx, acc.ID, booking.StatusCancelled, booking.Page{}); err != nil || len(l) != 0 {
		t.Fatalf("account's cancelled = %+v, %v", l, err)
	}
	if l, err := svc.AccountAppointments(f.ctx, other.ID, "", booking.Page{}); err != nil || len(l) != 0 {
		t.Fatalf("other's list = %+v, %v", l, err)
	}
	_, err = svc.Appointment(f.ctx, kids.Appointment.ID, acc.ID)
	must(t, err)
	_, err = svc.Appointment(f.ctx, kids.Appointment.ID, other.ID)
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.Cancel(f.ctx, kids.Appointment.ID, other.ID)
	wantCode(t, err, booking.CodeNotFound)
	c, err := svc.Cancel(f.ctx, kids.Appointment.ID, acc.ID)
	must(t, err)
	if c.Status != booking.StatusCancelled {
		t.Fatalf("cancelled: %+v", c)
	}
	// A removed person is acted for no more.
	_, err = svc.RemovePerson(f.ctx, acc.ID, kid.ID)
	must(t, err)
	_, err = svc.ActFor(f.ctx, asPatient(acc), kid.ID)
	wantCode(t, err, booking.CodeNotFound)
}

// testRacePeopleLastPlace: an account's two people and other patients
// rush the last place of a slot at once: exactly one gets it.
func testRacePeopleLastPlace(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := peopleService(s)
	acc := f.patient()
	var acting []booking.Acting
	for _, name := range []string{"Kid", "Kid 2"} {
		p, err := svc.AddPerson(f.ctx, acc.ID, child(name))
		must(t, err)
		a, err := svc.ActFor(f.ctx, asPatient(acc), p.ID)
		must(t, err)
		acting = append(acting, a)
	}
	for _, p := range f.patients(10) {
		acting = append(acting, booking.Acting{PatientID: p.ID})
	}
	sl := f.slot(2)
	f.mustBook(sl.ID, f.patient()) // one place left
	var wg sync.WaitGroup
	start := make(chan struct{})
	res := make([]booking.BookResult, len(acting))
	for i, a := range acting {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res[i] = svc.BookFor(f.ctx, a, sl.ID, "rush")
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for _, r := range res {
		switch booking.ErrorCode(r.Err) {
		case "":
			won++
		case booking.CodeSlotFull:
		default:
			t.Errorf("unexpected answer: %v", r.Err)
		}
	}
	if got := f.getSlot(sl.ID).BookedCount; won != 1 || got != 2 {
		t.Fatalf("%d won, slot booked %d; want 1 and 2", won, got)
	}
}

// testPersonMoves: an account reschedules and cancels its person's
// appointment, and joins, lists and leaves the waitlist for them; another
// account's every attempt is not found and changes nothing. The move keeps
// the appointment's own person (and so their idempotency record).
func testPersonMoves(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := peopleService(s)
	acc, other := f.patient(), f.patient()
	kid, err := svc.AddPerson(f.ctx, acc.ID, child("Kid"))
	must(t, err)
	forKid, err := svc.ActFor(f.ctx, asPatient(acc), kid.ID)
	must(t, err)
	from, to := f.slot(2), f.slot(2)
	booked := svc.BookFor(f.ctx, forKid, from.ID, "kid")
	must(t, booked.Err)

	move := service.RescheduleRequest{AppointmentID: booked.Appointment.ID, PatientID: other.ID, SlotID: to.ID, Key: "move"}
	_, err = svc.Reschedule(f.ctx, move)
	wantCode(t, err, booking.CodeNotFound)
	if got := f.getSlot(to.ID).BookedCount; got != 0 {
		t.Fatalf("another account's move booked the new slot: %d", got)
	}
	move.PatientID = acc.ID
	moved, err := svc.Reschedule(f.ctx, move)
	must(t, err)
	if moved.Appointment.PatientID != kid.ID || moved.Appointment.SlotID != to.ID || moved.Replayed {
		t.Fatalf("moved %+v", moved)
	}
	again, err := svc.Reschedule(f.ctx, move)
	must(t, err)
	if !again.Replayed || again.Appointment.ID != booked.Appointment.ID {
		t.Fatalf("retry %+v", again)
	}
	if a, b := f.getSlot(from.ID).BookedCount, f.getSlot(to.ID).BookedCount; a != 0 || b != 1 {
		t.Fatalf("slots booked %d and %d, want 0 and 1", a, b)
	}
	_, err = svc.Cancel(f.ctx, booked.Appointment.ID, other.ID)
	wantCode(t, err, booking.CodeNotFound)
	c, err := svc.Cancel(f.ctx, booked.Appointment.ID, acc.ID)
	must(t, err)
	if c.Status != booking.StatusCancelled || c.PatientID != kid.ID {
		t.Fatalf("cancelled %+v", c)
	}

	// The waitlist: the entry is the kid's; the other account cannot act
	// for the kid, so never names the entry as theirs.
	_, err = svc.ActFor(f.ctx, asPatient(other), kid.ID)
	wantCode(t, err, booking.CodeNotFound)
	e := booking.WaitlistEntry{PatientID: forKid.PatientID, DoctorID: f.doctor.ID, From: now, To: now.Add(30 * 24 * time.Hour),
		PartOfDay: booking.PartAny, IdempotencyKey: "wait"}
	joined, _, err := svc.JoinWaitlist(f.ctx, e)
	must(t, err)
	if joined.PatientID != kid.ID {
		t.Fatalf("joined %+v", joined)
	}
	_, err = svc.LeaveWaitlist(f.ctx, joined.ID, other.ID)
	wantCode(t, err, booking.CodeNotFound)
	if es, err := svc.Waitlist(f.ctx, acc.ID); err != nil || len(es) != 0 {
		t.Fatalf("the account's own waitlist: %+v, %v", es, err)
	}
	left, err := svc.LeaveWaitlist(f.ctx, joined.ID, kid.ID)
	must(t, err)
	if left.State != booking.EntryCancelled {
		t.Fatalf("left %+v", left)
	}
}
