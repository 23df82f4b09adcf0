package fgm_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// TestRunSkipMatchesScan drives two schedulers with the same random
// operations, one skipping runs of alike pending tasks after a refusal
// and keeping its job order between calls (the default), and one
// visiting every pending task and sorting every active job on every
// call (the reference path, fgm.ScheduleLiteral: Algorithm 1 as
// printed), and requires every call to return the same decisions and
// errors, and both Histories to end with the same keys and
// observations. The workloads have few similarity keys and requests (so
// runs form), some tasks with data locations, re-submissions into the
// middle of a queue (a released task submitted again), and a History
// with few keys, so that evictions (of the least recently observed key)
// happen often.
//
// The seeds cycle through the task shapes that make the walk long
// (walkShape): similarity keys alternating within a job (runs one task
// long), fragments (requests of 3 cores on servers left with less),
// demands just above the compression allowance, and every task with a
// data location.
func TestRunSkipMatchesScan(t *testing.T) {
	for seed := range uint64(60) {
		for _, est := range []string{"history", "none"} {
			t.Run(fmt.Sprintf("seed=%d/estimator=%s", seed, est), func(t *testing.T) {
				runSkipScenario(t, seed, est, false)
			})
		}
	}
}

// TestAccelerationsTaken requires each acceleration of the walk (and the
// sampling cursors) to have taken its fast path on the equivalence
// tests' scenarios (fgm.SkipCounts of the accelerated side > 0): a fast
// path that stops being taken fails here rather than going unnoticed,
// each in a subtest of its own.
func TestAccelerationsTaken(t *testing.T) {
	totals := map[string]uint64{}
	for seed := range uint64(30) {
		for _, est := range []string{"history", "none"} {
			for k, n := range fgm.SkipCounts(runSkipScenario(t, seed, est, false)) {
				totals[k] += n
			}
		}
	}
	for _, c := range []struct{ file, counters string }{
		{"refusals.go", "refusals unpredictableRefusals idleRepeats"},
		{"runskip.go", "runTasks"},
		{"closedkinds.go", "closedCalls closedJobs"},
		{"jobsets.go", "setWalks"},
		{"keptorder.go", "sortMoves"},
		{"classes.go", "classStops classJobs"},
	} {
		t.Run(c.file, func(t *testing.T) {
			for _, k := range strings.Fields(c.counters) {
				if totals[k] == 0 {
					t.Errorf("fast path %s never taken", k)
				}
			}
		})
	}
	t.Logf("fast paths taken: %v", totals)
}

// walkShape is the task shape of a scenario's seed (see
// TestRunSkipMatchesScan).
type walkShape int

const (
	plainShape walkShape = iota
	alternatingKeys
	fragments
	allowance
	located
)

func shapeOf(seed uint64) walkShape { return walkShape(seed % 5) }

type skipSide struct {
	s   *fgm.Scheduler
	h   *estimate.History
	c   *schedkittest.Cluster
	ref bool // Schedule walks Algorithm 1 as printed (fgm.ScheduleLiteral)
}

func (x skipSide) schedule(now time.Time, n schedkit.Node) ([]fgm.Decision, error) {
	if x.ref {
		return fgm.ScheduleLiteral(x.s, now, n, nil)
	}
	return x.s.Schedule(now, n, nil)
}

