package lss_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/lss/lsstest"
)

// benchHost is an allocation-free host for the benchmarks: a cluster of
// 100 nodes × (2 map + 1 reduce) slots and a queue held at a fixed number
// of jobs (a job that completes or is killed is replaced by a new one).
// Each step advances the clock by 30 ms (100 nodes heartbeating every
// 3 s), completes the tasks due, heartbeats the next node round-robin,
// and applies the decisions (starting tasks, Update, Remove, Submit).
type benchHost struct {
	rng     *rand.Rand
	cl      *hostCluster
	s       *lss.Scheduler
	now     time.Time
	running []lsstest.Task
	free    []*hostJob // job objects not in the queue
	byID    map[schedkit.JobID]*hostJob
	dec     []lss.Decision
	steps   int
	kills   int
	assigns int
}

// newBenchHostConfig builds the host, with the options of base, with
// jobs queued and warms it up for warmSteps steps with the indexed
// scheduler. For the literal benchmark it then hands the very same queue
// to a literal scheduler with the same options, so both benchmarks start
// from the same state (and, deciding alike, stay in step).
func newBenchHostConfig(b testing.TB, base lss.Config, jobs, warmSteps int, literal bool) *benchHost {
	cl := newCluster(100, 2, 1, 0)
	cfg := base
	cfg.Cluster = cl
	s, err := lss.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	h := &benchHost{
		rng: rand.New(rand.NewPCG(42, uint64(jobs))), cl: cl, s: s, now: t0,
		running: make([]lsstest.Task, 0, 400), byID: make(map[schedkit.JobID]*hostJob, 2*jobs),
		dec: make([]lss.Decision, 0, 256),
	}
	// Twice as many job objects as queued, with fixed IDs, recycled.
	for i := range 2 * jobs {
		h.free = append(h.free, &hostJob{
			Key:      schedkit.JobID(fmt.Sprintf("b%06d", i)),
			Counters: make([]schedkit.PhaseProgress, 2), Nominal: make([]time.Duration, 2),
		})
	}
	for range jobs {
		h.arrive(true)
	}
	// Warm up: tasks start and end, jobs come and go.
	for range warmSteps {
		h.step()
	}
	if literal {
		// Right after a heartbeat every job's deadline is still ahead
		// (the others were killed), so every job can be resubmitted.
		cfg.Literal = true
		h.s, err = lss.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]schedkit.JobID, 0, len(h.byID))
		for id := range h.byID {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			if err := h.s.Submit(h.now, h.byID[id]); err != nil {
				b.Fatal(err)
			}
		}
	}
	return h
}

// arrive queues a new job. Initial jobs are given history: submitted up
// to an hour ago, some maps already finished.
func (h *benchHost) arrive(initial bool) {
	j := h.free[len(h.free)-1]
	h.free = h.free[:len(h.free)-1]
	maps := 1 + h.rng.IntN(40)
	red := h.rng.IntN(3)
	j.Nominal[0] = time.Duration(10+h.rng.IntN(50)) * sec
	j.Nominal[1] = time.Duration(10+h.rng.IntN(80)) * sec
	j.SubmittedAt = h.now
	j.Counters[0] = schedkit.PhaseProgress{Total: maps, Ready: maps}
	j.Counters[1] = schedkit.PhaseProgress{Total: red}
	if initial {
		j.SubmittedAt = h.now.Add(-time.Duration(h.rng.Int64N(int64(time.Hour))))
		if f := h.rng.IntN(maps); h.rng.IntN(2) == 0 && f > 0 {
			j.Counters[0].Finished, j.Counters[0].Ready = f, maps-f
			j.Counters[0].FinishedDurationSum = time.Duration(f) * j.Nominal[0]
		}
	}
	// Deadlines from 2 minutes to 12 hours after now; one job in five
	// has a tight one, from 30 s to 5 minutes, and many of those are
	// killed early.
	j.DeadlineAt = h.now.Add(2*time.Minute + time.Duration(h.rng.Int64N(int64(12*time.Hour))))
	if h.rng.IntN(5) == 0 {
		j.DeadlineAt = h.now.Add(30*time.Second + time.Duration(h.rng.Int64N(int64(270*time.Second))))
	}
	if err := h.s.Submit(h.now, j); err != nil {
		panic(err)
	}
	h.byID[j.Key] = j
}

// leave returns a finished or killed job's object to the pool and queues
// a replacement.
func (h *benchHost) leave(j *hostJob) {
	delete(h.byID, j.Key)
	h.free = append(h.free, j)
	h.arrive(false)
}

