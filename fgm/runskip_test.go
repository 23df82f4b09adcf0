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
	"github.com/schedkit/schedkit/resource"
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
// Each acceleration must have taken its fast path somewhere in the
// scenarios (fgm.SkipCounts of the skipping side > 0): a fast path that
// stops being taken fails here rather than going unnoticed.
func TestRunSkipMatchesScan(t *testing.T) {
	clear(skipTotals)
	for seed := range uint64(60) {
		for _, est := range []string{"history", "none"} {
			t.Run(fmt.Sprintf("seed=%d/estimator=%s", seed, est), func(t *testing.T) {
				runSkipScenario(t, seed, est, false)
			})
		}
	}
	for _, k := range []string{"refusals", "unpredictableRefusals", "runTasks", "idleRepeats", "closedCalls", "closedJobs", "setWalks", "sortMoves"} {
		if skipTotals[k] == 0 {
			t.Errorf("fast path %s never taken", k)
		}
	}
	t.Logf("fast paths taken: %v", skipTotals)
}

// skipTotals sums fgm.SkipCounts of the skipping sides of the scenarios.
var skipTotals = map[string]uint64{}

type skipSide struct {
	s   *fgm.Scheduler
	h   *estimate.History
	c   *cluster
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
// task.
func runSkipScenario(t *testing.T, seed uint64, est string, runs bool) {
	rng := rand.New(rand.NewPCG(seed, 77))
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
		cfg := fgm.Config{Cluster: c, Progressive: seed%3 == 1, StrictOrder: seed%4 >= 2, LocalityWait: time.Duration(seed%2) * 5 * time.Second}
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
	if slots {
		for i := range reqs {
			ms := [][2]float64{{1, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 0}, {0, 1}, {2, 0}, {1, 0}}[i]
			reqs[i] = resource.Vector{reqs[i][0], ms[0], ms[1]}
		}
	}
	var tasks []*task
	running := map[schedkit.TaskID]bool{}
	pending := map[schedkit.TaskID]bool{}
	now := time.Duration(0)
	show := func(ds []fgm.Decision, err error) string {
		var sb strings.Builder
		for _, d := range ds {
			fmt.Fprintf(&sb, "%s %s %s %v %v|", d.Task, d.Node, d.Mode, d.Plan, d.Action)
		}
		if err != nil {
			sb.WriteString(err.Error())
		}
		return sb.String()
	}
	both := func(op string, f func(x skipSide) ([]fgm.Decision, error)) []fgm.Decision {
		da, ea := f(a)
		db, eb := f(b)
		if sa, sb := show(da, ea), show(db, eb); sa != sb {
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
			for range 1 + rng.IntN(6) {
				tk := &task{id: schedkit.TaskID(fmt.Sprint("t", len(tasks))), job: j, key: k, req: q}
				if seed%3 == 0 && rng.IntN(8) == 0 {
					tk.locs = []schedkit.NodeID{a.c.nodes[rng.IntN(3)].id}
				}
				tasks = append(tasks, tk)
				pending[tk.id] = true
				if runs && len(tk.locs) == 0 {
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
				if sa, sb := show(nil, ea), show(nil, eb); sa != sb {
					t.Fatalf("SubmitRun at %v: %q, one by one %q", now, sa, sb)
				}
			}
		case r < 12:
			n := rng.IntN(3)
			ds := both("Schedule", func(x skipSide) ([]fgm.Decision, error) { return x.schedule(t0.Add(now), x.c.nodes[n]) })
			for _, d := range ds {
				delete(pending, d.Task)
				running[d.Task] = true
			}
		case r < 14: // sample then release a running task, maybe resubmit it
			var ids []schedkit.TaskID
			for _, tk := range tasks {
				if running[tk.id] {
					ids = append(ids, tk.id)
				}
			}
			if len(ids) == 0 {
				continue
			}
			id := ids[rng.IntN(len(ids))]
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
					if tk.id == id {
						pending[id] = true
						both("Resubmit", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.Submit(t0.Add(now), tk) })
					}
				}
			}
		case r < 15 && runs:
			j := schedkit.JobID(fmt.Sprint("j", rng.IntN(4)))
			na, nb := a.s.WithdrawJob(j), 0
			for _, tk := range tasks {
				if tk.job == j && pending[tk.id] {
					if err := b.s.Withdraw(tk.id); err != nil {
						t.Fatal(err)
					}
					delete(pending, tk.id)
					nb++
				}
			}
			if na != nb || a.s.Pending() != b.s.Pending() || a.s.Running() != b.s.Running() {
				t.Fatalf("WithdrawJob %s: dropped %d, one by one %d; pending %d/%d, running %d/%d", j, na, nb, a.s.Pending(), b.s.Pending(), a.s.Running(), b.s.Running())
			}
		case r < 15:
			var ids []schedkit.TaskID
			for _, tk := range tasks {
				if pending[tk.id] {
					ids = append(ids, tk.id)
				}
			}
			if len(ids) == 0 {
				continue
			}
			id := ids[rng.IntN(len(ids))]
			both("Withdraw", func(x skipSide) ([]fgm.Decision, error) { return nil, x.s.Withdraw(id) })
			delete(pending, id)
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
				return nil, x.s.SampleNode(t0.Add(now), x.c.nodes[n].id, used)
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
	for k, n := range fgm.SkipCounts(a.s) {
		skipTotals[k] += n
	}
	if a.h.Len() != b.h.Len() {
		t.Fatalf("History keys: skipping %d, reference %d", a.h.Len(), b.h.Len())
	}
	for _, k := range keys {
		if x, y := a.h.Observations(k), b.h.Observations(k); x != y {
			t.Fatalf("History %v: skipping %d observations, reference %d", k, x, y)
		}
	}
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
	tasks []*task
	asked []int
}

func (r *taskRun) Job() schedkit.JobID                { return r.tasks[0].job }
func (r *taskRun) Similarity() schedkit.SimilarityKey { return r.tasks[0].key }
func (r *taskRun) Requested() resource.Vector         { return r.tasks[0].req }
func (r *taskRun) Deadline() time.Time                { return r.tasks[0].deadline }
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
