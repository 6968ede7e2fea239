package sqlite

// SetRacy switches the deliberate read-then-write Book on or off, so that
// the conformance suite can prove its stress test catches races.
func (s *Store) SetRacy(on bool) { s.racy = on }

// SetStmtCache switches Book's prepared-statement cache on or off (it is on
// by default), for benchmarks that compare the two. Call before first use.
func (s *Store) SetStmtCache(on bool) { s.stmts.off = !on }
