package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
)

// signOut is POST /api/signout: the caller's token, and every token of its
// subject minted until now, is refused from now on (service.Service.SignOut).
func (s *server) signOut(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	if err := s.svc.SignOut(r.Context(), string(c.Role), c.Subject); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
