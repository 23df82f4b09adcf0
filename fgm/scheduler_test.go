package fgm_test

import (
	"errors"
	"fmt"
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

func newSched(t testing.TB, c *schedkittest.Cluster, cfg fgm.Config) *fgm.Scheduler {
	t.Helper()
	cfg.Cluster = c
	if cfg.Estimator == nil && cfg.History == nil {
		cfg.Estimator = fgmtest.Oracle{}
	}
	s, err := fgm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func st(d time.Duration, v ...float64) estimate.Stage {
	return estimate.Stage{Duration: d, Demand: resource.Vector(v)}
}

func submit(t testing.TB, s *fgm.Scheduler, now time.Time, tk *fgmtest.Task) {
	t.Helper()
	if err := s.Submit(now, tk); err != nil {
		t.Fatal(err)
	}
}

func schedule(t testing.TB, s *fgm.Scheduler, now time.Time, n schedkit.NodeID) []fgm.Decision {
	t.Helper()
	d, err := s.Schedule(now, nodeOf(s, n), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ids(ds []fgm.Decision) []string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Task)+"/"+d.Mode.String())
	}
	return out
}

func TestScheduleModes(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 32, 200})
	s := newSched(t, c, fgm.Config{})
	// unpredictable: its request, open-ended
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "u1", JobKey: "j1", Request: resource.Vector{8, 20, 0}}})
	// predictable: 10s at 4 cores / 4 GiB, then 10s at 2 / 12
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "p1", JobKey: "j2", Request: resource.Vector{8, 16, 0}}, Usage: []estimate.Stage{st(10*time.Second, 4, 4, 0), st(10*time.Second, 2, 12, 0)}})
	// does not fit: memory 12 > 32 − 20 − 4 while p1 holds 4, and later 12
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "p2", JobKey: "j3", Request: resource.Vector{1, 1, 0}}, Usage: []estimate.Stage{st(5*time.Second, 1, 9, 0)}})
	got := ids(schedule(t, s, t0, "n00"))
	want := []string{"u1/requested", "p1/fine-grained"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	free := space.Zero()
	_ = s.Free(t0, "n00", free)
	if !free.Equal(resource.Vector{4, 8, 200}) {
		t.Errorf("free %v", free)
	}
	// After p1's first stage its memory need rises to 12: still 32−20−12 = 0 free, p2 waits.
	if d := schedule(t, s, t0.Add(12*time.Second), "n00"); len(d) != 0 {
		t.Errorf("placed %v", ids(d))
	}
	// p1 ends: p2 fits.
	if err := s.Release(t0.Add(20*time.Second), "p1", true); err != nil {
		t.Fatal(err)
	}
	if got := ids(schedule(t, s, t0.Add(20*time.Second), "n00")); fmt.Sprint(got) != "[p2/fine-grained]" {
		t.Errorf("got %v", got)
	}
}

// Fine-grained places what coarse-grained cannot (memory frees up when
// the newcomer's memory-heavy stage starts), and compression admits a
// task whose CPU is 1 core short.
func TestScheduleFineBeatsCoarse(t *testing.T) {
	space := testSpace(t)
	mk := func() []*fgmtest.Task {
		return []*fgmtest.Task{
			{Task: schedkittest.Task{Key: "a", JobKey: "ja", Request: resource.Vector{8, 8, 0}}, Usage: []estimate.Stage{st(10*time.Second, 8, 6, 0)}},
			{Task: schedkittest.Task{Key: "b", JobKey: "jb", Request: resource.Vector{8, 8, 0}}, Usage: []estimate.Stage{st(10*time.Second, 7, 2, 0), st(10*time.Second, 7, 6, 0)}},
			{Task: schedkittest.Task{Key: "c", JobKey: "jc", Request: resource.Vector{2, 8, 0}}, Usage: []estimate.Stage{st(10*time.Second, 2, 0, 0)}},
		}
	}
	for _, tc := range []struct {
		cfg  fgm.Config
		want string
	}{
		{fgm.Config{}, "[a/fine-grained b/fine-grained c/fine-grained]"},
		{fgm.Config{Ablations: fgm.Ablations{NoCompression: true}}, "[a/fine-grained b/fine-grained]"},
		{fgm.Config{Ablations: fgm.Ablations{CoarseOnly: true}}, "[a/coarse-grained c/coarse-grained]"},
	} {
		c := newCluster(space, 1, resource.Vector{16, 10, 100})
		s := newSched(t, c, tc.cfg)
		for _, tk := range mk() {
			submit(t, s, t0, tk)
		}
		ds := schedule(t, s, t0, "n00")
		if got := fmt.Sprint(ids(ds)); got != tc.want {
			t.Errorf("%+v: got %s, want %s", tc.cfg, got, tc.want)
		}
		for _, d := range ds {
			if d.Task == "c" && d.Mode == fgm.FineGrained {
				// 15 cores held, 2 more: 17 on 16 → rc 1/17 (bound
				// (2 − 0.05·15)/17 = 0.074 lets it dip 1.18 cores).
				if r := d.Plan[0].Compression[0]; math.Abs(r-1.0/17) > 1e-12 {
					t.Errorf("c's rate %v, want 1/17", r)
				}
			}
		}
	}
}