func (h *benchHost) step() {
	h.steps++
	h.now = h.now.Add(30 * time.Millisecond)
	for i := 0; i < len(h.running); {
		if t := h.running[i]; !t.End.After(h.now) {
			h.running[i] = h.running[len(h.running)-1]
			h.running = h.running[:len(h.running)-1]
			h.complete(t)
			continue
		}
		i++
	}
	n := h.cl.NodeList[h.steps%len(h.cl.NodeList)]
	var err error
	h.dec, err = h.s.Heartbeat(h.now, n, h.dec[:0])
	if err != nil {
		panic(err)
	}
	for i := range h.dec {
		d := &h.dec[i]
		j := h.byID[d.Job]
		switch d.Action {
		case lss.Kill:
			h.kills++
			for k := 0; k < len(h.running); {
				if t := h.running[k]; t.Job == j {
					t.Node.Free[1+t.Phase]++
					h.running[k] = h.running[len(h.running)-1]
					h.running = h.running[:len(h.running)-1]
					continue
				}
				k++
			}
			h.leave(j)
		case lss.Assign:
			h.assigns += d.Count
			p := int(d.Phase)
			pr := &j.Counters[p]
			n.Free[1+p] -= float64(d.Count)
			pr.Ready -= d.Count
			pr.Running += d.Count
			pr.RunningStartSum += time.Duration(d.Count) * h.now.Sub(j.SubmittedAt)
			for range d.Count {
				dur := j.Nominal[p] * time.Duration(80+h.rng.IntN(41)) / 100
				h.running = append(h.running, lsstest.Task{Job: j, Phase: p, Node: n, Start: h.now, End: h.now.Add(dur)})
			}
			if err := h.s.Update(j.Key); err != nil {
				panic(err)
			}
		}
	}
}

func (h *benchHost) complete(t lsstest.Task) {
	t.Node.Free[1+t.Phase]++
	j := t.Job
	pr := &j.Counters[t.Phase]
	pr.Running--
	pr.Finished++
	pr.FinishedDurationSum += h.now.Sub(t.Start)
	pr.RunningStartSum -= t.Start.Sub(j.SubmittedAt)
	if t.Phase == 0 && pr.Finished == pr.Total {
		j.Counters[1].Ready = j.Counters[1].Total
	}
	if j.Counters[0].Finished == j.Counters[0].Total && j.Counters[1].Finished == j.Counters[1].Total {
		if err := h.s.Remove(j.Key); err != nil {
			panic(err)
		}
		h.leave(j)
		return
	}
	if err := h.s.Update(j.Key); err != nil {
		panic(err)
	}
}

var benchSizes = []int{100, 1000, 10000, 100000}

func benchHeartbeat(b *testing.B, base lss.Config, literal bool) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			h := newBenchHostConfig(b, base, n, 20000, literal)
			b.ReportAllocs()
			for b.Loop() {
				h.step()
			}
			if h.s.Len() != n {
				b.Fatalf("queue drifted to %d jobs", h.s.Len())
			}
		})
	}
}

// BenchmarkHeartbeat measures one heartbeat of the indexed implementation
// with the host's work around it (task completions, Update, Remove,
// Submit of replacements), at a steady queue length.
func BenchmarkHeartbeat(b *testing.B) { benchHeartbeat(b, lss.Config{}, false) }

// BenchmarkHeartbeatRecommended is BenchmarkHeartbeat under
// lss.Recommended() (and BenchmarkHeartbeatWaves under WaveRemaining
// too): the cost of the options over the paper's rule.
func BenchmarkHeartbeatRecommended(b *testing.B) { benchHeartbeat(b, lss.Recommended(), false) }

// BenchmarkHeartbeatWaves is BenchmarkHeartbeat with WaveRemaining and
// OptimisticKill.
func BenchmarkHeartbeatWaves(b *testing.B) {
	benchHeartbeat(b, lss.Config{WaveRemaining: true, OptimisticKill: true}, false)
}

// BenchmarkHeartbeatLiteral is the same host driving the paper's literal
// recompute-and-sort implementation: the reference for the ratio.
func BenchmarkHeartbeatLiteral(b *testing.B) { benchHeartbeat(b, lss.Config{}, true) }

// TestBenchHostsAgree checks that the benchmark's host makes the same
// decisions under both implementations, so the two benchmarks time the
// same work, and that the workload exercises assignments and kills.
func TestBenchHostsAgree(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	for _, base := range []lss.Config{{}, lss.Recommended(), {WaveRemaining: true, OptimisticKill: true}} {
		fast, lit := newBenchHostConfig(t, base, n, 2000, false), newBenchHostConfig(t, base, n, 2000, true)
		for range 3000 {
			fast.step()
			lit.step()
			if d := diffDecisions(fast.dec, lit.dec); d != "" {
				t.Fatalf("%+v: step %d:\n%s", base, fast.steps, d)
			}
		}
		if fast.kills == 0 || fast.assigns == 0 {
			t.Fatalf("%+v: %d kills, %d tasks assigned: the workload exercises too little", base, fast.kills, fast.assigns)
		}
		t.Logf("%+v: %d steps: %d tasks assigned, %d kills", base, fast.steps, fast.assigns, fast.kills)
	}
}
