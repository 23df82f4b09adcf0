package dbs_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

func TestNewConfigErrors(t *testing.T) {
	c := newCluster(2, 2, 1)
	cpuOnly, _ := resource.NewSpace(resource.CPU)
	q := dbs.DefaultCapacityQueues
	bad := func(f func(*[3]dbs.QueueConfig)) [3]dbs.QueueConfig { x := q; f(&x); return x }
	for name, cfg := range map[string]dbs.Config{
		"nil cluster":    {},
		"typed nil":      {Cluster: (*hCluster)(nil)},
		"missing kind":   {Cluster: schedkittest.NewCluster(cpuOnly)},
		"same kinds":     {Cluster: c, MapKind: "map-slot", ReduceKind: "map-slot"},
		"unknown kind":   {Cluster: c, MapKind: "gpu-slot"},
		"NaN share":      {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Low].Share = math.NaN() })},
		"shares over 1":  {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Low].Share = 0.5 })},
		"zero price":     {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Mid].Price = 0 })},
		"inf price":      {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.High].Price = math.Inf(1) })},
		"price order":    {Cluster: c, Queues: bad(func(x *[3]dbs.QueueConfig) { x[dbs.Low].Price = 1 })},
		"negative Δ":     {Cluster: c, Interval: -time.Second},
		"NaN rate":       {Cluster: c, TransferRate: math.NaN()},
		"negative prior": {Cluster: c, DefaultTaskTime: -time.Second},
		"sharing":        {Cluster: c, Sharing: dbs.CapacitySharing + 1},
	} {
		if _, err := dbs.New(cfg); !errors.Is(err, dbs.ErrConfig) {
			t.Errorf("%s: New error %v, want ErrConfig", name, err)
		}
	}
	for _, cfg := range []dbs.Config{{Cluster: c}, {Cluster: c, MinimumFirst: true}, {Cluster: c, Sharing: dbs.CapacitySharing, MinimumFirst: true}} {
		if _, err := dbs.New(cfg); err != nil {
			t.Fatalf("valid config: %v", err)
		}
	}
}

// snapshot captures everything observable about a scheduler's state.
type snapshot struct {
	Len    int
	Status []dbs.JobStatus
}

func snap(t *testing.T, s *dbs.Scheduler, ids []schedkit.JobID) snapshot {
	t.Helper()
	sn := snapshot{Len: s.Len()}
	for _, id := range ids {
		st, err := s.Status(id)
		if err != nil {
			t.Fatalf("Status(%s): %v", id, err)
		}
		sn.Status = append(sn.Status, st)
	}
	return sn
}

