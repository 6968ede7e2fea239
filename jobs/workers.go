package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
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
	GetAppointment(ctx context.Context, id int64) (booking.Appointment, error)
	GetPatient(ctx context.Context, id int64) (booking.Patient, error)
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
// message (deliverOnce), so that a retried batch skips what it sent. Ids
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
// attempt of it. A message whose delivery fails in a way retrying may cure
// makes the whole batch retried (River's backoff), after the others were
// tried: the retry sends that one only. A message refused for good is
// marked failed and the batch goes on.
func (bw *notifyBatchWorker) Work(ctx context.Context, job *river.Job[NotifyBatchArgs]) error {
	w := bw.w
	ns := job.Args.Notifications
	final := job.Attempt >= job.MaxAttempts
	done := map[string]string{}
	for i := 0; i < len(ns); i += booking.MaxDeliveryKeys {
		keys := make([]string, 0, booking.MaxDeliveryKeys)
		for _, n := range ns[i:min(len(ns), i+booking.MaxDeliveryKeys)] {
			keys = append(keys, n.key())
		}
		states, err := w.svc.MessageStates(ctx, keys)
		if err != nil {
			return err
		}
		maps.Copy(done, states)
	}
	var (
		mu    sync.Mutex
		retry error
		wg    sync.WaitGroup
	)
	for _, n := range ns {
		if st, ok := done[n.key()]; ok && !booking.DeliveryDue(st) {
			continue // sent (or refused for good) by an earlier attempt
		}
		wg.Go(func() {
			err := w.deliverOnce(ctx, n, final)
			var cancelled *river.JobCancelError
			if err == nil || errors.As(err, &cancelled) {
				if err != nil {
					w.logger.Warn("notification not delivered", "kind", n.Notification, "appointment", n.AppointmentID, "err", err)
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if retry == nil {
				retry = err
			}
		})
	}
	wg.Wait()
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
// by an earlier attempt (deliverOnce).
func (nw *notifyWorker) Work(ctx context.Context, job *river.Job[NotifyArgs]) error {
	if job.Attempt > 1 {
		// A retry: the message may have gone on the attempt that died.
		states, err := nw.w.svc.MessageStates(ctx, []string{job.Args.key()})
		if err != nil {
			return err
		}
		if st, ok := states[job.Args.key()]; ok && !booking.DeliveryDue(st) {
			return nil
		}
	}
	return nw.w.deliverOnce(ctx, job.Args, job.Attempt >= job.MaxAttempts)
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

// deliverOnce delivers n's message with its delivery mark: the message is
// claimed (recorded queued) before it is sent and marked sent, or failed,
// once the notifier returned, so that a job retried after a crash or a
// failure skips what went. The one message in flight when a process dies
// has no mark yet and is sent again: at least once, with the same
// idempotency key, by which the receivers (the webhook's Idempotency-Key,
// the e-mail's Message-ID) drop the duplicate; an SMS provider without
// one (Twilio) may deliver that one message twice. A permanent failure
// is returned as river.JobCancel; sends take a place of the deliveries'
// shared bound.
func (w *workers) deliverOnce(ctx context.Context, n NotifyArgs, final bool) error {
	select {
	case w.sends <- struct{}{}:
		defer func() { <-w.sends }()
	case <-ctx.Done():
		return ctx.Err()
	}
	return w.deliver(ctx, n, final)
}

// deliver reads what n's message says, drops it when no longer true,
// claims it, sends it and marks it. Reads and the delivery happen outside
// any transaction: the state change committed long before, and the
// notifier may take seconds.
func (w *workers) deliver(ctx context.Context, n NotifyArgs, final bool) error {
	kind, ok := notifyKinds[n.Notification]
	if !ok {
		return river.JobCancel(fmt.Errorf("unknown notification kind %q", n.Notification))
	}
	a, err := w.store.GetAppointment(ctx, n.AppointmentID)
	if err != nil {
		return permanentIfNotFound(err)
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
		return nil
	}
	if reminder && !w.svc.Now().Before(a.StartAt) {
		// A reminder delivered late (a backlog, an outage) is never sent
		// after the start: it would remind of the past.
		w.logger.Info("reminder dropped: the appointment has started", "appointment", a.ID)
		w.svc.CountReminder(booking.ReminderDropped)
		return nil
	}
	p, err := w.store.GetPatient(ctx, a.PatientID)
	if err != nil {
		return permanentIfNotFound(err)
	}
	d, err := w.store.GetDoctor(ctx, a.DoctorID)
	if err != nil {
		return permanentIfNotFound(err)
	}
	m := notify.Message{
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
	if site, err := w.svc.SiteOfDepartment(ctx, d.DepartmentID); err == nil {
		m.Place, m.MapURL = site.Where(), site.MapURL()
	} else if booking.ErrorCode(err) != booking.CodeNotFound {
		return err // retried: a message without its place would be sent once, wrong
	}
	if n.RefundID != 0 {
		r, err := w.store.GetRefund(ctx, n.RefundID)
		if err != nil {
			return permanentIfNotFound(err)
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
			return permanentIfNotFound(err)
		}
		m.Reason = sus.Reason
	}
	due, err := w.svc.ClaimMessage(ctx, booking.MessageClaim{Key: m.IdempotencyKey, PatientID: p.ID, Kind: kind})
	if err != nil {
		return permanentIfNotFound(err)
	}
	if !due {
		return nil // an earlier attempt sent it, or failed it for good
	}
	if final {
		ctx = service.FinalAttempt(ctx) // River gives up after this one
	}
	if err := w.notifier.Notify(ctx, m); err != nil {
		if notify.IsPermanent(err) || final {
			// Marked failed (the last attempt's failure too, which River
			// would otherwise leave queued): retrying cannot cure a
			// missing address or a refusing receiver. A single job is
			// recorded cancelled with this error.
			mark := booking.MessageMark{Key: m.IdempotencyKey, State: booking.MessageFailed, Reason: notify.Reason(err)}
			if merr := w.svc.MarkMessage(context.WithoutCancel(ctx), mark); merr != nil {
				return merr
			}
		}
		if notify.IsPermanent(err) {
			return river.JobCancel(err)
		}
		return err // River retries with exponential backoff
	}
	// The mark outlives a cancelled context: the message went. A failed
	// mark retries the job, which sends this message again (at least once).
	if err := w.svc.MarkMessage(context.WithoutCancel(ctx), booking.MessageMark{Key: m.IdempotencyKey, State: booking.MessageSent}); err != nil {
		return err
	}
	if reminder {
		w.svc.CountReminder(booking.ReminderDelivered)
	}
	return nil
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
