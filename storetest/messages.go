package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testMessages holds both stores' delivery records to the same behaviour:
// one record per message key however often it is attempted, states that
// only move forward, provider reports found by the provider's id, a
// patient's list newest first and paged, and a sign-up code's record with
// no patient.
func testMessages(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := context.Background()
	p, other := f.patient(), f.patient()
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)

	attempt := func(key, state, sid, reason string) booking.Message {
		t.Helper()
		m, err := recordOne(ctx, s, booking.MessageAttempt{Key: key, PatientID: p.ID, Kind: "login-code", Channel: "sms",
			State: state, ProviderID: sid, Reason: reason, At: at})
		must(t, err)
		at = at.Add(time.Second)
		return m
	}
	// A retried message: queued with the transient reason, then sent.
	m := attempt("k1", booking.MessageQueued, "", "429 Too Many Requests")
	if m.State != booking.MessageQueued || m.Attempts != 1 || m.Reason != "429 Too Many Requests" || m.ID == 0 {
		t.Fatalf("first attempt: %+v", m)
	}
	m = attempt("k1", booking.MessageSent, "SM1", "")
	if m.State != booking.MessageSent || m.Attempts != 2 || m.ProviderID != "SM1" || m.Reason != "" {
		t.Fatalf("second attempt: %+v", m)
	}
	// Reports: delivered, then a late "sent" changes nothing.
	r, changed, err := s.ReportMessage(ctx, booking.MessageReport{ProviderID: "SM1", State: booking.MessageDelivered, At: at})
	must(t, err)
	if r.State != booking.MessageDelivered || r.ID != m.ID || !changed {
		t.Fatalf("delivered report: %+v", r)
	}
	r, changed, err = s.ReportMessage(ctx, booking.MessageReport{ProviderID: "SM1", State: booking.MessageSent, At: at})
	must(t, err)
	if r.State != booking.MessageDelivered || changed {
		t.Fatalf("a late sent report moved a delivered message back: %+v", r)
	}
	if _, _, err := s.ReportMessage(ctx, booking.MessageReport{ProviderID: "SMnone", State: booking.MessageDelivered, At: at}); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("report of an unknown id: %v, want not found", err)
	}
	// A permanent failure is final: a later attempt does not revive it.
	failed := attempt("k2", booking.MessageFailed, "", "21211: The 'To' number is not a valid phone number.")
	if failed.State != booking.MessageFailed || failed.Reason == "" {
		t.Fatalf("failed attempt: %+v", failed)
	}
	if again := attempt("k2", booking.MessageSent, "SM2", ""); again.State != booking.MessageFailed || again.Attempts != 2 {
		t.Fatalf("a failed message moved on: %+v", again)
	}
	// A sent message the provider could not deliver fails with its reason.
	attempt("k3", booking.MessageSent, "SM3", "")
	r, changed, err = s.ReportMessage(ctx, booking.MessageReport{ProviderID: "SM3", State: booking.MessageFailed, Reason: "undelivered: 30003", At: at})
	must(t, err)
	if r.State != booking.MessageFailed || r.Reason != "undelivered: 30003" || !changed {
		t.Fatalf("undelivered report: %+v", r)
	}

	// Many attempts of one message at once: one record, every attempt counted.
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, err := recordOne(ctx, s, booking.MessageAttempt{Key: "k4", PatientID: p.ID, Kind: "confirmation", Channel: "email",
				State: booking.MessageQueued, Reason: "timeout", At: at}); err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()

	list, err := s.PatientMessages(ctx, p.ID, booking.Page{})
	must(t, err)
	if len(list) != 4 {
		t.Fatalf("patient's messages: %d, want 4: %+v", len(list), list)
	}
	if list[0].Attempts != 8 || list[0].Channel != "email" {
		t.Fatalf("concurrent attempts of one message: %+v, want one record of 8 attempts", list[0])
	}
	for i := 1; i < len(list); i++ {
		if list[i].ID >= list[i-1].ID {
			t.Fatalf("not newest first: %+v", list)
		}
	}
	page, err := s.PatientMessages(ctx, p.ID, booking.Page{After: list[1].ID, Limit: 1})
	must(t, err)
	if len(page) != 1 || page[0].ID != list[2].ID {
		t.Fatalf("page after %d: %+v, want %d", list[1].ID, page, list[2].ID)
	}
	none, err := s.PatientMessages(ctx, other.ID, booking.Page{Limit: 10})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("another patient's messages: %+v", none)
	}
	// A batch naming an unknown patient writes none of its records.
	if _, err := s.RecordMessages(ctx, []booking.MessageAttempt{
		{Key: "k5", PatientID: p.ID, Kind: "reminder", Channel: "sms", State: booking.MessageSent, At: at},
		{Key: "k6", PatientID: 1 << 40, Kind: "reminder", Channel: "sms", State: booking.MessageQueued, At: at},
	}); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("a message of an unknown patient: %v, want not found", err)
	}
	if list, err := s.PatientMessages(ctx, p.ID, booking.Page{Limit: 10}); err != nil || len(list) != 4 {
		t.Fatalf("after a refused batch: %d messages (%v), want the 4 before", len(list), err)
	}

	// A sign-up code goes to an address no patient has: recorded with no
	// patient, reported on by its provider, listed for nobody.
	code, err := recordOne(ctx, s, booking.MessageAttempt{Key: "signup-1", Kind: "login-code", Channel: "sms",
		State: booking.MessageSent, ProviderID: "SMsignup", At: at})
	must(t, err)
	if code.PatientID != 0 || code.State != booking.MessageSent || code.ID == 0 {
		t.Fatalf("a sign-up code's record: %+v", code)
	}
	r, changed, err = s.ReportMessage(ctx, booking.MessageReport{ProviderID: "SMsignup", State: booking.MessageDelivered, At: at})
	must(t, err)
	if r.ID != code.ID || r.PatientID != 0 || r.State != booking.MessageDelivered || !changed {
		t.Fatalf("a sign-up code's report: %+v", r)
	}
	if list, err := s.PatientMessages(ctx, 0, booking.Page{Limit: 10}); err != nil || len(list) != 0 {
		t.Fatalf("messages of patient 0: %+v (%v)", list, err)
	}
}