// checkQoS: a running task whose deadline leaves no slack refuses a
// compressing newcomer; one with slack, or NoCheckQoS, admits it.
func TestScheduleCheckQoS(t *testing.T) {
	space := testSpace(t)
	for _, tc := range []struct {
		deadline time.Duration
		noCheck  bool
		admitted bool
	}{
		{20 * time.Second, false, false}, // 19 s of work left at 1 s, compressed by 1/17: 1 + 19·17/16 = 21.2 s
		{30 * time.Second, false, true},
		{20 * time.Second, true, true},
	} {
		c := newCluster(space, 1, resource.Vector{16, 8, 100})
		s := newSched(t, c, fgm.Config{Ablations: fgm.Ablations{NoCheckQoS: tc.noCheck}})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "r", JobKey: "jr", Request: resource.Vector{15, 4, 0}, DueAt: t0.Add(tc.deadline)}, Usage: []estimate.Stage{st(20*time.Second, 15, 4, 0)}})
		schedule(t, s, t0, "n00")
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "n", JobKey: "jn", Request: resource.Vector{2, 1, 0}}, Usage: []estimate.Stage{st(10*time.Second, 2, 1, 0)}})
		got := len(schedule(t, s, t0.Add(time.Second), "n00")) == 1
		if got != tc.admitted {
			t.Errorf("%+v: admitted %v", tc, got)
		}
	}
}

// DRF: the job with the smaller dominant share goes first; FIFO keeps
// submission order.
func TestScheduleFairness(t *testing.T) {
	space := testSpace(t)
	for _, tc := range []struct {
		fair fgm.Fairness
		want string
	}{
		{nil, "[b1/fine-grained]"},
		{fgm.FIFO{}, "[a2/fine-grained]"},
	} {
		c := newCluster(space, 2, resource.Vector{4, 8, 100})
		s := newSched(t, c, fgm.Config{Fairness: tc.fair})
		one := []estimate.Stage{st(10*time.Second, 4, 4, 0)}
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a1", JobKey: "a", Request: resource.Vector{4, 4, 0}}, Usage: one})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a2", JobKey: "a", Request: resource.Vector{4, 4, 0}}, Usage: one})
		submit(t, s, t0.Add(time.Second), &fgmtest.Task{Task: schedkittest.Task{Key: "b1", JobKey: "b", Request: resource.Vector{4, 4, 0}}, Usage: one})
		schedule(t, s, t0.Add(time.Second), "n00") // a1
		if got := fmt.Sprint(ids(schedule(t, s, t0.Add(time.Second), "n01"))); got != tc.want {
			t.Errorf("%T: got %s, want %s", tc.fair, got, tc.want)
		}
	}
}

// Delay scheduling: a task whose data is on n01 is skipped on n00 until it
// has waited LocalityWait.
func TestScheduleLocality(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 2, resource.Vector{4, 8, 100})
	s := newSched(t, c, fgm.Config{LocalityWait: 5 * time.Second})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "j", Request: resource.Vector{1, 1, 0}, Locations: []schedkit.NodeID{"n01"}}, Usage: []estimate.Stage{st(10*time.Second, 1, 1, 0)}})
	if d := schedule(t, s, t0, "n00"); len(d) != 0 {
		t.Fatal("placed non-locally at once")
	}
	if d := schedule(t, s, t0.Add(4*time.Second), "n00"); len(d) != 0 {
		t.Fatal("placed non-locally before the wait")
	}
	if d := schedule(t, s, t0.Add(5*time.Second), "n00"); len(d) != 1 {
		t.Fatal("not placed after the wait")
	}
}