func TestBadInputChangesNothing(t *testing.T) {
	now := t0.Add(10 * sec)
	setup := func(t *testing.T) (*dbs.Scheduler, *hCluster, []*hJob) {
		c := newCluster(3, 2, 1)
		s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 20 * sec})
		if err != nil {
			t.Fatal(err)
		}
		jobs := []*hJob{
			mrJob("a", 1, 6, 1, 600*sec, 0),
			mrJob("b", 0.5, 6, 1, 600*sec, 50),
			mrJob("c", 0, 6, 1, 600*sec, 50),
		}
		for _, j := range jobs {
			if err := s.Submit(now, j); err != nil {
				t.Fatal(err)
			}
		}
		return s, c, jobs
	}
	ids := []schedkit.JobID{"a", "b", "c"}
	type tc struct {
		name string
		want error
		call func(s *dbs.Scheduler, c *hCluster, jobs []*hJob) error
	}
	submit := func(mut func(j *hJob)) func(*dbs.Scheduler, *hCluster, []*hJob) error {
		return func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			j := mrJob("x", 0.5, 4, 1, 600*sec, 40)
			mut(j)
			return s.Submit(now, j)
		}
	}
	cases := []tc{
		{"nil job", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error { return s.Submit(now, nil) }},
		{"empty ID", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Key = "" })},
		{"duplicate", dbs.ErrDuplicateJob, submit(func(j *hJob) { j.Key = "a" })},
		{"NaN budget", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Money = math.NaN() })},
		{"negative budget", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Money = -1 })},
		{"infinite budget", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Money = math.Inf(1) })},
		{"no budget with φ<1", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Money = 0 })},
		{"φ 0.7", dbs.ErrInvalidJob, submit(func(j *hJob) { j.PhiValue = 0.7 })},
		{"φ NaN", dbs.ErrInvalidJob, submit(func(j *hJob) { j.PhiValue = math.NaN() })},
		{"φ 2", dbs.ErrInvalidJob, submit(func(j *hJob) { j.PhiValue = 2 })},
		{"deadline before submission", dbs.ErrInvalidJob, submit(func(j *hJob) { j.DeadlineAt = t0.Add(-sec) })},
		{"no deadline with φ>0", dbs.ErrInvalidJob, submit(func(j *hJob) { j.DeadlineAt = time.Time{} })},
		{"NaN cost", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Paid = math.NaN() })},
		{"negative data", dbs.ErrInvalidJob, submit(func(j *hJob) { j.ReduceInput = -1 })},
		{"hint beyond 2^60 ns", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Hint = 1 << 61 })},
		{"three phases", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Counters = append(j.Counters, schedkit.PhaseProgress{}) })},
		{"inconsistent counters", schedkit.ErrInvalidProgress, submit(func(j *hJob) { j.Counters[0].Running = 9 })},
		{"typed nil job", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error { return s.Submit(now, (*hJob)(nil)) }},
		{"zero submission", dbs.ErrInvalidJob, submit(func(j *hJob) { j.SubmittedAt = time.Time{} })},
		{"submission after now", dbs.ErrInvalidJob, submit(func(j *hJob) { j.SubmittedAt = now.Add(sec) })},
		{"2^31 ready tasks", dbs.ErrInvalidJob, submit(func(j *hJob) { j.Counters[0] = schedkit.PhaseProgress{Total: 1 << 31, Ready: 1 << 31} })},
		{"submit time out of range", dbs.ErrTimeRange, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			return s.Submit(now.Add(1<<60+sec), mrJob("x", 1, 1, 1, 600*sec, 0))
		}},
		{"update 2^31 ready tasks", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[0].Counters[0] = schedkit.PhaseProgress{Total: 1 << 31, Ready: 1 << 31}
			return s.Update("a")
		}},
		{"submit time backwards", dbs.ErrStaleTime, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			return s.Submit(now.Add(-sec), mrJob("x", 1, 1, 1, 600*sec, 0))
		}},
		{"update unknown", dbs.ErrUnknownJob, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error { return s.Update("zz") }},
		{"update inconsistent", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[0].Counters[0].Ready = 99
			return s.Update("a")
		}},
		{"update phase count", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[0].Counters = jobs[0].Counters[:1]
			return s.Update("a")
		}},
		{"remove unknown", dbs.ErrUnknownJob, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error { return s.Remove("zz") }},
		{"tick time backwards", dbs.ErrStaleTime, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			_, err := s.Tick(now.Add(-sec), nil)
			return err
		}},
		{"tick NaN cost", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[1].Paid = math.NaN()
			_, err := s.Tick(now.Add(sec), nil)
			return err
		}},
		{"tick negative cost", dbs.ErrInvalidJob, func(s *dbs.Scheduler, _ *hCluster, jobs []*hJob) error {
			jobs[2].Paid = -1
			_, err := s.Tick(now.Add(sec), nil)
			return err
		}},
		{"tick bad capacity", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.Cap = resource.Vector{math.NaN(), 3}
			_, err := s.Tick(now.Add(sec), nil)
			return err
		}},
		{"heartbeat nil node", dbs.ErrInvalidNode, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			_, err := s.Heartbeat(now, nil, nil)
			return err
		}},
		{"heartbeat NaN free", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.NodeList[0].Free = resource.Vector{math.NaN(), 1}
			_, err := s.Heartbeat(now, c.NodeList[0], nil)
			return err
		}},
		{"heartbeat fractional free", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.NodeList[0].Free = resource.Vector{1.5, 1}
			_, err := s.Heartbeat(now, c.NodeList[0], nil)
			return err
		}},
		{"heartbeat short vector", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.NodeList[0].Free = resource.Vector{1}
			_, err := s.Heartbeat(now, c.NodeList[0], nil)
			return err
		}},
		{"heartbeat negative capacity", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.Cap = resource.Vector{-1, 3}
			_, err := s.Heartbeat(now, c.NodeList[0], nil)
			return err
		}},
		{"heartbeat typed nil node", dbs.ErrInvalidNode, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			_, err := s.Heartbeat(now, (*hNode)(nil), nil)
			return err
		}},
		{"heartbeat unknown node", dbs.ErrUnknownNode, func(s *dbs.Scheduler, _ *hCluster, _ []*hJob) error {
			stray := &hNode{Key: "stray", RackName: "rack0", Cap: resource.Vector{2, 1}, Free: resource.Vector{2, 1}}
			_, err := s.Heartbeat(now, stray, nil)
			return err
		}},
		{"heartbeat free above capacity", dbs.ErrInvalidNode, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			c.NodeList[0].Free = resource.Vector{5, 1}
			_, err := s.Heartbeat(now, c.NodeList[0], nil)
			return err
		}},
		{"heartbeat time out of range", dbs.ErrTimeRange, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			_, err := s.Heartbeat(now.Add(-1<<60-sec), c.NodeList[0], nil)
			return err
		}},
		{"heartbeat time backwards", dbs.ErrStaleTime, func(s *dbs.Scheduler, c *hCluster, _ []*hJob) error {
			_, err := s.Heartbeat(now.Add(-sec), c.NodeList[0], nil)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, c, jobs := setup(t)
			before := snap(t, s, ids)
			err := tc.call(s, c, jobs)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			var de *dbs.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *dbs.Error", err)
			}
			t.Log(err)
			if msg := err.Error(); len(msg) < 5 || msg[:5] != "dbs: " || strings.Contains(msg[5:], "dbs: ") {
				t.Errorf("error text %q: want exactly one package prefix", msg)
			}
			if diff := cmp.Diff(before, snap(t, s, ids)); diff != "" {
				t.Errorf("state changed (-before +after):\n%s", diff)
			}
			// The clock did not advance: the original time still works.
			c.NodeList[0].Free = resource.Vector{2, 1}
			c.Cap = resource.Vector{6, 3}
			if _, err := s.Heartbeat(now, c.NodeList[0], nil); err != nil {
				t.Errorf("heartbeat at the original now after the error: %v", err)
			}
		})
	}
}

