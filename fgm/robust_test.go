package fgm_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// Each bad input returns a typed error whose text names what is wrong
// (the task or node, the kind, the amount, the capacity), and changes
// nothing: the clock does not move, so t0 stays valid.
func TestBadInputErrorTexts(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 32, 4})
	zero := &zeroEstimator{}
	s := newSched(t, c, fgm.Config{Estimator: zero})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{1, 2, 0}}, Usage: []estimate.Stage{st(time.Minute, 1, 2, 0)}})
	schedule(t, s, t0, "n00")
	later := t0.Add(time.Second)
	zero.on = true
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "z", JobKey: "j", Request: resource.Vector{1, 12, 0}}, Usage: []estimate.Stage{st(time.Minute, 1, 12, 0)}})
	for _, tc := range []struct {
		name string
		err  error
		is   error
		want string
	}{
		{"task sample above capacity", s.SampleTask(later, "a", resource.Vector{60, 1, 0}), fgm.ErrInvalidSample,
			`fgm: SampleTask: task "a": node "n00": invalid usage sample: cpu 60 above the node's capacity 16`},
		{"node sample above capacity", s.SampleNode(later, "n00", resource.Vector{1e6, 1, 0}), fgm.ErrInvalidSample,
			`fgm: SampleNode: node "n00": invalid usage sample: cpu 1e+06 above the node's capacity 16`},
		{"NaN sample", s.SampleNode(later, "n00", resource.Vector{1, math.NaN(), 0}), fgm.ErrInvalidSample,
			`fgm: SampleNode: node "n00": invalid usage sample: memory NaN is not finite and ≥ 0`},
		{"negative sample", s.SampleTask(later, "a", resource.Vector{1, -1, 0}), fgm.ErrInvalidSample,
			`fgm: SampleTask: task "a": node "n00": invalid usage sample: memory -1 is not finite and ≥ 0`},
		{"short sample", s.SampleTask(later, "a", resource.Vector{1}), fgm.ErrInvalidSample,
			`fgm: SampleTask: task "a": node "n00": invalid usage sample: 1 amounts, want 3`},
		{"typed nil task", s.Submit(later, (*fgmtest.Task)(nil)), fgm.ErrInvalidTask,
			`fgm: Submit: invalid task: nil task (a typed nil *fgmtest.Task)`},
		{"typed nil node", s.AddNode((*schedkittest.Node)(nil)), fgm.ErrInvalidNode,
			`fgm: AddNode: invalid node: nil node (a typed nil *schedkittest.Node)`},
		{"duplicate node", s.AddNode(c.NodeList[0]), fgm.ErrDuplicateNode,
			`fgm: AddNode: node "n00": duplicate node ID: already registered`},
		{"unknown node", s.RemoveNode("n99"), fgm.ErrUnknownNode,
			`fgm: RemoveNode: node "n99": unknown node ID: not registered`},
		{"far future", s.Submit(t0.Add(1<<61), &fgmtest.Task{Task: schedkittest.Task{Key: "f", JobKey: "j", Request: resource.Vector{1, 1, 0}}}), fgm.ErrTimeRange,
			`fgm: Submit: time out of range: 2099-01-25 23:56:49.213693952 +0000 UTC is more than 2^60 ns (about 36 years) from 2026-01-01 00:00:00 +0000 UTC, the first time given`},
		{"stages lasting 0 s", scheduleErr(s, later, "n00"), fgm.ErrInvalidEstimate,
			`fgm: Schedule: job "j": task "z": node "n00": invalid estimate: 1 stages lasting 0 s in all`},
	} {
		if !errors.Is(tc.err, tc.is) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.is)
			continue
		}
		var e *fgm.Error
		if !errors.As(tc.err, &e) || tc.err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, tc.err, tc.want)
		}
	}
	// Nothing moved the clock, and z was not placed over memory: two
	// 12-GB tasks predicted to last 0 s never share the 32-GB-less-2 node
	// with a third.
	if err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j", Request: resource.Vector{1, 1, 0}}}); err != nil {
		t.Errorf("Submit at t0 after the bad calls: %v", err)
	}
	if s.Running() != 1 {
		t.Errorf("running %d, want 1 (a)", s.Running())
	}
}

