package estimate_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

var t0 = time.Date(2013, 10, 1, 0, 0, 0, 0, time.UTC)

func TestSpareTime(t *testing.T) {
	tests := []struct {
		name     string
		deadline time.Duration // after t0
		now      time.Duration // after t0
		rem      estimate.Remaining
		want     estimate.Spare
	}{
		{"(4): deadline 500s, now 100s, remaining 72.5s: 327.5s", 500 * s, 100 * s,
			estimate.Remaining{Time: 72500 * time.Millisecond}, estimate.Spare{Time: 327500 * time.Millisecond}},
		{"(4): remaining beyond the deadline: 300s − 100s − 250s = −50s", 300 * s, 100 * s,
			estimate.Remaining{Time: 250 * s}, estimate.Spare{Time: -50 * s}},
		{"(4): negative remaining adds spare: 200s − 100s + 10s = 110s", 200 * s, 100 * s,
			estimate.Remaining{Time: -10 * s}, estimate.Spare{Time: 110 * s}},
		{"(4): deadline passed: 100s − 150s − 0 = −50s", 100 * s, 150 * s,
			estimate.Remaining{}, estimate.Spare{Time: -50 * s}},
		{"cannot finish: minus infinity", 500 * s, 100 * s,
			estimate.Remaining{CannotFinish: true, NoCapacity: true, Time: estimate.Horizon},
			estimate.Spare{Time: math.MinInt64, CannotFinish: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := estimate.SpareTime(t0.Add(tc.deadline), t0.Add(tc.now), tc.rem)
			if got != tc.want {
				t.Fatalf("SpareTime = %+v; want %+v", got, tc.want)
			}
		})
	}
	if got := estimate.InitialSpareTime(t0.Add(500*s), t0.Add(120*s)); got != (estimate.Spare{Time: 380 * s, Initial: true}) {
		t.Errorf("(5): InitialSpareTime(500s, 120s) = %+v; want 380s, Initial", got)
	}
	if got := estimate.SpareLeft(math.MinInt64+5, estimate.Remaining{Time: 10}); got.Time != math.MinInt64 {
		t.Errorf("SpareLeft does not saturate: %+v", got)
	}
	if got := estimate.SpareLeft(math.MaxInt64-5, estimate.Remaining{Time: -10}); got.Time != math.MaxInt64 {
		t.Errorf("SpareLeft does not saturate: %+v", got)
	}
}

// job is a minimal schedkit.Job for these tests.
type job struct {
	id                  schedkit.JobID
	submitted, deadline time.Time
	phases              []schedkit.PhaseProgress
}

var _ schedkit.Job = (*job)(nil)

func (j *job) ID() schedkit.JobID                               { return j.id }
func (j *job) Submitted() time.Time                             { return j.submitted }
func (j *job) Deadline() time.Time                              { return j.deadline }
func (j *job) Phases() int                                      { return len(j.phases) }
func (j *job) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.phases[p] }

// wordCount: submitted at t0, deadline t0+300s; 10 maps, 4 finished in
// 80s total, 2 running since 85s and 95s (start sum 180s); 1 reduce.
func wordCount() *job {
	return &job{
		id: "wc", submitted: t0, deadline: t0.Add(300 * s),
		phases: []schedkit.PhaseProgress{
			{Total: 10, Running: 2, Finished: 4, Ready: 4, RunningStartSum: 180 * s, FinishedDurationSum: 80 * s},
			{Total: 1, Ready: 0},
		},
	}
}

