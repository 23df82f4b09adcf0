package pipeline_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit/pipeline"
	"github.com/schedkit/schedkit/pipeline/pipelinetest"
)

// TestAccounting is the property test of the issue: many runs with
// random sizes, stage latencies, per-item failures, device failures (a
// device that skips the work among them), undeliverable results, fatal
// reader and writer errors, and cancellations at random points. After
// every run each item read was written or dropped exactly once, Stats
// agree, the error names what happened, per-requester order holds when
// asked for, and no goroutine remains.
func TestAccounting(t *testing.T) {
	runs, maxItems := 4000, 150
	if testing.Short() {
		runs = 500
	}
	rng := rand.New(rand.NewPCG(accountingSeed, 2024))
	seen := map[string]int{} // outcome kinds, to show the runs cover them
	for run := range runs {
		s := pipelinetest.RandomScenario(rng, maxItems)
		base := runtime.NumGoroutine()
		o := s.Run()
		if err := s.Check(o); err != nil {
			t.Fatal(err)
		}
		if err := pipelinetest.WaitGoroutines(base); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			t.Fatalf("run %d: %v", run, s)
		}
		seen[outcomeKind(o)]++
		if o.Stats.Dropped > 0 {
			seen["some dropped"]++
		}
		if o.Stats.Process.Failed > 0 {
			seen["some failed processing"]++
		}
		for _, w := range o.Writes {
			if errors.Is(w.R.Err, pipeline.ErrWorkNotRun) {
				seen["some not run by the device"]++
				break
			}
		}
	}
	t.Logf("outcomes over %d runs: %v", runs, seen)
	for _, k := range []string{"nil", "read failed", "write failed", "cancelled", "some dropped", "some failed processing", "some not run by the device"} {
		if seen[k] == 0 {
			t.Errorf("no run ended %q", k)
		}
	}
}

func outcomeKind(o *pipelinetest.Outcome) string {
	var se *pipeline.StageError
	switch {
	case o.Err == nil:
		return "nil"
	case errors.As(o.Err, &se) && se.Stage == pipeline.StageRead:
		return "read failed"
	case errors.As(o.Err, &se):
		return "write failed"
	case errors.Is(o.Err, context.Canceled):
		return "cancelled"
	}
	return "other"
}

// accountingSeed seeds TestAccounting; change it locally to explore.
var accountingSeed uint64 = 6
