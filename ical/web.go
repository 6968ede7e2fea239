package ical

import (
	"fmt"
	"net/http"

	"github.com/slotd/slotd/booking"
)

// WriteAppointment writes the .ics of one appointment that the caller has
// already authorized (the web UI's "Add to calendar", behind its session
// cookie), the same document GET /ical/appointments/{id} serves.
func (h *Handler) WriteAppointment(w http.ResponseWriter, r *http.Request, a booking.Appointment) error {
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="appointment-%d.ics"`, a.ID))
	return h.write(w, r, "Appointment", []booking.Appointment{a}, false)
}