// twinWorld is a small host: a cluster, its jobs and running tasks that
// end 3 s after they start, driving one scheduler.
type twinWorld struct {
	s    *dbs.Scheduler
	c    *hCluster
	jobs []*hJob
	ends []twinTask
}

type twinTask struct {
	job   *hJob
	phase int
	node  *hNode
	end   time.Time
}

func newTwinWorld(t *testing.T) *twinWorld {
	c := newCluster(3, 2, 1)
	s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 3 * sec})
	if err != nil {
		t.Fatal(err)
	}
	return &twinWorld{s: s, c: c}
}

// step runs one good round at now: submissions due, task ends, a weight
// update and a heartbeat per node; it returns every decision.
func (w *twinWorld) step(t *testing.T, now time.Time, round int) []dbs.Decision {
	t.Helper()
	if round < 6 {
		phi := []float64{0, 0.5, 1}[round%3]
		j := mrJob(fmt.Sprintf("j%d", round), phi, 6, 2, time.Duration(40+10*round)*sec, 2+float64(round))
		j.SubmittedAt = now
		j.DeadlineAt = now.Add(time.Duration(40+10*round) * sec)
		if err := w.s.Submit(now, j); err != nil {
			t.Fatal(err)
		}
		w.jobs = append(w.jobs, j)
	}
	kept := w.ends[:0]
	for _, tk := range w.ends {
		if tk.end.After(now) {
			kept = append(kept, tk)
			continue
		}
		ph := &tk.job.Counters[tk.phase]
		ph.Running--
		ph.RunningStartSum -= tk.end.Add(-3 * sec).Sub(tk.job.SubmittedAt)
		ph.Finished++
		ph.FinishedDurationSum += 3 * sec
		tk.node.Free[tk.phase]++
		if tk.phase == 0 && tk.job.Counters[0].Finished == tk.job.Counters[0].Total {
			tk.job.Counters[1].Ready = tk.job.Counters[1].Total
		}
		if err := w.s.Update(tk.job.Key); err != nil {
			t.Fatal(err)
		}
	}
	w.ends = kept
	var all []dbs.Decision
	ds, err := w.s.Tick(now, nil)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, ds...)
	for _, n := range w.c.NodeList {
		ds, err := w.s.Heartbeat(now, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			var j *hJob
			for _, x := range w.jobs {
				if x.Key == d.Job {
					j = x
				}
			}
			ph := &j.Counters[d.Phase]
			ph.Ready -= d.Count
			ph.Running += d.Count
			ph.RunningStartSum += time.Duration(d.Count) * now.Sub(j.SubmittedAt)
			n.Free[d.Phase] -= float64(d.Count)
			j.Paid += float64(d.Count) * d.Price
			for range d.Count {
				w.ends = append(w.ends, twinTask{job: j, phase: int(d.Phase), node: n, end: now.Add(3 * sec)})
			}
			if err := w.s.Update(j.Key); err != nil {
				t.Fatal(err)
			}
		}
		all = append(all, ds...)
	}
	return all
}

