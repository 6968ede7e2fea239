package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// maxReturnURLLen bounds the URL the provider sends the patient back to.
const maxReturnURLLen = 2000

// checkoutAnswer is where the patient pays a held appointment: the
// provider's page (RedirectURL), or the parameters the clinic's own
// gateway takes (Params), open until ExpiresAt.
type checkoutAnswer struct {
	RedirectURL string            `json:"redirectUrl,omitempty"`
	Params      map[string]string `json:"params,omitempty"`
	ExpiresAt   time.Time         `json:"expiresAt"`
}

// checkout creates the payment of a HELD appointment at the provider
// (Service.Checkout): its owner's or an admin's. Repeating it answers the
// same payment.
func (s *server) checkout(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := owner(c)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		ReturnURL string `json:"returnUrl"`
		PayerID   string `json:"payerId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if u, err := url.Parse(in.ReturnURL); err != nil || len(in.ReturnURL) > maxReturnURLLen || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return inBody(errorf(booking.CodeInvalidRequest, "returnUrl must be an absolute http(s) URL of at most %d characters", maxReturnURLLen), "/returnUrl")
	}
	if in.PayerID != "" && !service.ValidTradeNo(in.PayerID) {
		return inBody(errorf(booking.CodeInvalidRequest, "payerId must be 1 to %d visible ASCII characters", service.MaxPayerIDLen), "/payerId")
	}
	co, err := s.svc.Checkout(r.Context(), id, patient, service.CheckoutTo{ReturnURL: in.ReturnURL, PayerID: in.PayerID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, checkoutAnswer{RedirectURL: co.RedirectURL, Params: co.Params, ExpiresAt: co.ExpiresAt.UTC()})
	return nil
}
