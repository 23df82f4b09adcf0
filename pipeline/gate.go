package pipeline

import (
	"sync"
	"time"
)

// gate caps the items in flight between the read stage and the end of
// the write stage (Config.MaxInFlight): the reader takes slots before it
// reads, the writer releases them as items leave. The reader takes every
// free slot at once and spends them one per item read, so the gate costs
// one lock per burst rather than per item.
type gate struct {
	mu      sync.Mutex
	cond    sync.Cond
	n       int // slots taken
	limit   int
	stopped bool
}

func newGate(limit int) *gate {
	g := &gate{limit: limit}
	g.cond.L = &g.mu
	return g
}

// acquire waits until a slot is free, then takes every free slot and
// returns how many (at least 1); it returns 0 if the pipeline is
// stopping.
func (g *gate) acquire(blocked *time.Duration) int {
	g.mu.Lock()
	if g.n >= g.limit && !g.stopped {
		t0 := time.Now()
		for g.n >= g.limit && !g.stopped {
			g.cond.Wait()
		}
		*blocked += time.Since(t0)
	}
	k := 0
	if !g.stopped {
		k = g.limit - g.n
		g.n = g.limit
	}
	g.mu.Unlock()
	return k
}

// release frees k slots.
func (g *gate) release(k int) {
	if k == 0 {
		return
	}
	g.mu.Lock()
	g.n -= k
	g.cond.Signal()
	g.mu.Unlock()
}

// stop makes every current and later acquire return 0.
func (g *gate) stop() {
	g.mu.Lock()
	g.stopped = true
	g.cond.Broadcast()
	g.mu.Unlock()
}
