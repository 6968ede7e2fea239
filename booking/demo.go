package booking

// DemoSetting is the name of the clinic setting `serve --demo` writes
// ("true") when it claims an empty database for its sample data.
const DemoSetting = "demo"

// DecideDemo decides whether `serve --demo` may use a database: one the
// demo marked is its own (used as it is, not filled again), an empty one
// is claimed and filled, and any other holds a clinic's real data, which
// the demo's well-known staff password and printed tokens must never
// reach: it is refused, and nothing is marked.
func DecideDemo(marked, empty bool) (fill bool, err error) {
	switch {
	case marked:
		return false, nil
	case empty:
		return true, nil
	}
	return false, Errorf(CodeConflict, "the database holds data that the demo did not load")
}

// Holdings is what a database holds that people rely on: whether the demo
// filled it, its patients (erased ones not counted) and its active
// appointments. Tools that write test data into a running clinic
// (`slotd rush`) ask for it first and refuse a clinic's real data.
type Holdings struct {
	Demo               bool  `json:"demo"`
	Patients           int64 `json:"patients"`
	ActiveAppointments int64 `json:"activeAppointments"`
}

// Real reports whether h is a clinic's real data: patients or active
// appointments in a database the demo did not fill.
func (h Holdings) Real() bool {
	return !h.Demo && (h.Patients > 0 || h.ActiveAppointments > 0)
}
