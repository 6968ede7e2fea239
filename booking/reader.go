package booking

import (
	"context"
	"time"
)

// Reader is the read-only part of a Store, which is all a front end may
// use of it directly: every change goes through the Service, which owns its
// timeout, its error classification and what it invalidates.
type Reader interface {
	// Ping checks that the database answers.
	Ping(ctx context.Context) error

	ListDepartments(ctx context.Context, p Page) ([]Department, error)
	ListAllDepartments(ctx context.Context, p Page) ([]Department, error)
	ListDepartmentsBy(ctx context.Context, f DepartmentFilter, p Page) ([]Department, error)
	GetDoctor(ctx context.Context, id int64) (Doctor, error)
	ListDoctors(ctx context.Context, departmentID int64, p Page) ([]Doctor, error)
	ListAllDoctors(ctx context.Context, departmentID int64, p Page) ([]Doctor, error)
	ListDoctorsBy(ctx context.Context, f DoctorFilter, p Page) ([]Doctor, error)
	GetPatient(ctx context.Context, id int64) (Patient, error)
	ListSchedules(ctx context.Context, doctorID int64) ([]Schedule, error)
	GetSlot(ctx context.Context, id int64) (Slot, error)
	ListSlots(ctx context.Context, doctorID int64, from, to time.Time) ([]Slot, error)
	ListSlotsPage(ctx context.Context, p SlotPage) ([]Slot, error)
	ListServices(ctx context.Context, f ServiceFilter, p Page) ([]Service, error)
	GetService(ctx context.Context, id int64) (Service, error)
	ListSites(ctx context.Context, p Page) ([]Site, error)
	ListSitesNear(ctx context.Context, q SitesNear) ([]SiteDistance, error)
	GetSite(ctx context.Context, id int64) (Site, error)
	GetPhoto(ctx context.Context, doctorID int64) (Photo, error)
	Search(ctx context.Context, q SearchQuery) ([]SearchHit, error)
	// ListOpenSlots lists the OPEN slots q asks for, by doctor then
	// start (FreePlaces reads them).
	ListOpenSlots(ctx context.Context, q OpenSlots) ([]Slot, error)

	ListRooms(ctx context.Context, f RoomFilter) ([]Room, error)
	GetRound(ctx context.Context, id int64) (Round, error)
	ListRoundSlots(ctx context.Context, roundID int64, f RoomFilter) ([]RoundSlot, error)
	RoundResults(ctx context.Context, roundID int64) ([]Allocation, error)
	ListApplications(ctx context.Context, q ApplicationQuery) ([]Application, error)

	ListWaitlist(ctx context.Context, patientID int64) ([]WaitlistEntry, error)
	ListOffers(ctx context.Context, doctorID int64, from, to time.Time) ([]WaitlistEntry, error)
}

var _ Reader = Store(nil)
