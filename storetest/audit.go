package storetest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// serviceReads are the Service's methods that change nothing the audit log
// records: reads, wiring, the limiter's in-memory budget, the report-only
// reconciliation and its verdict (reconcile_runs is itself the record), and
// the round processor, whose decisions are bookings and audited as such.
var serviceReads = map[string]bool{
	"Reader": true, "Now": true, "Watch": true, "QueueDepth": true, "Appointment": true, "Appointments": true, "AccountAppointments": true, "People": true, "FindPatients": true,
	"Application": true, "AttemptBooking": true, "Audit": true, "History": true, "LastReconcileRun": true,
	"RunReconciliation": true, "RunRoundProcessor": true, "SweepRounds": true, "ProcessRound": true,
	// Lottery reads; DrawDue is the processor's trigger of Draw, audited there.
	"PublishedDraw": true, "Registration": true, "Registrations": true, "DrawDue": true,
	"GetService": true, "Services": true, "SiteOfDepartment": true, "PlacesForPerson": true,
	// The clinic's settings written over the migration's placeholder site
	// at start: configuration, as the flags themselves are.
	"FillFirstSite":   true,
	"ExtendSchedules": true, // GenerateSlots' path: its inserts are audited there
	"ClinicPolicy":    true, "ListSuspensions": true, "Holdings": true,
	"Refunds": true, "AppointmentRefunds": true, "RefundQuote": true, "Currency": true,
	// A checkout is the provider's (no row here); a provider's notification
	// changes state through ConfirmPayment and SettleRefund, audited there.
	"Checkout": true, "ProviderName": true, "PaymentNotification": true,
	// A day against the provider's statement: a report, kept in memory only.
	"ReconcileStatement": true, "LastStatementCheck": true,
	"CheckInCode": true, // a signature of the id, no read at all
	// A staff caller's sites and the site rule's checks: reads.
	"Caller": true, "OnSite": true, "RunsClinic": true, "ListingSite": true, "StaffSites": true,
	"QueueDay": true, "QueueBoard": true, "QueuePosition": true, "DayQueue": true,
	"QueueBoardListing": true, "DepartmentQueueBoard": true,
	"Timeout":                true,
	"ActFor":                 true, // the caller rule: a decision and at most a read
	"NormalizePhone":         true, // a pure function of its argument and the clinic region
	"Receive":                true, // another instance's signal: this process's marks and caches only, no row
	"Waitlist":               true,
	"DoseSeries":             true, // the list of dose series
	"AccountSeriesBookings":  true,
	"Eligibility":            true, // a schedule's campaign rule
	"ServiceEligibility":     true, // a service's rule
	"ListServiceEligibility": true,
	// Reminders change no state: their rows only record which messages went.
	"SendReminders":  true,
	"CountReminder":  true, // a metric, no state
	"WaitlistCounts": true,
	"StandbyPolicy":  true, "Standbys": true, "StandbyDay": true,
	// Sessions and sign-in: the revocation marks and failure counters are
	// their own record (revocation_marks, staff_signin_failures,
	// signin_failures); the audit log records changes to bookings and the
	// clinic.
	"Admit": true, "Present": true, "SignOut": true, "StaffSignIn": true,
	"NewSignin": true, // wiring: the sign-in service's own methods are not the Service's
	// Messages: the messages table is their own record (which went, how
	// far), like the reminders' rows; a patient's list is a read.
	"Deliveries": true, "PatientMessages": true,
	// A notification job's read of its messages' records and its mark on
	// each it sends: rows of that same record.
	"DeliveryStates": true, "MarkMessage": true,
	// Staff second factors are set from the command line, like staff
	// passwords (slotd staff-totp, slotd staff-password): not audited yet.
	"EnrolStaffTOTP": true, "RemoveStaffTOTP": true,
	// Waiting rooms: reads, the admission budget (memory), and the queue,
	// whose rows are their own record (who joined when, at which place);
	// the admissions' tick draws through the store, audited there as the
	// system, and moves a counter.
	"Opening": true, "Openings": true, "OpeningPlace": true, "JoinOpening": true,
	"AdmissionBudget": true, "AdmitDue": true, "RunWaitingRooms": true, "OpeningReport": true, "OpeningDraw": true,
	"OpeningSummary": true, "WatchOpeningPlace": true,
}

