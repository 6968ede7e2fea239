package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// A slot listing for one person (docs/campaigns.md): a signed-in patient
// (themselves, or ?patientId= of a person the account manages) or the
// front desk naming ?patientId= gets, beside each slot whose schedule has
// an eligibility rule, what that person can take of it (availableToYou)
// and, when 0 because of the rule, why (reason). The anonymous listing
// and its cache are left as they are: the personal part is one read of
// the shown slots' rules (and, when a rule asks, the person) added to the
// cached answer, and never cached itself.

// personalAsk is whose listing a request asks for; ok is false for the
// anonymous listing (no token and no patientId, or staff naming nobody).
func (s *server) personalAsk(r *http.Request, q map[string]string) (service.PersonalQuery, bool, error) {
	raw, named := q["patientId"]
	var id int64
	if named {
		var err error
		if id, err = parseID(raw, "patientId"); err != nil {
			return service.PersonalQuery{}, false, inParam(err, "patientId")
		}
	}
	if !named && r.Header.Get("Authorization") == "" {
		return service.PersonalQuery{}, false, nil
	}
	c, err := s.authenticate(r)
	switch {
	case err != nil && named:
		return service.PersonalQuery{}, false, err
	case err != nil, !named && c.Role != auth.RolePatient:
		return service.PersonalQuery{}, false, nil
	}
	acting, err := s.svc.ActFor(r.Context(), actorOf(c), id)
	return service.PersonalQuery{Acting: acting}, err == nil, err
}

// placesFor is what the asked person can take of the slots, by slot id.
func (s *server) placesFor(r *http.Request, pq service.PersonalQuery, slotIDs []int64) (map[int64]booking.PersonalPlaces, error) {
	pq.SlotIDs = slotIDs
	return s.svc.PlacesForPerson(r.Context(), pq)
}

// writePersonal answers a listing for one person: never kept by a shared
// cache.
func writePersonal(w http.ResponseWriter, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
	return nil
}
