package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

// deliveryReads is what a notification worker reads to word a message and
// to see whether it is still true.
type deliveryReads interface {
	GetAppointments(ctx context.Context, ids []int64) (map[int64]booking.Appointment, error)
	GetPatients(ctx context.Context, ids []int64) (map[int64]booking.Patient, error)
	GetDoctor(ctx context.Context, id int64) (booking.Doctor, error)
	GetSuspension(ctx context.Context, id int64) (booking.Suspension, error)
	GetRefund(ctx context.Context, id int64) (booking.Refund, error)
}

// workers holds what the job workers share.
type workers struct {
	store    deliveryReads
	svc      *service.Service // makes every change
	notifier notify.Notifier
	logger   *slog.Logger
	// sends bounds the deliveries in flight, of single jobs and batches
	// together (Config.NotifyWorkers).
	sends chan struct{}
}

// NotifyArgs is one notification job: which message, for which appointment.
// It holds ids only, never personal data; the worker reads the rest when it
// delivers, so it also sees whether the message is still true.
type NotifyArgs struct {
	Notification  booking.NotificationKind `json:"kind"`
	AppointmentID int64                    `json:"appointmentId"`
	SuspensionID  int64                    `json:"suspensionId,omitempty"`
	Ref           string                   `json:"ref,omitempty"`
	RefundID      int64                    `json:"refundId,omitempty"`
}

// Kind names the job kind in River's table.
func (NotifyArgs) Kind() string { return "slotd.notify" }

// InsertOpts puts notifications on their own queue.
func (NotifyArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: QueueNotify} }

// NotifyBatchArgs carries the notifications of one transaction that
// announced several (a booking batch, a suspension): one job row written in
// that transaction instead of one per notification, which keeps the hot
// booking transaction short. Its worker delivers them itself, marking each
// message (deliverAll), so that a retried batch skips what it sent. Ids
// only, like NotifyArgs.
type NotifyBatchArgs struct {
	Notifications []NotifyArgs `json:"notifications"`
}

// Kind names the job kind in River's table.
func (NotifyBatchArgs) Kind() string { return "slotd.notify_batch" }

// InsertOpts puts the batch on the notifications' queue.
func (NotifyBatchArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: QueueNotify} }

// notifyBatchWorker delivers a batch's messages, several at once within
// the deliveries' shared bound (Config.NotifyWorkers).
type notifyBatchWorker struct {
	river.WorkerDefaults[NotifyBatchArgs]
	w *workers
}

// Timeout leaves a large batch a minute per four messages (they go
// several at once), at most 30 minutes: below DefaultRescueAfter.
func (*notifyBatchWorker) Timeout(job *river.Job[NotifyBatchArgs]) time.Duration {
	return min(time.Duration(1+len(job.Args.Notifications)/4)*time.Minute, 30*time.Minute)
}

// Work delivers every message of the batch not delivered by an earlier
// attempt of it (deliverAll). A message whose delivery fails in a way
// retrying may cure makes the whole batch retried (River's backoff), after
// the others were tried: the retry sends that one only. A message refused
// for good is marked failed and the batch goes on.
func (bw *notifyBatchWorker) Work(ctx context.Context, job *river.Job[NotifyBatchArgs]) error {
	retry, refused := bw.w.deliverAll(ctx, job.Args.Notifications, job.Attempt >= job.MaxAttempts)
	for _, r := range refused {
		bw.w.logger.Warn("notification not delivered", "kind", r.n.Notification, "appointment", r.n.AppointmentID, "err", r.err)
	}
	return retry
}

// ExpireArgs is the periodic hold-expiry pass.
type ExpireArgs struct{}

// Kind names the job kind in River's table.
func (ExpireArgs) Kind() string { return "slotd.expire_holds" }

// GenerateArgs is the periodic rolling slot generation: each schedule's
// days after its generated-through mark. Full (on demand only) generates
// each schedule's whole window.
type GenerateArgs struct {
	Full bool `json:"full,omitempty"`
}

// Kind names the job kind in River's table.
func (GenerateArgs) Kind() string { return "slotd.generate_slots" }

