package demo

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/slotd/slotd/booking"
)

// ShowcaseStore is what Showcase writes: profiles, photos, services and
// the first site's place.
type ShowcaseStore interface {
	ListDoctors(ctx context.Context, departmentID int64, p booking.Page) ([]booking.Doctor, error)
	ListAllDepartments(ctx context.Context, p booking.Page) ([]booking.Department, error)
	UpdateDoctor(ctx context.Context, id int64, u booking.DoctorUpdate) (booking.Doctor, error)
	SetPhoto(ctx context.Context, p booking.Photo) error
	CreateService(ctx context.Context, v booking.Service) (booking.Service, error)
	ListSites(ctx context.Context, p booking.Page) ([]booking.Site, error)
	UpdateSite(ctx context.Context, id int64, u booking.SiteUpdate) (booking.Site, error)
}

// demoServices are the sample services: a name in each language, the
// minutes, the fee, the level and the departments (indexes of
// departments) whose doctors offer it.
var demoServices = []struct {
	names   map[string]string
	minutes int
	fee     int64
	level   booking.Level
	depts   []int
}{
	{map[string]string{"": "General consultation", "fr": "Consultation générale", "vi": "Khám tổng quát", "zh-Hans": "普通门诊"}, 15, 2500, booking.LevelOrdinary, []int{0}},
	{map[string]string{"": "Heart check-up", "fr": "Bilan cardiaque", "vi": "Khám tim mạch", "zh-Hans": "心脏检查"}, 30, 6000, booking.LevelSpecialist, []int{1}},
	{map[string]string{"": "Skin check", "fr": "Examen de la peau", "vi": "Khám da", "zh-Hans": "皮肤检查"}, 30, 4500, booking.LevelSpecialist, []int{2}},
	{map[string]string{"": "Child consultation", "fr": "Consultation enfant", "vi": "Khám cho trẻ", "zh-Hans": "儿童门诊"}, 15, 2500, booking.LevelOrdinary, []int{3, 0}},
	{map[string]string{"": "Eye exam", "fr": "Examen de la vue", "vi": "Khám mắt", "zh-Hans": "眼科检查"}, 30, 4000, booking.LevelSpecialist, []int{4}},
	{map[string]string{"": "Flu vaccine", "fr": "Vaccin contre la grippe", "vi": "Tiêm vắc-xin cúm", "zh-Hans": "流感疫苗"}, 15, 0, booking.LevelOrdinary, []int{vaccination}},
}

// spoken are the languages the sample doctors speak, in turn.
var spoken = [][]string{{"English", "Français"}, {"Français", "Tiếng Việt"}, {"English", "中文"}, {"Français", "English", "Deutsch"}}

// bios are the sample biographies, in English: the clinic writes its own.
var bios = []string{
	"Trained in Lyon and Montréal; fifteen years of practice. Takes time to explain every result.",
	"Joined the clinic in 2014 after ten years at the university hospital. Special interest in prevention.",
	"Sees adults and children; leads the clinic's teaching of young doctors.",
}

// Showcase makes the sample look like a clinic: each doctor gets a
// profile (a title for some, the department as specialty, languages, a
// biography) and a photo, the services are created, and the first site
// gets an address and a position, and a name when it still has the
// default one. lang is Options.Language.
func Showcase(ctx context.Context, store ShowcaseStore, lang string) error {
	deps, err := store.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return err
	}
	byDept := map[int64][]int64{}
	index := map[int64]int{} // department id → its index in departments
	for i, d := range deps {
		index[d.ID] = i
	}
	docs, err := store.ListDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return err
	}
	for i, d := range docs {
		byDept[d.DepartmentID] = append(byDept[d.DepartmentID], d.ID)
		title := ""
		if i%3 == 1 {
			title = "Prof."
		}
		specs, langs, bio := []string{deps[index[d.DepartmentID]].Name}, spoken[i%len(spoken)], bios[i%len(bios)]
		room := fmt.Sprintf("Room %d", i+1) // the boards show where to go
		if _, err := store.UpdateDoctor(ctx, d.ID, booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{
			Title: &title, Specialties: &specs, Languages: &langs, Bio: &bio, ConsultingRoom: &room}}); err != nil {
			return err
		}
		p, err := booking.CheckPhoto(d.ID, avatar(i))
		if err != nil {
			return err
		}
		if err := store.SetPhoto(ctx, p); err != nil {
			return err
		}
	}
	for _, v := range demoServices {
		name, ok := v.names[lang]
		if !ok {
			name = v.names[""]
		}
		var ids []int64
		for _, di := range v.depts {
			if di < len(deps) {
				ids = append(ids, byDept[deps[di].ID]...)
			}
		}
		if len(ids) == 0 {
			continue
		}
		_, err := store.CreateService(ctx, booking.Service{Name: name, Minutes: v.minutes, FeeCents: v.fee, Level: v.level,
			DoctorIDs: ids, Active: true})
		if err != nil && booking.ErrorCode(err) != booking.CodeConflict { // loaded by an earlier run
			return fmt.Errorf("service %s: %w", name, err)
		}
	}
	sites, err := store.ListSites(ctx, booking.Page{Limit: 1})
	if err != nil || len(sites) == 0 || sites[0].Address != "" {
		return err
	}
	u := booking.SiteUpdate{Address: ptr("12 Rue de la Santé, 75013 Paris"), Position: &booking.Position{Lat: 48.8352, Lon: 2.3422}}
	if sites[0].Name == "slotd clinic" { // the --clinic-name default
		u.Name = ptr("Clinique Lumière")
	}
	_, err = store.UpdateSite(ctx, sites[0].ID, u)
	return err
}

func ptr[T any](v T) *T { return &v }

// avatarColours are the sample photos' backgrounds.
var avatarColours = []color.RGBA{{0x2f, 0x6f, 0xb3, 255}, {0x3d, 0x8b, 0x6d, 255}, {0x8a, 0x5a, 0xa8, 255}, {0xb3, 0x6b, 0x2f, 255}, {0x4f, 0x5d, 0x75, 255}}

// avatar draws the i-th sample photo: a head-and-shoulders silhouette on
// a colour, a PNG of 160×160 (a real clinic uploads its own).
func avatar(i int) []byte {
	const n = 160
	bg := avatarColours[i%len(avatarColours)]
	fg := color.RGBA{0xf4, 0xf1, 0xec, 255}
	m := image.NewRGBA(image.Rect(0, 0, n, n))
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			dx, dy := float64(x-n/2), float64(y-62)
			sx, sy := float64(x-n/2)/58, float64(y-n-8)/62
			c := bg
			if dx*dx+dy*dy < 30*30 || sx*sx+sy*sy < 1 {
				c = fg
			}
			m.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, m) // writing to memory does not fail
	return b.Bytes()
}
