package web

import (
	"encoding/json"
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// handlePay is the demo's simulated payment provider page for a HELD
// appointment. It exists only in demo mode.
func (s *server) handlePay(w http.ResponseWriter, r *http.Request) {
	if !s.demo {
		s.handleNotFound(w, r)
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
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p := s.newPage(w, r, "Pay (simulated)")
	p.Data = s.apptViewOf(ctx, p.pr, a)
	s.render(w, r, http.StatusOK, "pay", p)
}

// handlePaySubmit plays the payment provider: it writes the callback body
// {"tradeNo","appointmentId","amount"} a provider would send, signs it as
// the provider does and verifies it as the API does (auth.SignPayment and
// auth.VerifyPayment, the one definition of the signature), and has the
// Service record the payment, the same call the API's callback makes.
func (s *server) handlePaySubmit(w http.ResponseWriter, r *http.Request) {
	if !s.demo {
		s.handleNotFound(w, r)
		return
	}
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	a, ok := s.ownAppointment(w, r, sess.PatientID)
	if !ok {
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	sl, err := s.store.GetSlot(ctx, a.SlotID)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	// One trade number per rendered pay form, so that paying twice with the
	// same form is one payment.
	trade := r.PostFormValue("trade")
	if !validKey(trade) {
		trade = newIdempotencyKey()
	}
	p, err := s.simulatePayment(demoCallback{"demo-" + trade, a.ID, sl.FeeCents, s.currency.Code, s.svc.Now().Unix()})
	if err == nil {
		_, err = s.svc.ConfirmPayment(r.Context(), p)
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/appointments/"+itoa(a.ID)+"?paid=1")
}

// demoCallback is the body of a payment provider's callback.
type demoCallback struct {
	TradeNo       string `json:"tradeNo"`
	AppointmentID int64  `json:"appointmentId"`
	Amount        int64  `json:"amount"`
	Currency      string `json:"currency"`
	Timestamp     int64  `json:"timestamp"`
}

// simulatePayment sends cb as a provider would: the raw body is signed with
// the payment secret, and only a body whose signature verifies is read back
// into the payment to record. Without a secret the demo is its own provider
// and records the payment unsigned.
func (s *server) simulatePayment(cb demoCallback) (booking.Payment, error) {
	body, err := json.Marshal(cb)
	if err != nil {
		return booking.Payment{}, err
	}
	if len(s.paySecret) > 0 {
		sig := auth.SignPayment(s.paySecret, body)
		if !auth.VerifyPayment(s.paySecret, body, sig) {
			return booking.Payment{}, booking.Errorf(booking.CodeBadSignature, "the payment signature does not verify")
		}
	}
	var in demoCallback
	if err := json.Unmarshal(body, &in); err != nil {
		return booking.Payment{}, err
	}
	if !auth.PaymentTimely(in.Timestamp, s.svc.Now()) || in.Currency != s.currency.Code {
		return booking.Payment{}, booking.Errorf(booking.CodeBadSignature, "the payment signature does not verify")
	}
	return booking.Payment{TradeNo: in.TradeNo, AppointmentID: in.AppointmentID, AmountCents: in.Amount}, nil
}
