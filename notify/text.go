package notify

import (
	"fmt"
	"strings"
	"time"
)

// localLayout shows a time as a patient reads it: "Mon 7 Dec 2026 09:30".
const localLayout = "Mon 2 Jan 2006 15:04"

// LocalTime formats t in the IANA zone tz, followed by the zone's name, e.g.
// "Mon 7 Dec 2026 09:30 (Europe/Paris)". The zone is named rather than given
// as an offset because patients know their city, not their UTC offset. An
// empty or unknown zone falls back to UTC and says so, rather than showing a
// wrong local time without warning.
func LocalTime(t time.Time, tz string) string {
	loc, err := time.LoadLocation(tz)
	if tz == "" || err != nil {
		return t.UTC().Format(localLayout) + " (UTC)"
	}
	return t.In(loc).Format(localLayout) + " (" + tz + ")"
}

// Text renders a message for people: a subject and a plain-text body in
// English, with times in the doctor's zone. SMTP sends both; the log
// notifier logs the subject only, because the body of a login-code message
// carries the code. Subjects therefore never contain codes or contact data.
func Text(m Message) (subject, body string) {
	// A message without a time (which should not happen outside login
	// codes) says less rather than showing "1 Jan 0001".
	when, onWhen, dash := "", "", ""
	if !m.StartAt.IsZero() {
		when = LocalTime(m.StartAt, m.TimeZone)
		onWhen, dash = " on "+when, ": "+when
	}
	// Names are one line each: they come from admin input and a line
	// break would garble the text.
	doctor, patient := headerSafe(m.DoctorName), headerSafe(m.PatientName)
	if doctor == "" {
		doctor = "your doctor"
	}

	var b strings.Builder
	if patient != "" {
		fmt.Fprintf(&b, "Hello %s,\n\n", patient)
	} else {
		b.WriteString("Hello,\n\n")
	}

	switch m.Kind {
	case KindConfirmation:
		subject = "Appointment confirmed" + dash
		fmt.Fprintf(&b, "Your appointment with %s%s is confirmed.\n", doctor, onWhen)
		if m.QueueNumber > 0 {
			fmt.Fprintf(&b, "Your number in the queue is No. %d.\n", m.QueueNumber)
		}
		b.WriteString("If you cannot come, please cancel it so that someone else can have the place.\n")
	case KindCancellation:
		subject = "Appointment cancelled" + dash
		fmt.Fprintf(&b, "Your appointment with %s%s", doctor, onWhen)
		if m.QueueNumber > 0 {
			fmt.Fprintf(&b, " (No. %d)", m.QueueNumber)
		}
		b.WriteString(" has been cancelled.\n")
	case KindExpiry:
		subject = "Appointment hold expired" + dash
		fmt.Fprintf(&b, "Your hold on the appointment with %s%s expired before the payment was confirmed, so the place has been released.\n", doctor, onWhen)
		b.WriteString("You can book again if places remain.\n")
	case KindSuspension:
		subject = "Appointment cancelled by the clinic" + dash
		fmt.Fprintf(&b, "We are sorry: the clinic has cancelled your appointment with %s%s", doctor, onWhen)
		if m.QueueNumber > 0 {
			fmt.Fprintf(&b, " (No. %d)", m.QueueNumber)
		}
		b.WriteString(".\n")
		if m.Reason != "" {
			fmt.Fprintf(&b, "Reason: %s\n", m.Reason)
		}
		b.WriteString("Please book another time.\n")
	case KindRescheduled:
		subject = "Appointment moved" + dash
		fmt.Fprintf(&b, "Your appointment has been moved: it is now with %s%s.\n", doctor, onWhen)
		if m.QueueNumber > 0 {
			fmt.Fprintf(&b, "Your number in the queue is No. %d.\n", m.QueueNumber)
		}
		b.WriteString("Your previous time is no longer reserved.\n")
	case KindReminder:
		subject = "Appointment reminder" + dash
		fmt.Fprintf(&b, "A reminder: your appointment with %s is%s.\n", doctor, onWhen)
		if m.QueueNumber > 0 {
			fmt.Fprintf(&b, "Your number in the queue is No. %d.\n", m.QueueNumber)
		}
		b.WriteString("If you cannot come, please cancel it so that someone else can have the place.\n")
	case KindOffer:
		subject = "A place is held for you" + dash
		fmt.Fprintf(&b, "A place with %s%s has become free and is held for you", doctor, onWhen)
		if !m.OfferExpiresAt.IsZero() {
			fmt.Fprintf(&b, " until %s", LocalTime(m.OfferExpiresAt, m.TimeZone))
		}
		b.WriteString(".\nAccept or decline it under My waitlist; after that it goes to the next person waiting.\n")
	case KindLoginCode:
		subject = "Your sign-in code"
		fmt.Fprintf(&b, "Your sign-in code is %s.\n", m.Code)
		b.WriteString("It works once and expires soon. If you did not ask for it, ignore this message.\n")
	default:
		subject = "About your appointment"
		fmt.Fprintf(&b, "There is news about your appointment with %s%s.\n", doctor, onWhen)
	}
	if m.AppointmentID > 0 {
		fmt.Fprintf(&b, "\nAppointment reference: %d\n", m.AppointmentID)
	}
	return subject, b.String()
}
