package notify

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/i18n"
)

// localLayout shows a time as a patient reads it: "Mon 7 Dec 2026 09:30".
const localLayout = "Mon 2 Jan 2006 15:04"

// LocalTime formats t in the IANA zone tz, followed by the zone's name, e.g.
// "Mon 7 Dec 2026 09:30 (Europe/Paris)". The zone is named rather than given
// as an offset because patients know their city, not their UTC offset. An
// empty or unknown zone falls back to UTC and says so, rather than showing a
// wrong local time without warning.
func LocalTime(t time.Time, tz string) string {
	loc := zoneOf(tz)
	return t.In(loc).Format(localLayout) + " (" + loc.String() + ")"
}

// Text renders a message for people: a subject and a plain-text body in
// the message's Language (Config.Language when the message has none), with
// times in the doctor's zone in that language's CLDR format. SMTP sends
// both; the log notifier logs the subject only, because the body of a
// login-code message carries the code. Subjects therefore never contain
// codes or contact data.
func Text(m Message) (subject, body string) {
	pr := i18n.New(m.Language)
	when := whenOf(pr, m)
	subject = subjectOf(pr, m.Kind, when)
	// Names are one line each: they come from admin input and a line
	// break would garble the text.
	doctor, patient := headerSafe(m.DoctorName), headerSafe(m.PatientName)
	if doctor == "" {
		doctor = pr.T("your doctor")
	}
	// on picks the sentence with the time, or without it.
	on := func(without, with string) string {
		if when == "" {
			return without
		}
		return with
	}

	var b strings.Builder
	if patient != "" {
		b.WriteString(pr.T("Hello %s,", patient) + "\n\n")
	} else {
		b.WriteString(pr.T("Hello,") + "\n\n")
	}
	line := func(s string) { b.WriteString(s + "\n") }
	// checkIn names the code to type at the kiosk on the day, if any.
	checkIn := func(code string) {
		if code != "" {
			line(pr.T("Check-in code: %s", code))
		}
	}
	// where tells where to go, and its map.
	where := func() {
		if place := headerSafe(m.Place); place != "" {
			line(pr.T("Where: %s", place))
		}
		if m.MapURL != "" {
			line(pr.T("Map: %s", m.MapURL))
		}
	}

	switch m.Kind {
	case KindConfirmation:
		line(on(pr.T("Your appointment with %s is confirmed.", doctor), pr.T("Your appointment with %s on %s is confirmed.", doctor, when)))
		if m.QueueNumber > 0 {
			line(pr.T("Your number in the queue is No. %d.", m.QueueNumber))
		}
		where()
		checkIn(m.CheckInCode)
		line(pr.T("If you cannot come, please cancel it so that someone else can have the place."))
	case KindReminder:
		line(on(pr.T("This is a reminder of your appointment with %s.", doctor), pr.T("This is a reminder of your appointment with %s on %s.", doctor, when)))
		if m.QueueNumber > 0 {
			line(pr.T("Your number in the queue is No. %d.", m.QueueNumber))
		}
		where()
		checkIn(m.CheckInCode)
		line(pr.T("If you cannot come, please cancel it so that someone else can have the place."))
	case KindCancellation:
		line(on(pr.T("Your appointment with %s has been cancelled.", doctor), pr.T("Your appointment with %s on %s has been cancelled.", doctor, when)))
		if m.QueueNumber > 0 {
			line(pr.T("Queue number: No. %d.", m.QueueNumber))
		}
	case KindExpiry:
		line(on(pr.T("Your hold on the appointment with %s expired before the payment was confirmed, so the place has been released.", doctor), pr.T("Your hold on the appointment with %s on %s expired before the payment was confirmed, so the place has been released.", doctor, when)))
		line(pr.T("You can book again if places remain."))
	case KindSuspension:
		line(on(pr.T("We are sorry: the clinic has cancelled your appointment with %s.", doctor), pr.T("We are sorry: the clinic has cancelled your appointment with %s on %s.", doctor, when)))
		if m.QueueNumber > 0 {
			line(pr.T("Queue number: No. %d.", m.QueueNumber))
		}
		if m.Reason != "" {
			line(pr.T("Reason: %s", m.Reason))
		}
		line(pr.T("Please book another time."))
	case KindRescheduled:
		line(on(pr.T("Your appointment has been moved: it is now with %s.", doctor), pr.T("Your appointment has been moved: it is now with %s on %s.", doctor, when)))
		if m.QueueNumber > 0 {
			line(pr.T("Your number in the queue is No. %d.", m.QueueNumber))
		}
		where()
		line(pr.T("Your previous time is no longer reserved."))
	case KindOffer:
		held := on(pr.T("A place with %s has become free and is held for you.", doctor), pr.T("A place with %s on %s has become free and is held for you.", doctor, when))
		if !m.OfferExpiresAt.IsZero() {
			held = on(pr.T("A place with %s has become free and is held for you until %s.", doctor, localTime(pr, m.OfferExpiresAt, m.TimeZone)),
				pr.T("A place with %s on %s has become free and is held for you until %s.", doctor, when, localTime(pr, m.OfferExpiresAt, m.TimeZone)))
		}
		line(held)
		line(pr.T("Accept or decline it under My waitlist; after that it goes to the next person waiting."))
	case KindLeftoverOffer:
		line(pr.T("A dose left at the end of the day is held for you (%s) until %s.", when, localTime(pr, m.OfferExpiresAt, m.TimeZone)))
		line(pr.T("Accept it under My standby and come at once; after that it goes to the next person on standby."))
	case KindRefund:
		line(on(pr.T("We have refunded %s for your appointment with %s.", refundMoney(pr, m), doctor),
			pr.T("We have refunded %s for your appointment with %s on %s.", refundMoney(pr, m), doctor, when)))
		line(pr.T("It may take a few days to reach your account."))
	case KindQueueAhead:
		line(pr.T("%d patients are ahead of you for %s.", m.Ahead, doctor))
		line(pr.T("Please stay near the room: your number will be called soon."))
	case KindLoginCode:
		line(pr.T("Your sign-in code is %s.", m.Code))
		line(pr.T("It works once and expires soon. If you did not ask for it, ignore this message."))
	default:
		line(on(pr.T("There is news about your appointment with %s.", doctor), pr.T("There is news about your appointment with %s on %s.", doctor, when)))
	}
	if m.AppointmentID > 0 {
		b.WriteString("\n" + pr.T("Appointment reference: %d", m.AppointmentID) + "\n")
	}
	return subject, b.String()
}

