package lss_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// A complete host loop: two nodes of 2 map + 1 reduce slots, three jobs
// of 4 maps and 1 reduce (30 s per task) with different deadlines, and a
// scheduling tick every 10 s that ends due tasks and heartbeats every
// node. The host keeps its counters with PhaseProgress's transitions
// (here through schedkittest.Job), reserves slots as it starts tasks,
// calls Update after every change, Remove when a job completes, and
// never after a Kill.
func Example_hostLoop() {
	space, _ := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	cluster := schedkittest.NewCluster(space)
	cluster.AddNode("n1", "r1", resource.Vector{2, 1})
	cluster.AddNode("n2", "r1", resource.Vector{2, 1})
	sched, _ := lss.New(lss.Config{Cluster: cluster})

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jobs := map[schedkit.JobID]*schedkittest.Job{}
	for i, d := range []time.Duration{5 * time.Minute, 90 * time.Second, 50 * time.Second} {
		j := schedkittest.NewJob(schedkit.JobID(fmt.Sprint("job", i)), t0, t0.Add(d), 4, 1)
		jobs[j.ID()] = j
		_ = sched.Submit(t0, j) // a job arrives
	}
	type task struct {
		job   *schedkittest.Job
		phase schedkit.Phase
		node  *schedkittest.Node
		start time.Time
	}
	var running []task
	var ds []lss.Decision
	for now := t0; len(jobs) > 0; now = now.Add(10 * time.Second) {
		running = slices.DeleteFunc(running, func(t task) bool { // tasks end after 30 s
			if now.Sub(t.start) < 30*time.Second {
				return false
			}
			_ = t.job.Finish(t.phase, t.start, now)
			t.node.Release(int(t.phase), 1)
			if t.job.Done() {
				fmt.Println(now.Sub(t0), t.job.ID(), "done")
				delete(jobs, t.job.ID())
				_ = sched.Remove(t.job.ID())
			} else {
				_ = sched.Update(t.job.ID())
			}
			return true
		})
		for _, n := range cluster.NodeList {
			ds, _ = sched.Heartbeat(now, n, ds[:0])
			for _, d := range ds {
				j := jobs[d.Job]
				switch d.Action {
				case lss.Kill: // already dropped by the scheduler: no Remove
					fmt.Println(now.Sub(t0), d)
					delete(jobs, d.Job)
					running = slices.DeleteFunc(running, func(t task) bool {
						if t.job == j {
							t.node.Release(int(t.phase), 1)
						}
						return t.job == j
					})
				case lss.Assign:
					for range d.Count {
						_ = j.Start(d.Phase, now)
						_ = n.Take(int(d.Phase), 1)
						running = append(running, task{j, d.Phase, n, now})
					}
					_ = sched.Update(d.Job)
				}
			}
		}
	}
	// Output:
	// 30s kill job2: spare+tavg<0 (spare -40s, tavg 30s)
	// 1m30s job1 done
	// 2m0s job0 done
}
