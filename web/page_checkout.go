package web

import (
	"net/http"

	"github.com/slotd/slotd/service"
)

// payOnline says the patient pays at the provider's own page (Stripe
// Checkout): outside the demo, whose simulated page stands in for it.
func (s *server) payOnline() bool { return !s.demo && s.svc.ProviderName() == service.ProviderStripe }

// handleCheckout sends the patient to the payment provider's page for
// their HELD appointment (Service.Checkout: one payment per appointment,
// so pressing Pay twice reaches the same page), to come back to the
// appointment's page, which shows what became of it.
func (s *server) handleCheckout(w http.ResponseWriter, r *http.Request) {
	if !s.payOnline() {
		s.handleNotFound(w, r)
		return
	}
	if !s.postForm(w, r) {
		return
	}
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	a, ok := s.ownAppointment(w, r, sess.PatientID)
	if !ok {
		return
	}
	base := s.publicURL
	if base == "" {
		base = "http://" + r.Host
		if r.TLS != nil {
			base = "https://" + r.Host
		}
	}
	c, err := s.svc.Checkout(r.Context(), a.ID, sess.PatientID, base+"/appointments/"+itoa(a.ID)+"?paid=1")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if c.RedirectURL == "" {
		s.handleNotFound(w, r)
		return
	}
	http.Redirect(w, r, c.RedirectURL, http.StatusSeeOther)
}

// PayOnline tells the templates to offer the provider's page.
func (p *page) PayOnline() bool { return p.srv.payOnline() }
