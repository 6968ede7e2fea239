package booking

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/jpeg"
	"image/png"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// A doctor's profile is what makes a doctor worth choosing: a title,
// specialties, the languages spoken, a short biography and a photo. It is
// the clinic's text about its staff, no patient's personal data.

// Bounds of a profile.
const (
	MaxDoctorTitle = 100
	// MaxProfileItems bounds the specialties and the languages, each.
	MaxProfileItems = 10
	// MaxProfileItem bounds one specialty or language, in characters.
	MaxProfileItem = 60
	MaxDoctorBio   = 2000
	// MaxConsultingRoom bounds a consulting room's name ("Room 3").
	MaxConsultingRoom = 40
	// MaxPhotoBytes bounds an uploaded photo.
	MaxPhotoBytes = 512 << 10
	// MaxPhotoSide bounds a photo's width and height in pixels, read from
	// its header before it is decoded (a small file can claim a huge
	// picture).
	MaxPhotoSide = 4096
)

// Profile is a doctor's public profile. Specialties and Languages are
// free text as the clinic writes them ("Cardiology", "Tiếng Việt").
type Profile struct {
	Title       string   `json:"title"`
	Specialties []string `json:"specialties"`
	Languages   []string `json:"languages"`
	Bio         string   `json:"bio"`
	// Photo is the photo's tag (its ETag, a hash of its bytes), "" when
	// there is none: GET /api/doctors/{id}/photo serves it, and a link
	// carrying the tag changes when the photo does.
	Photo string `json:"photo,omitempty"`
	// ConsultingRoom is where the doctor sees patients ("Room 3", "诊室 3"),
	// "" when not set: the boards and a called patient's page name it.
	ConsultingRoom string `json:"consultingRoom"`
}

// ProfileUpdate changes a profile; nil fields stay as they are.
type ProfileUpdate struct {
	Title       *string   `json:"title"`
	Specialties *[]string `json:"specialties"`
	Languages   *[]string `json:"languages"`
	Bio         *string   `json:"bio"`
	// ConsultingRoom: "" removes it.
	ConsultingRoom *string `json:"consultingRoom"`
}

// Empty says whether u changes nothing.
func (u ProfileUpdate) Empty() bool {
	return u.Title == nil && u.Specialties == nil && u.Languages == nil && u.Bio == nil && u.ConsultingRoom == nil
}

// Validate trims u's text and checks its bounds: one-line title and
// items, no empty or repeated item.
func (u *ProfileUpdate) Validate() error {
	if u.Title != nil {
		t := strings.TrimSpace(*u.Title)
		if utf8.RuneCountInString(t) > MaxDoctorTitle || strings.ContainsAny(t, "\r\n") {
			return Errorf(CodeInvalidRequest, "title must be one line of at most %d characters", MaxDoctorTitle)
		}
		u.Title = &t
	}
	for _, l := range []struct {
		name  string
		items *[]string
	}{{"specialties", u.Specialties}, {"languages", u.Languages}} {
		if l.items == nil {
			continue
		}
		if len(*l.items) > MaxProfileItems {
			return Errorf(CodeInvalidRequest, "%s must be at most %d items", l.name, MaxProfileItems)
		}
		out := make([]string, 0, len(*l.items))
		for _, it := range *l.items {
			it = strings.TrimSpace(it)
			if it == "" || utf8.RuneCountInString(it) > MaxProfileItem || strings.ContainsAny(it, "\r\n") || slices.Contains(out, it) {
				return Errorf(CodeInvalidRequest, "each of %s must be one distinct line of 1 to %d characters", l.name, MaxProfileItem)
			}
			out = append(out, it)
		}
		*l.items = out
	}
	if u.Bio != nil {
		b := strings.TrimSpace(*u.Bio)
		if utf8.RuneCountInString(b) > MaxDoctorBio {
			return Errorf(CodeInvalidRequest, "bio must be at most %d characters", MaxDoctorBio)
		}
		u.Bio = &b
	}
	if u.ConsultingRoom != nil {
		c := strings.TrimSpace(*u.ConsultingRoom)
		if utf8.RuneCountInString(c) > MaxConsultingRoom || strings.ContainsAny(c, "\r\n") {
			return Errorf(CodeInvalidRequest, "consultingRoom must be one line of at most %d characters", MaxConsultingRoom)
		}
		u.ConsultingRoom = &c
	}
	return nil
}