// runSkipScenario plays one random scenario on two schedulers and
// requires the same decisions and errors from both at every call: side
// a is the skipping path, side b the reference (fgm.ScheduleLiteral:
// Algorithm 1 as printed). With runs true, side a also submits each
// batch of alike tasks without data locations as one TaskRun (SubmitRun)
// where side b submits its tasks one by one (Submit), and a killed job's
// pending tasks are dropped with WithdrawJob on a, one by one on b; est
// "func" uses an Estimator other than a History, which predicts task by
// task. It returns the accelerated side's scheduler.
func runSkipScenario(t *testing.T, seed uint64, est string, runs bool) *fgm.Scheduler {
	rng := rand.New(rand.NewPCG(seed, 77))
	shape := shapeOf(seed)
	space := testSpace(t)
	capacity := resource.Vector{8, 16, 100}
	// On a quarter of the seeds the second and third kinds are map and
	// reduce slots (integral), 2 of each per server, and nearly every
	// task asks for one of them: a server with no slot of a kind free
	// refuses every task asking for it (Schedule's closed-kinds test).
	slots := seed%4 == 2
	if slots {
		var err error
		if space, err = resource.NewSpace(resource.CPU, resource.MapSlot, resource.ReduceSlot); err != nil {
			t.Fatal(err)
		}
		capacity = resource.Vector{8, 2, 2}
	}
	mk := func(ref bool) skipSide {
		c := newCluster(space, 3, capacity)
		h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space, MaxKeys: 3, MinObservations: 1, MinSamples: 1})
		if err != nil {
			t.Fatal(err)
		}
		cfg := fgm.Config{Cluster: c, Progressive: seed%3 == 1, LocalityWait: time.Duration(seed%2) * 5 * time.Second}
		switch est {
		case "history":
			cfg.History = h
		case "func":
			cfg.Estimator = perTaskEstimator{}
		}
		if seed%4 == 3 {
			cfg.Fairness = fgm.FIFO{}
		}
		cfg.HostChecksSteps = slots && seed%8 == 6
		s, err := fgm.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return skipSide{s, h, c, ref}
	}
	a, b := mk(false), mk(true)
	var taskRuns []*taskRun
	keys := []schedkit.SimilarityKey{{Logic: "m", DataSize: 64}, {Logic: "m", DataSize: 10}, {Logic: "r", DataSize: 5}, {Logic: "x", DataSize: 1}, {Logic: "y", DataSize: 2}}
	reqs := []resource.Vector{{1, 2, 0}, {2, 4, 0}, {1, 2, 0}, {3, 1, 0}}
	if seed%2 == 0 {
		// More signatures: small requests that fit where others do not.
		reqs = append(reqs, resource.Vector{0.5, 0.5, 0}, resource.Vector{1, 1, 0}, resource.Vector{4, 8, 0}, resource.Vector{0.25, 3, 0})
	}
	switch shape {
	case fragments:
		// Most tasks want 3 cores of 8: two leave 2, which fits none.
		reqs = []resource.Vector{{3, 2, 0}, {3, 1, 0}, {3, 4, 0}, {1, 2, 0}}
	case allowance:
		// Demands a little above what is free once the cores are
		// taken, within or beyond the compression allowance 0.8.
		reqs = []resource.Vector{{2, 2, 0}, {2.5, 1, 0}, {0.5, 1, 0}, {0.9, 2, 0}}
	}
	if slots {
		for i := range reqs {
			ms := [][2]float64{{1, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 0}, {0, 1}, {2, 0}, {1, 0}}[i]
			reqs[i] = resource.Vector{reqs[i][0], ms[0], ms[1]}
		}
	}
	var tasks []*fgmtest.Task
	running := map[schedkit.TaskID]bool{}
	pending := map[schedkit.TaskID]bool{}
	now := time.Duration(0)
	both := func(op string, f func(x skipSide) ([]fgm.Decision, error)) []fgm.Decision {
		da, ea := f(a)
		db, eb := f(b)
		if sa, sb := showDecisions(da, ea), showDecisions(db, eb); sa != sb {
			t.Fatalf("%s at %v: skipping %q, reference %q", op, now, sa, sb)
		}
		return da
	}
	for step := 0; step < 900; step++ {
		switch r := rng.IntN(20); {
		case r < 7: // submit a batch of alike tasks (sometimes with locations)
			j := schedkit.JobID(fmt.Sprint("j", rng.IntN(4)))
			k, q := keys[rng.IntN(len(keys))], reqs[rng.IntN(len(reqs))]
			run := &taskRun{}
			k2 := keys[rng.IntN(len(keys))]
			for i := range 1 + rng.IntN(6) {
				tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("t", len(tasks))), JobKey: j, Similar: k, Request: q}}
				if shape == alternatingKeys && i%2 == 1 {
					tk.Similar = k2
				}
				if shape == located || seed%3 == 0 && rng.IntN(8) == 0 {
					tk.Locations = []schedkit.NodeID{a.c.NodeList[rng.IntN(3)].Key}
				}
				tasks = append(tasks, tk)
				pending[tk.Key] = true
				if runs && len(tk.Locations) == 0 && shape != alternatingKeys {
					run.tasks = append(run.tasks, tk)
					continue
				}
				both("Submit", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.Submit(t0.Add(now), tk) })
			}
			if len(run.tasks) > 0 {
				taskRuns = append(taskRuns, run)
				ea := a.s.SubmitRun(t0.Add(now), run)
				var eb error
				for _, tk := range run.tasks {
					if eb = b.s.Submit(t0.Add(now), tk); eb != nil {
						break
					}
				}
				if sa, sb := showDecisions(nil, ea), showDecisions(nil, eb); sa != sb {
					t.Fatalf("SubmitRun at %v: %q, one by one %q", now, sa, sb)
				}
			}
		case r < 12:
			n := rng.IntN(3)
			ds := both("Schedule", func(x skipSide) ([]fgm.Decision, error) { return x.schedule(t0.Add(now), x.c.NodeList[n]) })
			for _, d := range ds {
				delete(pending, d.Task)
				running[d.Task] = true
			}
		case r < 14: // sample then release a running task, maybe resubmit it
			id, found := pickTask(rng, tasks, running)
			if !found {
				continue
			}
			used := resource.Vector{float64(rng.IntN(3)), float64(rng.IntN(5)), 0}
			both("SampleTask", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.SampleTask(t0.Add(now), id, used) })
			now += time.Duration(1+rng.IntN(3)) * time.Second
			ok := rng.IntN(4) > 0
			both("Release", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.Release(t0.Add(now), id, ok) })
			delete(running, id)
			if !ok {
				// Submitted again: its new sequence puts it after the
				// job's queued tasks; a job emptied in between makes it
				// a new head.
				for _, tk := range tasks {
					if tk.Key == id {
						pending[id] = true
						both("Resubmit", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.Submit(t0.Add(now), tk) })
					}
				}
			}
		case r < 15 && runs:
			j := schedkit.JobID(fmt.Sprint("j", rng.IntN(4)))
			na, nb := a.s.WithdrawJob(j), 0
			for _, tk := range tasks {
				if tk.JobKey == j && pending[tk.Key] {
					if err := b.s.Withdraw(tk.Key); err != nil {
						t.Fatal(err)
					}
					delete(pending, tk.Key)
					nb++
				}
			}
			if na != nb || a.s.Pending() != b.s.Pending() || a.s.Running() != b.s.Running() {
				t.Fatalf("WithdrawJob %s: dropped %d, one by one %d; pending %d/%d, running %d/%d", j, na, nb, a.s.Pending(), b.s.Pending(), a.s.Running(), b.s.Running())
			}
		case r < 15:
			id, ok := pickTask(rng, tasks, pending)
			if !ok {
				continue
			}
			both("Withdraw", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.Withdraw(id) })
			delete(pending, id)
		case r < 16 && est == "history" && rng.IntN(4) == 0:
			// The host teaches the History itself (not through a
			// Release): predictions change behind the scheduler's back.
			k := keys[rng.IntN(len(keys))]
			smp := []estimate.UsageSample{{Duration: time.Duration(1+rng.IntN(20)) * time.Second, Used: resource.Vector{float64(rng.IntN(9)) / 2, float64(rng.IntN(5)), 0}}}
			_, ea := a.h.Observe(k, smp)
			_, eb := b.h.Observe(k, smp)
			if (ea == nil) != (eb == nil) {
				t.Fatalf("Observe: %v, %v", ea, eb)
			}
		case r < 16:
			ds := both("Tick", func(x skipSide) ([]fgm.Decision, error) { return x.s.Tick(t0.Add(now), nil) })
			for _, d := range ds {
				if d.Action == fgm.Reclaim {
					delete(running, d.Task)
					both("Release", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.Release(t0.Add(now), d.Task, false) })
				}
			}
		case r < 17 && slots: // a node sample: slots measured with noise
			n := rng.IntN(3)
			noisy := []float64{0, 1, 2, 1.04, 2.08, 0.96}
			used := resource.Vector{float64(rng.IntN(9)), noisy[rng.IntN(6)], noisy[rng.IntN(6)]}
			both("SampleNode", func(x skipSide) ([]fgm.Decision, error) {
				return nil, x.s.SampleNode(t0.Add(now), x.c.NodeList[n].Key, used)
			})
		default:
			now += time.Duration(rng.IntN(4)) * time.Second
		}
	}
	for _, r := range taskRuns {
		for i, x := range r.asked {
			if x != i {
				t.Fatalf("TaskRun.Task asked %v, want 0, 1, 2, … each once", r.asked)
			}
		}
	}
	if a.s.Pending() != b.s.Pending() || a.s.Running() != b.s.Running() {
		t.Fatalf("pending %d/%d, running %d/%d", a.s.Pending(), b.s.Pending(), a.s.Running(), b.s.Running())
	}
	if a.h.Len() != b.h.Len() {
		t.Fatalf("History keys: skipping %d, reference %d", a.h.Len(), b.h.Len())
	}
	for _, k := range keys {
		if x, y := a.h.Observations(k), b.h.Observations(k); x != y {
			t.Fatalf("History %v: skipping %d observations, reference %d", k, x, y)
		}
	}
	return a.s
}

