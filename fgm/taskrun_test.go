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

// lazyRun is a host's run that makes its tasks when asked.
type lazyRun struct {
	job  schedkit.JobID
	n    int
	key  schedkit.SimilarityKey
	req  resource.Vector
	made int
	bad  func(i int) schedkit.Task // if set, makes task i instead
}

func (r *lazyRun) Job() schedkit.JobID                { return r.job }
func (r *lazyRun) Similarity() schedkit.SimilarityKey { return r.key }
func (r *lazyRun) Requested() resource.Vector         { return r.req }
func (r *lazyRun) Deadline() time.Time                { return time.Time{} }
func (r *lazyRun) Len() int                           { return r.n }
func (r *lazyRun) Task(i int) schedkit.Task {
	r.made++
	if r.bad != nil {
		return r.bad(i)
	}
	return &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("%s/map/%d", r.job, i)), JobKey: r.job, Similar: r.key, Request: r.req}}
}

// SubmitRun refuses bad runs with a typed error, changing nothing; a
// run whose host makes a bad task fails Schedule (ErrInvalidTask or
// ErrDuplicateTask, the placements of the call undone), and the same
// task is asked for again next time.
func TestSubmitRunErrors(t *testing.T) {
	space := testSpace(t)
	key := schedkit.SimilarityKey{Logic: "m", DataSize: 1}
	ok := resource.Vector{1, 1, 0}
	for _, tc := range []struct {
		name string
		run  fgm.TaskRun
		at   time.Duration
		want error
	}{
		{"nil", nil, 0, fgm.ErrInvalidTask},
		{"empty", &lazyRun{job: "j", n: 0, key: key, req: ok}, 0, fgm.ErrInvalidTask},
		{"negative", &lazyRun{job: "j", n: -3, key: key, req: ok}, 0, fgm.ErrInvalidTask},
		{"huge", &lazyRun{job: "j", n: math.MaxInt32 + 1, key: key, req: ok}, 0, fgm.ErrInvalidTask},
		{"no job", &lazyRun{n: 2, key: key, req: ok}, 0, fgm.ErrInvalidTask},
		{"short request", &lazyRun{job: "j", n: 2, key: key, req: resource.Vector{1}}, 0, fgm.ErrInvalidTask},
		{"NaN request", &lazyRun{job: "j", n: 2, key: key, req: resource.Vector{math.NaN(), 1, 0}}, 0, fgm.ErrInvalidTask},
		{"time backwards", &lazyRun{job: "j", n: 2, key: key, req: ok}, -time.Second, fgm.ErrStaleTime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(space, 1, resource.Vector{4, 8, 100})
			s, err := fgm.New(fgm.Config{Cluster: c})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "k", Similar: key, Request: ok}}); err != nil {
				t.Fatal(err)
			}
			err = s.SubmitRun(t0.Add(tc.at), tc.run)
			var fe *fgm.Error
			if !errors.Is(err, tc.want) || !errors.As(err, &fe) || fe.Op != "SubmitRun" {
				t.Fatalf("got %v, want %v from SubmitRun", err, tc.want)
			}
			if s.Pending() != 1 {
				t.Fatalf("pending %d after a refused run", s.Pending())
			}
		})
	}
	for _, tc := range []struct {
		name string
		make func(i int) schedkit.Task
		want error
	}{
		{"nil task", func(int) schedkit.Task { return nil }, fgm.ErrInvalidTask},
		{"empty ID", func(int) schedkit.Task {
			return &fgmtest.Task{Task: schedkittest.Task{JobKey: "j", Similar: key, Request: ok}}
		}, fgm.ErrInvalidTask},
		{"other job", func(i int) schedkit.Task {
			return &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("t", i)), JobKey: "k", Similar: key, Request: ok}}
		}, fgm.ErrInvalidTask},
		{"duplicate ID", func(int) schedkit.Task {
			return &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "j", Similar: key, Request: ok}}
		}, fgm.ErrDuplicateTask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(space, 1, resource.Vector{4, 8, 100})
			s, err := fgm.New(fgm.Config{Cluster: c, Fairness: fgm.FIFO{}})
			if err != nil {
				t.Fatal(err)
			}
			// A single task of an earlier job is placed first in the
			// call, then undone when the run's task is refused.
			if err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "x", JobKey: "a", Similar: key, Request: ok}}); err != nil {
				t.Fatal(err)
			}
			r := &lazyRun{job: "j", n: 3, key: key, req: ok, bad: tc.make}
			if err := s.SubmitRun(t0.Add(time.Second), r); err != nil {
				t.Fatal(err)
			}
			ds, err := s.Schedule(t0.Add(time.Second), c.NodeList[0], nil)
			if !errors.Is(err, tc.want) || len(ds) != 0 {
				t.Fatalf("Schedule: %v, %d decisions; want %v and none", err, len(ds), tc.want)
			}
			if s.Pending() != 4 || s.Running() != 0 {
				t.Fatalf("pending %d, running %d after a failed call; want 4, 0", s.Pending(), s.Running())
			}
			r.bad = nil
			ds, err = s.Schedule(t0.Add(time.Second), c.NodeList[0], nil)
			if err != nil || len(ds) != 4 || ds[0].Task != "x" || ds[1].Task != "j/map/0" || ds[3].Task != "j/map/2" {
				t.Fatalf("then: %v, %v", err, ds)
			}
		})
	}
}