// testAuditEveryChange fails when a Service method that is not a read
// leaves no audit row with the actor of its context: a state change added
// later must either be audited or be listed above with a reason. Every
// method of *service.Service must appear in one of the two tables.
func testAuditEveryChange(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	// The lanes read the clock while the test moves it.
	var clockNS atomic.Int64
	setClock := func(t time.Time) { clockNS.Store(t.UnixNano()) }
	setClock(now)
	svc := service.NewService(s, service.Options{Now: func() time.Time { return time.Unix(0, clockNS.Load()).UTC() },
		CheckInCodes: checkInCodes, WaitingRoom: service.WaitingRoomOptions{Tokens: admissionTokens}})
	actor := booking.Actor{Role: "admin", ID: "auditor"}
	ctx := booking.WithActor(context.Background(), actor)

	sl := f.slot(5, withFee(1000))
	free := f.slot(5)
	var queued booking.Slot
	p := f.patient()
	var held, booked booking.Appointment
	var round, lottery booking.Round
	var room booking.Room
	var roundSlot booking.Slot
	target, full := f.slot(5), f.slot(1)
	waiter := f.patient()
	var entry booking.WaitlistEntry
	var visitOf booking.Service
	var site booking.Site
	// The waitlist cases' own setup runs as the system, so that only the
	// change under test can leave a row by the auditor.
	bg := context.Background()
	wantEntry := func(ctx context.Context, p booking.Patient, key string) (booking.WaitlistEntry, error) {
		e, _, err := svc.JoinWaitlist(ctx, booking.WaitlistEntry{PatientID: p.ID, DoctorID: f.doctor.ID, From: now,
			To: now.Add(30 * 24 * time.Hour), PartOfDay: booking.PartAny, IdempotencyKey: key})
		return e, err
	}
	var sched booking.Schedule
	var sus booking.Suspension
	forStaff := f.slot(5)
	var refundID int64

	var doses booking.DoseSeries
	changes := []struct {
		name string
		do   func() error
	}{
		{"CreateDepartment", func() error { _, err := svc.CreateDepartment(ctx, booking.Department{Name: "Audit"}); return err }},
		{"CreateDoctor", func() error {
			_, err := svc.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Audit", DepartmentID: f.dept.ID, TimeZone: "UTC"})
			return err
		}},
		{"CreateService", func() error {
			var err error
			visitOf, err = svc.CreateService(ctx, booking.Service{Name: "Audit visit", Minutes: 60, Level: booking.LevelOrdinary,
				DoctorIDs: []int64{f.doctor2.ID}, Active: true})
			return err
		}},
		{"CreateSite", func() error {
			var err error
			site, err = svc.CreateSite(ctx, booking.Site{Name: "Audit site", TimeZone: "UTC"})
			return err
		}},
		{"UpdateSite", func() error {
			phone := "+33 1 00 00 00 00"
			_, err := svc.UpdateSite(ctx, site.ID, booking.SiteUpdate{Phone: &phone})
			return err
		}},
		{"SetStaffSites", func() error {
			acc, ok := s.(accountsStore)
			if !ok {
				return fmt.Errorf("the %T store keeps no staff accounts", s)
			}
			if err := acc.SetStaffPassword(bg, "audited-desk", []byte("$2a$10$x"), now); err != nil {
				return err
			}
			_, err := svc.SetStaffSites(ctx, "audited-desk", []int64{site.ID})
			return err
		}},
		{"UpdateService", func() error {
			notes := "Audited."
			_, err := svc.UpdateService(ctx, visitOf.ID, booking.ServiceUpdate{Notes: &notes})
			return err
		}},
		{"BookVisitFor", func() error {
			sl, err := s.CreateSlot(ctx, booking.Slot{DoctorID: f.doctor2.ID, StartAt: now.Add(500 * time.Hour),
				EndAt: now.Add(501 * time.Hour), Capacity: 1, OpensAt: now.Add(-time.Hour), Status: booking.SlotOpen})
			if err != nil {
				return err
			}
			return svc.BookVisitFor(ctx, booking.Acting{PatientID: f.patient().ID}, booking.Visit{SlotID: sl.ID, ServiceID: visitOf.ID}, "audit-v").Err
		}},
		{"CreatePatient", func() error { _, err := svc.CreatePatient(ctx, booking.Patient{Name: "P"}); return err }},
		{"CreateSlot", func() error {
			_, err := svc.CreateSlot(ctx, booking.Slot{DoctorID: f.doctor2.ID, StartAt: now.Add(400 * time.Hour),
				EndAt: now.Add(401 * time.Hour), Capacity: 1, OpensAt: now.Add(-time.Hour)})
			return err
		}},
		{"UpdateSlot", func() error {
			c := 6
			_, err := svc.UpdateSlot(ctx, free.ID, booking.SlotUpdate{Capacity: &c})
			return err
		}},
		{"AnnounceOpening", func() error {
			sc, err := s.CreateSchedule(bg, booking.Schedule{DoctorID: f.doctor2.ID, Weekdays: []time.Weekday{time.Friday},
				StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
			if err != nil {
				return err
			}
			sl := booking.Slot{DoctorID: f.doctor2.ID, ScheduleID: sc.ID, StartAt: now.Add(600 * time.Hour), EndAt: now.Add(601 * time.Hour),
				Capacity: 1, OpensAt: now.Add(time.Hour), Status: booking.SlotOpen}
			if _, err := s.CreateSlot(bg, sl); err != nil {
				return err
			}
			_, err = svc.AnnounceOpening(ctx, sc.ID, sl.OpensAt)
			return err
		}},
		{"CreateSchedule", func() error {
			var err error
			sched, _, err = svc.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doctor2.ID, Weekdays: []time.Weekday{time.Tuesday},
				StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
			return err
		}},
		{"GenerateSlots", func() error {
			// A schedule stored without its slots; the generation makes them.
			_, err := s.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Wednesday},
				StartTime: "13:00", EndTime: "14:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
			if err != nil {
				return err
			}
			_, _, err = svc.GenerateSlots(ctx, f.doctor.ID, now.Truncate(24*time.Hour), now.Add(7*24*time.Hour).Truncate(24*time.Hour))
			return err
		}},
		{"Book", func() error {
			r := svc.Book(ctx, p.ID, sl.ID, "audit-1")
			held = r.Appointment
			return r.Err
		}},
		{"ConfirmPayment", func() error {
			_, err := svc.ConfirmPayment(ctx, booking.Payment{TradeNo: "AUD1", AppointmentID: held.ID, AmountCents: 1000})
			return err
		}},
		{"MarkRefunded", func() error {
			// A second payment for the paid appointment needs a refund.
			_, err := svc.ConfirmPayment(ctx, booking.Payment{TradeNo: "AUD2", AppointmentID: held.ID, AmountCents: 1000})
			if booking.ErrorCode(err) != booking.CodePaymentRejected {
				return err
			}
			_, err = svc.MarkRefunded(ctx, "AUD2", "RF-1")
			return err
		}},
		{"ProcessRefund", func() error {
			// A paid place given back (by the system) has its refund; the
			// attempt (no provider: refused, and final) fails it.
			r := svc.Book(bg, f.patient().ID, sl.ID, "audit-refund")
			if r.Err != nil {
				return r.Err
			}
			if _, err := svc.ConfirmPayment(bg, booking.Payment{TradeNo: "AUD3", AppointmentID: r.Appointment.ID, AmountCents: 1000}); err != nil {
				return err
			}
			if _, err := svc.Cancel(bg, r.Appointment.ID, 0); err != nil {
				return err
			}
			rs, err := svc.AppointmentRefunds(bg, r.Appointment.ID, 0)
			if err != nil || len(rs) != 1 {
				return fmt.Errorf("refunds %+v: %v", rs, err)
			}
			refundID = rs[0].ID
			got, err := svc.ProcessRefund(ctx, refundID, true)
			if got.State != booking.RefundFailed {
				return fmt.Errorf("refund without a provider is %s: %v", got.State, err)
			}
			return nil
		}},
		{"RetryRefund", func() error { _, err := svc.RetryRefund(ctx, refundID); return err }},
		{"Cancel", func() error { _, err := svc.Cancel(ctx, held.ID, 0); return err }},
		{"Transition", func() error {
			r := svc.Book(ctx, p.ID, free.ID, "audit-2")
			if r.Err != nil {
				return r.Err
			}
			booked = r.Appointment
			setClock(booked.StartAt.Add(time.Minute))
			defer setClock(now)
			_, err := svc.Transition(ctx, booked.ID, booking.StatusCompleted)
			return err
		}},
		{"CheckIn", func() error {
			r := svc.Book(bg, f.patient().ID, free.ID, "audit-check-in")
			if r.Err != nil {
				return r.Err
			}
			setClock(r.Appointment.StartAt.Add(-time.Minute))
			defer setClock(now)
			_, _, err := svc.CheckIn(ctx, actor, r.Appointment.ID, "")
			return err
		}},
		{"WalkIn", func() error {
			wi := f.slot(1)
			if r := svc.Book(bg, f.patient().ID, wi.ID, "audit-walk-in-full"); r.Err != nil {
				return r.Err
			}
			setClock(wi.StartAt)
			defer setClock(now)
			_, _, err := svc.WalkIn(ctx, actor, booking.WalkInRequest{SlotID: wi.ID, PatientID: f.patient().ID, Reason: "audit", Key: "audit-walk-in"})
			return err
		}},
		{"MarkNoShows", func() error {
			r := svc.Book(bg, f.patient().ID, free.ID, "audit-no-show")
			if r.Err != nil {
				return r.Err
			}
			pol, err := svc.ClinicPolicy(bg)
			if err != nil {
				return err
			}
			pol.NoShowGraceMinutes = 10
			if _, err := svc.SetClinicPolicy(bg, pol); err != nil {
				return err
			}
			setClock(r.Appointment.StartAt.Add(11 * time.Minute))
			defer setClock(now)
			as, err := svc.MarkNoShows(ctx, 10)
			if err == nil && len(as) == 0 {
				err = fmt.Errorf("no appointment marked")
			}
			return err
		}},
		{"CallNext", func() error {
			queued = f.slot(1) // its own: Reconcile's repair counts free's places
			r := svc.Book(bg, f.patient().ID, queued.ID, "audit-queue")
			if r.Err != nil {
				return r.Err
			}
			setClock(r.Appointment.StartAt)
			defer setClock(now)
			if _, _, err := svc.CheckIn(bg, actor, r.Appointment.ID, ""); err != nil {
				return err
			}
			_, err := svc.CallNext(ctx, actor, r.Appointment.DoctorID)
			return err
		}},
		{"StepQueue", func() error {
			setClock(queued.StartAt)
			defer setClock(now)
			d, _, err := svc.QueueDay(bg, actor, queued.DoctorID) // CallNext's call, above
			if err != nil {
				return err
			}
			cur, ok := d.Current()
			if !ok {
				return fmt.Errorf("no current call")
			}
			_, err = svc.StepQueue(ctx, actor, cur.AppointmentID, booking.QueueActionRecall)
			return err
		}},
		{"CheckInByCode", func() error {
			r := svc.Book(bg, f.patient().ID, free.ID, "audit-kiosk")
			if r.Err != nil {
				return r.Err
			}
			setClock(r.Appointment.StartAt.Add(-time.Minute))
			defer setClock(now)
			_, _, err := svc.CheckInByCode(ctx, actor, svc.CheckInCode(r.Appointment.ID))
			return err
		}},
		{"ExpireHolds", func() error {
			r := svc.Book(ctx, f.patient().ID, sl.ID, "audit-3")
			if r.Err != nil {
				return r.Err
			}
			setClock(r.Appointment.HoldExpiresAt.Add(time.Second))
			defer setClock(now)
			_, err := svc.ExpireHolds(ctx, 10)
			return err
		}},
		{"UpdateSchedule", func() error {
			sc := sched
			sc.EndTime = "10:00"
			_, _, _, err := svc.UpdateSchedule(ctx, sc)
			return err
		}},
		{"BookFor", func() error {
			return svc.BookFor(ctx, booking.Acting{PatientID: f.patient().ID, Staff: true}, forStaff.ID, "audit-staff").Err
		}},
		{"CreateDoseSeries", func() error {
			var err error
			doses, err = svc.CreateDoseSeries(ctx, booking.DoseSeries{Name: "Audit doses", Windows: []booking.DoseWindow{{MinDays: 21, MaxDays: 28}}})
			return err
		}},
		{"SetEligibility", func() error {
			_, err := svc.SetEligibility(ctx, booking.EligibilityRule{ScheduleID: sched.ID, MinAge: ints(60)}, false)
			return err
		}},
		{"SetServiceEligibility", func() error {
			_, err := svc.SetServiceEligibility(ctx, booking.ServiceRule{ServiceID: visitOf.ID, Cohorts: []string{"audit"}}, false)
			if err == nil {
				_, err = svc.SetServiceEligibility(ctx, booking.ServiceRule{ServiceID: visitOf.ID}, true)
			}
			return err
		}},
		{"CreateInvitations", func() error {
			_, err := svc.CreateInvitations(ctx, sched.ID, 2)
			return err
		}},
		{"ImportCohorts", func() error {
			_, err := svc.ImportCohorts(ctx, []booking.CohortRow{{PatientID: f.patient().ID, Tag: "65+"}})
			return err
		}},
		{"BookSeries", func() error {
			d1 := f.slot(5, startsAt(now.Add(900*time.Hour)), onDoctor(f.doctor2.ID))
			d2 := f.slot(5, startsAt(now.Add(900*time.Hour+22*24*time.Hour)), onDoctor(f.doctor2.ID))
			_, err := svc.BookSeries(ctx, booking.Acting{PatientID: f.patient().ID, Staff: true},
				service.SeriesBookingRequest{SeriesID: doses.ID, SlotIDs: []int64{d1.ID, d2.ID}, Key: "audit-series"})
			return err
		}},
		{"BookNextDose", func() error {
			d1 := f.slot(5, startsAt(now.Add(1000*time.Hour)), onDoctor(f.doctor2.ID))
			d2 := f.slot(5, startsAt(now.Add(1000*time.Hour+22*24*time.Hour)), onDoctor(f.doctor2.ID))
			who := booking.Acting{PatientID: f.patient().ID, Staff: true}
			one, err := svc.BookSeries(bg, who, service.SeriesBookingRequest{SeriesID: doses.ID, SlotIDs: []int64{d1.ID}, Key: "audit-dose1"})
			if err != nil {
				return err
			}
			_, err = svc.BookNextDose(ctx, who, service.NextDoseRequest{BookingID: one.Booking.ID, SlotID: d2.ID, Key: "audit-dose2"})
			return err
		}},
		{"BookGroup", func() error {
			g := f.slot(5, startsAt(now.Add(1500*time.Hour)))
			_, err := svc.BookGroup(ctx, actor, service.GroupBookingRequest{SlotID: g.ID, PatientIDs: []int64{f.patient().ID, f.patient().ID}, Key: "audit-group"})
			return err
		}},
		{"Suspend", func() error {
			res, err := svc.Suspend(ctx, booking.Suspension{DoctorID: f.doctor2.ID, From: now.Add(399 * time.Hour), To: now.Add(402 * time.Hour), Reason: "training"})
			sus = res.Suspension
			return err
		}},
		{"LiftSuspension", func() error { _, err := svc.LiftSuspension(ctx, sus.ID); return err }},
		{"UpdateDepartment", func() error {
			_, err := svc.UpdateDepartment(ctx, booking.Department{ID: f.dept.ID, Name: "Cardiology 2"})
			return err
		}},
		{"UpdateDoctor", func() error {
			name := "Dr. Martin-Audit"
			_, err := svc.UpdateDoctor(ctx, f.doctor.ID, booking.DoctorUpdate{Name: &name})
			return err
		}},
		{"SetDoctorPhoto", func() error {
			var b bytes.Buffer
			if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
				return err
			}
			_, err := svc.SetDoctorPhoto(ctx, f.doctor.ID, "image/png", b.Bytes())
			return err
		}},
		{"UpdatePatient", func() error {
			off := false
			_, err := svc.UpdatePatient(ctx, f.patient().ID, booking.PatientUpdate{Active: &off})
			return err
		}},
		{"SetClinicPolicy", func() error {
			pol := booking.DefaultPolicy
			pol.MaxActive++
			_, err := svc.SetClinicPolicy(ctx, pol)
			return err
		}},
		{"Reconcile", func() error {
			// Only the repair changes anything.
			h.Inspect(t, s).SetBookedCount(t, free.ID, 3)
			_, err := svc.Reconcile(ctx, true)
			return err
		}},
		{"CreateRoom", func() error {
			var err error
			room, err = svc.CreateRoom(ctx, booking.Room{Name: "A-1", TimeZone: "UTC", Building: "A", Beds: 2})
			return err
		}},
		{"CreateRound", func() error {
			var err error
			round, err = svc.CreateRound(ctx, booking.Round{Name: "audit", OpensAt: roundOpens, ClosesAt: roundCloses,
				TermStart: roundTermStart, TermEnd: roundTermEnd})
			return err
		}},
		{"AddRoundSlots", func() error {
			sls, err := svc.AddRoundSlots(ctx, round.ID, []int64{room.ID})
			if len(sls) > 0 {
				roundSlot = sls[0]
			}
			return err
		}},
		{"SetRoundState", func() error { _, err := svc.SetRoundState(ctx, round.ID, booking.RoundOpen); return err }},
		{"Register", func() error {
			var err error
			lottery, err = svc.CreateRound(ctx, booking.Round{Name: "audit lottery", OpensAt: roundOpens, ClosesAt: roundCloses,
				TermStart: roundTermStart, TermEnd: roundTermEnd, Lottery: &booking.Lottery{RegistrationOpensAt: regOpens,
					RegistrationClosesAt: regCloses, SelectionGroup: 1}})
			if err != nil {
				return err
			}
			if _, err := svc.SetRoundState(ctx, lottery.ID, booking.RoundOpen); err != nil {
				return err
			}
			setClock(regOpens)
			defer setClock(now)
			_, _, err = svc.Register(ctx, lottery.ID, p.ID)
			return err
		}},
		{"Draw", func() error { _, _, err := svc.Draw(ctx, lottery.ID, "admin"); return err }},
		// An export changes nothing but is recorded: who read whose data.
		{"ExportPatient", func() error { _, err := svc.ExportPatient(ctx, p.ID); return err }},
		{"AddPerson", func() error {
			_, err := svc.AddPerson(ctx, f.patient().ID, child("Audit kid"))
			return err
		}},
		{"UpdatePerson", func() error {
			acc := f.patient()
			p, err := svc.AddPerson(bg, acc.ID, child("Audit kid"))
			if err != nil {
				return err
			}
			name := "Renamed"
			_, err = svc.UpdatePerson(ctx, acc.ID, p.ID, service.PersonPatch{Name: &name})
			return err
		}},
		{"RemovePerson", func() error {
			acc := f.patient()
			p, err := svc.AddPerson(bg, acc.ID, child("Audit kid"))
			if err != nil {
				return err
			}
			_, err = svc.RemovePerson(ctx, acc.ID, p.ID)
			return err
		}},
		{"ErasePatient", func() error {
			q := f.patient()
			_, err := svc.ErasePatient(ctx, q.ID, "the patient asked (audit test)")
			return err
		}},
		{"SubmitApplication", func() error {
			setClock(roundOpens.Add(time.Minute))
			defer setClock(now)
			_, _, err := svc.SubmitApplication(ctx, service.ApplicationRequest{RoundID: round.ID, PatientID: p.ID, SlotID: roundSlot.ID, Key: "audit-app"})
			return err
		}},
		{"Reschedule", func() error {
			r := svc.Book(bg, f.patient().ID, free.ID, "audit-r")
			if r.Err != nil {
				return r.Err
			}
			_, err := svc.Reschedule(ctx, service.RescheduleRequest{AppointmentID: r.Appointment.ID, PatientID: 0, SlotID: target.ID, Key: "audit-r"})
			return err
		}},
		{"JoinWaitlist", func() error {
			var err error
			entry, err = wantEntry(ctx, waiter, "audit-w")
			return err
		}},
		{"MakeOffers", func() error {
			// A place released in a matching slot is kept for the entry.
			r := svc.Book(bg, f.patient().ID, full.ID, "audit-x")
			if r.Err != nil {
				return r.Err
			}
			if _, err := svc.Cancel(bg, r.Appointment.ID, 0); err != nil {
				return err
			}
			offers, err := svc.MakeOffers(ctx, full.ID)
			if err == nil && len(offers) != 1 {
				return fmt.Errorf("%d offers, want 1", len(offers))
			}
			return err
		}},
		{"AnswerOffer", func() error { _, _, err := svc.AnswerOffer(ctx, entry.ID, waiter.ID, false); return err }},
		{"LeaveWaitlist", func() error {
			other := f.patient()
			e, err := wantEntry(bg, other, "audit-w2")
			if err != nil {
				return err
			}
			_, err = svc.LeaveWaitlist(ctx, e.ID, other.ID)
			return err
		}},
		{"JoinStandby", func() error {
			_, _, err := svc.JoinStandby(ctx, booking.WaitlistEntry{PatientID: f.patient().ID, SiteID: f.dept.SiteID,
				From: now, To: now.Add(10 * 24 * time.Hour), IdempotencyKey: "audit-sb"})
			return err
		}},
		{"LeaveStandby", func() error {
			other := f.patient()
			e, _, err := svc.JoinStandby(ctx, booking.WaitlistEntry{PatientID: other.ID, SiteID: f.dept.SiteID,
				From: now, To: now.Add(24 * time.Hour), IdempotencyKey: "audit-sb2"})
			if err != nil {
				return err
			}
			_, err = svc.LeaveStandby(ctx, e.ID, other.ID)
			return err
		}},
		{"SetStandbyPolicy", func() error {
			_, err := svc.SetStandbyPolicy(ctx, booking.StandbyPolicy{SiteID: f.dept.SiteID, Enabled: true, HoldMinutes: 10})
			return err
		}},
		{"OfferLeftovers", func() error {
			// A slot past its check-in window with its places left.
			sl := f.slot(1)
			setClock(sl.StartAt.Add(20 * time.Minute))
			defer setClock(now)
			as, err := svc.OfferLeftovers(ctx)
			if err == nil && len(as) != 1 {
				return fmt.Errorf("%d leftover offers, want 1", len(as))
			}
			return err
		}},
	}

	classified := map[string]bool{}
	for _, c := range changes {
		classified[c.name] = true
		before := lastAuditID(t, svc)
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		es, err := svc.Audit(ctx, booking.AuditFilter{BeforeID: 0, Limit: booking.MaxAuditPage})
		must(t, err)
		found := false
		for _, e := range es {
			if e.ID > before && e.ActorRole == actor.Role && e.ActorID == actor.ID {
				found = true
			}
		}
		if !found {
			t.Errorf("Service.%s changed state but wrote no audit row by %+v", c.name, actor)
		}
	}
	typ := reflect.TypeOf(svc)
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if !classified[name] && !serviceReads[name] {
			t.Errorf("Service.%s is neither audited in this test nor listed as a read: audit its change and add it here", name)
		}
	}
}

