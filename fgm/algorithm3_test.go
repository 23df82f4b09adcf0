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

// Formula (16) with worked numbers, capacity N = 10, Th = 0.05.
func TestConformityWorked(t *testing.T) {
	seg := func(d time.Duration, used, pred, idle float64) fgm.Segment {
		return fgm.Segment{Duration: d, Used: used, Predicted: pred, Idle: idle}
	}
	cases := []struct {
		name string
		segs []fgm.Segment
		want float64
	}{
		// μ = α: no deviation.
		{"exact", []fgm.Segment{seg(time.Second, 9.8, 9.8, 0.2)}, 0},
		// under-estimate by 1 on a busy server: ((10−9)/10)² = 0.01
		{"under busy", []fgm.Segment{seg(time.Second, 10, 9, 0)}, 0.01},
		// two segments, 1 s off by 2 and 3 s off by 0: (0.04·1 + 0)/4 = 0.01;
		// μ = (10 + 3·9.9)/4 = 9.925 > α = (8 + 3·9.9)/4 = 9.425; I = (0+3·0.1)/4 = 0.075 < 0.5
		{"weighted", []fgm.Segment{seg(time.Second, 10, 8, 0), seg(3*time.Second, 9.9, 9.9, 0.1)}, 0.01},
		// over-estimate (μ < α): left to the estimator, 0
		{"over", []fgm.Segment{seg(time.Second, 8, 10, 0.4)}, 0},
		// under-estimate but the server has room (I = 4 ≥ 0.5): 0
		{"under idle", []fgm.Segment{seg(time.Second, 6, 4, 4)}, 0},
		// over-estimates in some segments still count in the sum:
		// μ = 9.5 > α = 9; ((10−8)² + (9−10)²)/100 / 2 = 0.025
		{"mixed", []fgm.Segment{seg(time.Second, 10, 8, 0), seg(time.Second, 9, 10, 0.4)}, 0.025},
		{"empty", nil, 0},
	}
	for _, c := range cases {
		got, err := fgm.Conformity(c.segs, 10, 0.05)
		if err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: got %v %v, want %v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []struct {
		segs  []fgm.Segment
		n, th float64
	}{
		{nil, 0, 0.05},
		{nil, 10, 1},
		{[]fgm.Segment{seg(-time.Second, 1, 1, 1)}, 10, 0.05},
		{[]fgm.Segment{seg(time.Second, math.NaN(), 1, 1)}, 10, 0.05},
	} {
		if _, err := fgm.Conformity(bad.segs, bad.n, bad.th); !errors.Is(err, fgm.ErrInvalidSample) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// The foreign-load estimate (formula (14) over the samples between
// Ticks) absorbs a steady excess of measured over predicted usage, so
// conformity (16) reacts to changes, not to load no policy controls.
func TestForeignLoadAbsorbed(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 10, 100})
	s := newSched(t, c, fgm.Config{ConformityWindow: 1})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{8, 9.8, 0}}, Usage: []estimate.Stage{st(1000*time.Second, 8, 9.8, 0)}})
	schedule(t, s, t0, "n00")
	now := t0
	tick := func(used float64) float64 {
		for range 3 {
			now = now.Add(time.Second)
			_ = s.SampleNode(now, "n00", resource.Vector{8, used, 0})
		}
		_, _ = s.Tick(now, nil)
		c, _ := s.ServerConformity("n00")
		return c
	}
	// predicted 9.8, measured 10, idle 0 < 0.5: ((10 − 9.8)/10)² = 0.0004
	if c := tick(10); math.Abs(c-0.0004) > 1e-9 {
		t.Errorf("first tick: %v, want 0.0004", c)
	}
	// the 0.2 is now foreign load: predicted 10, no deviation
	if c := tick(10); c != 0 {
		t.Errorf("second tick: %v, want 0", c)
	}
	free := space.Zero()
	_ = s.Free(now, "n00", free)
	if math.Abs(free[1]) > 1e-9 {
		t.Errorf("free memory %v, want 0 (0.2 foreign)", free[1])
	}
}