// An overdue task (running past its predicted work) keeps its peak
// reserved until released.
func TestScheduleOverdueHoldsPeak(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{4, 8, 100})
	s := newSched(t, c, fgm.Config{})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{4, 8, 0}}, Usage: []estimate.Stage{st(10*time.Second, 1, 6, 0), st(10*time.Second, 1, 2, 0)}})
	schedule(t, s, t0, "n00")
	free := space.Zero()
	_ = s.Free(t0.Add(15*time.Second), "n00", free)
	if free[1] != 6 {
		t.Errorf("in stage 2: free memory %v, want 6", free[1])
	}
	_ = s.Free(t0.Add(25*time.Second), "n00", free)
	if free[1] != 2 {
		t.Errorf("overdue: free memory %v, want 2 (peak 6 held)", free[1])
	}
	_ = s.Release(t0.Add(26*time.Second), "a", true)
	_ = s.Free(t0.Add(26*time.Second), "n00", free)
	if !free.Equal(resource.Vector{4, 8, 100}) {
		t.Errorf("after release: %v", free)
	}
}

type state struct {
	pending, running int
	free             [][]float64
}

func snapshot(s *fgm.Scheduler, c *schedkittest.Cluster, now time.Time) state {
	st := state{pending: s.Pending(), running: s.Running()}
	for _, n := range c.NodeList {
		v := c.Resources.Zero()
		_ = s.Free(now, n.Key, v)
		st.free = append(st.free, v)
	}
	return st
}

