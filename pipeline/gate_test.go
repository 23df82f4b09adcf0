package pipeline

import (
	"testing"
	"time"
)

// TestGate: acquire takes every free slot, waits at the limit until a
// release, and stop releases waiters.
func TestGate(t *testing.T) {
	g := newGate(3)
	var blocked time.Duration
	if k := g.acquire(&blocked); k != 3 {
		t.Fatalf("first acquire = %d, want all 3 slots", k)
	}
	got := make(chan int)
	go func() { var b time.Duration; got <- g.acquire(&b) }()
	select {
	case <-got:
		t.Fatal("acquire beyond the limit did not wait")
	case <-time.After(10 * time.Millisecond):
	}
	g.release(2)
	if k := <-got; k != 2 {
		t.Fatalf("acquire after releasing 2 = %d", k)
	}
	go func() { var b time.Duration; got <- g.acquire(&b) }()
	time.Sleep(5 * time.Millisecond)
	g.stop()
	if k := <-got; k != 0 {
		t.Fatalf("acquire after stop = %d, want 0", k)
	}
}
