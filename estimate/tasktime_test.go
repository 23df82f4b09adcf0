package estimate_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

const s = time.Second

func TestAverageTaskTime(t *testing.T) {
	tests := []struct {
		name     string
		sum      time.Duration
		finished int
		want     estimate.TaskTime
	}{
		{"no finished task yet: unknown, formula (5) applies", 0, 0, estimate.TaskTime{}},
		{"3 tasks, 20s+25s+15s = 60s: 60s/3 = 20s", 60 * s, 3, estimate.TaskTime{Avg: 20 * s, Known: true}},
		{"10ns over 3 tasks rounds down to 3ns", 10, 3, estimate.TaskTime{Avg: 3, Known: true}},
		{"zero-length tasks: 0s/2 = 0s, known", 0, 2, estimate.TaskTime{Avg: 0, Known: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := estimate.AverageTaskTime(tc.sum, tc.finished)
			if err != nil || got != tc.want {
				t.Fatalf("AverageTaskTime(%v, %d) = %+v, %v; want %+v", tc.sum, tc.finished, got, err, tc.want)
			}
		})
	}
	for _, bad := range []struct {
		sum time.Duration
		n   int
	}{{-1, 1}, {1, -1}, {5 * s, 0}} {
		if _, err := estimate.AverageTaskTime(bad.sum, bad.n); !errors.Is(err, estimate.ErrInvalid) {
			t.Errorf("AverageTaskTime(%v, %d) error = %v, want ErrInvalid", bad.sum, bad.n, err)
		}
	}
}

func TestPooledTaskTime(t *testing.T) {
	tests := []struct {
		name   string
		phases []schedkit.PhaseProgress
		want   estimate.TaskTime
	}{
		{"nothing finished", []schedkit.PhaseProgress{{Total: 4}, {Total: 1}}, estimate.TaskTime{}},
		{"maps 4 in 80s, reduce 1 in 40s: 120s/5 = 24s (pooled, paper)",
			[]schedkit.PhaseProgress{{Total: 4, Finished: 4, FinishedDurationSum: 80 * s}, {Total: 1, Finished: 1, FinishedDurationSum: 40 * s}},
			estimate.TaskTime{Avg: 24 * s, Known: true}},
		{"only maps finished: 3 in 45s = 15s",
			[]schedkit.PhaseProgress{{Total: 9, Finished: 3, FinishedDurationSum: 45 * s}, {Total: 2}},
			estimate.TaskTime{Avg: 15 * s, Known: true}},
		{"sums beyond int64 are exact in 128 bits: (max+max)/2 = max",
			[]schedkit.PhaseProgress{{Total: 1, Finished: 1, FinishedDurationSum: math.MaxInt64}, {Total: 1, Finished: 1, FinishedDurationSum: math.MaxInt64}},
			estimate.TaskTime{Avg: math.MaxInt64, Known: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := estimate.PooledTaskTime(tc.phases)
			if err != nil || got != tc.want {
				t.Fatalf("PooledTaskTime = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	bad := [][]schedkit.PhaseProgress{
		{{Total: 1, Finished: -1}},
		{{Total: 1, Finished: 1, FinishedDurationSum: -s}},
		{{Total: 1, FinishedDurationSum: s}},
	}
	for _, b := range bad {
		if _, err := estimate.PooledTaskTime(b); !errors.Is(err, estimate.ErrInvalid) {
			t.Errorf("PooledTaskTime(%+v) error = %v, want ErrInvalid", b, err)
		}
	}
}

func TestPhaseTaskTime(t *testing.T) {
	pooled := estimate.TaskTime{Avg: 24 * s, Known: true}
	tests := []struct {
		name  string
		phase schedkit.PhaseProgress
		want  estimate.TaskTime
	}{
		{"reduce 1 in 40s: its own 40s", schedkit.PhaseProgress{Total: 1, Finished: 1, FinishedDurationSum: 40 * s}, estimate.TaskTime{Avg: 40 * s, Known: true}},
		{"reduce none finished: pooled 24s", schedkit.PhaseProgress{Total: 1}, pooled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := estimate.PhaseTaskTime(tc.phase, pooled)
			if err != nil || got != tc.want {
				t.Fatalf("PhaseTaskTime = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := estimate.PhaseTaskTime(schedkit.PhaseProgress{Finished: -2}, pooled); !errors.Is(err, estimate.ErrInvalid) {
		t.Errorf("negative count: error = %v, want ErrInvalid", err)
	}
}

func TestPriorTaskTime(t *testing.T) {
	pooled := estimate.TaskTime{Avg: 13 * s, Known: true}
	reduce := schedkit.PhaseProgress{Total: 1, Running: 1}
	done := schedkit.PhaseProgress{Total: 2, Finished: 1, Running: 1, FinishedDurationSum: 64 * s}
	tests := []struct {
		name     string
		phase    schedkit.PhaseProgress
		prior    time.Duration
		perPhase bool
		unknown  bool // pooled average not known
		want     estimate.TaskTime
	}{
		{"reduce none finished, prior 70s: 70s (not the pooled 13s)", reduce, 70 * s, false, false, estimate.TaskTime{Avg: 70 * s, Known: true}},
		{"reduce none finished, prior 70s, per-phase: 70s", reduce, 70 * s, true, false, estimate.TaskTime{Avg: 70 * s, Known: true}},
		{"reduce none finished, no prior (0): pooled 13s", reduce, 0, false, false, pooled},
		{"reduce none finished, no prior, per-phase: pooled 13s", reduce, 0, true, false, pooled},
		{"one reduce finished in 64s, prior 70s, per-phase: its own 64s", done, 70 * s, true, false, estimate.TaskTime{Avg: 64 * s, Known: true}},
		{"one reduce finished in 64s, prior 70s, pooled mode: pooled 13s", done, 70 * s, false, false, pooled},
		{"prior at Horizon is accepted", reduce, estimate.Horizon, false, false, estimate.TaskTime{Avg: estimate.Horizon, Known: true}},
		{"prior with pooled unknown still gives the prior 7s", reduce, 7 * s, false, true, estimate.TaskTime{Avg: 7 * s, Known: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := pooled
			if tc.unknown {
				pl = estimate.TaskTime{}
			}
			got, err := estimate.PriorTaskTime(tc.phase, pl, tc.prior, tc.perPhase)
			if err != nil || got != tc.want {
				t.Fatalf("PriorTaskTime = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	for _, bad := range []struct {
		phase schedkit.PhaseProgress
		prior time.Duration
	}{
		{reduce, -1},
		{reduce, estimate.Horizon + 1},
		{reduce, math.MaxInt64},
		{schedkit.PhaseProgress{Finished: -2}, 5 * s},
		{schedkit.PhaseProgress{FinishedDurationSum: s}, 5 * s},
	} {
		if _, err := estimate.PriorTaskTime(bad.phase, pooled, bad.prior, true); !errors.Is(err, estimate.ErrInvalid) {
			t.Errorf("PriorTaskTime(%+v, prior %v) error = %v, want ErrInvalid", bad.phase, bad.prior, err)
		}
	}
}