func TestBadInputChangesNothing(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 32, 200})
	s := newSched(t, c, fgm.Config{})
	now := t0.Add(10 * time.Second)
	submit(t, s, now, &fgmtest.Task{Task: schedkittest.Task{Key: "ok", JobKey: "j", Request: resource.Vector{1, 1, 0}}, Usage: []estimate.Stage{st(time.Second, 1, 1, 0)}})
	submit(t, s, now, &fgmtest.Task{Task: schedkittest.Task{Key: "run", JobKey: "j", Request: resource.Vector{1, 1, 0}}, Usage: []estimate.Stage{st(time.Minute, 1, 1, 0)}})
	schedule(t, s, now, "n00")
	before := snapshot(s, c, now)
	check := func(name string, err, want error) {
		t.Helper()
		var e *fgm.Error
		if !errors.Is(err, want) || !errors.As(err, &e) {
			t.Errorf("%s: got %v, want %v", name, err, want)
		}
		if after := snapshot(s, c, now); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%s changed state: %v → %v", name, before, after)
		}
	}
	check("nil task", s.Submit(now, nil), fgm.ErrInvalidTask)
	check("empty id", s.Submit(now, &fgmtest.Task{Task: schedkittest.Task{JobKey: "j", Request: resource.Vector{1, 1, 0}}}), fgm.ErrInvalidTask)
	check("empty job", s.Submit(now, &fgmtest.Task{Task: schedkittest.Task{Key: "x", Request: resource.Vector{1, 1, 0}}}), fgm.ErrInvalidTask)
	check("duplicate", s.Submit(now, &fgmtest.Task{Task: schedkittest.Task{Key: "run", JobKey: "j", Request: resource.Vector{1, 1, 0}}}), fgm.ErrDuplicateTask)
	check("nan request", s.Submit(now, &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "j", Request: resource.Vector{math.NaN(), 1, 0}}}), fgm.ErrInvalidTask)
	check("short request", s.Submit(now, &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "j", Request: resource.Vector{1, 1}}}), fgm.ErrInvalidTask)
	check("time backwards", s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "j", Request: resource.Vector{1, 1, 0}}}), fgm.ErrStaleTime)
	_, err := s.Schedule(now, &schedkittest.Node{Key: "nope"}, nil)
	check("unknown node", err, fgm.ErrUnknownNode)
	_, err = s.Schedule(t0, nodeOf(s, "n00"), nil)
	check("schedule backwards", err, fgm.ErrStaleTime)
	_, err = s.Tick(t0, nil)
	check("tick backwards", err, fgm.ErrStaleTime)
	check("release unknown", s.Release(now, "nope", true), fgm.ErrUnknownTask)
	check("release pending", s.Release(now, "pending-none", true), fgm.ErrUnknownTask)
	check("release backwards", s.Release(t0, "run", true), fgm.ErrStaleTime)
	check("withdraw running", s.Withdraw("run"), fgm.ErrUnknownTask)
	check("sample nan", s.SampleTask(now, "run", resource.Vector{math.NaN(), 0, 0}), fgm.ErrInvalidSample)
	check("sample short", s.SampleNode(now, "n00", resource.Vector{1}), fgm.ErrInvalidSample)
	check("sample negative", s.SampleNode(now, "n00", resource.Vector{-1, 0, 0}), fgm.ErrInvalidSample)
	check("sample unknown node", s.SampleNode(now, "nope", resource.Vector{1, 1, 1}), fgm.ErrUnknownNode)
	check("add nil node", s.AddNode(nil), fgm.ErrInvalidNode)
	check("add duplicate node", s.AddNode(c.NodeList[0]), fgm.ErrDuplicateNode)
	check("add nan node", s.AddNode(&schedkittest.Node{Key: "z", RackName: "r", Cap: resource.Vector{math.NaN(), 1, 1}, Free: resource.Vector{math.NaN(), 1, 1}}), fgm.ErrInvalidNode)
	check("remove unknown", s.RemoveNode("nope"), fgm.ErrUnknownNode)

	// Invalid estimates: the whole Schedule call is undone, including a
	// placement it made before meeting the bad task.
	s2 := newSched(t, c, fgm.Config{})
	submit(t, s2, now, &fgmtest.Task{Task: schedkittest.Task{Key: "good", JobKey: "a", Request: resource.Vector{1, 1, 0}}, Usage: []estimate.Stage{st(time.Second, 1, 1, 0)}})
	submit(t, s2, now, &fgmtest.Task{Task: schedkittest.Task{Key: "far", JobKey: "a", Request: resource.Vector{1, 1, 0}, Locations: []schedkit.NodeID{"elsewhere"}}, Usage: []estimate.Stage{st(time.Second, 1, 1, 0)}})
	for name, bad := range map[string][]estimate.Stage{
		"nan demand":      {st(time.Second, math.NaN(), 1, 0)},
		"negative length": {st(-time.Second, 1, 1, 0)},
		"negative demand": {st(time.Second, 1, -1, 0)},
		"short demand":    {st(time.Second, 1, 1)},
	} {
		id := schedkit.TaskID("bad-" + name)
		submit(t, s2, now, &fgmtest.Task{Task: schedkittest.Task{Key: id, JobKey: "b", Request: resource.Vector{1, 1, 0}}, Usage: bad})
		b2 := snapshot(s2, c, now)
		_, err := s2.Schedule(now, nodeOf(s2, "n00"), nil)
		if !errors.Is(err, fgm.ErrInvalidEstimate) {
			t.Errorf("%s: %v", name, err)
		}
		if a2 := snapshot(s2, c, now); fmt.Sprint(a2) != fmt.Sprint(b2) {
			t.Errorf("%s changed state: %v → %v", name, b2, a2)
		}
		_ = s2.Withdraw(id)
	}
	// the locality wait of "far" was undone too: it still waits from a later first skip
	ds, _ := s2.Schedule(now.Add(3*time.Second), nodeOf(s2, "n00"), nil)
	if len(ds) != 1 || ds[0].Task != "good" {
		t.Errorf("after bad estimates: %v", ids(ds))
	}

	infinite := schedkittest.NewCluster(space) // a node of infinite memory
	infinite.AddNode("a", "", resource.Vector{1, math.Inf(1), 1})
	for _, cfg := range []fgm.Config{
		{},
		{Cluster: c, IdleThreshold: 1},
		{Cluster: c, CompressionLimit: -0.1},
		{Cluster: c, Penalty: math.NaN()},
		{Cluster: c, Penalty: math.Inf(-1)},
		{Cluster: c, ThFG: 0.1, ThCG: 0.05, ThSA: 0.2},
		{Cluster: c, MaxStages: -1},
		{Cluster: infinite},
	} {
		if _, err := fgm.New(cfg); !errors.Is(err, fgm.ErrConfig) {
			t.Errorf("New(%+v): %v", cfg, err)
		}
	}
}

