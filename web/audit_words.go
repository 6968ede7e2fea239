package web

import "github.com/slotd/slotd/booking"

// The audit log stores stable codes (action, entity, actor role), and
// csvdata names its kinds of file by code: the pages show them in the
// reader's language. Each value is the English key of i18n's catalogs; a
// code not listed here (a newer one) shows as stored.
var (
	auditActions = map[string]string{
		"book":                        "booked",
		"cancel":                      "cancelled by the patient",
		"cancel-suspension":           "cancelled by a suspension",
		"expire":                      "hold expired",
		"payment":                     "changed by a payment", // booked, or expired when late
		"completed":                   "marked completed",
		"no_show":                     "marked no-show",
		booking.AuditCheckIn:          "checked in",
		booking.AuditAutoNoShow:       "marked no-show: not checked in",
		"cancelled":                   "cancelled by staff",
		"create":                      "created",
		"update":                      "changed",
		"record":                      "recorded",
		"refund":                      "refunded",
		"request":                     "refund requested",
		"settle":                      "refund attempt recorded",
		"retry":                       "refund retried",
		"repair-counter":              "counter repaired",
		"set-state":                   "state changed",
		"add-to-round":                "added to a round",
		"draw":                        "lottery drawn",
		"register":                    "registered for the lottery",
		"submit":                      "submitted",
		"suspend":                     "suspended",
		"generate-slots":              "slots generated",
		"delete-free-slots":           "free slots deleted",
		"lift":                        "lifted",
		"reschedule":                  "rescheduled",
		"offer":                       "offered from the waitlist",
		"accept-offer":                "offer accepted",
		"decline-offer":               "offer declined",
		"join":                        "joined the waitlist",
		"leave":                       "left the waitlist",
		"fulfil":                      "waitlist entry fulfilled",
		"export":                      "personal data exported",
		"erase":                       "personal data erased",
		"signup":                      "signed up",
		"person-" + booking.PersonAdd: "person added by their account",
		"announce-opening":            "opening announced",
		"draw-opening":                "opening's queue drawn",
		"profile":                     "profile changed",
		"photo":                       "photo changed",
	}
	auditEntities = map[string]string{
		booking.EntityAppointment: "appointment",
		booking.EntitySlot:        "slot",
		booking.EntityPayment:     "payment",
		booking.EntityRefund:      "refund",
		booking.EntitySuspension:  "suspension",
		booking.EntityDepartment:  "department",
		booking.EntityDoctor:      "doctor",
		booking.EntityPatient:     "patient",
		booking.EntitySchedule:    "schedule",
		booking.EntityRoom:        "room",
		booking.EntityRound:       "round",
		booking.EntityApplication: "application",
		booking.EntityWaitlist:    "waitlist entry",
		booking.EntityDoseSeries:  "dose series",
	}
	// importKinds are csvdata's file kinds.
	importKinds = map[string]string{
		"departments": "Departments",
		"doctors":     "Doctors",
		"schedules":   "Schedules",
		"patients":    "Patients",
	}
	auditRoles = map[string]string{
		"patient":             "patient", // auth's roles
		"doctor":              "doctor",
		"admin":               "staff",
		"reception":           "reception",
		booking.ActorJob:      "background job",
		booking.ActorProvider: "payment provider",
		booking.ActorSystem:   "system",
	}
)

func word(p *page, words map[string]string, code string) string {
	if k, ok := words[code]; ok {
		return p.T(k)
	}
	return code
}

// AuditAction is an audit entry's action in the page's language.
func (p *page) AuditAction(code string) string { return word(p, auditActions, code) }

// AuditEntity is an audited entity's kind in the page's language.
func (p *page) AuditEntity(code string) string { return word(p, auditEntities, code) }

// AuditRole is an actor's role in the page's language.
func (p *page) AuditRole(code string) string { return word(p, auditRoles, code) }

// AuditEntities are the entity codes the audit page filters by.
func (p *page) AuditEntities() []string {
	return []string{booking.EntityAppointment, booking.EntitySlot, booking.EntityPayment, booking.EntityRefund, booking.EntitySuspension,
		booking.EntityDepartment, booking.EntityDoctor, booking.EntityPatient, booking.EntitySchedule,
		booking.EntityRoom, booking.EntityRound, booking.EntityApplication, booking.EntityDoseSeries}
}

// ImportKind is the name of a kind of import file in the page's language.
func (p *page) ImportKind(code string) string { return word(p, importKinds, code) }

// LineError is a refused import line's sentence in the page's language.
func (p *page) LineError(key string, args []any) string { return p.T(key, args...) }
