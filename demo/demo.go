// Package demo creates sample data: departments, doctors with schedules and
// their slots, and patients, from a handful for `serve --demo` up to the
// source scale (2,000 doctors × 40 slots a day × 14 days ≈ 1.1 million slots).
package demo

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// Options size the sample.
type Options struct {
	Doctors  int
	Patients int
	// Days of slots, starting today in each doctor's zone.
	Days     int
	TimeZone string
	Now      time.Time
	// Progress receives a progress line as slots are written; nil for none.
	Progress io.Writer
	// Language is the clinic's language ("fr", "vi", "zh-Hans"; "" or
	// another: English): the departments and doctors are named in it, as a
	// clinic of that language would name its own.
	Language string
	// Sites spreads the doctors over that many sites (the first one and
	// Sites-1 more, named "Site 2"…), each with its own copy of the
	// departments; 0 or 1 keeps everyone on the first site.
	Sites int
	// Services creates one service per department kind, offered by the
	// first booking.MaxServiceDoctors doctors of that kind across the
	// sites: first-available then reads many doctors' slots (the scale
	// figure, docs/performance.md).
	Services bool
}

// Store is what Load writes to.
type Store interface {
	booking.CatalogStore
	booking.SiteStore
	booking.ServiceStore
}

// Summary is what Load created.
type Summary struct {
	Departments, Doctors, Patients, Schedules, Slots, Sites, Services int
	FirstPatientID                                                    int64
}

// vaccination is the index of the Vaccination department, whose slots take
// ten people.
const vaccination = 7

var departments = []string{
	"General practice", "Cardiology", "Dermatology", "Paediatrics",
	"Ophthalmology", "Orthopaedics", "ENT", "Vaccination",
}

// departmentNames are the departments in each language, in the order of
// departments; doctorTitle writes a doctor's name in it.
var departmentNames = map[string][]string{
	"fr":      {"Médecine générale", "Cardiologie", "Dermatologie", "Pédiatrie", "Ophtalmologie", "Orthopédie", "ORL", "Vaccination"},
	"vi":      {"Đa khoa", "Tim mạch", "Da liễu", "Nhi khoa", "Mắt", "Chấn thương chỉnh hình", "Tai mũi họng", "Tiêm chủng"},
	"zh-Hans": {"全科", "心内科", "皮肤科", "儿科", "眼科", "骨科", "耳鼻喉科", "疫苗接种"},
}

// doctorName is the i-th sample doctor's name in lang: "Dr Anh Martin 1",
// "BS. Anh Martin 1", "Anh Martin 1 医生".
func doctorName(lang, first, last string, n int) string {
	switch lang {
	case "fr":
		return fmt.Sprintf("Dr %s %s %d", first, last, n)
	case "vi":
		return fmt.Sprintf("BS. %s %s %d", first, last, n)
	case "zh-Hans":
		return fmt.Sprintf("%s %s %d 医生", first, last, n)
	}
	return fmt.Sprintf("Dr. %s %s %d", first, last, n)
}

var firstNames = []string{"Anh", "Camille", "Li", "Hugo", "Mai", "Wei", "Lucas", "Linh", "Chloé", "Jun", "Léa", "Minh"}
var lastNames = []string{"Martin", "Nguyen", "Wang", "Bernard", "Tran", "Zhang", "Dubois", "Le", "Chen", "Moreau", "Pham", "Liu"}

// slotsPerChunk bounds one InsertSlots call, so that progress shows and
// memory stays flat at full scale.
const slotsPerChunk = 50_000