// Subject is the subject of Text(m) alone. The log notifier logs nothing
// else, and rendering the body too doubled its cost per message.
func Subject(m Message) string {
	pr := i18n.New(m.Language)
	return subjectOf(pr, m.Kind, whenOf(pr, m))
}

// whenOf is m's time as pr words it. A message without one (which should
// not happen outside login codes) says less rather than "1 Jan 0001".
func whenOf(pr *i18n.Printer, m Message) string {
	if m.StartAt.IsZero() {
		return ""
	}
	return localTime(pr, m.StartAt, m.TimeZone)
}

// subjectOf is the subject of a message of kind: what happened and, after
// a colon, when. A login code's and an unknown kind's say no time.
func subjectOf(pr *i18n.Printer, kind, when string) string {
	var s string
	switch kind {
	case KindConfirmation:
		s = pr.T("Appointment confirmed")
	case KindReminder:
		s = pr.T("Appointment reminder")
	case KindCancellation:
		s = pr.T("Appointment cancelled")
	case KindExpiry:
		s = pr.T("Appointment hold expired")
	case KindSuspension:
		s = pr.T("Appointment cancelled by the clinic")
	case KindRescheduled:
		s = pr.T("Appointment moved")
	case KindOffer:
		s = pr.T("A place is held for you")
	case KindLeftoverOffer:
		s = pr.T("A leftover dose is held for you")
	case KindRefund:
		s = pr.T("Refund made")
	case KindQueueAhead:
		s = pr.T("Your turn is coming")
	case KindLoginCode:
		return pr.T("Your sign-in code")
	default:
		return pr.T("About your appointment")
	}
	if when == "" {
		return s
	}
	return pr.T("%s: %s", s, when)
}

