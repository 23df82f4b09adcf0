package dbs_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
)

// TestTickEquivalence runs the weight update against the previous one
// (dbs.UsePreviousTick: every job evaluated from scratch, queue heaps
// rebuilt) in lockstep on the same host: random submissions, heartbeats
// whose assignments start, tasks ending, reduces becoming ready, costs
// growing, cluster capacity changing, removals and ticks (alone, and in
// runs where nothing but time changes, when Tick skips the jobs whose
// figures cannot move: settled jobs without a task time, φ = 0 jobs
// without running tasks). Every Tick and
// Heartbeat must return the same decisions and every job the same
// Status, bit for bit, after every operation (odd seeds: after one in
// eight). The previous update reads every job's cost at every update,
// Tick only the watched jobs' (host duty 3): costs change here only of
// jobs holding slots, or with an Update after the change.
func TestTickEquivalence(t *testing.T) {
	cfgs := []dbs.Config{
		{},
		{DefaultTaskTime: 30 * time.Second, TransferRate: 50 << 20},
		{PhiAwareMoves: true, TransferRate: 1 << 20},
		{Ablations: dbs.Ablations{NoMinimumSlots: true}, DefaultTaskTime: 10 * time.Second},
		{Sharing: dbs.CapacitySharing, MinimumFirst: true},
		{Sharing: dbs.CapacitySharing, PhiAwareMoves: true},
		{Queues: dbs.DefaultCapacityQueues, Ablations: dbs.Ablations{NoBetterOff: true, NoAffordability: true, BudgetViewOneSlot: true}},
		{Ablations: dbs.Ablations{LostByWeight: true, UnknownByWeight: true, NoBudgetDemotion: true}},
	}
	seeds := 6
	if raceEnabled {
		seeds = 2
	}
	var skips [4]int
	for ci, cfg := range cfgs {
		for seed := range uint64(seeds) {
			t.Run(fmt.Sprintf("cfg=%d/seed=%d", ci, seed), func(t *testing.T) {
				k := runTickEquivalence(t, cfg, seed)
				for i := range skips {
					skips[i] += k[i]
				}
			})
		}
	}
	// Each skip path taken (counted where it is taken): a path never
	// taken is not tested by the equivalence.
	for i, what := range []string{"frozen", "without a task time", "lapsed", "φ = 0 unchanged"} {
		if skips[i] == 0 {
			t.Errorf("no job was skipped as %s: that path is not tested", what)
		}
	}
	t.Logf("jobs skipped: %d frozen, %d without a task time, %d lapsed, %d φ = 0 unchanged", skips[0], skips[1], skips[2], skips[3])
}