// Thresholds map conformity to policies (Algorithm 3 lines 2–14), and
// stop-allocation reclaims the newest task once a task is overdue.
func TestPolicyThresholds(t *testing.T) {
	space := testSpace(t)
	for _, tc := range []struct {
		dev  float64 // memory under-estimate, fraction of capacity
		want fgm.ServerPolicy
	}{
		{0.03, fgm.FineGrainedCompress},   // 0.0009 ≤ ThFG 0.0025
		{0.07, fgm.FineGrainedNoCompress}, // 0.0049
		{0.15, fgm.CoarseGrainedPolicy},   // 0.0225
		{0.25, fgm.StopAllocation},        // 0.0625 > ThSA 0.04
	} {
		c := newCluster(space, 1, resource.Vector{16, 100, 100})
		s := newSched(t, c, fgm.Config{ConformityWindow: 1})
		alpha := 96 - 100*tc.dev // predicted; measured 96, idle 4 < 5
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{8, alpha - 1, 0}}, Usage: []estimate.Stage{st(100*time.Second, 8, alpha-1, 0)}})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j", Request: resource.Vector{1, 1, 0}}, Usage: []estimate.Stage{st(10*time.Second, 1, 1, 0)}})
		if n := len(schedule(t, s, t0, "n00")); n != 2 {
			t.Fatalf("placed %d", n)
		}
		now := t0.Add(7 * time.Second)
		sample := func() {
			now = now.Add(time.Second)
			_ = s.SampleNode(now, "n00", resource.Vector{9, 96, 0})
			_ = s.SampleTask(now, "a", resource.Vector{8, 95, 0}) // a under-estimated
			_ = s.SampleTask(now, "b", resource.Vector{1, 1, 0})
		}
		for range 4 {
			sample()
		}
		// now = t0 + 11 s: b is past its 10 s but within 1.5×: not degrading.
		ds, _ := s.Tick(now, nil)
		if p, _ := s.Policy("n00"); p != tc.want || len(ds) != 0 {
			t.Errorf("dev %v: %v %v, want %v", tc.dev, p, ds, tc.want)
		}
		if tc.want != fgm.StopAllocation {
			continue
		}
		if d, _ := s.Schedule(now, nodeOf(s, "n00"), nil); len(d) != 0 {
			t.Error("stop-allocation placed a task")
		}
		for range 5 {
			sample()
		}
		// t0 + 16 s > 1.5 × 10 s: degrading, b (the newest) is reclaimed.
		ds, _ = s.Tick(now, nil)
		if len(ds) != 1 || ds[0].Action != fgm.Reclaim || ds[0].Task != "b" {
			t.Errorf("reclaim: %v", ds)
		}
		if s.Running() != 1 {
			t.Errorf("running %d after reclaim", s.Running())
		}
	}
	// NoPolicyAdjustment keeps the server fine-grained.
	c := newCluster(space, 1, resource.Vector{16, 100, 100})
	s := newSched(t, c, fgm.Config{ConformityWindow: 1, Ablations: fgm.Ablations{NoPolicyAdjustment: true}})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{8, 70, 0}}, Usage: []estimate.Stage{st(100*time.Second, 8, 70, 0)}})
	schedule(t, s, t0, "n00")
	now := t0
	for range 4 {
		now = now.Add(time.Second)
		_ = s.SampleNode(now, "n00", resource.Vector{9, 96, 0})
	}
	_, _ = s.Tick(now, nil)
	if p, _ := s.Policy("n00"); p != fgm.FineGrainedCompress {
		t.Errorf("NoPolicyAdjustment: %v", p)
	}
}

