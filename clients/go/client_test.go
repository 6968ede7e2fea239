package slotdclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	slotdclient "github.com/slotd/slotd/clients/go"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// TestGeneratedClientBooks: the client generated from openapi.json lists
// the doctors page by page, and a patient books through it.
func TestGeneratedClientBooks(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	signer, err := auth.NewSigner([]byte("a test secret of at least thirty-two bytes!"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Service: service.NewService(db, service.Options{}), Signer: signer}))
	t.Cleanup(srv.Close)

	dept, err := db.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	if err != nil {
		t.Fatal(err)
	}
	var doctors []booking.Doctor
	for i := range 3 {
		d, err := db.CreateDoctor(ctx, booking.Doctor{Name: fmt.Sprintf("Dr. %d", i), DepartmentID: dept.ID, TimeZone: "UTC"})
		if err != nil {
			t.Fatal(err)
		}
		doctors = append(doctors, d)
	}
	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	slot, err := db.CreateSlot(ctx, booking.Slot{DoctorID: doctors[2].ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: 2, OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	if err != nil {
		t.Fatal(err)
	}
	patient, err := db.CreatePatient(ctx, booking.Patient{Name: "Anna", Phone: "+33612345678"})
	if err != nil {
		t.Fatal(err)
	}

	c, err := slotdclient.NewClientWithResponses(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var listed []int64
	limit := slotdclient.Limit(2)
	params := &slotdclient.ListDoctorsParams{Limit: &limit}
	for range 5 {
		res, err := c.ListDoctorsWithResponse(ctx, params)
		if err != nil || res.JSON200 == nil {
			t.Fatalf("list doctors: %v %s", err, res.Body)
		}
		for _, d := range res.JSON200.Items {
			listed = append(listed, d.Id)
		}
		if res.JSON200.Next == nil {
			break
		}
		cur := slotdclient.Cursor(*res.JSON200.Next)
		params = &slotdclient.ListDoctorsParams{Limit: &limit, Cursor: &cur}
	}
	if len(listed) != 3 || listed[2] != doctors[2].ID {
		t.Fatalf("paged doctors %v, want %d, %d, %d", listed, doctors[0].ID, doctors[1].ID, doctors[2].ID)
	}

	token, err := signer.Mint(auth.RolePatient, fmt.Sprint(patient.ID), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	bearer := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
	res, err := c.BookWithResponse(ctx, &slotdclient.BookParams{IdempotencyKey: "client-test-1"},
		slotdclient.BookJSONRequestBody{SlotId: slot.ID}, bearer)
	if err != nil || res.JSON201 == nil {
		t.Fatalf("book: %v %d %s", err, res.StatusCode(), res.Body)
	}
	if res.JSON201.SlotId != slot.ID || res.JSON201.Status != "BOOKED" {
		t.Fatalf("booked %+v", res.JSON201)
	}
	mine, err := c.MyAppointmentsWithResponse(ctx, &slotdclient.MyAppointmentsParams{}, bearer)
	if err != nil || mine.JSON200 == nil || len(mine.JSON200.Items) != 1 || mine.JSON200.Items[0].Id != res.JSON201.Id {
		t.Fatalf("my appointments: %v %s", err, mine.Body)
	}
}
