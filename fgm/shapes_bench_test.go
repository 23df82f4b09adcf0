package fgm_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// BenchmarkScheduleShapes is Schedule at production scale, for the task
// shapes that made its walk as long as the queue: 10,000 servers of 16
// cores, each full up to what no pending task fits (a fragment, or only
// the compression allowance 0.1 × 16 = 1.6 cores, above the idle
// threshold 0.8 so the server is not used up), and 100,000 pending tasks
// in 1,000 jobs. Each op ends the oldest task of one server (Release),
// submits it again and schedules that server, which places one task and
// is left with the same room: every call follows a placement, so no
// memory of an idle call applies. Predictions come from a History that
// knows every key. The shapes:
//
//   - alternating-keys: 2-core tasks whose similarity keys alternate
//     within each job (two keys per job: runs are one task long); the
//     room after the placement is the allowance, 1.6 < 2;
//   - data-locations: 2-core tasks each with its input on 3 servers
//     (delay scheduling; every task waited out its LocalityWait, but
//     the one submitted again starts waiting);
//   - fragments: 3-core tasks, alternating keys: 5 of them leave 1 core
//     (2.6 with the allowance < 3);
//   - allowance: 2-core tasks, one key per job (runs as long as the
//     job's queue).
//
// "fgm" is Schedule; "literal" walks Algorithm 1 as printed
// (fgm.ScheduleLiteral) on the same scheduler: the ratio in one run.
// Besides wall time per op it reports the process's CPU time per op
// (cpu-ns/op), which waiting for a core on a shared machine leaves out.
func BenchmarkScheduleShapes(b *testing.B) {
	const servers, jobs, pending = 10000, 1000, 100000
	for _, shape := range []string{"alternating-keys", "data-locations", "fragments", "allowance"} {
		for _, path := range []string{"fgm", "literal"} {
			b.Run(fmt.Sprintf("shape=%s/%s", shape, path), func(b *testing.B) {
				x := newShapeBench(b, shape, servers, jobs, pending)
				b.ReportAllocs()
				i := 0
				c0 := cpuTime()
				for b.Loop() {
					x.op(b, i%servers, path == "literal")
					i++
				}
				// On a shared machine wall time per op includes waiting
				// for a core; CPU time does not (it does include the
				// garbage collector's, which runs beside).
				if c := cpuTime() - c0; c > 0 && b.N > 0 {
					b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// shapeBench is BenchmarkScheduleShapes' scheduler and host.
type shapeBench struct {
	s       *fgm.Scheduler
	c       *schedkittest.Cluster
	now     time.Time
	running [][]*fgmtest.Task // per server, oldest first
	byID    map[schedkit.TaskID]*fgmtest.Task
	dst     []fgm.Decision
}

func newShapeBench(b *testing.B, shape string, servers, jobs, pending int) *shapeBench {
	space := testSpace(b)
	capacity := resource.Vector{16, 64, 200}
	c := newCluster(space, servers, capacity)
	h, err := estimate.NewHistory(estimate.HistoryConfig{Space: space, MinObservations: 1, MinSamples: 1, MaxKeys: 2 * jobs})
	if err != nil {
		b.Fatal(err)
	}
	s, err := fgm.New(fgm.Config{Cluster: c, History: h})
	if err != nil {
		b.Fatal(err)
	}
	cores, perServer := 2.0, 8
	if shape == "fragments" {
		cores, perServer = 3, 5
	}
	req := resource.Vector{cores, 4, 0}
	x := &shapeBench{s: s, c: c, now: fgmtest.T0, running: make([][]*fgmtest.Task, servers), byID: map[schedkit.TaskID]*fgmtest.Task{}}
	rng := rand.New(rand.NewPCG(1, 2))
	perJob := (pending + servers*perServer) / jobs
	for j := range jobs {
		keys := []schedkit.SimilarityKey{{Logic: fmt.Sprint("a", j), DataSize: 1}, {Logic: fmt.Sprint("b", j), DataSize: 1}}
		for _, k := range keys {
			if _, err := h.Observe(k, []estimate.UsageSample{{Duration: time.Minute, Used: req}}); err != nil {
				b.Fatal(err)
			}
		}
		for i := range perJob {
			tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("j%d/%d", j, i)), JobKey: schedkit.JobID(fmt.Sprint("j", j)),
				Similar: keys[0], Request: req}}
			if shape != "allowance" && shape != "data-locations" {
				tk.Similar = keys[i%2]
			}
			if shape == "data-locations" {
				for range 3 {
					tk.Locations = append(tk.Locations, c.NodeList[rng.IntN(servers)].Key)
				}
			}
			x.byID[tk.Key] = tk
			if err := s.Submit(x.now, tk); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Fill every server, twice: the first walks start the waits of the
	// located tasks, which are over a minute later.
	for pass := range 2 {
		for k, n := range c.NodeList {
			ds, err := s.Schedule(x.now, n, nil)
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range ds {
				x.running[k] = append(x.running[k], x.byID[d.Task])
			}
			if pass == 1 && len(x.running[k]) != perServer {
				b.Fatalf("server %d runs %d tasks, want %d", k, len(x.running[k]), perServer)
			}
		}
		x.now = x.now.Add(time.Minute)
	}
	if got := s.Pending(); got < pending {
		b.Fatalf("%d pending, want %d", got, pending)
	}
	return x
}

// op ends server k's oldest task, submits it again and schedules k,
// which must place one task.
func (x *shapeBench) op(b *testing.B, k int, literal bool) {
	x.now = x.now.Add(time.Millisecond)
	q := x.running[k]
	tk := q[0]
	if err := x.s.Release(x.now, tk.Key, true); err != nil {
		b.Fatal(err)
	}
	if err := x.s.Submit(x.now, tk); err != nil {
		b.Fatal(err)
	}
	var err error
	if literal {
		x.dst, err = fgm.ScheduleLiteral(x.s, x.now, x.c.NodeList[k], x.dst[:0])
	} else {
		x.dst, err = x.s.Schedule(x.now, x.c.NodeList[k], x.dst[:0])
	}
	if err != nil || len(x.dst) != 1 {
		b.Fatalf("%v, %d placed", err, len(x.dst))
	}
	x.running[k] = append(q[1:], x.byID[x.dst[0].Task])
}