// FuzzSubmitRun drives SubmitRun, Schedule, Release and WithdrawJob with
// arbitrary runs (lengths, requests from raw bytes, hosts that make bad
// tasks) against the same tasks submitted one by one: both schedulers
// must agree on every call's decisions and errors, and never panic.
func FuzzSubmitRun(f *testing.F) {
	f.Add([]byte{0, 3, 1, 2, 1, 1, 4, 0, 2, 5, 1, 3, 0, 9, 2, 2, 1})
	f.Add([]byte{0, 200, 7, 7, 1, 0, 0, 40, 3, 3, 1, 1, 1, 2, 4, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		space := testSpace(t)
		pos := 0
		next := func() byte {
			if pos >= len(data) {
				return 0
			}
			pos++
			return data[pos-1]
		}
		type side struct {
			s *fgm.Scheduler
			c *schedkittest.Cluster
		}
		mk := func() side {
			c := newCluster(space, 2, resource.Vector{4, 8, 100})
			h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space, MaxKeys: 2, MinObservations: 1, MinSamples: 1})
			if err != nil {
				t.Fatal(err)
			}
			s, err := fgm.New(fgm.Config{Cluster: c, History: h})
			if err != nil {
				t.Fatal(err)
			}
			return side{s, c}
		}
		a, b := mk(), mk()
		now := time.Duration(0)
		var running []schedkit.TaskID
		runs := 0
		for pos < len(data) && pos < 400 {
			switch next() % 5 {
			case 0, 1: // a run (a) or its tasks one by one (b)
				runs++
				n := int(next()%40) - 2 // some empty or negative
				job := schedkit.JobID(fmt.Sprint("j", next()%3))
				key := schedkit.SimilarityKey{Logic: "k", DataSize: int64(next() % 3)}
				req := resource.Vector{float64(next()%4) / 2, float64(next() % 5), 0}
				r := &lazyRun{job: job, n: n, key: key, req: req}
				if next()%7 == 0 {
					r.job = ""
				}
				name := fmt.Sprint("r", runs)
				r.bad = func(i int) schedkit.Task {
					return &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("%s/%d", name, i)), JobKey: r.job, Similar: key, Request: req}}
				}
				ea := a.s.SubmitRun(t0.Add(now), r)
				var eb error
				if n < 1 || r.job == "" {
					eb = errors.New("refused")
				} else {
					for i := range n {
						if eb = b.s.Submit(t0.Add(now), r.bad(i)); eb != nil {
							break
						}
					}
				}
				if (ea == nil) != (eb == nil) {
					t.Fatalf("SubmitRun %v, one by one %v", ea, eb)
				}
				if ea != nil {
					var fe *fgm.Error
					if !errors.As(ea, &fe) {
						t.Fatalf("untyped error %v", ea)
					}
				}
			case 2:
				n := int(next() % 2)
				da, ea := a.s.Schedule(t0.Add(now), a.c.NodeList[n], nil)
				db, eb := b.s.Schedule(t0.Add(now), b.c.NodeList[n], nil)
				if fmt.Sprint(da, ea) != fmt.Sprint(db, eb) {
					t.Fatalf("Schedule: run %v %v, one by one %v %v", da, ea, db, eb)
				}
				for _, d := range da {
					running = append(running, d.Task)
				}
			case 3:
				if len(running) == 0 {
					continue
				}
				i := int(next()) % len(running)
				id := running[i]
				running = append(running[:i], running[i+1:]...)
				used := resource.Vector{float64(next() % 3), 1, 0}
				now += time.Second
				for _, x := range []side{a, b} {
					_ = x.s.SampleTask(t0.Add(now), id, used)
				}
				now += time.Second
				ok := next()%2 == 0
				if ea, eb := a.s.Release(t0.Add(now), id, ok), b.s.Release(t0.Add(now), id, ok); fmt.Sprint(ea) != fmt.Sprint(eb) {
					t.Fatalf("Release: %v, %v", ea, eb)
				}
			case 4:
				job := schedkit.JobID(fmt.Sprint("j", next()%3))
				if na, nb := a.s.WithdrawJob(job), b.s.WithdrawJob(job); na != nb {
					t.Fatalf("WithdrawJob %s: %d, %d", job, na, nb)
				}
			}
			if a.s.Pending() != b.s.Pending() || a.s.Running() != b.s.Running() {
				t.Fatalf("pending %d/%d, running %d/%d", a.s.Pending(), b.s.Pending(), a.s.Running(), b.s.Running())
			}
		}
	})
}