// Load creates the sample in store. Doctors work every day 08:00–18:00 in
// 15-minute slots (40 a day, as in the source); most slots take one patient,
// the Vaccination department's take 10, and every fifth doctor charges a fee
// (so bookings are HELD until paid).
func Load(ctx context.Context, store Store, o Options) (Summary, error) {
	if o.Doctors <= 0 || o.Days <= 0 || o.Patients < 0 {
		return Summary{}, fmt.Errorf("doctors and days must be positive")
	}
	if o.TimeZone == "" {
		o.TimeZone = "Europe/Paris"
	}
	loc, err := time.LoadLocation(o.TimeZone)
	if err != nil {
		return Summary{}, err
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	var sum Summary
	depts := make([]booking.Department, 0, len(departments))
	existing, err := store.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return sum, err
	}
	byName := map[string]booking.Department{}
	for _, d := range existing {
		byName[d.Name] = d
	}
	names := departments
	if n, ok := departmentNames[o.Language]; ok {
		names = n
	}
	sites, err := loadSites(ctx, store, o, &sum)
	if err != nil {
		return sum, err
	}
	// depts[site*len(names)+kind]: a site's copy of each department.
	for si, site := range sites {
		for _, name := range names {
			if si > 0 {
				name = fmt.Sprintf("%s (%s)", name, site.Name)
			}
			d, ok := byName[name]
			if !ok {
				if d, err = store.CreateDepartment(ctx, booking.Department{Name: name, SiteID: site.ID}); err != nil {
					return sum, err
				}
				sum.Departments++
			}
			depts = append(depts, d)
		}
	}
	// offering[kind]: the doctors of the kind's service.
	offering := make([][]int64, len(names))

	from := schedule.DateOf(o.Now, loc)
	to := from.AddDays(o.Days - 1)
	var pending []booking.Slot
	total := o.Doctors * 40 * o.Days
	started := time.Now()
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		n, err := store.InsertSlots(ctx, pending)
		if err != nil {
			return err
		}
		sum.Slots += n
		pending = pending[:0]
		if o.Progress != nil {
			rate := float64(sum.Slots) / time.Since(started).Seconds()
			fmt.Fprintf(o.Progress, "\rslots: %d of about %d (%.0f/s)   ", sum.Slots, total, rate)
		}
		return nil
	}
	for i := 0; i < o.Doctors; i++ {
		// Doctor i is of kind i%len(names), on site (i/len(names))%sites.
		kind := i % len(names)
		dept := depts[((i/len(names))%len(sites))*len(names)+kind]
		doc, err := store.CreateDoctor(ctx, booking.Doctor{
			Name:         doctorName(o.Language, firstNames[i%len(firstNames)], lastNames[(i/len(firstNames))%len(lastNames)], i+1),
			DepartmentID: dept.ID, TimeZone: o.TimeZone,
		})
		if err != nil {
			return sum, err
		}
		sum.Doctors++
		if o.Services && len(offering[kind]) < booking.MaxServiceDoctors {
			offering[kind] = append(offering[kind], doc.ID)
		}
		sc := booking.Schedule{
			DoctorID:  doc.ID,
			Weekdays:  []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday},
			StartTime: "08:00", EndTime: "18:00", SlotMinutes: 15, Capacity: 1,
			HorizonDays: o.Days,
		}
		if kind == vaccination {
			sc.Capacity = 10
		}
		if i%5 == 4 {
			sc.FeeCents = 2500
		}
		if err := schedule.Normalize(&sc); err != nil {
			return sum, err
		}
		if sc, err = store.CreateSchedule(ctx, sc); err != nil {
			return sum, err
		}
		sum.Schedules++
		pending = append(pending, schedule.Slots(sc, loc, from, to)...)
		if len(pending) >= slotsPerChunk {
			if err := flush(); err != nil {
				return sum, err
			}
		}
	}
	if err := flush(); err != nil {
		return sum, err
	}
	if o.Progress != nil {
		fmt.Fprintln(o.Progress)
	}
	for kind, ids := range offering {
		if len(ids) == 0 {
			continue
		}
		sv := booking.Service{Name: names[kind], Minutes: 15, Level: booking.LevelOrdinary, DoctorIDs: ids, Active: true}
		if kind != 0 && kind != vaccination {
			sv.Level = booking.LevelSpecialist
		}
		if err := sv.Validate(); err != nil {
			return sum, err
		}
		if _, err := store.CreateService(ctx, sv); err != nil && booking.ErrorCode(err) != booking.CodeConflict {
			return sum, err
		}
		sum.Services++
	}
	for i := 0; i < o.Patients; i++ {
		p, err := store.CreatePatient(ctx, booking.Patient{
			Name:  fmt.Sprintf("%s %s", firstNames[(i*7)%len(firstNames)], lastNames[i%len(lastNames)]),
			Phone: fmt.Sprintf("+336%08d", i),
			Email: fmt.Sprintf("patient%d@example.org", i+1),
		})
		if booking.ErrorCode(err) == booking.CodeConflict {
			continue // a phone is one patient's: loaded by an earlier run
		}
		if err != nil {
			return sum, err
		}
		if sum.FirstPatientID == 0 {
			sum.FirstPatientID = p.ID
		}
		sum.Patients++
	}
	return sum, nil
}

// loadSites returns the first site and o.Sites-1 more, creating those
// missing ("Site 2"…).
func loadSites(ctx context.Context, store Store, o Options, sum *Summary) ([]booking.Site, error) {
	all, err := store.ListSites(ctx, booking.Page{})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no site: the migrations make the first one")
	}
	sites := all[:1]
	for n := 2; n <= o.Sites; n++ {
		name := fmt.Sprintf("Site %d", n)
		var found *booking.Site
		for i := range all {
			if all[i].Name == name {
				found = &all[i]
			}
		}
		if found != nil {
			sites = append(sites, *found)
			continue
		}
		s := booking.Site{Name: name, TimeZone: o.TimeZone}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		s, err := store.CreateSite(ctx, s)
		if err != nil {
			return nil, err
		}
		sum.Sites++
		sites = append(sites, s)
	}
	return sites, nil
}
