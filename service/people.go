package service

import (
	"cmp"
	"context"
	"sync"

	"github.com/slotd/slotd/booking"
)

// PeopleObserver is what an Options.Observer may also implement to count
// the accounts' changes to their people (cmd/slotd's metrics do).
type PeopleObserver interface {
	// Person counts one change by action (booking.PersonActions) and
	// outcome: "done" or the problem code that refused it.
	Person(action, outcome string)
}

// observePerson counts a change to a person by its outcome.
func (s *Service) observePerson(action string, err error) {
	if o, ok := s.observer.(PeopleObserver); ok {
		outcome := "done"
		if err != nil {
			outcome = string(cmp.Or(booking.ErrorCode(err), "failed"))
		}
		o.Person(action, outcome)
	}
}

// People lists one page of the account and the people it manages who are
// not removed, by id: the account first.
func (s *Service) People(ctx context.Context, account int64, p booking.Page) ([]booking.Patient, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.Patient, error) { return s.store.People(ctx, account, p) })
}

// AddPerson adds a person account manages, within the clinic's maxPeople
// (the account included): beyond it a conflict. Where the clinic registers
// real names, the person's national ID number is required, and one another
// patient has is CodeNationalIDTaken.
func (s *Service) AddPerson(ctx context.Context, account int64, in booking.PersonInput) (p booking.Patient, err error) {
	defer func() { s.observePerson(booking.PersonAdd, err) }()
	in, err = booking.CheckPerson(in, s.now(), true)
	if err != nil {
		return booking.Patient{}, err
	}
	pol, err := s.ClinicPolicy(ctx)
	if err != nil {
		return booking.Patient{}, err
	}
	if in.NationalID, err = booking.CheckNationalID(in.NationalID, pol.RequireNationalID); err != nil {
		return booking.Patient{}, err
	}
	p = booking.PersonOf(account, in, s.now())
	return bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.AddPerson(ctx, p, pol.MaxPeople) })
}

// PersonPatch is an account's edit of a person it manages: nil fields keep
// their value.
type PersonPatch struct {
	Name, BirthDate, Sex, Relation, NationalID *string
}

// UpdatePerson edits a person account manages (not the account itself:
// its own row is its profile). Another account's person is not found.
func (s *Service) UpdatePerson(ctx context.Context, account, id int64, u PersonPatch) (_ booking.Patient, err error) {
	defer func() { s.observePerson(booking.PersonUpdate, err) }()
	p, err := s.person(ctx, account, id)
	if err != nil {
		return booking.Patient{}, err
	}
	in := booking.PersonInput{Name: p.Name, BirthDate: p.BirthDate, Sex: p.Sex, Relation: p.Relation}
	for _, f := range []struct{ dst, src *string }{{&in.Name, u.Name}, {&in.BirthDate, u.BirthDate}, {&in.Sex, u.Sex}, {&in.Relation, u.Relation}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if in, err = booking.CheckPerson(in, s.now(), false); err != nil {
		return booking.Patient{}, err
	}
	up := booking.PatientUpdate{Name: &in.Name, BirthDate: &in.BirthDate, Sex: &in.Sex, Relation: &in.Relation}
	if u.NationalID != nil {
		pol, err := s.ClinicPolicy(ctx)
		if err != nil {
			return booking.Patient{}, err
		}
		nid, err := booking.CheckNationalID(*u.NationalID, pol.RequireNationalID)
		if err != nil {
			return booking.Patient{}, err
		}
		up.NationalID = &nid
	}
	return s.UpdatePatient(ctx, id, up)
}

// RemovePerson removes a person account manages: refused (a conflict)
// while they hold an active appointment, else erased as an erasure does
// (their history stays, their data goes). Another account's person is not
// found.
func (s *Service) RemovePerson(ctx context.Context, account, id int64) (_ booking.Patient, err error) {
	defer func() { s.observePerson(booking.PersonRemove, err) }()
	if _, err := s.person(ctx, account, id); err != nil {
		return booking.Patient{}, err
	}
	as, err := s.Appointments(ctx, id, "", booking.Page{})
	if err != nil {
		return booking.Patient{}, err
	}
	for _, a := range as {
		if a.Status.Active() {
			return booking.Patient{}, booking.Errorf(booking.CodeConflict, "this person holds active appointments: cancel them first")
		}
	}
	s.managers.forget(id)
	return s.ErasePatient(ctx, id, "removed by its account")
}

// person returns a person account manages, not the account itself; any
// other id is not found.
func (s *Service) person(ctx context.Context, account, id int64) (booking.Patient, error) {
	p, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.GetPatient(ctx, id) })
	if booking.ErrorCode(err) == booking.CodeNotFound || (err == nil && (id == account || !booking.Manages(account, p))) {
		return booking.Patient{}, booking.NotFound("person")
	}
	return p, err
}

// manages reports whether account manages person, from the managers
// cache, reading the person once on a miss. A person's manager never
// changes, so the cache is never wrong about a live person; a removed or
// erased one is deactivated, which every booking refuses in its own
// transaction whatever the cache says, and Remove drops it here at once.
func (s *Service) manages(ctx context.Context, account, person int64) (bool, error) {
	if m, ok := s.managers.get(person); ok {
		return m == account, nil
	}
	p, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.GetPatient(ctx, person) })
	if booking.ErrorCode(err) == booking.CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if p.ErasedAt != nil {
		return false, nil
	}
	s.managers.put(person, p.ManagerID)
	return p.ManagerID == account, nil
}

// maxManagers bounds the managers cache: past it, it starts again empty
// (a miss costs one read of a patient).
const maxManagers = 10000

// managerCache maps a patient id to its manager (0 for an account).
type managerCache struct {
	mu sync.Mutex
	m  map[int64]int64
}

func (c *managerCache) get(id int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[id]
	return m, ok
}

func (c *managerCache) put(id, manager int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxManagers {
		c.m = make(map[int64]int64)
	}
	c.m[id] = manager
}

func (c *managerCache) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}
