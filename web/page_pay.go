package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/slotd/slotd/booking"
)

// PaymentSignatureHeader carries the hex HMAC-SHA256 of a payment
// callback's raw body.
const PaymentSignatureHeader = "X-Slotd-Signature"

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
	p.Data = s.apptViewOf(ctx, a)
	s.render(w, r, http.StatusOK, "pay", p)
}

// handlePaySubmit plays the payment provider: it signs a callback
// {"tradeNo","appointmentId","amount"} with the payment secret and sends it
// through the API's callback handler in-process, the same code path a real
// provider's callback takes.
func (s *server) handlePaySubmit(w http.ResponseWriter, r *http.Request) {
	if !s.demo {
		s.handleNotFound(w, r)
		return
	}
	if !s.postForm(w, r) {
		return
	}
	sess := s.sessionOf(r)
	if !sess.Patient() {
		s.renderError(w, r, booking.Errorf(booking.CodeUnauthorized, "sign in"))
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
	body, _ := json.Marshal(struct {
		TradeNo       string `json:"tradeNo"`
		AppointmentID int64  `json:"appointmentId"`
		Amount        int64  `json:"amount"`
	}{"demo-" + trade, a.ID, sl.FeeCents})
	if err := s.sendPayment(r, body); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/appointments/"+itoa(a.ID)+"?paid=1")
}

// sendPayment delivers a signed callback body to the API's callback handler,
// or, when no handler or secret is wired, records the payment in the store
// directly.
func (s *server) sendPayment(r *http.Request, body []byte) error {
	if s.payCallback == nil || len(s.paySecret) == 0 {
		var in struct {
			TradeNo       string `json:"tradeNo"`
			AppointmentID int64  `json:"appointmentId"`
			Amount        int64  `json:"amount"`
		}
		_ = json.Unmarshal(body, &in)
		ctx, cancel := s.storeCtx(r.Context())
		defer cancel()
		_, err := s.store.ConfirmPayment(ctx, booking.Payment{TradeNo: in.TradeNo, AppointmentID: in.AppointmentID,
			AmountCents: in.Amount, ReceivedAt: s.now()}, s.now())
		return err
	}
	m := hmac.New(sha256.New, s.paySecret)
	m.Write(body)
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, "/api/payments/callback", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(PaymentSignatureHeader, hex.EncodeToString(m.Sum(nil)))
	req.RemoteAddr = r.RemoteAddr
	rec := &bufferWriter{header: http.Header{}}
	s.payCallback.ServeHTTP(rec, req)
	if rec.status == 0 || rec.status/100 == 2 {
		return nil
	}
	// A problem+json answer: its type is /problems/<code>.
	var prob struct {
		Type   string `json:"type"`
		Detail string `json:"detail"`
	}
	_ = json.Unmarshal(rec.body.Bytes(), &prob)
	code := booking.Code(strings.TrimPrefix(prob.Type, "/problems/"))
	if _, ok := problems[code]; !ok {
		code = booking.CodeInternal
	}
	return &booking.Error{Code: code, Message: prob.Detail}
}

// bufferWriter is an in-memory http.ResponseWriter for in-process calls.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