// TestErrorTwin: a scheduler given every call, bad ones included,
// decides afterwards exactly as one given only the good ones (each bad
// call returns its error and changes nothing), over a run of
// submissions, heartbeats, task ends and weight updates.
func TestErrorTwin(t *testing.T) {
	good, bad := newTwinWorld(t), newTwinWorld(t)
	type badCall struct {
		name string
		want error
		call func(w *twinWorld, now time.Time) error
	}
	hb := func(w *twinWorld, now time.Time, n schedkit.Node) error {
		_, err := w.s.Heartbeat(now, n, nil)
		return err
	}
	calls := []badCall{
		{"typed nil job", dbs.ErrInvalidJob, func(w *twinWorld, now time.Time) error { return w.s.Submit(now, (*hJob)(nil)) }},
		{"zero submission", dbs.ErrInvalidJob, func(w *twinWorld, now time.Time) error {
			j := mrJob("bad", 1, 2, 1, time.Hour, 0)
			j.SubmittedAt = time.Time{}
			return w.s.Submit(now, j)
		}},
		{"submission after now", dbs.ErrInvalidJob, func(w *twinWorld, now time.Time) error {
			j := mrJob("bad", 1, 2, 1, time.Hour, 0)
			j.SubmittedAt, j.DeadlineAt = now.Add(sec), now.Add(time.Hour)
			return w.s.Submit(now, j)
		}},
		{"2^31 ready tasks", dbs.ErrInvalidJob, func(w *twinWorld, now time.Time) error {
			j := mrJob("bad", 1, 2, 1, time.Hour, 0)
			j.Counters[0] = schedkit.PhaseProgress{Total: 1 << 31, Ready: 1 << 31}
			return w.s.Submit(now, j)
		}},
		{"duplicate job", dbs.ErrDuplicateJob, func(w *twinWorld, now time.Time) error { return w.s.Submit(now, w.jobs[0]) }},
		{"unknown node", dbs.ErrUnknownNode, func(w *twinWorld, now time.Time) error {
			return hb(w, now, &hNode{Key: "stray", RackName: "rack0", Cap: resource.Vector{2, 1}, Free: resource.Vector{2, 1}})
		}},
		{"free above capacity", dbs.ErrInvalidNode, func(w *twinWorld, now time.Time) error {
			n := w.c.NodeList[1]
			saved := n.Free.Clone()
			n.Free = resource.Vector{5, 1}
			err := hb(w, now, n)
			n.Free = saved
			return err
		}},
		{"typed nil node", dbs.ErrInvalidNode, func(w *twinWorld, now time.Time) error { return hb(w, now, (*hNode)(nil)) }},
		{"stale heartbeat", dbs.ErrStaleTime, func(w *twinWorld, now time.Time) error { return hb(w, now.Add(-sec), w.c.NodeList[0]) }},
		{"stale tick", dbs.ErrStaleTime, func(w *twinWorld, now time.Time) error {
			_, err := w.s.Tick(now.Add(-sec), nil)
			return err
		}},
		{"tick out of range", dbs.ErrTimeRange, func(w *twinWorld, now time.Time) error {
			_, err := w.s.Tick(now.Add(1<<60), nil)
			return err
		}},
		{"NaN cost", dbs.ErrInvalidJob, func(w *twinWorld, now time.Time) error {
			// A job holding slots (the weight update reads its cost).
			j := w.ends[0].job
			saved := j.Paid
			j.Paid = math.NaN()
			_, err := w.s.Tick(now.Add(dbs.DefaultInterval), nil)
			j.Paid = saved
			return err
		}},
		{"inconsistent counters", dbs.ErrInvalidJob, func(w *twinWorld, now time.Time) error {
			j := w.jobs[0]
			saved := j.Counters[0]
			j.Counters[0].Ready = j.Counters[0].Total + 1
			err := w.s.Update(j.Key)
			j.Counters[0] = saved
			return err
		}},
		{"unknown job", dbs.ErrUnknownJob, func(w *twinWorld, now time.Time) error { return w.s.Update("zz") }},
	}
	now := t0
	for round := range 50 {
		now = now.Add(dbs.DefaultInterval)
		want := good.step(t, now, round)
		got := bad.step(t, now, round)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("round %d: decisions differ (-good only +with bad calls):\n%s", round, d)
		}
		bc := calls[round%len(calls)]
		err := bc.call(bad, now)
		if !errors.Is(err, bc.want) {
			t.Fatalf("round %d: %s: error %v, want %v", round, bc.name, err, bc.want)
		}
		if round < len(calls) {
			t.Logf("%s: %v", bc.name, err)
		}
		for _, j := range good.jobs {
			a, errA := good.s.Status(j.Key)
			b, errB := bad.s.Status(j.Key)
			if d := cmp.Diff(a, b); d != "" || (errA == nil) != (errB == nil) {
				t.Fatalf("round %d after %s: Status(%s) differs (-good +bad):\n%s", round, bc.name, j.Key, d)
			}
		}
	}
}

