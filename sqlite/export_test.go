package sqlite

// SetRacy switches the deliberate read-then-write Book on or off, so that
// the conformance suite can prove its stress test catches races.
func (s *Store) SetRacy(on bool) { s.racy = on }