// Learning through the scheduler: samples of a running task, tagged with
// the compression its server imposes, reach the History on success, and
// the next similar task is matched fine-grained.
func TestLearnThroughScheduler(t *testing.T) {
	space := testSpace(t)
	h, _ := estimate.NewHistory(estimate.HistoryConfig{Space: space, MinObservations: 1})
	c := newCluster(space, 1, resource.Vector{16, 32, 200})
	s := newSched(t, c, fgm.Config{History: h})
	key := schedkit.SimilarityKey{Logic: "m", DataSize: 1}
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "first", JobKey: "j", Similar: key, Request: resource.Vector{8, 16, 0}}})
	ds := schedule(t, s, t0, "n00")
	if len(ds) != 1 || ds[0].Mode != fgm.Requested {
		t.Fatalf("first: %v", ds)
	}
	now := t0
	for i := range 20 {
		now = now.Add(time.Second)
		u := resource.Vector{2, 4, 0}
		if i >= 10 {
			u = resource.Vector{6, 12, 0}
		}
		if err := s.SampleTask(now, "first", u); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Release(now, "first", true); err != nil {
		t.Fatal(err)
	}
	if h.Observations(key) != 1 {
		t.Fatalf("observations %d", h.Observations(key))
	}
	submit(t, s, now, &fgmtest.Task{Task: schedkittest.Task{Key: "second", JobKey: "j", Similar: key, Request: resource.Vector{8, 16, 0}}})
	ds = schedule(t, s, now, "n00")
	if len(ds) != 1 || ds[0].Mode != fgm.FineGrained || len(ds[0].Plan) != 2 {
		t.Fatalf("second: %v", ds)
	}
	if p := ds[0].Plan; p[0].Duration != 10*time.Second || math.Abs(p[1].Alloc[0]-6) > 1e-9 || math.Abs(p[1].Alloc[1]-12) > 1e-9 {
		t.Errorf("plan %v", ds[0])
	}
}

type usageNode struct {
	schedkittest.Node
	used resource.Vector
}

func (n *usageNode) Used() resource.Vector { return n.used }

type usageTask struct {
	fgmtest.Task
	used resource.Vector
}

func (t *usageTask) Used() resource.Vector { return t.used }

// Nodes and tasks that report their usage are read by Tick: no
// SampleNode or SampleTask calls, same figures.
func TestTickPollsUsage(t *testing.T) {
	space := testSpace(t)
	n := &usageNode{Node: schedkittest.Node{Key: "n00", RackName: "r", Cap: resource.Vector{16, 10, 100}, Free: resource.Vector{16, 10, 100}}, used: resource.Vector{8, 10, 0}}
	c := schedkittest.NewCluster(space)
	s, err := fgm.New(fgm.Config{Cluster: c, Estimator: fgmtest.Oracle{}, ConformityWindow: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddNode(n); err != nil {
		t.Fatal(err)
	}
	a := &usageTask{Task: fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{8, 9.8, 0}}, Usage: []estimate.Stage{st(1000*time.Second, 8, 9.8, 0)}}, used: resource.Vector{8, 10, 0}}
	if err := s.Submit(t0, a); err != nil {
		t.Fatal(err)
	}
	if ds, err := s.Schedule(t0, n, nil); err != nil || len(ds) != 1 {
		t.Fatal(ds, err)
	}
	for i := 1; i <= 4; i++ {
		if _, err := s.Tick(t0.Add(time.Duration(i)*3*time.Second), nil); err != nil {
			t.Fatal(err)
		}
	}
	// a uses 0.2 more memory than predicted: conformity ((10 − 9.8)/10)² = 0.0004
	// on a busy node, every tick (task samples explain the node's usage).
	if c, _ := s.ServerConformity("n00"); math.Abs(c-0.0004) > 1e-9 {
		t.Errorf("conformity %v, want 0.0004", c)
	}
	n.used = resource.Vector{math.NaN(), 0, 0}
	if _, err := s.Tick(t0.Add(time.Minute), nil); !errors.Is(err, fgm.ErrInvalidSample) {
		t.Errorf("NaN usage: %v", err)
	}
}