// notifyKinds maps the domain's notification kinds to message kinds.
var notifyKinds = map[booking.NotificationKind]string{
	booking.NotifyConfirmation:  notify.KindConfirmation,
	booking.NotifyCancellation:  notify.KindCancellation,
	booking.NotifyExpiry:        notify.KindExpiry,
	booking.NotifySuspension:    notify.KindSuspension,
	booking.NotifyRescheduled:   notify.KindRescheduled,
	booking.NotifyReminder:      notify.KindReminder,
	booking.NotifyOffer:         notify.KindOffer,
	booking.NotifyLeftoverOffer: notify.KindLeftoverOffer,
	booking.NotifyRefunded:      notify.KindRefund,
	booking.NotifyQueueAhead:    notify.KindQueueAhead,
}

type notifyWorker struct {
	river.WorkerDefaults[NotifyArgs]
	w *workers
}

// Work delivers one notification if it is still true and not delivered
// by an earlier attempt (deliverAll); one refused for good cancels the job.
func (nw *notifyWorker) Work(ctx context.Context, job *river.Job[NotifyArgs]) error {
	retry, refused := nw.w.deliverAll(ctx, []NotifyArgs{job.Args}, job.Attempt >= job.MaxAttempts)
	if retry == nil && len(refused) > 0 {
		return refused[0].err
	}
	return retry
}

// key is n's message's idempotency key, as deliver words it: one message
// per appointment and kind, and per move, reminder offset or refund.
func (n NotifyArgs) key() string {
	k := fmt.Sprintf("appt-%d-%s", n.AppointmentID, notifyKinds[n.Notification])
	if n.Ref != "" {
		k += "-" + n.Ref
	}
	if n.RefundID != 0 {
		k += fmt.Sprintf("-%d", n.RefundID)
	}
	return k
}

// refusal is a message refused for good (a river.JobCancel error): its
// notification and why.
type refusal struct {
	n   NotifyArgs
	err error
}

// deliverAll delivers ns's messages with their delivery marks. It reads
// what they say (readBatch, compose), drops those no longer true, reads
// the others' delivery records in one statement per page and sends those
// due, several at once within the deliveries' shared bound, each recorded
// sent, or failed, once the notifier returned (send): a job retried after
// a crash or a failure skips what went. The messages in flight when a
// process dies have no record yet and are sent again: at least once,
// with the same idempotency key, by which the receivers (the webhook's
// Idempotency-Key, the e-mail's Message-ID) drop the duplicate; an SMS
// provider without one (Twilio) may deliver such a message twice. It returns the first error
// worth retrying the job for, after the others were tried, and the
// messages refused for good. Reads and the delivery happen outside any
// transaction: the state change committed long before, and the notifier
// may take seconds.
func (w *workers) deliverAll(ctx context.Context, ns []NotifyArgs, final bool) (retry error, refused []refusal) {
	var mu sync.Mutex
	fail := func(n NotifyArgs, err error) {
		mu.Lock()
		defer mu.Unlock()
		var cancelled *river.JobCancelError
		switch {
		case errors.As(err, &cancelled):
			refused = append(refused, refusal{n, err})
		case retry == nil:
			retry = err
		}
	}
	memo, err := w.readBatch(ctx, ns)
	if err != nil {
		return err, nil // the job is retried
	}
	todo := make([]NotifyArgs, 0, len(ns))
	ms := make([]notify.Message, 0, len(ns))
	keys := make([]string, 0, len(ns))
	for _, n := range ns {
		m, ok, err := w.compose(ctx, n, memo)
		if err != nil {
			fail(n, err)
			continue
		}
		if ok {
			todo, ms = append(todo, n), append(ms, m)
			keys = append(keys, m.IdempotencyKey)
		}
	}
	states := make(map[string]string, len(keys))
	for i := 0; i < len(keys); i += booking.MaxDeliveryKeys {
		page, err := w.svc.DeliveryStates(ctx, keys[i:min(len(keys), i+booking.MaxDeliveryKeys)])
		if err != nil {
			return err, refused // nothing is sent unread: the job is retried
		}
		maps.Copy(states, page)
	}
	var wg sync.WaitGroup
	for i, m := range ms {
		if !booking.DeliveryDue(states[m.IdempotencyKey]) {
			continue // sent (or refused for good) by an earlier attempt
		}
		wg.Go(func() {
			select {
			case w.sends <- struct{}{}:
				defer func() { <-w.sends }()
			case <-ctx.Done():
				fail(todo[i], ctx.Err())
				return
			}
			if err := w.send(ctx, todo[i], m, final); err != nil {
				fail(todo[i], err)
			}
		})
	}
	wg.Wait()
	return retry, refused
}