// TestSubmitRunMatchesSubmit is the property test of SubmitRun: a run of
// n alike tasks decides exactly as its n tasks submitted one by one
// and walked as Algorithm 1 prints it (fgm.ScheduleLiteral), in every
// Schedule call of random scenarios (releases, failures submitted
// again as single tasks, killed jobs, ticks), with a History (evictions
// included), no Estimator, or an Estimator that predicts task by task;
// and the run's tasks are materialised once each, in order.
func TestSubmitRunMatchesSubmit(t *testing.T) {
	for seed := range uint64(40) {
		for _, est := range []string{"history", "none", "func"} {
			t.Run(fmt.Sprintf("seed=%d/estimator=%s", seed, est), func(t *testing.T) {
				runSkipScenario(t, seed, est, true)
			})
		}
	}
}

// taskRun is a test host's run of alike tasks, made in advance; it
// records which tasks the scheduler asked for.
type taskRun struct {
	tasks []*fgmtest.Task
	asked []int
}

func (r *taskRun) Job() schedkit.JobID                { return r.tasks[0].JobKey }
func (r *taskRun) Similarity() schedkit.SimilarityKey { return r.tasks[0].Similar }
func (r *taskRun) Requested() resource.Vector         { return r.tasks[0].Request }
func (r *taskRun) Deadline() time.Time                { return r.tasks[0].DueAt }
func (r *taskRun) Len() int                           { return len(r.tasks) }
func (r *taskRun) Task(i int) schedkit.Task {
	r.asked = append(r.asked, i)
	return r.tasks[i]
}

// perTaskEstimator predicts from the task itself: two stages whose
// lengths depend on the task's ID, so alike tasks are predicted apart.
type perTaskEstimator struct{}

func (perTaskEstimator) Predict(t schedkit.Task) (estimate.Profile, bool) {
	id := string(t.ID())
	if len(id)%3 == 0 {
		return estimate.Profile{}, false
	}
	r := t.Requested()
	d := time.Duration(1+len(id)%4) * time.Second
	return estimate.Profile{Observations: 1, Stages: []estimate.Stage{
		{Duration: d, Demand: resource.Vector{r[0], r[1] / 2, r[2]}},
		{Duration: 2 * d, Demand: resource.Vector{r[0] / 2, r[1], r[2]}},
	}}, true
}

// pickTask returns a task of tasks (in their order) that is in set,
// drawn by rng; false if none is.
func pickTask(rng *rand.Rand, tasks []*fgmtest.Task, set map[schedkit.TaskID]bool) (schedkit.TaskID, bool) {
	var ids []schedkit.TaskID
	for _, tk := range tasks {
		if set[tk.Key] {
			ids = append(ids, tk.Key)
		}
	}
	if len(ids) == 0 {
		return "", false
	}
	return ids[rng.IntN(len(ids))], true
}
