package csvdata

import (
	"io"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// DayRow is one appointment of an export with what the reader needs to
// know: when, with whom (the patient's name, looked up by the caller), the
// place in the queue and the state.
type DayRow struct {
	Appointment booking.Appointment
	DoctorName  string
	PatientName string
}

// AppointmentsHeader is the header of every appointments export. walk_in
// (true or false) comes last so that readers of the columns before it by
// position keep working.
var AppointmentsHeader = []string{"appointment_id", "doctor_id", "doctor", "start", "end", "queue_no", "patient_id", "patient", "status", "walk_in"}

// WriteAppointments writes rows as CSV, times in loc (RFC 3339), every
// cell safe against formula injection.
func WriteAppointments(w io.Writer, rows []DayRow, loc *time.Location) error {
	cw := NewWriter(w)
	if err := cw.Write(AppointmentsHeader...); err != nil {
		return err
	}
	for _, r := range rows {
		a := r.Appointment
		if err := cw.Write(strconv.FormatInt(a.ID, 10), strconv.FormatInt(a.DoctorID, 10), r.DoctorName,
			a.StartAt.In(loc).Format(time.RFC3339), a.EndAt.In(loc).Format(time.RFC3339), strconv.Itoa(a.QueueNumber),
			strconv.FormatInt(a.PatientID, 10), r.PatientName, string(a.Status), strconv.FormatBool(a.WalkIn)); err != nil {
			return err
		}
	}
	return cw.Flush()
}