// deliveryMemo keeps what a job's messages are about, read for all of
// them at once: their appointments and patients, a page of each per
// statement, and what they share (a batch's confirmations are for one
// slot), its doctor and site, read once.
type deliveryMemo struct {
	appointments map[int64]booking.Appointment
	patients     map[int64]booking.Patient
	doctors      map[int64]booking.Doctor
	sites        map[int64]siteRead // by department
}

// readBatch reads the appointments of ns and their patients.
func (w *workers) readBatch(ctx context.Context, ns []NotifyArgs) (*deliveryMemo, error) {
	memo := &deliveryMemo{appointments: map[int64]booking.Appointment{}, patients: map[int64]booking.Patient{},
		doctors: map[int64]booking.Doctor{}, sites: map[int64]siteRead{}}
	ids := make([]int64, 0, len(ns))
	for _, n := range ns {
		ids = append(ids, n.AppointmentID)
	}
	if err := readPages(ctx, ids, w.store.GetAppointments, memo.appointments); err != nil {
		return nil, err
	}
	ids = ids[:0]
	for _, a := range memo.appointments {
		ids = append(ids, a.PatientID)
	}
	return memo, readPages(ctx, ids, w.store.GetPatients, memo.patients)
}

// readPages reads ids, without repeats, booking.MaxDeliveryKeys at a
// time, into into.
func readPages[T any](ctx context.Context, ids []int64, read func(context.Context, []int64) (map[int64]T, error), into map[int64]T) error {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for i := 0; i < len(ids); i += booking.MaxDeliveryKeys {
		page, err := read(ctx, ids[i:min(len(ids), i+booking.MaxDeliveryKeys)])
		if err != nil {
			return err
		}
		maps.Copy(into, page)
	}
	return nil
}

type siteRead struct {
	site booking.Site
	err  error
}

