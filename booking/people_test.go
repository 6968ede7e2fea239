package booking

import (
	"testing"
	"time"
)

func TestCheckPerson(t *testing.T) {
	today := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	ok := PersonInput{Name: " Lan ", BirthDate: "2017-06-01", Relation: RelationChild, Consent: true}
	got, err := CheckPerson(ok, today, true)
	if err != nil || got.Name != "Lan" {
		t.Fatalf("a good person: %+v, %v", got, err)
	}
	for name, c := range map[string]struct {
		in      PersonInput
		add     bool
		pointer string
	}{
		"no consent to add": {PersonInput{Name: "L", BirthDate: "2017-06-01", Relation: RelationChild}, true, "/consent"},
		"no birth date":     {PersonInput{Name: "L", Relation: RelationChild, Consent: true}, true, "/birthDate"},
		"future birth":      {PersonInput{Name: "L", BirthDate: "2027-01-01", Relation: RelationChild, Consent: true}, true, "/birthDate"},
		"self":              {PersonInput{Name: "L", BirthDate: "2017-06-01", Relation: RelationSelf, Consent: true}, false, "/relation"},
		"no name":           {PersonInput{Name: " ", BirthDate: "2017-06-01", Relation: RelationChild}, false, "/name"},
		"bad sex":           {PersonInput{Name: "L", BirthDate: "2017-06-01", Sex: "x", Relation: RelationChild}, false, "/sex"},
	} {
		_, err := CheckPerson(c.in, today, c.add)
		e, isErr := err.(*Error)
		if !isErr || e.Code != CodeInvalidRequest || e.Pointer != c.pointer {
			t.Errorf("%s: %v, want invalid-request at %s", name, err, c.pointer)
		}
	}
	if _, err := CheckPerson(PersonInput{Name: "L", BirthDate: "2017-06-01", Relation: RelationParent}, today, false); err != nil {
		t.Errorf("an edit needs no consent: %v", err)
	}
}

func TestAddPersonRefusalAndManages(t *testing.T) {
	if AddPersonRefusal(4, 5) != nil || ErrorCode(AddPersonRefusal(5, 5)) != CodeConflict || ErrorCode(AddPersonRefusal(1, 0)) != CodeConflict {
		t.Fatal("the cap counts the account and its people")
	}
	erased := time.Now()
	for _, c := range []struct {
		p    Patient
		want bool
	}{
		{Patient{ID: 7}, true},
		{Patient{ID: 8, ManagerID: 7}, true},
		{Patient{ID: 9, ManagerID: 7, ErasedAt: &erased}, false},
		{Patient{ID: 10, ManagerID: 6}, false},
		{Patient{ID: 11}, false},
	} {
		if Manages(7, c.p) != c.want {
			t.Errorf("Manages(7, %+v) = %v", c.p, !c.want)
		}
	}
}

func TestActForManagedPerson(t *testing.T) {
	me := Actor{Role: RolePatient, ID: "7"}
	if a, err := ActFor(me, 7, 8, true); err != nil || a.PatientID != 8 || a.Staff {
		t.Fatalf("for a managed person: %+v, %v", a, err)
	}
	if _, err := ActFor(me, 7, 9, false); err == nil || err.Code != CodeNotFound {
		t.Fatalf("for another's patient: %v, want not-found", err)
	}
	if a, err := ActFor(me, 7, 0, false); err != nil || a.PatientID != 7 {
		t.Fatalf("for themselves: %+v, %v", a, err)
	}
	if _, err := ActFor(Actor{Role: RoleDoctor, ID: "1"}, 0, 8, true); err == nil || err.Code != CodeForbidden {
		t.Fatalf("a doctor: %v", err)
	}
}
