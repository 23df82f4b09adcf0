package lsstest_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/lss/lsstest"
	"github.com/schedkit/schedkit/schedkittest"
)

// myHost is a host's own integration under test: its scheduling loop
// over its own state (schedkittest's values stand in for it here), with
// a Checker beside its scheduler. It implements lsstest.Integration, so
// the seeded events drive it.
type myHost struct {
	sched   *lss.Scheduler
	check   *lsstest.Checker
	cluster *schedkittest.Cluster
	jobs    map[schedkit.JobID]*schedkittest.Job
	running []myTask
	now     time.Time
	next    int
	err     error // the first broken invariant or unexpected error
	started int
}

type myTask struct {
	job   *schedkittest.Job
	phase schedkit.Phase
	node  *schedkittest.Node
	start time.Time
}

func (h *myHost) fail(err error) {
	if h.err == nil && err != nil {
		h.err = err
	}
}

// kind is the Space index of phase p's slots (map-slot, reduce-slot).
func kind(p schedkit.Phase) int { return 1 + int(p) }

func (h *myHost) OnArrival(arg uint64) {
	h.next++
	j := schedkittest.NewJob(schedkit.JobID(fmt.Sprint("j", h.next)), h.now,
		h.now.Add(time.Duration(30+arg%600)*time.Second), 1+int(arg%8), int(arg>>8%3))
	if err := h.sched.Submit(h.now, j); err != nil {
		h.fail(err)
		return
	}
	h.jobs[j.Key] = j
	h.check.Submitted(j.Key)
}

func (h *myHost) OnHeartbeat(arg uint64) {
	h.now = h.now.Add(time.Duration(arg%5000) * time.Millisecond)
	n := h.cluster.Pick(int(arg >> 16))
	ds, err := h.sched.Heartbeat(h.now, n, nil)
	h.fail(err)
	h.fail(h.check.Heartbeat(n, func(id schedkit.JobID) schedkit.Job { return h.jobs[id] }, ds))
	for _, d := range ds {
		j := h.jobs[d.Job]
		switch d.Action {
		case lss.Kill: // stop its tasks; lss has dropped it already
			h.running = slices.DeleteFunc(h.running, func(t myTask) bool {
				if t.job == j {
					t.node.Release(kind(t.phase), 1)
				}
				return t.job == j
			})
			delete(h.jobs, d.Job)
		case lss.Assign:
			h.fail(n.Take(kind(d.Phase), float64(d.Count)))
			for range d.Count {
				h.fail(j.Start(d.Phase, h.now))
				h.running = append(h.running, myTask{j, d.Phase, n, h.now})
				h.started++
			}
			h.fail(h.sched.Update(j.Key))
			h.check.Updated(j.Key)
		}
	}
}

func (h *myHost) OnTaskEnd(arg uint64) {
	if len(h.running) == 0 {
		return
	}
	i := int(arg % uint64(len(h.running)))
	t := h.running[i]
	h.running = slices.Delete(h.running, i, i+1)
	h.now = h.now.Add(time.Second)
	t.node.Release(kind(t.phase), 1)
	h.fail(t.job.Finish(t.phase, t.start, h.now))
	if t.job.Done() {
		delete(h.jobs, t.job.Key)
		h.fail(h.sched.Remove(t.job.Key))
		h.check.Removed(t.job.Key)
		return
	}
	h.fail(h.sched.Update(t.job.Key))
	h.check.Updated(t.job.Key)
}

// This host never withdraws a job, changes its nodes or feeds bad
// input: those events pass.
func (h *myHost) OnWithdrawal(uint64) {}
func (h *myHost) OnMembership(uint64) {}
func (h *myHost) OnBadInput(uint64)   {}

func (h *myHost) OnQuiet(arg uint64) { h.now = h.now.Add(time.Duration(arg%60) * time.Second) }

// The seeded events drive a host's own integration, here myHost under
// the recommended configuration, with the Checker beside its scheduler.
func ExampleDrive() {
	cluster := lsstest.NewCluster(3, 2, 1)
	cfg := lss.Recommended()
	cfg.Cluster = cluster
	sched, _ := lss.New(cfg)
	check, _ := lsstest.NewChecker(cfg)
	h := &myHost{sched: sched, check: check, cluster: cluster, jobs: map[schedkit.JobID]*schedkittest.Job{}, now: lsstest.T0}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		lsstest.Drive(h, lsstest.RandomEvent(rng))
	}
	fmt.Println("broken invariants:", h.err)
	fmt.Println("tasks started:", h.started > 100)
	// Output:
	// broken invariants: <nil>
	// tasks started: true
}
