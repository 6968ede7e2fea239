package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
)

// benchEcho decodes a booking-sized JSON body and answers JSON, touching
// no database: with --bench-endpoints, `slotd rush --scenario echo`
// measures the HTTP ceiling of this server in the same run as the bookings.
func (s *server) benchEcho(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		SlotID    int64 `json:"slotId"`
		PatientID int64 `json:"patientId,omitempty"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"slotId": in.SlotID, "ok": true})
	return nil
}