// recordOne records one attempt and returns its message's record.
func recordOne(ctx context.Context, s booking.Store, a booking.MessageAttempt) (booking.Message, error) {
	ms, err := s.RecordMessages(ctx, []booking.MessageAttempt{a})
	return ms[a.Key], err
}

// testMessageBatches holds both stores' batched delivery records to the
// same behaviour: batches of overlapping keys, some recorded before and
// some new, released at once in opposite orders, count every attempt of
// every key on one record each, and two attempts of one key in a batch
// both count, in their order.
func testMessageBatches(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := context.Background()
	p := f.patient()
	at := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	keys := []string{"b1", "b2", "b3", "b4", "b5", "b6"}
	// Two keys recorded before, by an attempt each.
	if _, err := s.RecordMessages(ctx, []booking.MessageAttempt{
		{Key: "b2", PatientID: p.ID, Kind: "confirmation", Channel: "sms", State: booking.MessageQueued, Reason: "timeout", At: at},
		{Key: "b5", PatientID: p.ID, Kind: "confirmation", Channel: "sms", State: booking.MessageQueued, Reason: "timeout", At: at},
	}); err != nil {
		t.Fatal(err)
	}
	// Rounds of batches at once, each with two keys of its own, new: the
	// first round also opens the connections, so that the later ones race.
	const batches, rounds = 12, 4
	for r := range rounds {
		keys := append(slices.Clone(keys), fmt.Sprintf("r%d-a", r), fmt.Sprintf("r%d-b", r))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range batches {
			order := slices.Clone(keys)
			if i%2 == 1 {
				slices.Reverse(order)
			}
			as := make([]booking.MessageAttempt, len(order))
			for j, k := range order {
				as[j] = booking.MessageAttempt{Key: k, PatientID: p.ID, Kind: "confirmation", Channel: "sms",
					State: booking.MessageQueued, Reason: "timeout", At: at}
			}
			wg.Go(func() {
				<-start
				if _, err := s.RecordMessages(ctx, as); err != nil {
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
	}
	list, err := s.PatientMessages(ctx, p.ID, booking.Page{Limit: 20})
	must(t, err)
	if len(list) != len(keys)+2*rounds {
		t.Fatalf("%d records of %d keys: %+v", len(list), len(keys)+2*rounds, list)
	}
	// One more attempt of every key reads back their counts.
	want := map[string]int{}
	var again []booking.MessageAttempt
	for _, k := range keys {
		want[k] = batches*rounds + 1
	}
	want["b2"]++
	want["b5"]++
	for r := range rounds {
		want[fmt.Sprintf("r%d-a", r)], want[fmt.Sprintf("r%d-b", r)] = batches+1, batches+1
	}
	for k := range want {
		again = append(again, booking.MessageAttempt{Key: k, PatientID: p.ID, Kind: "confirmation", Channel: "sms",
			State: booking.MessageQueued, Reason: "timeout", At: at})
	}
	counts, err := s.RecordMessages(ctx, again)
	must(t, err)
	for k, n := range want {
		if m := counts[k]; m.Attempts != n || m.State != booking.MessageQueued || m.Channel != "sms" {
			t.Errorf("%s, attempted in batches at once: %+v, want one record of %d attempts", k, m, n)
		}
	}
	got, err := s.RecordMessages(ctx, []booking.MessageAttempt{
		{Key: "b1", PatientID: p.ID, Kind: "confirmation", Channel: "sms", State: booking.MessageSent, ProviderID: "SMb1", At: at},
		{Key: "b1", PatientID: p.ID, Kind: "confirmation", Channel: "sms", State: booking.MessageQueued, Reason: "late", At: at},
		{Key: "b7", PatientID: p.ID, Kind: "confirmation", Channel: "email", State: booking.MessageFailed, Reason: "no address", At: at},
	})
	must(t, err)
	if b1 := got["b1"]; len(got) != 2 || b1.Attempts != batches*rounds+3 || b1.State != booking.MessageSent || b1.ProviderID != "SMb1" {
		t.Fatalf("two attempts of b1 in one batch, sent then queued: %+v, want sent after %d attempts", got, batches*rounds+3)
	}
	if b7 := got["b7"]; b7.ID == 0 || b7.Attempts != 1 || b7.State != booking.MessageFailed || b7.Reason != "no address" {
		t.Fatalf("a new key in a batch: %+v", b7)
	}
}

// testDeliveryMarks holds both stores' delivery marks of notification
// jobs to the same behaviour: a message without a record is due; marks
// and delivery records of overlapping keys released at once (in opposite
// orders) leave one record per message, sent, with every record's attempt
// counted; a job's mark never undoes a record the delivery itself
// (RecordMessages) or a provider moved further; a mark for an unknown
// patient is not found and records nothing.
func testDeliveryMarks(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := context.Background()
	p := f.patient()
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	keys := []string{"appt-1-confirmation", "appt-2-confirmation", "appt-3-confirmation", "appt-4-confirmation"}
	mark := func(key, state, reason string) error {
		return s.MarkMessage(ctx, booking.MessageMark{Key: key, PatientID: p.ID, Kind: "confirmation", State: state, Reason: reason, At: at})
	}
	states, err := s.DeliveryStates(ctx, keys)
	must(t, err)
	if len(states) != 0 || !booking.DeliveryDue(states[keys[0]]) {
		t.Fatalf("states before any delivery: %v, want none, each due", states)
	}

	// Jobs marking and deliveries recording the same messages at once:
	// each goroutine takes three of the four keys, in its own order.
	const n = 16
	start := make(chan struct{})
	errs := make([]error, n)
	recorded := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		ks := slices.Clone(keys[i%2 : i%2+3])
		if i%8 >= 4 {
			slices.Reverse(ks)
		}
		if i%4 >= 2 {
			as := make([]booking.MessageAttempt, len(ks))
			for j, k := range ks {
				as[j] = booking.MessageAttempt{Key: k, PatientID: p.ID, Kind: "confirmation", Channel: "sms",
					State: booking.MessageQueued, Reason: "timeout", At: at}
				recorded[k]++
			}
			wg.Go(func() {
				<-start
				_, errs[i] = s.RecordMessages(ctx, as)
			})
			continue
		}
		wg.Go(func() {
			<-start
			for _, k := range ks {
				if err := mark(k, booking.MessageSent, ""); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	ms, err := s.PatientMessages(ctx, p.ID, booking.Page{Limit: 10})
	must(t, err)
	if len(ms) != len(keys) {
		t.Fatalf("records after the marks and records at once: %+v, want one per key", ms)
	}
	states, err = s.DeliveryStates(ctx, append(slices.Clone(keys), "appt-5-confirmation"))
	must(t, err)
	if _, ok := states["appt-5-confirmation"]; ok || len(states) != len(keys) {
		t.Fatalf("states after the marks: %v, want none for a key never recorded", states)
	}
	// One more attempt of each key reads its record back: sent (a queued
	// attempt does not move it back), every record's attempt counted, and
	// the marks' one attempt unless a record had counted it already.
	again := make([]booking.MessageAttempt, len(keys))
	for i, k := range keys {
		again[i] = booking.MessageAttempt{Key: k, PatientID: p.ID, Kind: "confirmation", Channel: "sms",
			State: booking.MessageQueued, Reason: "timeout", At: at}
	}
	got, err := s.RecordMessages(ctx, again)
	must(t, err)
	for _, k := range keys {
		m := got[k]
		if m.State != booking.MessageSent || m.Attempts < recorded[k]+1 || m.Attempts > recorded[k]+2 {
			t.Errorf("%s after %d records and marks at once, and one more attempt: %+v, want sent after %d or %d attempts",
				k, recorded[k], m, recorded[k]+1, recorded[k]+2)
		}
	}

	// A retryable failure's record leaves the message due; the job's mark
	// then moves it.
	_, err = recordOne(ctx, s, booking.MessageAttempt{Key: "appt-6-confirmation", PatientID: p.ID, Kind: "confirmation",
		Channel: "sms", State: booking.MessageQueued, Reason: "timeout", At: at})
	must(t, err)
	must(t, mark("appt-6-confirmation", booking.MessageFailed, "refused"))
	states, err = s.DeliveryStates(ctx, []string{"appt-6-confirmation"})
	must(t, err)
	if states["appt-6-confirmation"] != booking.MessageFailed {
		t.Fatalf("state after a mark of a queued record: %v, want failed", states)
	}

	// The delivery recorded the message delivered before the job's mark:
	// the mark changes nothing.
	_, err = recordOne(ctx, s, booking.MessageAttempt{Key: "appt-7-confirmation", PatientID: p.ID, Kind: "confirmation",
		Channel: "sms", State: booking.MessageSent, ProviderID: "SM7", At: at})
	must(t, err)
	_, _, err = s.ReportMessage(ctx, booking.MessageReport{ProviderID: "SM7", State: booking.MessageDelivered, At: at})
	must(t, err)
	must(t, mark("appt-7-confirmation", booking.MessageFailed, "late"))
	states, err = s.DeliveryStates(ctx, []string{"appt-7-confirmation"})
	must(t, err)
	if states["appt-7-confirmation"] != booking.MessageDelivered {
		t.Fatalf("state %v, want delivered kept", states)
	}

	err = s.MarkMessage(ctx, booking.MessageMark{Key: "appt-8-confirmation", PatientID: 1 << 40, Kind: "confirmation",
		State: booking.MessageSent, At: at})
	if booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("mark for an unknown patient: %v, want not found", err)
	}
	if states, err := s.DeliveryStates(ctx, []string{"appt-8-confirmation"}); err != nil || len(states) != 0 {
		t.Fatalf("records after a refused mark: %v (%v), want none", states, err)
	}
}

// testDeliveryReads holds both stores' reads of a notification batch to
// the same behaviour: the appointments and patients of the ids that exist,
// each as its single read returns it, and nothing for an unknown id.
func testDeliveryReads(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := context.Background()
	sl := f.slot(3)
	ps := f.patients(3)
	ids := []int64{1 << 40}
	pids := []int64{1 << 40}
	for _, p := range ps {
		ids = append(ids, f.mustBook(sl.ID, p).ID)
		pids = append(pids, p.ID)
	}
	as, err := s.GetAppointments(ctx, ids)
	must(t, err)
	got, err := s.GetPatients(ctx, pids)
	must(t, err)
	if len(as) != 3 || len(got) != 3 {
		t.Fatalf("%d appointments and %d patients, want 3 of each", len(as), len(got))
	}
	for i, id := range ids[1:] {
		one, err := s.GetAppointment(ctx, id)
		must(t, err)
		if !reflect.DeepEqual(as[id], one) {
			t.Fatalf("appointment %d\n got %+v\nwant %+v", id, as[id], one)
		}
		p, err := s.GetPatient(ctx, pids[i+1])
		must(t, err)
		if !reflect.DeepEqual(got[p.ID], p) || p.Phone == "" {
			t.Fatalf("patient %d\n got %+v\nwant %+v", p.ID, got[p.ID], p)
		}
	}
	if as, err := s.GetAppointments(ctx, nil); err != nil || len(as) != 0 {
		t.Fatalf("no ids: %v (%v)", as, err)
	}
}
