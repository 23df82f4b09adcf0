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

// BenchmarkScheduleFullServer is the trace day's common call: a server
// with no room left is offered every pending task of many jobs (each a
// queue of alike tasks, as a Hadoop job's maps are) and places nothing.
// "repeat" is the default path on an unchanged scheduler (the call
// repeats the last idle walk: only its refusals are tested); "walk" the
// default path after a job changed (one task withdrawn and submitted
// again before each call: runs skipped after their first refusal,
// refusals cached per call, job order kept between calls);
// "reference" walks Algorithm 1 as printed (fgm.ScheduleLiteral: every
// pending task, every job sorted on every call), after the same change. Predictions come from a History that knows the jobs' keys.
func BenchmarkScheduleFullServer(b *testing.B) {
	for _, size := range []struct{ jobs, tasks int }{{100, 100}, {100, 10000}, {1000, 1000}} {
		for _, path := range []string{"repeat", "walk", "reference"} {
			b.Run(fmt.Sprintf("jobs=%d/tasks=%d/%s", size.jobs, size.tasks, path), func(b *testing.B) {
				s, n := fullServerSetup(b, size.jobs, size.tasks)
				tk := &fgmtest.Task{Task: schedkittest.Task{Key: "j0/extra", JobKey: "j0", Similar: schedkit.SimilarityKey{Logic: "map", DataSize: 64}, Request: resource.Vector{1, 2, 0}}}
				var dst []fgm.Decision
				now := t0.Add(time.Minute)
				b.ReportAllocs()
				for b.Loop() {
					if path != "repeat" {
						if err := s.Submit(now, tk); err != nil {
							b.Fatal(err)
						}
					}
					var err error
					if path == "reference" {
						dst, err = fgm.ScheduleLiteral(s, now, n, dst[:0])
					} else {
						dst, err = s.Schedule(now, n, dst[:0])
					}
					if err != nil || len(dst) > 0 {
						b.Fatalf("%v, %d placed", err, len(dst))
					}
					if path != "repeat" {
						if err := s.Withdraw(tk.Key); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// fullServerSetup returns a scheduler whose one server (4 slots) is full
// and that holds jobs × tasks pending tasks (two keys per job: its maps
// share one key, its last task has a key of its own).
func fullServerSetup(b *testing.B, jobs, tasks int) (*fgm.Scheduler, *schedkittest.Node) {
	space := testSpace(b)
	c := newCluster(space, 1, resource.Vector{4, 64, 200})
	h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space, MinObservations: 1, MinSamples: 1})
	if err != nil {
		b.Fatal(err)
	}
	s, err := fgm.New(fgm.Config{Cluster: c, History: h})
	if err != nil {
		b.Fatal(err)
	}
	mapKey := schedkit.SimilarityKey{Logic: "map", DataSize: 64}
	if _, err := h.Observe(mapKey, []estimate.UsageSample{{Duration: 10 * time.Second, Used: resource.Vector{1, 2, 0}}}); err != nil {
		b.Fatal(err)
	}
	for i := range 4 {
		tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("busy", i)), JobKey: "busy", Similar: mapKey, Request: resource.Vector{1, 2, 0}}}
		if err := s.Submit(t0, tk); err != nil {
			b.Fatal(err)
		}
	}
	if ds, err := s.Schedule(t0, c.NodeList[0], nil); err != nil || len(ds) != 4 {
		b.Fatalf("%v, %d placed", err, len(ds))
	}
	for j := range jobs {
		for i := range tasks {
			key := mapKey
			if i == tasks-1 {
				key = schedkit.SimilarityKey{Logic: "map", DataSize: int64(j)}
			}
			tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("j%d/%d", j, i)), JobKey: schedkit.JobID(fmt.Sprint("j", j)), Similar: key, Request: resource.Vector{1, 2, 0}}}
			if err := s.Submit(t0, tk); err != nil {
				b.Fatal(err)
			}
		}
	}
	return s, c.NodeList[0]
}