func TestEstimateJob(t *testing.T) {
	caps := []estimate.Capacity{4 * estimate.Slot, 2 * estimate.Slot}
	now := t0.Add(100 * s)
	tests := []struct {
		name string
		job  *job
		caps []estimate.Capacity
		opt  estimate.Options
		want estimate.JobEstimate
	}{
		{
			// Tavg = 80s/4 = 20s; elapsed = 2·100s − 180s = 20s;
			// remaining = (⌈6/4⌉ + ⌈1/2⌉)·20s − 20s/4 = 60s − 5s = 55s;
			// spare = 300s − 100s − 55s = 145s.
			"worked WordCount job: spare 145s", wordCount(), caps, estimate.Options{},
			estimate.JobEstimate{
				TaskTime:  estimate.TaskTime{Avg: 20 * s, Known: true},
				Remaining: estimate.Remaining{Time: 55 * s, Work: 60 * s, Credit: 5 * s},
				Spare:     estimate.Spare{Time: 145 * s},
			},
		},
		{
			// per phase: the reduce has none finished → pooled 20s: same.
			"per-phase, reduce falls back to pooled", wordCount(), caps, estimate.Options{PerPhase: true},
			estimate.JobEstimate{
				TaskTime:  estimate.TaskTime{Avg: 20 * s, Known: true},
				Remaining: estimate.Remaining{Time: 55 * s, Work: 60 * s, Credit: 5 * s},
				Spare:     estimate.Spare{Time: 145 * s},
			},
		},
		{
			// reduce prior 70s, map prior ignored (maps have finished):
			// remaining = ⌈6/4⌉·20s + ⌈1/2⌉·70s − 20s/4 = 40s + 70s − 5s = 105s;
			// spare = 300s − 100s − 105s = 95s (50s less than the paper's 145s).
			"priors {35s, 70s}: reduce priced at 70s, spare 95s", wordCount(), caps,
			estimate.Options{Priors: []time.Duration{35 * s, 70 * s}},
			estimate.JobEstimate{
				TaskTime:  estimate.TaskTime{Avg: 20 * s, Known: true},
				Remaining: estimate.Remaining{Time: 105 * s, Work: 110 * s, Credit: 5 * s},
				Spare:     estimate.Spare{Time: 95 * s},
			},
		},
		{
			// zero priors are none: the paper's 55s.
			"priors {0, 0}: as the paper, spare 145s", wordCount(), caps,
			estimate.Options{Priors: []time.Duration{0, 0}},
			estimate.JobEstimate{
				TaskTime:  estimate.TaskTime{Avg: 20 * s, Known: true},
				Remaining: estimate.Remaining{Time: 55 * s, Work: 60 * s, Credit: 5 * s},
				Spare:     estimate.Spare{Time: 145 * s},
			},
		},
		{
			"priors before any task finished: still formula (5)",
			&job{id: "new", submitted: t0, deadline: t0.Add(300 * s), phases: []schedkit.PhaseProgress{{Total: 10, Ready: 10}, {Total: 1}}},
			caps, estimate.Options{Priors: []time.Duration{20 * s, 70 * s}},
			estimate.JobEstimate{Spare: estimate.Spare{Time: 200 * s, Initial: true}},
		},
		{
			"no task finished: formula (5), spare = 300s − 100s",
			&job{id: "new", submitted: t0, deadline: t0.Add(300 * s), phases: []schedkit.PhaseProgress{{Total: 10, Ready: 10}, {Total: 1}}},
			caps, estimate.Options{},
			estimate.JobEstimate{Spare: estimate.Spare{Time: 200 * s, Initial: true}},
		},
		{
			"no reduce slots: cannot finish",
			wordCount(), []estimate.Capacity{4 * estimate.Slot, 0}, estimate.Options{},
			estimate.JobEstimate{
				TaskTime:  estimate.TaskTime{Avg: 20 * s, Known: true},
				Remaining: estimate.Remaining{Time: estimate.Horizon, Work: estimate.Horizon, CannotFinish: true, NoCapacity: true},
				Spare:     estimate.Spare{Time: math.MinInt64, CannotFinish: true},
			},
		},
		{
			"no deadline: remaining only",
			&job{id: "nd", submitted: t0, phases: []schedkit.PhaseProgress{{Total: 2, Finished: 1, Ready: 1, FinishedDurationSum: 10 * s}}},
			caps, estimate.Options{},
			estimate.JobEstimate{
				TaskTime:   estimate.TaskTime{Avg: 10 * s, Known: true},
				Remaining:  estimate.Remaining{Time: 10 * s, Work: 10 * s},
				NoDeadline: true,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := estimate.EstimateJob(tc.job, now, tc.caps, tc.opt)
			if err != nil || got != tc.want {
				t.Fatalf("EstimateJob = %+v, %v\nwant %+v", got, err, tc.want)
			}
		})
	}
	bad := []struct {
		name string
		job  schedkit.Job
		caps []estimate.Capacity
	}{
		{"nil job", nil, caps},
		{"too few capacities", wordCount(), caps[:1]},
		{"no phases", &job{id: "x", deadline: t0}, caps},
		{"inconsistent progress", &job{id: "x", deadline: t0, phases: []schedkit.PhaseProgress{{Total: 1, Running: 2}}}, caps},
		{"negative duration", &job{id: "x", deadline: t0, phases: []schedkit.PhaseProgress{{Total: 1, Finished: 1, FinishedDurationSum: -s}}}, caps},
		{"negative capacity", wordCount(), []estimate.Capacity{-1, 1}},
	}
	for _, b := range bad {
		if _, err := estimate.EstimateJob(b.job, now, b.caps, estimate.Options{}); err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
	fresh := &job{id: "new", submitted: t0, deadline: t0.Add(300 * s), phases: []schedkit.PhaseProgress{{Total: 10, Ready: 10}, {Total: 1}}}
	for _, pr := range [][]time.Duration{{0, -s}, {estimate.Horizon + 1, 0}, {0, math.MaxInt64}} {
		for _, j := range []*job{wordCount(), fresh} {
			if _, err := estimate.EstimateJob(j, now, caps, estimate.Options{Priors: pr}); !errors.Is(err, estimate.ErrInvalid) {
				t.Errorf("priors %v, job %s: error = %v, want ErrInvalid", pr, j.id, err)
			}
		}
	}
}

func TestSlotCapacity(t *testing.T) {
	tests := []struct {
		slots, speed float64
		want         estimate.Capacity
		ok           bool
	}{
		{4, 1, 4 * estimate.Slot, true},
		{2, 1.5, 3 * estimate.Slot, true},
		{3, 0.8333, 2499, true},
		{0, 2, 0, true},
		{-1, 1, 0, false},
		{1.5, 1, 0, false},
		{math.NaN(), 1, 0, false},
		{1, math.NaN(), 0, false},
		{1, -1, 0, false},
		{1, 0, 0, false},
		{1, 0.0001, 0, false},
		{1, math.Inf(1), 0, false},
	}
	for _, tc := range tests {
		got, err := estimate.SlotCapacity(tc.slots, tc.speed)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("SlotCapacity(%v, %v) = %d, %v; want %d, ok %v", tc.slots, tc.speed, got, err, tc.want, tc.ok)
		}
	}
	if got := (2500 * estimate.Capacity(1)).String(); got != "2.5 slots" {
		t.Errorf("String = %q", got)
	}
}
