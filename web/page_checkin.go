package web

import (
	"bytes"
	"image/png"
	"net/http"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/qr"

	"github.com/slotd/slotd/booking"
)

// qrPixels is the check-in QR image's side: large enough for a phone held
// up to a tablet's camera, small enough to stay a few kilobytes.
const qrPixels = 256

// handleCheckInQR is the QR image of an appointment's check-in code, for
// the kiosk's camera: authorized like the appointment page (the patient's
// own appointment, else not found). The code never changes, so the image
// may be kept privately for a day.
func (s *server) handleCheckInQR(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	a, ok := s.ownAppointment(w, r, sess.PatientID)
	if !ok {
		return
	}
	code := s.svc.CheckInCode(a.ID)
	if code == "" {
		s.handleNotFound(w, r)
		return
	}
	// The code is upper case, digits and a dash: QR's alphanumeric mode,
	// the smallest symbol; M recovers from a smudged screen.
	q, err := qr.Encode(code, qr.M, qr.AlphaNumeric)
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
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "private, max-age=86400")
	h.Set("ETag", `"`+code+`"`)
	if r.Header.Get("If-None-Match") == `"`+code+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(b.Bytes())
}

// handleKiosk is the entrance tablet's page (staff): a code typed, or
// scanned by the camera where the browser can, checks its patient in.
func (s *server) handleKiosk(w http.ResponseWriter, r *http.Request, _ session) {
	p := s.newPage(w, r, "Check-in")
	p.Data = kioskView{}
	s.render(w, r, http.StatusOK, "kiosk", p)
}

// kioskView is the kiosk page: the last check-in's answer, if any.
type kioskView struct {
	Arrived bool
	Queue   int
	Doctor  string
	Time    string
}

// handleKioskCheckIn checks in the appointment of the code typed or
// scanned, and answers on the kiosk page itself (200 or the refusal's
// status), ready for the next person.
func (s *server) handleKioskCheckIn(w http.ResponseWriter, r *http.Request, sess session) {
	p := s.newPage(w, r, "Check-in")
	a, _, err := s.svc.CheckInByCode(r.Context(), sess.actor(), r.PostFormValue("code"))
	var v kioskView
	status := http.StatusOK
	if err != nil {
		p.Problem, status = s.explain(r, err)
	} else {
		v.Arrived, v.Queue = true, a.QueueNumber
		loc := s.clinicZone
		v.Doctor = p.T("Doctor")
		ctx, cancel := s.storeCtx(r.Context())
		if d, err := s.store.GetDoctor(ctx, a.DoctorID); err == nil {
			v.Doctor, loc = d.Name, zone(d.TimeZone)
		}
		cancel()
		v.Time = fmtClock(p.pr, a.StartAt, loc)
	}
	p.Data = v
	s.render(w, r, status, "kiosk", p)
}

// handleDayCheckIn is the day page's Check in button: staff (or the
// appointment's doctor, on their own day page) check a patient in
// without a code.
func (s *server) handleDayCheckIn(w http.ResponseWriter, r *http.Request, sess session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, _, err := s.svc.CheckIn(r.Context(), sess.actor(), id, ""); err != nil {
		s.renderError(w, r, err)
		return
	}
	fallback := "/staff"
	if sess.IsDoctor() {
		fallback = "/doctor/days/today"
	}
	redirect(w, r, safeNext(r.PostFormValue("next"), fallback)+"?done=1")
}