// TestNoPenalty: p = 0 is written NoPenalty (a zero Penalty is the
// default), in Config and FitConfig alike.
func TestNoPenalty(t *testing.T) {
	space := testSpace(t)
	if _, err := fgm.New(fgm.Config{Cluster: schedkittest.NewCluster(space), Penalty: fgm.NoPenalty}); err != nil {
		t.Errorf("New with NoPenalty: %v", err)
	}
	if _, err := fgm.NewFitter(fgm.FitConfig{Space: space, Penalty: fgm.NoPenalty}); err != nil {
		t.Errorf("NewFitter with NoPenalty: %v", err)
	}
	if _, err := fgm.NewFitter(fgm.FitConfig{Space: space, Penalty: math.Inf(-1)}); !errors.Is(err, fgm.ErrConfig) {
		t.Errorf("NewFitter with -Inf: %v", err)
	}
}

func TestErrorText(t *testing.T) {
	err := &fgm.Error{Op: "Submit", Task: "t1", Err: fgm.ErrInvalidTask, Reason: "nil"}
	if got, want := err.Error(), `fgm: Submit: task "t1": invalid task: nil`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// availNode reports a fixed Available vector.
type availNode struct {
	schedkittest.Node
	avail resource.Vector
}

func (n *availNode) Available() resource.Vector { return n.avail }

// HostChecksSteps: every step's memory must fit what the host has free
// now, less what the call placed.
func TestScheduleHostChecksSteps(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{4, 8, 100})
	two := []estimate.Stage{st(10*time.Second, 1, 2, 0), st(10*time.Second, 3, 6, 0)}
	for _, tc := range []struct {
		check bool
		want  string
	}{
		{false, "[b/fine-grained]"},
		{true, "[]"},
	} {
		s := newSched(t, c, fgm.Config{HostChecksSteps: tc.check})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j1", Request: resource.Vector{3, 6, 0}}, Usage: two})
		if ds, err := s.Schedule(t0, &availNode{Node: *c.NodeList[0], avail: resource.Vector{4, 8, 100}}, nil); err != nil || len(ds) != 1 {
			t.Fatal(ds, err)
		}
		later := t0.Add(10 * time.Second)
		submit(t, s, later, &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j2", Request: resource.Vector{3, 6, 0}}, Usage: two})
		// the host allocated a's second step: 6 of 8 GiB taken
		ds, err := s.Schedule(later, &availNode{Node: *c.NodeList[0], avail: resource.Vector{1, 2, 100}}, nil)
		if err != nil || fmt.Sprint(ids(ds)) != tc.want {
			t.Errorf("check %v: %v %v, want %s", tc.check, ids(ds), err, tc.want)
		}
	}
	s := newSched(t, c, fgm.Config{HostChecksSteps: true})
	if _, err := s.Schedule(t0, &availNode{Node: *c.NodeList[0], avail: resource.Vector{math.NaN(), 1, 1}}, nil); !errors.Is(err, fgm.ErrInvalidNode) {
		t.Errorf("NaN available: %v", err)
	}
	if _, err := s.Schedule(t0, nil, nil); !errors.Is(err, fgm.ErrInvalidNode) {
		t.Errorf("nil node: %v", err)
	}
}

// Measured idle gates incompressible kinds: a node whose latest sample
// shows its memory nearly full (load no reservation explains yet) gets
// nothing, and a task's first stage must fit what the sample leaves.
func TestScheduleMeasuredIdle(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{16, 32, 200})
	s := newSched(t, c, fgm.Config{})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{1, 8, 0}}, Usage: []estimate.Stage{st(10*time.Second, 1, 8, 0)}})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j", Request: resource.Vector{1, 8, 0}}, Usage: []estimate.Stage{st(10*time.Second, 1, 8, 0)}})
	// 31 of 32 GB in use: idle 1 < 5% of 32 → skipped.
	_ = s.SampleNode(t0, "n00", resource.Vector{2, 31, 0})
	if d := schedule(t, s, t0, "n00"); len(d) != 0 {
		t.Fatalf("placed on a full node: %v", ids(d))
	}
	// 20 in use: 12 idle; a (8) fits, b would leave −4: only a.
	_ = s.SampleNode(t0.Add(time.Second), "n00", resource.Vector{2, 20, 0})
	if d := schedule(t, s, t0.Add(time.Second), "n00"); fmt.Sprint(ids(d)) != "[a/fine-grained]" {
		t.Fatalf("got %v", ids(d))
	}
}

