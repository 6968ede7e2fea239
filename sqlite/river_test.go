package sqlite

import (
	"context"
	"testing"
)

// TestPoolStats: the statistics the metrics read are the writer's.
func TestPoolStats(t *testing.T) {
	s := newStore(t)
	conn, err := s.DB().Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := s.PoolStats()
	conn.Close()
	if st.InUse != 1 || st.MaxOpenConnections != 1 {
		t.Fatalf("with the writer held: %+v, want 1 in use of 1", st)
	}
	if st := s.PoolStats(); st.InUse != 0 || st.Idle != 1 {
		t.Fatalf("after release: %+v, want the writer idle", st)
	}
}