// runTickEquivalence returns the jobs the fast update skipped, by path
// (dbs.Skips).
func runTickEquivalence(t *testing.T, cfg dbs.Config, seed uint64) [4]int {
	rng := rand.New(rand.NewPCG(seed, 29))
	c := newCluster(3+rng.IntN(6), 2, 1)
	cfg.Cluster = c
	fast, err := dbs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	prev, err := dbs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dbs.UsePreviousTick(prev)
	now := t0
	var jobs []*hJob
	next, moves, frozen, lapsed := 0, 0, 0, 0
	both := func(op string, f func(s *dbs.Scheduler) ([]dbs.Decision, error)) []dbs.Decision {
		t.Helper()
		a, errA := f(fast)
		b, errB := f(prev)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s at %v: errors differ: %v vs previous %v", op, now, errA, errB)
		}
		if d := cmp.Diff(b, a); d != "" {
			t.Fatalf("%s at %v: decisions differ (-previous +new):\n%s", op, now, d)
		}
		return a
	}
	update := func(j *hJob) {
		t.Helper()
		both("Update", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Update(j.Key) })
	}
	// Odd seeds read Status only now and then: a weight update leaves
	// the figures Status reports to be written when read, which must
	// give the update's figures even after heartbeats, Updates,
	// submissions and removals changed the job's inputs since.
	rare := seed%2 == 1
	checkStatus := func(step int) {
		t.Helper()
		if rare && rng.IntN(8) != 0 {
			return
		}
		for _, j := range jobs {
			a, errA := fast.Status(j.Key)
			b, errB := prev.Status(j.Key)
			if errA != nil || errB != nil {
				t.Fatalf("step %d: Status(%s): %v, %v", step, j.Key, errA, errB)
			}
			if a == b {
				continue
			}
			if d := cmp.Diff(b, a); d != "" {
				t.Fatalf("step %d at %v: Status(%s) differs (-previous +new):\n%s", step, now, j.Key, d)
			}
		}
	}
	for step := range 600 {
		switch r := rng.IntN(21); {
		case r < 3 || len(jobs) == 0: // submit
			phi := []float64{0, 0.5, 1}[rng.IntN(3)]
			j := mrJob(fmt.Sprintf("j%04d", next), phi, 1+rng.IntN(30), rng.IntN(6),
				time.Duration(60+rng.IntN(3600))*time.Second, 1+rng.Float64()*50)
			next++
			j.SubmittedAt = now.Add(-time.Duration(rng.IntN(60)) * time.Second)
			j.DeadlineAt = j.SubmittedAt.Add(time.Duration(30+rng.IntN(3600)) * time.Second)
			if j.Counters[1].Total == 0 {
				j.Counters = j.Counters[:1]
			}
			if rng.IntN(3) == 0 {
				j.Hint = time.Duration(1+rng.IntN(60)) * time.Second
			}
			j.ReduceInput = int64(rng.IntN(1 << 28))
			both("Submit", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Submit(now, j) })
			jobs = append(jobs, j)
		case r < 8: // heartbeat; the assignments start
			n := c.NodeList[rng.IntN(len(c.NodeList))]
			n.Free[0], n.Free[1] = float64(rng.IntN(3)), float64(rng.IntN(2))
			ds := both("Heartbeat", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Heartbeat(now, n, nil) })
			if rng.IntN(3) == 0 {
				break // not started yet: held by the scheduler until the job's next Update
			}
			for _, d := range ds {
				for _, j := range jobs {
					if j.Key == d.Job {
						p := &j.Counters[d.Phase]
						p.Ready -= d.Count
						p.Running += d.Count
						p.RunningStartSum += time.Duration(d.Count) * now.Sub(j.SubmittedAt)
						update(j)
					}
				}
			}
		case r < 11: // a task ends
			j := jobs[rng.IntN(len(jobs))]
			for p := range j.Phases() {
				ph := &j.Counters[p]
				if ph.Running == 0 {
					continue
				}
				share := ph.RunningStartSum / time.Duration(ph.Running)
				ph.Running--
				ph.RunningStartSum -= share
				if ph.Running == 0 {
					ph.RunningStartSum = 0
				}
				ph.Finished++
				ph.FinishedDurationSum += time.Duration(1+rng.IntN(90)) * time.Second
				if p == 0 && j.Phases() > 1 && ph.Finished == ph.Total {
					r := &j.Counters[1]
					r.Ready = r.Total - r.Running - r.Finished
				}
				update(j)
				break
			}
			if j.Counters[0].Finished == j.Counters[0].Total && (j.Phases() == 1 || j.Counters[1].Finished == j.Counters[1].Total) {
				both("Remove", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Remove(j.Key) })
				jobs = removeJob(jobs, j)
			}
		case r < 12: // reduces ready early (slow-start)
			j := jobs[rng.IntN(len(jobs))]
			if j.Phases() > 1 {
				r := &j.Counters[1]
				r.Ready = r.Total - r.Running - r.Finished
				update(j)
			}
		case r < 14: // costs grow (not every job: unchanged costs are kept)
			// Host duty 3: a cost changes while the job holds slots (as
			// the scheduler counts them: running or assigned); any other
			// change (a correction) is followed by Update.
			for _, j := range jobs {
				if rng.IntN(2) != 0 {
					continue
				}
				j.Paid += rng.Float64() * 2
				if st, err := fast.Status(j.Key); err != nil {
					t.Fatal(err)
				} else if st.Held == [2]int{} {
					update(j)
				}
			}
		case r < 15: // the cluster grows or shrinks
			c.Cap[0] = float64(2 * (2 + rng.IntN(8)))
			c.Cap[1] = float64(1 + rng.IntN(8))
		case r < 16: // a job is withdrawn
			j := jobs[rng.IntN(len(jobs))]
			both("Remove", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Remove(j.Key) })
			jobs = removeJob(jobs, j)
		case r < 17: // steady state: updates in a row, nothing but time changing
			for range 1 + rng.IntN(4) {
				now = now.Add(dbs.DefaultInterval + time.Duration(rng.IntN(200))*time.Millisecond)
				moves += len(both("Tick", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Tick(now, nil) }))
				frozen += dbs.Frozen(fast)
				lapsed += dbs.Lapsed(fast)
				checkStatus(step)
			}
		default: // time moves; tick
			now = now.Add(time.Duration(100+rng.IntN(900)) * time.Millisecond)
			moves += len(both("Tick", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Tick(now, nil) }))
			frozen += dbs.Frozen(fast)
			lapsed += dbs.Lapsed(fast)
		}
		checkStatus(step)
	}
	t.Logf("%d jobs left, %d moves, %d frozen, %d lapsed", len(jobs), moves, frozen, lapsed)
	return dbs.Skips(fast)
}

