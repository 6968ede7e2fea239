package postgres

// SetRacy switches Book to the deliberately racy read-then-write decision
// (see Store.racy), so that tests can prove their race detection works.
func (s *Store) SetRacy(on bool) { s.racy = on }
