package estimate_test

import (
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// Evaluate with worked numbers: 10 maps (4 finished in 80 s, 2 running
// started 10 s and 30 s after submission) and 2 reduces, at 60 s after
// submission, deadline 200 s later, on 4 map and 2 reduce slots.
// Tavg = 80/4 = 20 s; elapsed ΣR = 2·60 − 40 = 80 s;
// Remaining = (⌈6/4⌉ + ⌈2/2⌉)·20 − 80/4 = 60 − 20 = 40 s; Spare = 160 s.
func TestEvaluate(t *testing.T) {
	ph := []schedkit.PhaseProgress{
		{Total: 10, Finished: 4, Running: 2, Ready: 4, RunningStartSum: 40 * time.Second, FinishedDurationSum: 80 * time.Second},
		{Total: 2},
	}
	caps := []estimate.Capacity{4 * estimate.Slot, 2 * estimate.Slot}
	c := estimate.Counters{Phases: ph, Capacity: caps, SinceSubmit: 60 * time.Second, Left: 200 * time.Second}
	got := estimate.Evaluate(c, estimate.Options{})
	if got.TaskTime != (estimate.TaskTime{Avg: 20 * time.Second, Known: true}) ||
		got.Remaining.Time != 40*time.Second || got.Remaining.Credit != 20*time.Second ||
		got.Spare != (estimate.Spare{Time: 160 * time.Second}) {
		t.Fatalf("estimate.Evaluate = %+v", got)
	}
	// No deadline: figures, no spare time.
	c.NoDeadline = true
	if got := estimate.Evaluate(c, estimate.Options{}); got.Spare != (estimate.Spare{}) || !got.NoDeadline || got.Remaining.Time != 40*time.Second {
		t.Fatalf("no deadline: %+v", got)
	}
	// Nothing finished: formula (5), or (4) with a fallback task time.
	fresh := estimate.Counters{Phases: []schedkit.PhaseProgress{{Total: 8, Ready: 8}}, Capacity: caps, Left: 100 * time.Second}
	if got := estimate.Evaluate(fresh, estimate.Options{}); got.Spare != (estimate.Spare{Time: 100 * time.Second, Initial: true}) || got.TaskTime.Known {
		t.Fatalf("formula (5): %+v", got)
	}
	fresh.Fallback = 30 * time.Second
	if got := estimate.Evaluate(fresh, estimate.Options{}); got.Spare != (estimate.Spare{Time: 40 * time.Second}) || got.Remaining.Time != 60*time.Second {
		t.Fatalf("fallback: %+v", got)
	}
}

// Evaluate is the evaluator behind EstimateJob: on valid counters they
// agree, in every option.
func TestEvaluateIsEstimateJob(t *testing.T) {
	sub := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	j := &job{id: "j", submitted: sub, deadline: sub.Add(300 * time.Second), phases: []schedkit.PhaseProgress{
		{Total: 10, Finished: 4, Running: 2, Ready: 4, RunningStartSum: 40 * time.Second, FinishedDurationSum: 80 * time.Second},
		{Total: 3, Finished: 1, FinishedDurationSum: 50 * time.Second},
		{Total: 1},
	}}
	caps := []estimate.Capacity{4 * estimate.Slot, 1500, 0}
	now := sub.Add(70 * time.Second)
	for _, opt := range []estimate.Options{{}, {PerPhase: true}, {Priors: []time.Duration{0, 90 * time.Second, 40 * time.Second}}, {PerPhase: true, Priors: []time.Duration{time.Second}}} {
		want, err := estimate.EstimateJob(j, now, caps, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := estimate.Evaluate(estimate.Counters{Phases: j.phases, Capacity: caps, SinceSubmit: 70 * time.Second, Left: 230 * time.Second}, opt)
		if got != want {
			t.Errorf("%+v: estimate.Evaluate %+v, estimate.EstimateJob %+v", opt, got, want)
		}
	}
}

func TestRunningElapsedSaturates(t *testing.T) {
	p := schedkit.PhaseProgress{Total: 3, Running: 3, RunningStartSum: 30 * time.Second}
	if got := estimate.RunningElapsed(&p, 20*time.Second); got != 30*time.Second {
		t.Fatalf("estimate.RunningElapsed = %v, want 30s", got)
	}
	if got := estimate.RunningElapsed(&p, 5*time.Second); got != 0 {
		t.Fatalf("start after now: %v, want 0", got)
	}
	if got := estimate.RunningElapsed(&p, math.MaxInt64/2); got != math.MaxInt64-30*time.Second {
		t.Fatalf("saturated: %v", got)
	}
}

func TestSpareString(t *testing.T) {
	for want, s := range map[string]estimate.Spare{
		"cannot finish":   {Time: math.MinInt64, CannotFinish: true},
		"-40s":            {Time: -40 * time.Second},
		"1m40s (initial)": {Time: 100 * time.Second, Initial: true},
	} {
		if got := s.String(); got != want {
			t.Errorf("%+v: %q, want %q", s, got, want)
		}
	}
}

func TestEstimateJobTypedNil(t *testing.T) {
	var j *job
	if _, err := estimate.EstimateJob(j, time.Time{}, nil, estimate.Options{}); err == nil {
		t.Fatal("typed nil job accepted")
	}
}