// Progressive: DRF order is refreshed after every allocation, so two
// equal jobs alternate on one server; as printed, the first job in order
// takes the server.
func TestScheduleProgressive(t *testing.T) {
	space := testSpace(t)
	one := []estimate.Stage{st(10*time.Second, 4, 4, 0)}
	for _, tc := range []struct {
		progressive bool
		want        string
	}{
		{false, "[a1/fine-grained a2/fine-grained a3/fine-grained a4/fine-grained]"},
		{true, "[a1/fine-grained b1/fine-grained a2/fine-grained b2/fine-grained]"},
	} {
		c := newCluster(space, 1, resource.Vector{16, 32, 100})
		s := newSched(t, c, fgm.Config{Progressive: tc.progressive, Ablations: fgm.Ablations{NoCompression: true}})
		for i := 1; i <= 4; i++ {
			submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("a%d", i)), JobKey: "a", Request: resource.Vector{4, 4, 0}}, Usage: one})
			submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("b%d", i)), JobKey: "b", Request: resource.Vector{4, 4, 0}}, Usage: one})
		}
		if got := fmt.Sprint(ids(schedule(t, s, t0, "n00"))); got != tc.want {
			t.Errorf("progressive %v: got %s, want %s", tc.progressive, got, tc.want)
		}
	}
}

// spy is a Fairness that records each job's Allocated as the scheduler
// orders jobs (DRF otherwise).
type spy struct {
	seen map[schedkit.JobID]resource.Vector
}

func (f *spy) Less(a, b *fgm.JobState) bool {
	f.seen[a.ID], f.seen[b.ID] = a.Allocated.Clone(), b.Allocated.Clone()
	return fgm.DRF{}.Less(a, b)
}

// ChargeMean: a task planned 10 s at 8 GB then 30 s at 2 GB is charged
// its peak, 8 GB, by default, and (10·8 + 30·2)/40 = 3.5 GB with the
// option (CPU 2 in both stages either way).
func TestScheduleChargeMean(t *testing.T) {
	space := testSpace(t)
	two := []estimate.Stage{st(10*time.Second, 2, 8, 0), st(30*time.Second, 2, 2, 0)}
	one := []estimate.Stage{st(10*time.Second, 1, 1, 0)}
	for _, tc := range []struct {
		mean bool
		want resource.Vector
	}{
		{false, resource.Vector{2, 8, 0}},
		{true, resource.Vector{2, 3.5, 0}},
	} {
		c := newCluster(space, 1, resource.Vector{16, 32, 100})
		f := &spy{seen: map[schedkit.JobID]resource.Vector{}}
		s := newSched(t, c, fgm.Config{ChargeMean: tc.mean, Ablations: fgm.Ablations{NoCompression: true}, Fairness: f})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a1", JobKey: "a", Request: resource.Vector{2, 8, 0}}, Usage: two})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a2", JobKey: "a", Request: resource.Vector{2, 8, 0}}, Usage: two})
		if got := fmt.Sprint(ids(schedule(t, s, t0, "n00"))); got != "[a1/fine-grained a2/fine-grained]" {
			t.Fatalf("mean %v: placed %s", tc.mean, got)
		}
		// A second job makes the scheduler order a (two tasks running) against b.
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a3", JobKey: "a", Request: resource.Vector{2, 8, 0}}, Usage: two})
		submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "b1", JobKey: "b", Request: resource.Vector{1, 1, 0}}, Usage: one})
		schedule(t, s, t0, "n00")
		got := f.seen["a"]
		want := tc.want.Clone()
		_ = want.Add(tc.want)
		if len(got) != len(want) {
			t.Fatalf("mean %v: job a charged %v, want %v", tc.mean, got, want)
		}
		for k := range want {
			if d := got[k] - want[k]; d < -1e-9 || d > 1e-9 {
				t.Errorf("mean %v: job a charged %v, want %v", tc.mean, got, want)
				break
			}
		}
	}
}