// compose reads what n's message says and words it; ok is false when it
// is no longer true (dropped, not sent). A permanent error is a
// river.JobCancel.
func (w *workers) compose(ctx context.Context, n NotifyArgs, memo *deliveryMemo) (m notify.Message, ok bool, err error) {
	kind, known := notifyKinds[n.Notification]
	if !known {
		return m, false, river.JobCancel(fmt.Errorf("unknown notification kind %q", n.Notification))
	}
	a, found := memo.appointments[n.AppointmentID]
	if !found {
		return m, false, river.JobCancel(booking.NotFound("appointment"))
	}
	reminder := n.Notification == booking.NotifyReminder
	if want := n.Notification.Announces(); !n.Notification.Still(a.Status) {
		// The appointment moved on (a confirmation for one cancelled
		// since): the message would be false, so it is dropped, not sent.
		w.logger.Info("notification dropped: appointment no longer in its state",
			"kind", n.Notification, "appointment", a.ID, "status", a.Status, "want", want)
		if reminder {
			w.svc.CountReminder(booking.ReminderDropped)
		}
		return m, false, nil
	}
	if reminder && !w.svc.Now().Before(a.StartAt) {
		// A reminder delivered late (a backlog, an outage) is never sent
		// after the start: it would remind of the past.
		w.logger.Info("reminder dropped: the appointment has started", "appointment", a.ID)
		w.svc.CountReminder(booking.ReminderDropped)
		return m, false, nil
	}
	p, found := memo.patients[a.PatientID]
	if !found {
		return m, false, river.JobCancel(booking.NotFound("patient"))
	}
	d, seen := memo.doctors[a.DoctorID]
	if !seen {
		var err error
		if d, err = w.store.GetDoctor(ctx, a.DoctorID); err != nil {
			return m, false, permanentIfNotFound(err)
		}
		memo.doctors[a.DoctorID] = d
	}
	m = notify.Message{
		Kind:          kind,
		AppointmentID: a.ID,
		PatientID:     p.ID,
		PatientName:   p.Name,
		Language:      p.Language,
		Phone:         p.Phone,
		Email:         p.Email,
		DoctorName:    d.Name,
		StartAt:       a.StartAt,
		TimeZone:      d.TimeZone,
		QueueNumber:   a.QueueNumber,
		// One message per appointment and kind (and move, offset or
		// refund): receivers drop the duplicates that at-least-once
		// delivery produces by this key, and the delivery mark is its.
		IdempotencyKey: n.key(),
	}
	sr, seen := memo.sites[d.DepartmentID]
	if !seen {
		sr.site, sr.err = w.svc.SiteOfDepartment(ctx, d.DepartmentID)
		memo.sites[d.DepartmentID] = sr
	}
	if sr.err == nil {
		m.Place, m.MapURL = sr.site.Where(), sr.site.MapURL()
	} else if booking.ErrorCode(sr.err) != booking.CodeNotFound {
		return m, false, sr.err // retried: a message without its place would be sent once, wrong
	}
	if n.RefundID != 0 {
		r, err := w.store.GetRefund(ctx, n.RefundID)
		if err != nil {
			return m, false, permanentIfNotFound(err)
		}
		m.RefundAmount, m.Currency = r.AmountCents, w.svc.Currency()
	}
	if n.Notification == booking.NotifyConfirmation || reminder {
		m.CheckInCode = w.svc.CheckInCode(a.ID)
	}
	if n.Notification == booking.NotifyQueueAhead {
		m.Ahead, _ = strconv.Atoi(n.Ref)
	}
	if (n.Notification == booking.NotifyOffer || n.Notification == booking.NotifyLeftoverOffer) && a.HoldExpiresAt != nil {
		m.OfferExpiresAt = *a.HoldExpiresAt
	}
	if n.SuspensionID != 0 {
		sus, err := w.store.GetSuspension(ctx, n.SuspensionID)
		if err != nil {
			return m, false, permanentIfNotFound(err)
		}
		m.Reason = sus.Reason
	}
	return m, true, nil
}

// send hands m, due, to the notifier and marks it sent, or failed: a
// refusal, or the last attempt's failure, which River would otherwise
// leave queued (retrying cannot cure a missing address or a refusing
// receiver). The mark outlives a cancelled context: the message went. A
// failed mark retries the job, which sends the message again (at least
// once). A permanent failure is returned as river.JobCancel; a single job
// is recorded cancelled with it.
func (w *workers) send(ctx context.Context, n NotifyArgs, m notify.Message, final bool) error {
	if final {
		ctx = service.FinalAttempt(ctx) // River gives up after this one
	}
	recorded, err := w.notify(ctx, m)
	mark := booking.MessageMark{Key: m.IdempotencyKey, PatientID: m.PatientID, Kind: m.Kind, State: booking.MessageSent}
	switch {
	case err == nil:
	case notify.IsPermanent(err) || final:
		mark.State, mark.Reason = booking.MessageFailed, notify.Reason(err)
	default:
		return err // River retries with exponential backoff
	}
	if !recorded {
		if merr := w.svc.MarkMessage(context.WithoutCancel(ctx), mark); merr != nil {
			return merr
		}
	}
	if err != nil {
		return permanently(err)
	}
	if n.Notification == booking.NotifyReminder {
		w.svc.CountReminder(booking.ReminderDelivered)
	}
	return nil
}

// recordingNotifier is a notifier that records each message's delivery
// under its key (service.Deliveries): when its record was written, that
// record is the job's mark (sent, or failed for good), and the job writes
// none of its own.
type recordingNotifier interface {
	NotifyRecorded(ctx context.Context, m notify.Message) (recorded bool, err error)
}

