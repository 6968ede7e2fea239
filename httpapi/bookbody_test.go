package httpapi

import (
	"encoding/json"
	"testing"
)

// The hand-read shapes give what encoding/json gives; every other body is
// left to the strict decoder (ok false), never misread.
func TestParseBookBody(t *testing.T) {
	for _, body := range []string{
		`{"slotId":12}`, ` { "slotId" : 12 , "patientId" : 7 } ` + "\n", `{"slotId":9223372036854775807}`,
	} {
		got, ok := parseBookBody([]byte(body))
		var want bookRequest
		if err := json.Unmarshal([]byte(body), &want); err != nil || !ok {
			t.Fatalf("%s: ok %v, json %v", body, ok, err)
		}
		if got.SlotID != want.SlotID || (got.PatientID == nil) != (want.PatientID == nil) ||
			(got.PatientID != nil && *got.PatientID != *want.PatientID) {
			t.Fatalf("%s: read %+v, json %+v", body, got, want)
		}
	}
	for _, body := range []string{
		``, `{}`, `{"slotId":012}`, `{"slotId":1.5}`, `{"slotId":1e3}`, `{"slotId":-1}`, `{"slotId":"1"}`,
		`{"slotId":9223372036854775808}`, `{"patientId":1,"slotId":2}`, `{"slotId":1}{}`, `{"slotId":1} x`,
		`{"slotId":1,}`, `{"slotId":1,"x":2}`, `{"slot\u0049d":1}`, `{"slotId":1`,
	} {
		if _, ok := parseBookBody([]byte(body)); ok {
			t.Fatalf("%q was read by hand; it must go to the strict decoder", body)
		}
	}
}