func removeJob(jobs []*hJob, j *hJob) []*hJob {
	for i, x := range jobs {
		if x == j {
			return append(jobs[:i], jobs[i+1:]...)
		}
	}
	return jobs
}

// TestTickFrozenJobGetsSlot: a frozen job (past its deadline, nothing
// running, holding what it needs) that a heartbeat gives a slot is
// evaluated again at the next weight update even though the host has
// not called Update yet (the slot counts as held): same weight, marks
// and Status as the previous update's.
func TestTickFrozenJobGetsSlot(t *testing.T) {
	c := newCluster(2, 2, 1)
	fast, err := dbs.New(dbs.Config{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	prev, err := dbs.New(dbs.Config{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	dbs.UsePreviousTick(prev)
	late := mrJob("late", 1, 5, 0, 10*time.Second, 0)
	late.Counters, late.Hint = late.Counters[:1], 4*time.Second
	other := mrJob("other", 1, 5, 0, time.Hour, 0)
	other.Counters, other.Hint = other.Counters[:1], 4*time.Second
	both := func(op string, now time.Time, f func(s *dbs.Scheduler) ([]dbs.Decision, error)) []dbs.Decision {
		t.Helper()
		a, errA := f(fast)
		b, errB := f(prev)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", op, errA, errB)
		}
		if d := cmp.Diff(b, a); d != "" {
			t.Fatalf("%s: decisions differ (-previous +new):\n%s", op, d)
		}
		for _, id := range []string{"late", "other"} {
			sa, _ := fast.Status(schedkit.JobID(id))
			sb, _ := prev.Status(schedkit.JobID(id))
			if d := cmp.Diff(sb, sa); d != "" {
				t.Fatalf("%s: Status(%s) differs (-previous +new):\n%s", op, id, d)
			}
		}
		return a
	}
	now := t0
	for _, j := range []*hJob{late, other} {
		both("Submit", now, func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Submit(now, j) })
	}
	for range 3 {
		now = now.Add(10 * time.Second)
		both("Tick", now, func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Tick(now, nil) })
	}
	if dbs.Frozen(fast) == 0 {
		t.Fatal("no frozen job: the test tests nothing")
	}
	// Only the late job has a ready map: the slot goes to it.
	other.Counters[0].Ready, other.Counters[0].Running = 0, 5
	other.Counters[0].RunningStartSum = 5 * now.Sub(other.SubmittedAt)
	both("Update", now, func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Update("other") })
	n := c.NodeList[0]
	n.Free[0], n.Free[1] = 1, 0
	if ds := both("Heartbeat", now, func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Heartbeat(now, n, nil) }); len(ds) != 1 || ds[0].Job != "late" {
		t.Fatalf("heartbeat decided %v", ds)
	}
	for range 3 {
		now = now.Add(time.Second)
		both("Tick", now, func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Tick(now, nil) })
	}
}