func scheduleErr(s *fgm.Scheduler, now time.Time, n schedkit.NodeID) error {
	_, err := s.Schedule(now, nodeOf(s, n), nil)
	return err
}

// zeroEstimator is the oracle until on; then it predicts one stage
// lasting 0 s of what the task's first stage demands.
type zeroEstimator struct{ on bool }

func (e *zeroEstimator) Predict(t schedkit.Task) (estimate.Profile, bool) {
	prof, ok := fgmtest.Oracle{}.Predict(t)
	if !e.on || !ok {
		return prof, ok
	}
	return estimate.Profile{Stages: []estimate.Stage{{Duration: 0, Demand: prof.Stages[0].Demand}}}, true
}

// A prediction whose stages all last 0 s would reserve nothing: two
// 12-GB tasks on a 16-GB server. It is refused, and nothing is placed.
func TestZeroLengthEstimateRefused(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 16, 4})
	s := newSched(t, c, fgm.Config{Estimator: &zeroEstimator{on: true}})
	for _, id := range []schedkit.TaskID{"a", "b"} {
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: id, JobKey: "j", Request: resource.Vector{1, 12, 0}}, Usage: []estimate.Stage{st(time.Minute, 1, 12, 0)}})
	}
	ds, err := s.Schedule(t0, c.NodeList[0], nil)
	if !errors.Is(err, fgm.ErrInvalidEstimate) || len(ds) != 0 || s.Running() != 0 {
		t.Fatalf("Schedule: %v %v, running %d", ds, err, s.Running())
	}
}

// Typed nils are refused with the matching sentinel, never a panic.
func TestTypedNils(t *testing.T) {
	space := testSpace(t)
	if _, err := fgm.New(fgm.Config{Cluster: (*schedkittest.Cluster)(nil)}); !errors.Is(err, fgm.ErrConfig) {
		t.Errorf("New typed nil cluster: %v", err)
	}
	c := newCluster(space, 1, resource.Vector{16, 32, 4})
	if _, err := fgm.New(fgm.Config{Cluster: c, Estimator: (*zeroEstimator)(nil)}); !errors.Is(err, fgm.ErrConfig) {
		t.Errorf("New typed nil Estimator: %v", err)
	}
	if _, err := fgm.New(fgm.Config{Cluster: c, Estimator: fgm.HistoryEstimator{}}); !errors.Is(err, fgm.ErrConfig) {
		t.Errorf("New HistoryEstimator without History: %v", err)
	}
	nilNode := &nilNodeCluster{Cluster: c}
	if _, err := fgm.New(fgm.Config{Cluster: nilNode}); !errors.Is(err, fgm.ErrConfig) || !errors.Is(err, fgm.ErrInvalidNode) {
		t.Errorf("New with a typed nil node: %v", err)
	}
	s := newSched(t, c, fgm.Config{})
	if _, err := s.Schedule(t0, (*schedkittest.Node)(nil), nil); !errors.Is(err, fgm.ErrInvalidNode) {
		t.Errorf("Schedule typed nil: %v", err)
	}
	if err := s.SubmitRun(t0, (*lazyRun)(nil)); !errors.Is(err, fgm.ErrInvalidTask) {
		t.Errorf("SubmitRun typed nil: %v", err)
	}
}

type nilNodeCluster struct{ *schedkittest.Cluster }

func (c *nilNodeCluster) Node(int) schedkit.Node { return (*schedkittest.Node)(nil) }

