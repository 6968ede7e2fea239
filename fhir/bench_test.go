package fhir

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// benchFixture adds 20 doctors × 14 days × 16 slots to a fixture.
func benchFixture(b *testing.B) *fixture {
	f := newFixture(b)
	ctx := context.Background()
	var slots []booking.Slot
	for d := 0; d < 20; d++ {
		doc, err := f.store.CreateDoctor(ctx, booking.Doctor{Name: "Dr. " + strconv.Itoa(d), DepartmentID: f.dept.ID, TimeZone: "Europe/Paris"})
		must(b, err)
		for day := 0; day < 14; day++ {
			for i := 0; i < 16; i++ {
				at := time.Date(2026, 12, 2+day, 8, 0, 0, 0, f.paris).Add(time.Duration(i) * 30 * time.Minute)
				slots = append(slots, booking.Slot{DoctorID: doc.ID, StartAt: at, EndAt: at.Add(30 * time.Minute), Capacity: 2,
					OpensAt: start.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
			}
		}
	}
	_, err := f.store.InsertSlots(ctx, slots)
	must(b, err)
	return f
}

// BenchmarkBulkSlotFile is one aggregator poll of the Slot file during a
// rush: served from the cached generation.
func BenchmarkBulkSlotFile(b *testing.B) {
	f := benchFixture(b)
	if _, err := f.h.bulk.regenerate(context.Background()); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/fhir/bulk/Slot.ndjson", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkBulkRegenerate is one background generation of all the files.
func BenchmarkBulkRegenerate(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if _, err := f.h.bulk.regenerate(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBulkSiteSlotFile is one regional portal's poll of one site's
// Slot file: a byte range of the cached generation's whole file.
func BenchmarkBulkSiteSlotFile(b *testing.B) {
	f := benchFixture(b)
	if _, err := f.h.bulk.regenerate(context.Background()); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/fhir/bulk/sites/"+strconv.FormatInt(f.dept.SiteID, 10)+"/Slot.ndjson", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