// BenchmarkSubmitRun queues one job's n alike tasks and places four on
// a 4-slot server: as one run, and one by one (the reference). The run
// costs O(1) in n; one by one O(n) in time and memory.
func BenchmarkSubmitRun(b *testing.B) {
	space := testSpace(b)
	key := schedkit.SimilarityKey{Logic: "m", DataSize: 64}
	req := resource.Vector{1, 1, 0}
	for _, n := range []int{100, 10000, 100000} {
		tasks := make([]*fgmtest.Task, n)
		for i := range tasks {
			tasks[i] = &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("j/", i)), JobKey: "j", Similar: key, Request: req}}
		}
		for _, path := range []string{"run", "one-by-one"} {
			b.Run(fmt.Sprintf("tasks=%d/%s", n, path), func(b *testing.B) {
				c := newCluster(space, 1, resource.Vector{4, 8, 100})
				b.ReportAllocs()
				for b.Loop() {
					s, err := fgm.New(fgm.Config{Cluster: c})
					if err != nil {
						b.Fatal(err)
					}
					if path == "run" {
						err = s.SubmitRun(t0, &taskRun{tasks: tasks})
					} else {
						for _, tk := range tasks {
							if err = s.Submit(t0, tk); err != nil {
								break
							}
						}
					}
					if err != nil {
						b.Fatal(err)
					}
					ds, err := s.Schedule(t0, c.NodeList[0], nil)
					if err != nil || len(ds) != 4 {
						b.Fatalf("%v, %d placed", err, len(ds))
					}
				}
			})
		}
	}
}

// A call that left jobs out for want of a slot and placed nothing is no
// record of an idle walk: a later call on a server with that slot free
// must still walk them. n0's map slots are full; on n0, job a (a map)
// is left out and job b's reduce is refused (it asks more CPU than any
// server has); n1 must then take a's map.
func TestScheduleClosedKindsIdleRecord(t *testing.T) {
	space, err := resource.NewSpace(resource.CPU, resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		t.Fatal(err)
	}
	c := newCluster(space, 2, resource.Vector{8, 2, 2})
	s, err := fgm.New(fgm.Config{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	mapReq, bigReduce := resource.Vector{1, 1, 0}, resource.Vector{100, 0, 1}
	for i := range 2 {
		if err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprint("f", i)), JobKey: "f", Request: mapReq}}); err != nil {
			t.Fatal(err)
		}
	}
	if ds, err := s.Schedule(t0, c.NodeList[0], nil); err != nil || len(ds) != 2 {
		t.Fatalf("filling n0: %v %v", ds, err)
	}
	if err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a0", JobKey: "a", Request: mapReq}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "b0", JobKey: "b", Request: bigReduce}}); err != nil {
		t.Fatal(err)
	}
	if ds, err := s.Schedule(t0, c.NodeList[0], nil); err != nil || len(ds) != 0 {
		t.Fatalf("n0: %v %v, want nothing", ds, err)
	}
	ds, err := s.Schedule(t0, c.NodeList[1], nil)
	if err != nil || len(ds) != 1 || ds[0].Task != "a0" {
		t.Fatalf("n1: %v %v, want a0", ds, err)
	}
}

// BenchmarkScheduleFullSlotServer: a server whose map and reduce slots
// are all taken, with jobs queued as runs of maps; each op submits one
// more job (a change: no repeat of an idle call applies) and schedules
// the server. Every pending task wants a slot the server lacks, so the
// call is answered from the counts of entries by slot kind: its cost
// does not grow with the queued jobs.
func BenchmarkScheduleFullSlotServer(b *testing.B) {
	space, err := resource.NewSpace(resource.CPU, resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		b.Fatal(err)
	}
	mapReq := resource.Vector{1, 1, 0}
	for _, jobs := range []int{100, 10000, 100000} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			c := newCluster(space, 1, resource.Vector{8, 2, 2})
			s, err := fgm.New(fgm.Config{Cluster: c})
			if err != nil {
				b.Fatal(err)
			}
			fill := &lazyRun{job: "fill", n: 4, key: schedkit.SimilarityKey{Logic: "f", DataSize: 1}, req: resource.Vector{1, 1, 0}}
			_ = s.SubmitRun(t0, fill)
			red := &lazyRun{job: "fillr", n: 2, key: schedkit.SimilarityKey{Logic: "r", DataSize: 1}, req: resource.Vector{1, 0, 1}}
			_ = s.SubmitRun(t0, red)
			if ds, err := s.Schedule(t0, c.NodeList[0], nil); err != nil || len(ds) != 4 {
				b.Fatalf("filling: %v %v", ds, err)
			}
			for i := range jobs {
				r := &lazyRun{job: schedkit.JobID(fmt.Sprint("j", i)), n: 1000, key: schedkit.SimilarityKey{Logic: "m", DataSize: int64(i)}, req: mapReq}
				if err := s.SubmitRun(t0, r); err != nil {
					b.Fatal(err)
				}
			}
			var dst []fgm.Decision
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				r := &lazyRun{job: schedkit.JobID(fmt.Sprint("x", i)), n: 10, key: schedkit.SimilarityKey{Logic: "m", DataSize: 7}, req: mapReq}
				if err := s.SubmitRun(t0, r); err != nil {
					b.Fatal(err)
				}
				dst, err = s.Schedule(t0, c.NodeList[0], dst[:0])
				if err != nil || len(dst) > 0 {
					b.Fatalf("%v, %d placed", err, len(dst))
				}
			}
		})
	}
}