// notify hands m to the notifier and says whether it recorded the
// delivery.
func (w *workers) notify(ctx context.Context, m notify.Message) (recorded bool, err error) {
	if rn, ok := w.notifier.(recordingNotifier); ok {
		return rn.NotifyRecorded(ctx, m)
	}
	return false, w.notifier.Notify(ctx, m)
}

// permanently cancels the job on a notifier's permanent error and lets
// River retry any other, with exponential backoff.
func permanently(err error) error {
	if notify.IsPermanent(err) {
		return river.JobCancel(err)
	}
	return err
}

// permanentIfNotFound cancels the job when what it refers to does not exist
// (retrying cannot bring it back) and lets River retry anything else.
func permanentIfNotFound(err error) error {
	if booking.ErrorCode(err) == booking.CodeNotFound {
		return river.JobCancel(err)
	}
	return err
}

type expireWorker struct {
	river.WorkerDefaults[ExpireArgs]
	w *workers
}

// Timeout leaves a large backlog time to drain in one run.
func (*expireWorker) Timeout(*river.Job[ExpireArgs]) time.Duration { return 5 * time.Minute }

// Work runs one expiry pass.
func (ew *expireWorker) Work(ctx context.Context, _ *river.Job[ExpireArgs]) error {
	_, err := ew.w.expire(ctx)
	return err
}

// expire expires every hold past its deadline, ExpireBatch at a time (one
// short transaction each, so bookings of the same slots are not held up
// behind one long one), and tells the Service of each released place.
func (w *workers) expire(ctx context.Context) (int, error) {
	total := 0
	for {
		as, err := w.svc.ExpireHolds(jobActor(ctx, ExpireArgs{}.Kind()), ExpireBatch) // releases the places in its gates
		if err != nil {
			return total, fmt.Errorf("expire holds: %w", err)
		}
		total += len(as)
		if len(as) < ExpireBatch {
			break
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
	if total > 0 {
		w.logger.Info("holds expired", "count", total)
	}
	return total, nil
}

// NoShowArgs is the periodic pass that makes NO_SHOW the BOOKED
// appointments not checked in by their start and the policy's grace.
type NoShowArgs struct{}

// Kind names the job kind in River's table.
func (NoShowArgs) Kind() string { return "slotd.mark_no_shows" }

type noShowWorker struct {
	river.WorkerDefaults[NoShowArgs]
	w *workers
}

// Work runs one pass, ExpireBatch appointments at a time.
func (nw *noShowWorker) Work(ctx context.Context, _ *river.Job[NoShowArgs]) error {
	_, err := nw.w.markNoShows(ctx)
	return err
}

func (w *workers) markNoShows(ctx context.Context) (int, error) {
	total := 0
	for {
		as, err := w.svc.MarkNoShows(jobActor(ctx, NoShowArgs{}.Kind()), ExpireBatch)
		if err != nil {
			return total, fmt.Errorf("mark no-shows: %w", err)
		}
		total += len(as)
		if len(as) < ExpireBatch {
			break
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
	if total > 0 {
		w.logger.Info("appointments marked no-show", "count", total)
	}
	return total, nil
}

type generateWorker struct {
	river.WorkerDefaults[GenerateArgs]
	w *workers
}

// Timeout leaves a pass with no marks yet (a new database's first, or an
// on-demand full one) time to generate every schedule's window.
func (*generateWorker) Timeout(*river.Job[GenerateArgs]) time.Duration { return 30 * time.Minute }

// Work runs one generation pass.
func (gw *generateWorker) Work(ctx context.Context, job *river.Job[GenerateArgs]) error {
	_, err := gw.w.generate(ctx, job.Args.Full)
	return err
}

// generate extends every schedule's horizon to its window at now (in the
// doctor's zone), through the Service. Generation is idempotent, so a pass
// that fails half-way is simply run again.
func (w *workers) generate(ctx context.Context, full bool) (int, error) {
	created, err := w.svc.ExtendSchedules(jobActor(ctx, GenerateArgs{}.Kind()), full)
	if created > 0 {
		w.logger.Info("slots generated", "created", created, "full", full)
	}
	if err != nil {
		return created, fmt.Errorf("generate slots: %w", err)
	}
	return created, nil
}
