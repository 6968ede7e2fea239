package postgres

import (
	"context"
	"testing"
)

// TestPoolStats: the statistics the metrics read are the pool's.
func TestPoolStats(t *testing.T) {
	s := newStore(t)
	conn, err := s.Pool().Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := s.PoolStats()
	conn.Release()
	if st.InUse != 1 || st.MaxOpenConnections != 20 || st.OpenConnections < 1 {
		t.Fatalf("with one connection held: %+v, want 1 in use of 20", st)
	}
	if st := s.PoolStats(); st.InUse != 0 || st.Idle < 1 {
		t.Fatalf("after release: %+v, want none in use", st)
	}
}