func lastAuditID(t *testing.T, svc *service.Service) int64 {
	t.Helper()
	es, err := svc.Audit(context.Background(), booking.AuditFilter{Limit: 1})
	must(t, err)
	if len(es) == 0 {
		return 0
	}
	return es[0].ID
}

// testAuditLog checks what the log keeps: the before and after states of
// an appointment's life, the filters, the page cursor and a patient's own
// history.
func testAuditLog(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }})
	sl := f.slot(3)
	p, q := f.patient(), f.patient()
	pctx := booking.WithActor(context.Background(), booking.Actor{Role: "patient", ID: "p"})
	a := wantOK(t, svc.Book(pctx, p.ID, sl.ID, "k1"))
	wantOK(t, svc.Book(context.Background(), q.ID, sl.ID, "k2"))
	_, err := svc.Cancel(pctx, a.ID, p.ID)
	must(t, err)

	es, err := svc.Audit(context.Background(), booking.AuditFilter{Entity: booking.EntityAppointment, EntityID: a.ID})
	must(t, err)
	if len(es) != 2 || es[0].Action != "cancel" || es[1].Action != "book" {
		t.Fatalf("appointment history = %+v", es)
	}
	if es[0].Before == "" || es[0].After == "" || es[1].Before != "" || es[0].ActorRole != "patient" {
		t.Fatalf("cancel entry = %+v", es[0])
	}
	mine, err := svc.Audit(context.Background(), booking.AuditFilter{PatientID: p.ID})
	must(t, err)
	if len(mine) != 2 {
		t.Fatalf("patient %d's history has %d entries, want 2", p.ID, len(mine))
	}
	sys, err := svc.Audit(context.Background(), booking.AuditFilter{ActorRole: booking.ActorSystem, Entity: booking.EntityAppointment})
	must(t, err)
	if len(sys) != 1 {
		t.Fatalf("a booking without an actor must be the system's: %+v", sys)
	}
	page, err := svc.Audit(context.Background(), booking.AuditFilter{Limit: 1, BeforeID: es[0].ID})
	must(t, err)
	if len(page) != 1 || page[0].ID >= es[0].ID {
		t.Fatalf("page below %d = %+v", es[0].ID, page)
	}
	none, err := svc.Audit(context.Background(), booking.AuditFilter{Entity: booking.EntityAppointment, From: now.Add(time.Hour)})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("entries after the clock: %+v", none)
	}
}

