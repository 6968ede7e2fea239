package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// A department's board: every doctor's called number and next few on one
// screen in the waiting room they share. The clinic has no consulting-room
// entity, so each doctor's row stands for their room.

// DepartmentBoardDoctors is how many doctors one department board shows,
// a screen's worth: a department with more has more screens, each from
// its own ?after= (DepartmentBoard.NextAfter).
const DepartmentBoardDoctors = 8

// DepartmentBoardNext is how many waiting patients a department board
// lists per doctor.
const DepartmentBoardNext = 3

// DepartmentBoard is what a department's waiting room screen shows:
// masked names only, as Board.
type DepartmentBoard struct {
	DepartmentID int64   `json:"departmentId"`
	Department   string  `json:"department"`
	Doctors      []Board `json:"doctors"`
	// NextAfter is the after of the next screen's doctors, 0 on the last.
	NextAfter int64 `json:"nextAfter,omitempty"`
}

// DepartmentQueueBoard is department id's board now: its active doctors
// with ids after after, DepartmentBoardDoctors of them, by id. An unknown
// department is not found. Like QueueBoard, the front end decides who may
// open it.
func (s *Service) DepartmentQueueBoard(ctx context.Context, id, after int64) (DepartmentBoard, error) {
	if id <= 0 || after < 0 {
		return DepartmentBoard{}, booking.NotFound("department")
	}
	type read struct {
		dep  []booking.Department
		docs []booking.Doctor
	}
	v, err := bounded(s, ctx, func(ctx context.Context) (read, error) {
		// The page after id-1 of one is department id, if it exists.
		dep, err := s.store.ListAllDepartments(ctx, booking.Page{After: id - 1, Limit: 1})
		if err != nil || len(dep) == 0 || dep[0].ID != id {
			return read{}, err
		}
		docs, err := s.store.ListDoctors(ctx, id, booking.Page{After: after, Limit: DepartmentBoardDoctors + 1})
		return read{dep, docs}, err
	})
	if err != nil {
		return DepartmentBoard{}, err
	}
	if len(v.dep) == 0 {
		return DepartmentBoard{}, booking.NotFound("department")
	}
	b := DepartmentBoard{DepartmentID: id, Department: v.dep[0].Name, Doctors: []Board{}}
	if len(v.docs) > DepartmentBoardDoctors {
		v.docs = v.docs[:DepartmentBoardDoctors]
		b.NextAfter = v.docs[len(v.docs)-1].ID
	}
	for _, d := range v.docs {
		db, err := s.queueBoard(ctx, d.ID, DepartmentBoardNext)
		if err != nil {
			return DepartmentBoard{}, err
		}
		b.Doctors = append(b.Doctors, db)
	}
	return b, nil
}
