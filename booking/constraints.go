package booking

// The constraints both schemas name alike: the last line of defence behind
// every decision. A store maps its driver's error to one of these names
// (and only that); ConstraintError says what the client is told.
const (
	ConDepartmentName    = "departments_name_key"
	ConSlotResourceStart = "slots_resource_start_key"
	ConSlotCapacity      = "slots_booked_within_capacity"
	ConPatientKey        = "appointments_patient_key_key"
	ConNoOverlap         = "appointments_no_overlap"
	ConSlotPatientActive = "appointments_slot_patient_active"
	ConSlotQueueActive   = "appointments_slot_queue_active"
	ConPaymentTrade      = "payments_trade_no_key"
	ConSuspensionOrder   = "suspensions_period_check"
	ConSlotNoOverlap     = "slots_no_overlap"
	ConRoundQuota        = "round_quotas_within_quota"
	ConPatientPhone      = "patients_phone_index_key"
	ConPatientNationalID = "patients_national_id_index_key"
	ConApplicationKey    = "round_applications_patient_key_key"
	ConServiceName       = "services_name_key"
	ConSiteName          = "sites_name_key"
	// One current call per doctor and day; one appointment per call
	// number of the day (booking/queue.go).
	ConQueueOneCalled = "queue_steps_one_called"
	ConQueueCallSeq   = "queue_steps_call_seq"
	// One announced opening per schedule and instant (opening.go).
	ConOpeningSchedule = "openings_schedule_key"
	// Foreign keys carry PostgreSQL's default names (<table>_<column>_fkey).
	ConAppointmentPatient = "appointments_patient_id_fkey"
)

// constraintErrors is the one table from a constraint to the error a
// client sees when it fires. The messages are ours: the driver's text never
// reaches a client.
var constraintErrors = map[string]func() *Error{
	ConDepartmentName: func() *Error { return Errorf(CodeConflict, "a department with this name already exists") },
	ConServiceName:    func() *Error { return Errorf(CodeConflict, "a service with this name already exists") },
	ConSiteName:       func() *Error { return Errorf(CodeConflict, "a site with this name already exists") },
	ConSlotResourceStart: func() *Error {
		return Errorf(CodeConflict, "the doctor already has a slot starting at this time")
	},
	ConPatientKey: func() *Error {
		return Errorf(CodeKeyReused, "this Idempotency-Key was already used for a different request")
	},
	ConNoOverlap: func() *Error {
		return Errorf(CodeOverlapping, "the patient has another appointment at an overlapping time")
	},
	ConSlotPatientActive: func() *Error {
		return Errorf(CodeAlreadyBooked, "the patient already holds a place in this slot")
	},
	ConSlotCapacity: func() *Error { return Errorf(CodeSlotFull, "no place left in this slot") },
	ConRoundQuota:   func() *Error { return Errorf(CodeQuotaExceeded, "the quota of this round is used up") },
	ConApplicationKey: func() *Error {
		return Errorf(CodeKeyReused, "this Idempotency-Key was already used for a different request")
	},
	ConPaymentTrade: func() *Error {
		return Errorf(CodeConflict, "a payment with this trade number is being recorded")
	},
	ConSuspensionOrder: func() *Error { return Errorf(CodeInvalidRequest, "a suspension must end after it starts") },
	ConPatientPhone:    func() *Error { return Errorf(CodeConflict, "a patient with this phone number already exists") },
	ConPatientNationalID: func() *Error {
		return Errorf(CodeNationalIDTaken, "a patient with this national ID number is already registered: sign in with their phone or e-mail, or call the clinic")
	},
	ConQueueOneCalled:  func() *Error { return Errorf(CodeConflict, "another console called at the same moment; call again") },
	ConQueueCallSeq:    func() *Error { return Errorf(CodeConflict, "another console called at the same moment; call again") },
	ConOpeningSchedule: func() *Error { return Errorf(CodeConflict, "this opening is announced already") },
	ConSlotNoOverlap: func() *Error {
		return Errorf(CodeSlotOverlap, "the doctor already has a slot at an overlapping time")
	},

	ConAppointmentPatient:                func() *Error { return NotFound("patient") },
	"round_applications_patient_id_fkey": func() *Error { return NotFound("patient") },
	"resources_department_id_fkey":       func() *Error { return NotFound("department") },
	"schedules_resource_id_fkey":         func() *Error { return NotFound("doctor") },
	"slots_resource_id_fkey":             func() *Error { return NotFound("doctor") },
	"slots_schedule_id_fkey":             func() *Error { return NotFound("schedule") },
	"payments_appointment_id_fkey":       func() *Error { return NotFound("appointment") },
	"suspensions_resource_id_fkey":       func() *Error { return NotFound("doctor") },
}

// ConstraintError is the error for the named constraint, naming slotID
// when it is not 0, or nil for a constraint only a bug can violate.
func ConstraintError(name string, slotID int64) *Error {
	mk, ok := constraintErrors[name]
	if !ok {
		return nil
	}
	e := mk()
	e.SlotID = slotID
	return e
}