// TestTimeRangeRule is the root package's time rule 1 in dbs: a job's
// submission or deadline more than 2⁶⁰ ns from the first time given is
// ErrTimeRange (as in lss and fgm), and changes nothing.
func TestTimeRangeRule(t *testing.T) {
	far := time.Duration(1<<60) + sec
	for _, tt := range []struct {
		name     string
		sub, due time.Time
		text     string
	}{
		{"deadline", t0, t0.Add(far),
			`dbs: Submit: job "far": time out of range: deadline 2050-09-12 07:58:25.606846976 +0000 UTC is more than 2^60 ns (about 36 years) from 2014-03-01 08:00:00 +0000 UTC, the first time given`},
		{"submission", t0.Add(-far), t0.Add(time.Hour),
			`dbs: Submit: job "far": time out of range: submission 1977-08-18 08:01:34.393153024 +0000 UTC is more than 2^60 ns (about 36 years) from 2014-03-01 08:00:00 +0000 UTC, the first time given`},
	} {
		for _, first := range []bool{true, false} {
			s, err := dbs.New(dbs.Config{Cluster: newCluster(1, 2, 1)})
			if err != nil {
				t.Fatal(err)
			}
			if !first {
				if err := s.Submit(t0, mrJob("a", 1, 2, 1, time.Hour, 0)); err != nil {
					t.Fatal(err)
				}
			}
			j := mrJob("far", 1, 2, 1, time.Hour, 0)
			j.SubmittedAt, j.DeadlineAt = tt.sub, tt.due
			err = s.Submit(t0, j)
			if !errors.Is(err, dbs.ErrTimeRange) || err.Error() != tt.text {
				t.Errorf("%s (first call %v):\n got %v\nwant %s", tt.name, first, err, tt.text)
			}
			if want := map[bool]int{true: 0, false: 1}[first]; s.Len() != want {
				t.Errorf("%s: %d jobs queued, want %d", tt.name, s.Len(), want)
			}
		}
	}
}