// testRefunds settles a needs-refund payment: reconciliation then stops
// listing it and is clean; settling again with the same reference changes
// nothing, with another it is refused; an applied payment needs none.
func testRefunds(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	sl := f.slot(3, withFee(2500))
	a := wantOK(t, svc.Book(ctx, f.patient().ID, sl.ID, "r"))
	_, err := svc.ConfirmPayment(ctx, booking.Payment{TradeNo: "R1", AppointmentID: a.ID, AmountCents: 2500})
	must(t, err)
	_, err = svc.ConfirmPayment(ctx, booking.Payment{TradeNo: "R2", AppointmentID: a.ID, AmountCents: 2500})
	wantCode(t, err, booking.CodePaymentRejected)

	rep, err := svc.Reconcile(ctx, false)
	must(t, err)
	if rep.Clean() || !rep.Sound() || rep.Pending() != 1 || rep.Violations() != 0 {
		t.Fatalf("a pending refund: clean %v, sound %v, pending %d", rep.Clean(), rep.Sound(), rep.Pending())
	}
	_, err = svc.MarkRefunded(ctx, "R1", "X")
	wantCode(t, err, booking.CodeInvalidTransition)
	_, err = svc.MarkRefunded(ctx, "NOPE", "X")
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.MarkRefunded(ctx, "R2", "")
	wantCode(t, err, booking.CodeInvalidRequest)
	p, err := svc.MarkRefunded(ctx, "R2", "RF-9")
	must(t, err)
	if p.RefundedAt == nil || p.RefundRef != "RF-9" {
		t.Fatalf("refunded payment = %+v", p)
	}
	again, err := svc.MarkRefunded(ctx, "R2", "RF-9")
	must(t, err)
	if again.RefundRef != "RF-9" {
		t.Fatalf("repeat = %+v", again)
	}
	_, err = svc.MarkRefunded(ctx, "R2", "RF-10")
	wantCode(t, err, booking.CodeInvalidTransition)
	rep, err = svc.Reconcile(ctx, false)
	must(t, err)
	if !rep.Clean() {
		t.Fatalf("after the refund the report is not clean: %+v", rep)
	}

	_, err = svc.LastReconcileRun(ctx)
	wantCode(t, err, booking.CodeNotFound)
	run, err := svc.RunReconciliation(ctx)
	must(t, err)
	last, err := svc.LastReconcileRun(ctx)
	must(t, err)
	if last.Violations != 0 || last.Pending != 0 || !last.CheckedAt.Equal(run.CheckedAt) {
		t.Fatalf("last run = %+v, ran %+v", last, run)
	}
	// The kept verdict has its findings by kind, which the metrics export.
	if len(last.Kinds) != 8 || last.Kinds["refund_needed"] != 0 || !booking.ViolationKind("counter_mismatch") || booking.ViolationKind("refund_needed") {
		t.Fatalf("last run's kinds = %v", last.Kinds)
	}
}