// SMSMaxRunes is the longest SMS text: one UCS-2 segment, since Chinese
// and Vietnamese need UCS-2 (70 characters), and one GSM-7 segment for
// Latin text (160).
func SMSMaxRunes(lang string) int {
	if lang == "zh-Hans" || lang == "vi" {
		return 70
	}
	return 160
}

// SMS is the one-segment variant of a message: the essentials only (what,
// when, number), within SMSMaxRunes of its language.
func SMS(m Message) string {
	pr := i18n.New(m.Language)
	when := ""
	if !m.StartAt.IsZero() {
		loc := zoneOf(m.TimeZone)
		when = pr.ShortDate(m.StartAt.In(loc)) + " " + pr.Clock(m.StartAt.In(loc))
	}
	var s string
	switch m.Kind {
	case KindConfirmation:
		s = pr.T("Confirmed: %s, No. %d.", when, m.QueueNumber)
	case KindReminder:
		s = pr.T("Reminder: %s, No. %d.", when, m.QueueNumber)
	case KindCancellation:
		s = pr.T("Cancelled: %s.", when)
	case KindExpiry:
		s = pr.T("Hold expired, place released: %s.", when)
	case KindSuspension:
		s = pr.T("The clinic cancelled your appointment of %s.", when)
	case KindRescheduled:
		s = pr.T("Moved to %s, No. %d.", when, m.QueueNumber)
	case KindOffer:
		s = pr.T("A place is held for you: %s. Accept under My waitlist.", when)
	case KindLeftoverOffer:
		s = pr.T("Leftover dose held for you until %s: accept under My standby.", localTime(pr, m.OfferExpiresAt, m.TimeZone))
	case KindRefund:
		s = pr.T("Refunded %s: %s.", refundMoney(pr, m), when)
	case KindQueueAhead:
		s = pr.T("%d ahead of you, No. %d: please stay near the room.", m.Ahead, m.QueueNumber)
	case KindLoginCode:
		s = pr.T("Your sign-in code: %s", m.Code)
	default:
		s = pr.T("News about your appointment of %s.", when)
	}
	if m.CheckInCode != "" && (m.Kind == KindConfirmation || m.Kind == KindReminder) {
		if t := s + " " + pr.T("Check-in code: %s", m.CheckInCode); utf8.RuneCountInString(t) <= SMSMaxRunes(pr.Lang()) {
			s = t
		}
	}
	if d := headerSafe(m.DoctorName); d != "" && m.Kind != KindLoginCode {
		if t := s + " " + d; utf8.RuneCountInString(t) <= SMSMaxRunes(pr.Lang()) {
			s = t
		}
	}
	if r := []rune(s); len(r) > SMSMaxRunes(pr.Lang()) {
		s = string(r[:SMSMaxRunes(pr.Lang())-1]) + "…"
	}
	return s
}

// refundMoney is m's refund in its currency (EUR when unknown) as pr
// writes money.
func refundMoney(pr *i18n.Printer, m Message) string {
	cur, err := i18n.ParseCurrency(m.Currency)
	if err != nil {
		cur = i18n.MustCurrency("EUR")
	}
	return pr.Money(cur, m.RefundAmount)
}

// localTime is t in zone tz in pr's language followed by the zone's name,
// as LocalTime.
func localTime(pr *i18n.Printer, t time.Time, tz string) string {
	loc := zoneOf(tz)
	return pr.DateTime(t.In(loc)) + " (" + loc.String() + ")"
}

// zones keeps the zones loaded, by name: time.LoadLocation reads and
// parses the zone's file at each call, and every message words a time.
var zones sync.Map

// zoneOf is the IANA zone tz, UTC when it is empty or unknown.
func zoneOf(tz string) *time.Location {
	if loc, ok := zones.Load(tz); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(tz)
	if tz == "" || err != nil {
		return time.UTC
	}
	zones.Store(tz, loc)
	return loc
}
