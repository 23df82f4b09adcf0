package pipeline_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit/pipeline"
)

// TestAccounting is the property test of the issue: many runs with random
// sizes, stage latencies, per-item failures, device failures,
// undeliverable results, fatal reader and writer errors, and
// cancellations at random points. After every run each item read was
// written or dropped exactly once, Stats agree, the error names what
// happened, per-requester order holds when asked for, and no goroutine
// remains.
func TestAccounting(t *testing.T) {
	runs, maxItems := 4000, 150
	if testing.Short() {
		runs = 500
	}
	rng := rand.New(rand.NewPCG(accountingSeed, 2024))
	seen := map[string]int{} // outcome kinds, to show the runs cover them
	for run := range runs {
		s := randomScenario(rng, maxItems)
		base := runtime.NumGoroutine()
		o := s.run(t)
		s.check(t, o)
		waitGoroutines(t, base)
		if t.Failed() {
			t.Fatalf("run %d: %v", run, s)
		}
		seen[outcomeKind(o)]++
		if o.stats.Dropped > 0 {
			seen["some dropped"]++
		}
		if o.stats.Process.Failed > 0 {
			seen["some failed processing"]++
		}
	}
	t.Logf("outcomes over %d runs: %v", runs, seen)
	for _, k := range []string{"nil", "read failed", "write failed", "cancelled", "some dropped", "some failed processing"} {
		if seen[k] == 0 {
			t.Errorf("no run ended %q", k)
		}
	}
}

func outcomeKind(o *outcome) string {
	var se *pipeline.StageError
	switch {
	case o.err == nil:
		return "nil"
	case errors.As(o.err, &se) && se.Stage == pipeline.StageRead:
		return "read failed"
	case errors.As(o.err, &se):
		return "write failed"
	case errors.Is(o.err, context.Canceled):
		return "cancelled"
	}
	return "other"
}

// accountingSeed seeds TestAccounting; change it locally to explore.
var accountingSeed uint64 = 6