// Read-only calls never move the clock: after a read at t0+1h, every
// state-changing call at t0 still succeeds.
func TestReadsDoNotMoveTheClock(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 32, 4})
	s := newSched(t, c, fgm.Config{})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{1, 2, 0}}, Usage: []estimate.Stage{st(time.Minute, 4, 2, 0)}})
	dst := space.Zero()
	if err := s.Free(t0.Add(time.Hour), "n00", dst); err != nil {
		t.Fatal(err)
	}
	if err := s.MinFree(t0.Add(time.Hour), "n00", time.Minute, dst); err != nil {
		t.Fatal(err)
	}
	if ds := schedule(t, s, t0, "n00"); len(ds) != 1 {
		t.Fatalf("Schedule at t0 after reads at t0+1h: %v", ds)
	}
	// A read of the past sees the reservation as it stood then.
	if err := s.Free(t0.Add(30*time.Second), "n00", dst); err != nil || dst[0] != 12 {
		t.Errorf("Free at t0+30s = %v %v, want 12 cores", dst, err)
	}
}

// A failed Schedule does not commit its now: an earlier valid time is
// still accepted afterwards.
func TestFailedScheduleDoesNotCommitNow(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 32, 4})
	s := newSched(t, c, fgm.Config{Estimator: &zeroEstimator{on: true}})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{1, 2, 0}}, Usage: []estimate.Stage{st(time.Minute, 1, 2, 0)}})
	if _, err := s.Schedule(t0.Add(time.Hour), c.NodeList[0], nil); !errors.Is(err, fgm.ErrInvalidEstimate) {
		t.Fatal(err)
	}
	if err := s.Submit(t0.Add(time.Minute), &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j", Request: resource.Vector{1, 1, 0}}}); err != nil {
		t.Errorf("Submit at t0+1m after a failed Schedule at t0+1h: %v", err)
	}
}

// One node sample, however wrong (within capacity: a full node where
// half was predicted), may stop allocation for a while but never
// reclaims a task: Algorithm 3 reclaims only after ReclaimTicks Ticks in
// a row over ThSA. Two Ticks of a real under-estimate (task a using 90
// of its predicted 40, the node full) do reclaim.
func TestReclaimNeedsMoreThanOneSample(t *testing.T) {
	space := testSpace(t)
	for _, outliers := range []int{1, 2} {
		c := newCluster(space, 1, resource.Vector{16, 100, 4})
		s := newSched(t, c, fgm.Config{ConformityWindow: 1})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{4, 40, 0}}, Usage: []estimate.Stage{st(1000*time.Second, 4, 40, 0)}})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j", Request: resource.Vector{1, 10, 0}}, Usage: []estimate.Stage{st(10*time.Second, 1, 10, 0)}})
		if n := len(schedule(t, s, t0, "n00")); n != 2 {
			t.Fatalf("placed %d", n)
		}
		now := t0.Add(20 * time.Second) // b is degrading: 20 s > 1.5 × 10 s
		reclaimed := 0
		for tick := range 4 {
			used := resource.Vector{5, 50, 0}
			if tick < outliers {
				used = resource.Vector{16, 100, 0} // the outlier
			}
			if outliers > 1 {
				_ = s.SampleNode(now, "n00", used) // a tick full throughout
			} else {
				_ = s.SampleNode(now, "n00", resource.Vector{5, 50, 0})
			}
			now = now.Add(time.Second)
			if err := s.SampleNode(now, "n00", used); err != nil {
				t.Fatal(err)
			}
			ua := resource.Vector{4, 40, 0}
			if tick < outliers && outliers > 1 {
				ua = resource.Vector{4, 90, 0}
			}
			_ = s.SampleTask(now, "a", ua)
			_ = s.SampleTask(now, "b", resource.Vector{1, 10, 0})
			now = now.Add(time.Second)
			ds, err := s.Tick(now, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				if d.Action == fgm.Reclaim {
					reclaimed++
					if d.Reason != fgm.ServerDegrading || !(d.Conformity > d.Threshold) {
						t.Errorf("reclaim %v", d)
					}
				}
			}
			if p, _ := s.Policy("n00"); tick < outliers && p != fgm.StopAllocation {
				t.Errorf("outliers %d tick %d: policy %v, want stop-allocation", outliers, tick, p)
			}
		}
		if want := min(1, outliers-1); reclaimed != want {
			t.Errorf("%d outlier Ticks: %d reclaimed, want %d", outliers, reclaimed, want)
		}
	}
}