// Apply returns p changed by u.
func (u ProfileUpdate) Apply(p Profile) Profile {
	if u.Title != nil {
		p.Title = *u.Title
	}
	if u.Specialties != nil {
		p.Specialties = *u.Specialties
	}
	if u.Languages != nil {
		p.Languages = *u.Languages
	}
	if u.Bio != nil {
		p.Bio = *u.Bio
	}
	if u.ConsultingRoom != nil {
		p.ConsultingRoom = *u.ConsultingRoom
	}
	return p
}

// JoinItems and SplitItems are how the stores keep a list of a profile:
// one item a line (Validate keeps newlines out of items).
func JoinItems(items []string) string { return strings.Join(items, "\n") }

// SplitItems is JoinItems' inverse; "" is no item.
func SplitItems(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
}

// Photo is a doctor's photo as served.
type Photo struct {
	DoctorID    int64
	ContentType string // image/jpeg or image/png
	Data        []byte
	// ETag is the hex SHA-256 of Data: the HTTP validator, and the tag in
	// the doctor's Profile.
	ETag      string
	UpdatedAt time.Time
}

// CheckPhoto decides whether data may be a doctor's photo: at most
// MaxPhotoBytes, a JPEG or PNG whose header claims at most MaxPhotoSide
// pixels a side, and that decodes whole (a truncated or forged file is
// refused, not served). It answers the photo with its type and tag.
func CheckPhoto(doctorID int64, data []byte) (Photo, error) {
	if len(data) == 0 || len(data) > MaxPhotoBytes {
		return Photo{}, Errorf(CodeInvalidRequest, "photo must be 1 byte to %d KB", MaxPhotoBytes>>10)
	}
	var decode func([]byte) error
	var ct string
	switch {
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		ct, decode = "image/jpeg", func(b []byte) error { _, err := jpeg.Decode(bytes.NewReader(b)); return err }
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		ct, decode = "image/png", func(b []byte) error { _, err := png.Decode(bytes.NewReader(b)); return err }
	default:
		return Photo{}, Errorf(CodeInvalidRequest, "photo must be a JPEG or PNG image")
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return Photo{}, Errorf(CodeInvalidRequest, "photo must be a JPEG or PNG image")
	}
	// The sides before the decoding, which allocates for them.
	if cfg.Width > MaxPhotoSide || cfg.Height > MaxPhotoSide {
		return Photo{}, Errorf(CodeInvalidRequest, "photo must be at most %d pixels a side", MaxPhotoSide)
	}
	if decode(data) != nil {
		return Photo{}, Errorf(CodeInvalidRequest, "photo must be a JPEG or PNG image")
	}
	sum := sha256.Sum256(data)
	return Photo{DoctorID: doctorID, ContentType: ct, Data: data, ETag: hex.EncodeToString(sum[:16])}, nil
}

// ProfileStore keeps the doctors' photos (UpdateDoctor writes the rest
// of a profile).
type ProfileStore interface {
	// SetPhoto writes (or replaces) a checked photo; audited (its tag and
	// size, not its bytes).
	SetPhoto(ctx context.Context, p Photo) error
	// GetPhoto reads a doctor's photo; none is not found.
	GetPhoto(ctx context.Context, doctorID int64) (Photo, error)
}

// AuditProfile records a profile's change: which fields changed; none when
// nothing did.
func AuditProfile(ctx context.Context, now time.Time, before, after Doctor) []AuditEntry {
	var changed []string
	a, b := before.Profile, after.Profile
	for _, f := range []struct {
		name string
		same bool
	}{{"title", a.Title == b.Title}, {"specialties", slices.Equal(a.Specialties, b.Specialties)},
		{"languages", slices.Equal(a.Languages, b.Languages)}, {"bio", a.Bio == b.Bio},
		{"consultingRoom", a.ConsultingRoom == b.ConsultingRoom}} {
		if !f.same {
			changed = append(changed, f.name)
		}
	}
	if changed == nil {
		return nil
	}
	return []AuditEntry{Audit(ctx, now, AuditChange{Entity: EntityDoctor, ID: after.ID, Action: "profile",
		After: map[string]any{"changed": changed}})}
}

// AuditPhoto records a photo set: its tag, type and size.
func AuditPhoto(ctx context.Context, now time.Time, p Photo, before string) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityDoctor, ID: p.DoctorID, Action: "photo",
		Before: map[string]any{"photo": before},
		After:  map[string]any{"photo": p.ETag, "contentType": p.ContentType, "bytes": len(p.Data)}})
}