// TestRefusedUpdateChangesNothing: an Update that fails changes nothing
// later either. A job holding no slot has its cost corrected and its
// counters broken by the host; the Update is refused; the scheduler that
// saw it decides, Tick after Tick, as a twin that never did (neither
// reads the corrected cost: the refused Update did not pass the notice
// on). Once the host Updates the job properly, both read it.
func TestRefusedUpdateChangesNothing(t *testing.T) {
	c := newCluster(3, 2, 1)
	jobs := []*hJob{mrJob("a", 0.5, 6, 1, 600*sec, 50), mrJob("b", 0, 6, 1, 600*sec, 50)}
	var twins [2]*dbs.Scheduler // 0 sees the refused Update, 1 does not
	for i := range twins {
		s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 20 * sec})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if err := s.Submit(t0, j); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Tick(t0, nil); err != nil {
			t.Fatal(err)
		}
		twins[i] = s
	}
	a := jobs[0]
	before, _ := twins[1].Status("a")
	a.Paid = 30
	a.Counters[0].Ready = 99
	err := twins[0].Update("a")
	const want = `dbs: Update: job "a": invalid job: phase map: inconsistent phase progress {Total:6 Running:0 Finished:0 Ready:99 RunningStartSum:0s FinishedDurationSum:0s}: ready exceeds pending`
	if !errors.Is(err, dbs.ErrInvalidJob) || err.Error() != want {
		t.Fatalf("refused Update: %v\nwant %s", err, want)
	}
	a.Counters[0].Ready = 6
	compare := func(when string, now time.Time) {
		t.Helper()
		var moves [2][]dbs.Decision
		for i, s := range twins {
			var err error
			if moves[i], err = s.Tick(now, nil); err != nil {
				t.Fatal(err)
			}
		}
		if d := cmp.Diff(moves[1], moves[0]); d != "" {
			t.Fatalf("%s: moves differ (-twin +refused):\n%s", when, d)
		}
		for _, j := range jobs {
			x, _ := twins[0].Status(j.Key)
			y, _ := twins[1].Status(j.Key)
			if d := cmp.Diff(y, x); d != "" {
				t.Fatalf("%s: Status(%s) differs (-twin +refused):\n%s", when, j.Key, d)
			}
		}
	}
	for i := range 3 {
		compare(fmt.Sprintf("Tick %d after the refused Update", i+1), t0.Add(time.Duration(i+1)*dbs.DefaultInterval))
	}
	for _, s := range twins {
		if err := s.Update("a"); err != nil {
			t.Fatal(err)
		}
	}
	compare("Tick after a good Update", t0.Add(4*dbs.DefaultInterval))
	if after, _ := twins[1].Status("a"); after.Model1 == before.Model1 {
		t.Errorf("the good Update's cost was not read: model 1 %+v before and after", after.Model1)
	}
}
