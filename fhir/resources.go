package fhir

import (
	"slices"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// The resources slotd writes, as the subset of FHIR R4 it fills in. Field
// names and cardinalities are R4's; the tests parse every one with
// google/fhir's validating R4 unmarshaller.

type Meta struct {
	LastUpdated string `json:"lastUpdated,omitempty"`
}

type Reference struct {
	Reference string `json:"reference,omitempty"`
	Display   string `json:"display,omitempty"`
}

type Coding struct {
	System  string `json:"system,omitempty"`
	Code    string `json:"code,omitempty"`
	Display string `json:"display,omitempty"`
}

type CodeableConcept struct {
	Coding []Coding `json:"coding,omitempty"`
	Text   string   `json:"text,omitempty"`
}

type ContactPoint struct {
	System string `json:"system"`
	Value  string `json:"value"`
	Use    string `json:"use,omitempty"`
}

type Address struct {
	Text string `json:"text,omitempty"`
}

type HumanName struct {
	Text string `json:"text"`
}

// Extension carries one value; exactly one Value* is set.
type Extension struct {
	URL           string `json:"url"`
	ValueInteger  *int   `json:"valueInteger,omitempty"`
	ValueURL      string `json:"valueUrl,omitempty"`
	ValueString   string `json:"valueString,omitempty"`
	ValueDateTime string `json:"valueDateTime,omitempty"`
}

// Extensions slotd adds. The SMART ones are those of SMART Scheduling
// Links; the urn:slotd ones are slotd's own, documented in docs/interoperability.md.
const (
	ExtSmartCapacity = "http://fhir-registry.smarthealthit.org/StructureDefinition/slot-capacity"
	ExtDeepLink      = "http://fhir-registry.smarthealthit.org/StructureDefinition/booking-deep-link"
	ExtBookingPhone  = "http://fhir-registry.smarthealthit.org/StructureDefinition/booking-phone"
	// ExtCapacity is the slot's number of places, ExtRemaining the free ones
	// (the real counter at the time of the answer), ExtOpensAt when booking
	// opens, ExtQueueNumber an appointment's place number in its slot.
	ExtCapacity    = "urn:slotd:fhir:slot-capacity"
	ExtRemaining   = "urn:slotd:fhir:slot-remaining"
	ExtOpensAt     = "urn:slotd:fhir:slot-opens-at"
	ExtQueueNumber = "urn:slotd:fhir:queue-number"
	// DepartmentSystem codes a specialty by its department id.
	DepartmentSystem = "urn:slotd:fhir:department"
	// ServiceSystem codes a service (HealthcareService) by its id,
	// LevelSystem its level (ordinary, specialist); ExtDuration is its
	// duration in minutes.
	ServiceSystem = "urn:slotd:fhir:service"
	LevelSystem   = "urn:slotd:fhir:service-level"
	ExtDuration   = "urn:slotd:fhir:service-minutes"
	// ProblemSystem codes an OperationOutcome's slotd problem code.
	ProblemSystem = "urn:slotd:fhir:problem"
)

func intExt(url string, v int) Extension { return Extension{URL: url, ValueInteger: &v} }

type Practitioner struct {
	ResourceType string       `json:"resourceType"`
	ID           string       `json:"id"`
	Meta         *Meta        `json:"meta,omitempty"`
	Active       bool         `json:"active"`
	Name         []HumanName  `json:"name,omitempty"`
	Photo        []Attachment `json:"photo,omitempty"`
	// Qualification is the doctor's title and specialties as the clinic
	// writes them (text, no code system: they are free text).
	Qualification []Qualification `json:"qualification,omitempty"`
	// Communication is the languages the doctor speaks, as text.
	Communication []CodeableConcept `json:"communication,omitempty"`
}

// Attachment is a photo by its URL.
type Attachment struct {
	URL string `json:"url"`
}

// Qualification is one of a Practitioner's qualifications.
type Qualification struct {
	Code CodeableConcept `json:"code"`
}

type Location struct {
	ResourceType string         `json:"resourceType"`
	ID           string         `json:"id"`
	Meta         *Meta          `json:"meta,omitempty"`
	Status       string         `json:"status,omitempty"`
	Name         string         `json:"name,omitempty"`
	Description  string         `json:"description,omitempty"`
	Telecom      []ContactPoint `json:"telecom,omitempty"`
	Address      *Address       `json:"address,omitempty"`
	Position     *Position      `json:"position,omitempty"`
	PartOf       *Reference     `json:"partOf,omitempty"`
	// HoursOfOperation are a site's opening hours.
	HoursOfOperation []HoursOfOperation `json:"hoursOfOperation,omitempty"`
}

// Position is a Location's WGS 84 position.
type Position struct {
	Longitude float64 `json:"longitude"`
	Latitude  float64 `json:"latitude"`
}

type HoursOfOperation struct {
	DaysOfWeek  []string `json:"daysOfWeek"`
	AllDay      bool     `json:"allDay,omitempty"`
	OpeningTime string   `json:"openingTime,omitempty"`
	ClosingTime string   `json:"closingTime,omitempty"`
}

type Schedule struct {
	ResourceType string            `json:"resourceType"`
	ID           string            `json:"id"`
	Meta         *Meta             `json:"meta,omitempty"`
	Extension    []Extension       `json:"extension,omitempty"`
	Active       bool              `json:"active"`
	ServiceType  []CodeableConcept `json:"serviceType,omitempty"`
	Specialty    []CodeableConcept `json:"specialty,omitempty"`
	Actor        []Reference       `json:"actor"`
}

type Slot struct {
	ResourceType string            `json:"resourceType"`
	ID           string            `json:"id"`
	Meta         *Meta             `json:"meta,omitempty"`
	Extension    []Extension       `json:"extension,omitempty"`
	ServiceType  []CodeableConcept `json:"serviceType,omitempty"`
	Schedule     Reference         `json:"schedule"`
	Status       string            `json:"status"`
	Start        string            `json:"start"`
	End          string            `json:"end"`
	Comment      string            `json:"comment,omitempty"`
}

type Participant struct {
	Actor  Reference `json:"actor"`
	Status string    `json:"status"`
}

type Appointment struct {
	ResourceType      string            `json:"resourceType"`
	ID                string            `json:"id,omitempty"`
	Meta              *Meta             `json:"meta,omitempty"`
	Extension         []Extension       `json:"extension,omitempty"`
	Status            string            `json:"status"`
	CancelationReason *CodeableConcept  `json:"cancelationReason,omitempty"`
	ServiceType       []CodeableConcept `json:"serviceType,omitempty"`
	Start             string            `json:"start,omitempty"`
	End               string            `json:"end,omitempty"`
	Created           string            `json:"created,omitempty"`
	Slot              []Reference       `json:"slot,omitempty"`
	Participant       []Participant     `json:"participant"`
}

type BundleEntry struct {
	FullURL  string        `json:"fullUrl,omitempty"`
	Resource any           `json:"resource"`
	Search   *BundleSearch `json:"search,omitempty"`
}

type BundleSearch struct {
	Mode string `json:"mode"`
}

type BundleLink struct {
	Relation string `json:"relation"`
	URL      string `json:"url"`
}

type Bundle struct {
	ResourceType string        `json:"resourceType"`
	Type         string        `json:"type"`
	Timestamp    string        `json:"timestamp,omitempty"`
	Total        *int          `json:"total,omitempty"`
	Link         []BundleLink  `json:"link,omitempty"`
	Entry        []BundleEntry `json:"entry,omitempty"`
}

type OperationOutcome struct {
	ResourceType string  `json:"resourceType"`
	Issue        []Issue `json:"issue"`
}

type Issue struct {
	Severity    string           `json:"severity"`
	Code        string           `json:"code"`
	Details     *CodeableConcept `json:"details,omitempty"`
	Diagnostics string           `json:"diagnostics,omitempty"`
}

// instant formats a time as a FHIR instant/dateTime, in UTC.
func instant(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func id(n int64) string { return strconv.FormatInt(n, 10) }

// ClinicID is the id of the Location that is the clinic itself.
const ClinicID = "clinic"

// Clinic describes the place every doctor works at.
type Clinic struct {
	Name    string
	Phone   string
	Address string
}

// practitioner is a doctor with the profile patients read (title,
// specialties, languages, and the photo by its URL under web, the public
// base URL).
func practitioner(d booking.Doctor, web string) Practitioner {
	p := Practitioner{ResourceType: "Practitioner", ID: id(d.ID), Active: true, Name: []HumanName{{Text: d.Name}}}
	if d.Title != "" {
		p.Qualification = append(p.Qualification, Qualification{Code: CodeableConcept{Text: d.Title}})
	}
	for _, sp := range d.Specialties {
		p.Qualification = append(p.Qualification, Qualification{Code: CodeableConcept{Text: sp}})
	}
	for _, l := range d.Languages {
		p.Communication = append(p.Communication, CodeableConcept{Text: l})
	}
	if d.Photo != "" {
		p.Photo = []Attachment{{URL: web + "/api/doctors/" + id(d.ID) + "/photo"}}
	}
	return p
}

func roomLocation(r booking.Room) Location {
	l := Location{ResourceType: "Location", ID: id(r.ID), Status: "active", Name: r.Name,
		Description: r.Building + ", floor " + strconv.Itoa(r.Floor) + ", " + strconv.Itoa(r.Beds) + " beds",
		PartOf:      &Reference{Reference: "Location/" + ClinicID}}
	return l
}

func specialty(dep booking.Department) CodeableConcept {
	return CodeableConcept{Coding: []Coding{{System: DepartmentSystem, Code: id(dep.ID), Display: dep.Name}}, Text: dep.Name}
}

// doctorSchedule is the one Schedule of a doctor: the doctor at the site
// of the department.
func doctorSchedule(d booking.Doctor, dep booking.Department, site booking.Site) Schedule {
	return Schedule{ResourceType: "Schedule", ID: id(d.ID), Active: true,
		ServiceType: []CodeableConcept{{Text: dep.Name}},
		Specialty:   []CodeableConcept{specialty(dep)},
		Actor: []Reference{{Reference: "Practitioner/" + id(d.ID), Display: d.Name},
			{Reference: "Location/" + siteID(site.ID), Display: site.Name}}}
}

// roomSchedule is the one Schedule of a room: the room as a Location.
func roomSchedule(r booking.Room) Schedule {
	return Schedule{ResourceType: "Schedule", ID: id(r.ID), Active: true,
		Actor: []Reference{{Reference: "Location/" + id(r.ID), Display: r.Name}}}
}

// SlotStatus maps the real counter and the slot's rules to FHIR: free when
// a booking would be accepted now, busy when full, busy-unavailable when
// closed, started or not open yet.
func SlotStatus(s booking.Slot, now time.Time) string {
	switch booking.ErrorCode(s.Bookable(now)) {
	case "":
		return "free"
	case booking.CodeSlotFull:
		return "busy"
	}
	return "busy-unavailable"
}

// slotLinks are the booking links of a slot, for SMART Scheduling Links,
// and the services it may be booked for.
type slotLinks struct {
	deepLink    string
	phone       string
	serviceType []CodeableConcept
}

func slot(s booking.Slot, now time.Time, links slotLinks) Slot {
	out := Slot{ResourceType: "Slot", ID: id(s.ID), Schedule: Reference{Reference: "Schedule/" + id(s.DoctorID)},
		Status: SlotStatus(s, now), Start: instant(s.StartAt), End: instant(s.EndAt), ServiceType: links.serviceType,
		Extension: []Extension{
			intExt(ExtCapacity, s.Capacity),
			intExt(ExtRemaining, max(s.Remaining(), 0)),
			intExt(ExtSmartCapacity, max(s.Remaining(), 0)),
			{URL: ExtOpensAt, ValueDateTime: instant(s.OpensAt)},
		}}
	if links.deepLink != "" {
		out.Extension = append(out.Extension, Extension{URL: ExtDeepLink, ValueURL: links.deepLink})
	}
	if links.phone != "" {
		out.Extension = append(out.Extension, Extension{URL: ExtBookingPhone, ValueString: links.phone})
	}
	if out.Status == "busy-unavailable" && !now.Before(s.OpensAt) {
		out.Comment = "closed"
	} else if out.Status == "busy-unavailable" {
		out.Comment = "booking opens at " + instant(s.OpensAt)
	}
	return out
}

// appointmentStatus maps slotd's states to FHIR's: HELD awaits payment,
// ARRIVED is FHIR's own "arrived".
func appointmentStatus(s booking.Status) string {
	switch s {
	case booking.StatusHeld:
		return "pending"
	case booking.StatusBooked:
		return "booked"
	case booking.StatusArrived:
		return "arrived"
	case booking.StatusCompleted:
		return "fulfilled"
	case booking.StatusNoShow:
		return "noshow"
	}
	return "cancelled" // CANCELLED, EXPIRED
}

// appointmentStatuses are the FHIR statuses appointmentStatus answers, in
// the order of booking.Statuses: the search's status values.
var appointmentStatuses = func() []string {
	var out []string
	for _, st := range booking.Statuses {
		if s := appointmentStatus(st); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}()

func appointment(a booking.Appointment) Appointment {
	out := Appointment{ResourceType: "Appointment", ID: id(a.ID), Meta: &Meta{LastUpdated: instant(a.UpdatedAt)},
		Extension: []Extension{intExt(ExtQueueNumber, a.QueueNumber)},
		Status:    appointmentStatus(a.Status), Start: instant(a.StartAt), End: instant(a.EndAt),
		Created: instant(a.CreatedAt),
		Slot:    []Reference{{Reference: "Slot/" + id(a.SlotID)}},
		Participant: []Participant{
			{Actor: Reference{Reference: "Patient/" + id(a.PatientID)}, Status: "accepted"},
			{Actor: Reference{Reference: "Practitioner/" + id(a.DoctorID)}, Status: "accepted"},
		}}
	if a.ServiceID != 0 {
		// The code only: the service's name is one read away
		// (HealthcareService/<id>), and appointments are listed by the page.
		out.ServiceType = []CodeableConcept{{Coding: []Coding{{System: ServiceSystem, Code: id(a.ServiceID)}}}}
	}
	if a.Status == booking.StatusExpired {
		out.CancelationReason = &CodeableConcept{Text: "not paid before the hold expired"}
	}
	return out
}