// TestTickFrozenAcrossParts: a frozen job with φ = 1 stays frozen while
// jobs join its queue (its equal part of the queue's guarantee shrinks,
// so its reduce waves grow): every weight update gives the same
// decisions as the previous update, and its Status the same figures,
// the latest reduce start included.
func TestTickFrozenAcrossParts(t *testing.T) {
	c := newCluster(2, 2, 2)
	fast, err := dbs.New(dbs.Config{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	prev, err := dbs.New(dbs.Config{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	dbs.UsePreviousTick(prev)
	var ids []schedkit.JobID
	both := func(op string, f func(s *dbs.Scheduler) ([]dbs.Decision, error)) {
		t.Helper()
		a, errA := f(fast)
		b, errB := f(prev)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", op, errA, errB)
		}
		if d := cmp.Diff(b, a); d != "" {
			t.Fatalf("%s: decisions differ (-previous +new):\n%s", op, d)
		}
		for _, id := range ids {
			sa, _ := fast.Status(id)
			sb, _ := prev.Status(id)
			if d := cmp.Diff(sb, sa); d != "" {
				t.Fatalf("%s: Status(%s) differs (-previous +new):\n%s", op, id, d)
			}
		}
	}
	late := mrJob("late", 1, 4, 7, 10*time.Second, 0)
	late.Hint = 4 * time.Second
	now := t0
	both("Submit", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Submit(now, late) })
	ids = append(ids, late.Key)
	for range 3 {
		now = now.Add(10 * time.Second)
		both("Tick", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Tick(now, nil) })
	}
	before, _ := fast.Status("late")
	for i := range 6 {
		j := mrJob(fmt.Sprintf("j%d", i), 1, 3, 1, time.Hour, 0)
		both("Submit", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return nil, s.Submit(now, j) })
		ids = append(ids, j.Key)
		now = now.Add(time.Second)
		both("Tick", func(s *dbs.Scheduler) ([]dbs.Decision, error) { return s.Tick(now, nil) })
		if dbs.Frozen(fast) == 0 {
			t.Fatalf("after %d submissions no job is frozen", i+1)
		}
	}
	after, _ := fast.Status("late")
	if after.Min.Deadline.ReduceStartLatest == before.Min.Deadline.ReduceStartLatest-6*time.Second {
		t.Errorf("latest reduce start %v: the reduce waves did not change, the test tests little", after.Min.Deadline.ReduceStartLatest)
	}
}

// TestTickLapsedCrossesZero: a running φ = 1 job past its deadline is
// lapsed (W₁ MaxTerm, minimums 0) until formula (3) can reach zero, when
// W₁ becomes 0: every weight update, with and without queue moves, and
// Status after each, must be the previous update's, bit for bit, while
// its running tasks' credit crosses its work (20 s of work, credit
// growing 1 ns per ns) and after; its cost grows all along.
func TestTickLapsedCrossesZero(t *testing.T) {
	for _, noMoves := range []bool{true, false} {
		c := newCluster(2, 2, 1)
		cfg := dbs.Config{Cluster: c, Ablations: dbs.Ablations{NoQueueMoves: noMoves}}
		fast, err := dbs.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		prev, err := dbs.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dbs.UsePreviousTick(prev)
		j := mrJob("late", 1, 4, 0, 5*time.Second, 0)
		j.Counters, j.Hint = j.Counters[:1], 10*time.Second
		j.Counters[0].Ready, j.Counters[0].Running, j.Counters[0].RunningStartSum = 2, 2, 0
		now := t0
		lapsed, weights := 0, map[float64]bool{}
		for i := range 60 {
			for _, s := range []*dbs.Scheduler{fast, prev} {
				var err error
				if i == 0 {
					err = s.Submit(now, j)
				} else {
					_, err = s.Tick(now, nil)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			lapsed += dbs.Lapsed(fast)                  // before Status computes the figures
			j.Paid += 2 * dbs.DefaultInterval.Seconds() // its two tasks run (host duty 3)
			a, _ := fast.Status(j.Key)
			b, _ := prev.Status(j.Key)
			if d := cmp.Diff(b, a); d != "" {
				t.Fatalf("no moves %v, at %v: Status differs (-previous +new):\n%s", noMoves, now.Sub(t0), d)
			}
			weights[a.Model1.W] = true
			now = now.Add(dbs.DefaultInterval)
		}
		if lapsed < 20 || !weights[0] || !weights[dbs.MaxTerm] {
			t.Fatalf("no moves %v: %d updates skipped the job as lapsed, W₁ took %v: the test tests little", noMoves, lapsed, weights)
		}
	}
}
