package fgm_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// BenchmarkSchedulePlaceSlots is the trace day's placing call in a slot
// space: servers with 2 map and 2 reduce slots, the reduce slots held by
// tasks that never end, the map slots by the queued jobs' tasks. Each
// op ends the oldest task of one server (Release), submits it again
// and schedules that server, which places one task: the job with the
// least share, found by the walk over the jobs with a task that asks
// for an open kind (the ordered sets of jobsets.go), whose share then
// changes, as does the released task's job. "jobs" sets how many jobs
// are queued (the size of the ordered set), each with three tasks
// pending; predictions come from a History that knows the key.
func BenchmarkSchedulePlaceSlots(b *testing.B) {
	const servers = 500
	for _, jobs := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			s, c, running := placeSlotsSetup(b, servers, jobs)
			now := t0.Add(time.Minute)
			var dst []fgm.Decision
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				k := i % servers
				i++
				now = now.Add(time.Millisecond)
				q := running[k]
				tk := q[0]
				q = q[1:]
				if err := s.Release(now, tk.Key, false); err != nil {
					b.Fatal(err)
				}
				if err := s.Submit(now, tk); err != nil {
					b.Fatal(err)
				}
				var err error
				dst, err = s.Schedule(now, c.NodeList[k], dst[:0])
				if err != nil || len(dst) != 1 {
					b.Fatalf("%v, %d placed", err, len(dst))
				}
				running[k] = append(q, c.byID[dst[0].Task])
			}
		})
	}
}

type placeCluster struct {
	*schedkittest.Cluster
	byID map[schedkit.TaskID]*fgmtest.Task
}

// placeSlotsSetup returns a scheduler whose servers' slots are all
// taken (running: each server's map tasks, oldest first) and that holds
// three pending map tasks per job.
func placeSlotsSetup(b *testing.B, servers, jobs int) (*fgm.Scheduler, placeCluster, [][]*fgmtest.Task) {
	space, err := resource.NewSpace(resource.CPU, resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		b.Fatal(err)
	}
	c := placeCluster{newCluster(space, servers, resource.Vector{8, 2, 2}), map[schedkit.TaskID]*fgmtest.Task{}}
	h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space, MinObservations: 1, MinSamples: 1})
	if err != nil {
		b.Fatal(err)
	}
	mapKey := schedkit.SimilarityKey{Logic: "map", DataSize: 64}
	if _, err := h.Observe(mapKey, []estimate.UsageSample{{Duration: time.Hour, Used: resource.Vector{1, 1, 0}}}); err != nil {
		b.Fatal(err)
	}
	s, err := fgm.New(fgm.Config{Cluster: c, History: h})
	if err != nil {
		b.Fatal(err)
	}
	submit := func(now time.Time, tk *fgmtest.Task) {
		c.byID[tk.Key] = tk
		if err := s.Submit(now, tk); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 2 * servers {
		submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("reduce", i)), JobKey: "reduces", Similar: schedkit.SimilarityKey{Logic: "reduce"}, Request: resource.Vector{1, 0, 1}}})
	}
	for j := range jobs {
		for i := range 3 + 2*servers/jobs {
			submit(t0.Add(time.Duration(j)*time.Millisecond), &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("j%d/%d", j, i)), JobKey: schedkit.JobID(fmt.Sprint("j", j)), Similar: mapKey, Request: resource.Vector{1, 1, 0}}})
		}
	}
	now := t0.Add(time.Duration(jobs) * time.Millisecond)
	running := make([][]*fgmtest.Task, servers)
	for k, n := range c.NodeList {
		ds, err := s.Schedule(now, n, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range ds {
			if tk := c.byID[d.Task]; tk.JobKey != "reduces" {
				running[k] = append(running[k], tk)
			}
		}
		if len(running[k]) != 2 {
			b.Fatalf("server %d runs %d map tasks", k, len(running[k]))
		}
	}
	return s, c, running
}
