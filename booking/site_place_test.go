package booking

import "testing"

func TestSiteWhereAndMap(t *testing.T) {
	lat, lon := 48.8352, 2.3422
	s := Site{Name: "Clinique Lumière", Address: "12 Rue de la Santé", Lat: &lat, Lon: &lon}
	if got := s.Where(); got != "Clinique Lumière, 12 Rue de la Santé" {
		t.Errorf("where %q", got)
	}
	if got := s.MapURL(); got != "https://www.openstreetmap.org/?mlat=48.83520&mlon=2.34220#map=17/48.83520/2.34220" {
		t.Errorf("map %q", got)
	}
	if (Site{Name: "X"}).Where() != "X" || (Site{Name: "X"}).MapURL() != "" {
		t.Error("a site without address or position")
	}
}
