package web

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// payOnline says the patient pays at the provider (Stripe Checkout's
// page, or WeChat Pay's QR code on ours): outside the demo, whose
// simulated page stands in for it.
func (s *server) payOnline() bool {
	name := s.svc.ProviderName()
	return !s.demo && (name == service.ProviderStripe || name == service.ProviderWeChat)
}

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
	c, err := s.svc.Checkout(r.Context(), a.ID, sess.PatientID, service.CheckoutTo{ReturnURL: base + "/appointments/" + itoa(a.ID) + "?paid=1"})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if code := c.Params["codeUrl"]; code != "" {
		s.renderWeChatQR(w, r, a, code)
		return
	}
	if c.RedirectURL == "" {
		s.handleNotFound(w, r)
		return
	}
	http.Redirect(w, r, c.RedirectURL, http.StatusSeeOther)
}

// wechatQR is the WeChat Pay page's data: the appointment and the QR code
// of its Native order's code_url, as a PNG data URL.
type wechatQR struct {
	apptView
	QR template.URL
}

// renderWeChatQR shows the QR code of a WeChat Pay Native order: the
// patient scans it in WeChat and pays there; the appointment's page then
// shows what became of it.
func (s *server) renderWeChatQR(w http.ResponseWriter, r *http.Request, a booking.Appointment, codeURL string) {
	// Byte mode (a URL), M recovers from a screen's glare.
	q, err := qr.Encode(codeURL, qr.M, qr.Auto)
	if err == nil {
		q, err = barcode.Scale(q, qrPixels, qrPixels)
	}
	var b bytes.Buffer
	if err == nil {
		err = png.Encode(&b, q)
	}
	if err != nil {
		s.renderError(w, r, &booking.Error{Code: booking.CodeInternal, Message: "internal error", Err: err})
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p := s.newPage(w, r, "Pay with WeChat")
	// A data URL the page's own bytes hold (the CSP allows img-src data:):
	// the code is the order's, never cached or served apart.
	p.Data = wechatQR{apptView: s.apptViewOf(ctx, p.pr, a), QR: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()))}
	s.render(w, r, http.StatusOK, "wechat_pay", p)
}

// PayOnline tells the templates to offer the provider's page.
func (p *page) PayOnline() bool { return p.srv.payOnline() }
