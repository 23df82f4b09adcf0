package dbs_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/estimate"
)

// benchJobs submits n jobs to a scheduler on a 100-node cluster of 2 map
// + 1 reduce slots, a third of the jobs with a few running tasks and
// finished history, every job with ready maps. The running tasks
// outnumber the cluster's 300 slots from 450 jobs on: a stress shape, as
// if every running task held a slot of its own.
func benchJobs(b *testing.B, n int, cfg dbs.Config) (*dbs.Scheduler, *hCluster, []*hJob, time.Time) {
	return benchJobsRunning(b, n, n, cfg)
}

// benchJobsRunning is benchJobs with at most running of the third with
// finished history also running tasks (two each); the others of that
// third have finished history only.
func benchJobsRunning(b *testing.B, n, running int, cfg dbs.Config) (*dbs.Scheduler, *hCluster, []*hJob, time.Time) {
	b.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 5))
	c := newCluster(100, 2, 1)
	cfg.Cluster = c
	s, err := dbs.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	now := t0.Add(time.Hour)
	jobs := make([]*hJob, n)
	for i := range jobs {
		phi := []float64{0, 0.5, 1}[rng.IntN(3)]
		j := mrJob(fmt.Sprintf("job%06d", i), phi, 20+rng.IntN(100), 1+rng.IntN(10), time.Duration(2+rng.IntN(20))*time.Hour, 50+rng.Float64()*500)
		j.SubmittedAt = t0.Add(time.Duration(rng.IntN(3000)) * time.Second)
		j.DeadlineAt = j.SubmittedAt.Add(time.Duration(2+rng.IntN(20)) * time.Hour)
		if i%3 == 0 {
			m := &j.Counters[0]
			m.Finished, m.FinishedDurationSum = 5, 5*time.Duration(10+rng.IntN(50))*time.Second
			if running > 0 {
				m.Running, m.RunningStartSum = 2, 2*now.Sub(j.SubmittedAt)-20*time.Second
				running--
			}
			m.Ready = m.Total - m.Finished - m.Running
			j.Paid = rng.Float64() * 10
		}
		j.ReduceInput = int64(rng.IntN(1 << 30))
		jobs[i] = j
		if err := s.Submit(now, j); err != nil {
			b.Fatal(err)
		}
	}
	return s, c, jobs, now
}

// dayJobs is the trace day's queue in miniature (internal/experiment's
// BenchmarkTraceDay): n jobs with φ = 1 and a task time, one in twenty
// with running tasks, the rest waiting past their deadlines (frozen
// after the first weight update: the update only adds their W₁ to the
// queue's sum).
func dayJobs(b *testing.B, n int, cfg dbs.Config) (*dbs.Scheduler, time.Time) {
	b.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 6))
	c := newCluster(100, 2, 1)
	cfg.Cluster = c
	s, err := dbs.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	now := t0.Add(time.Hour)
	for i := range n {
		j := mrJob(fmt.Sprintf("job%06d", i), 1, 20+rng.IntN(100), 1+rng.IntN(10), time.Duration(2+rng.IntN(20))*time.Minute, 0)
		j.SubmittedAt = t0.Add(time.Duration(rng.IntN(3000)) * time.Second)
		j.DeadlineAt = j.SubmittedAt.Add(time.Duration(2+rng.IntN(20)) * time.Minute)
		m := &j.Counters[0]
		m.Finished, m.FinishedDurationSum = 5, 5*time.Duration(10+rng.IntN(50))*time.Second
		if i%20 == 0 {
			m.Running, m.RunningStartSum = 2, 2*now.Sub(j.SubmittedAt)-20*time.Second
			j.DeadlineAt = now.Add(time.Duration(1+rng.IntN(20)) * time.Hour)
		}
		m.Ready = m.Total - m.Finished - m.Running
		j.ReduceInput = int64(rng.IntN(1 << 30))
		if err := s.Submit(now, j); err != nil {
			b.Fatal(err)
		}
	}
	return s, now
}

// BenchmarkTickDay measures a weight update on dayJobs's queue, against
// the previous update (every job evaluated) in the same run.
func BenchmarkTickDay(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		for _, previous := range []bool{false, true} {
			name := fmt.Sprintf("jobs=%d", n)
			if previous {
				name += "/previous"
			}
			b.Run(name, func(b *testing.B) {
				s, now := dayJobs(b, n, dbs.Config{Ablations: dbs.Ablations{NoQueueMoves: true}})
				if previous {
					dbs.UsePreviousTick(s)
				}
				benchTicks(b, s, now)
			})
		}
	}
}

// reportCPU reports the process CPU time per op since c0: on a shared
// machine wall time per op includes waiting for a core, CPU time does
// not (it does include the garbage collector's, which runs beside).
func reportCPU(b *testing.B, c0 time.Duration) {
	if c := cpuTime() - c0; c > 0 && b.N > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkTick measures one weight update (model 3 with models 1 and 2
// for every job, and the queue re-sort). Targets: ≤ 1 ms at 10,000 jobs,
// ≤ 10 ms at 100,000.
func BenchmarkTick(b *testing.B) { benchTick(b, false) }

// BenchmarkTickPrevious is the previous weight update (every job
// evaluated from scratch, the queue heaps rebuilt), the reference for
// BenchmarkTick with the same decisions (TestTickEquivalence).
func BenchmarkTickPrevious(b *testing.B) { benchTick(b, true) }

// benchTick runs the weight-update benchmarks: jobs=n is benchJobs's
// mix (a third with running tasks and a task time, the rest without a
// task time yet); "all-known" gives every job a task time (a default of
// 30 s), so every job is evaluated in full; "slot-bound" runs tasks in
// as many jobs as the cluster's 300 slots can hold (150 jobs of two),
// the rest of the third with finished history only, as on a real
// cluster.
func benchTick(b *testing.B, previous bool) {
	for _, bc := range []struct {
		n            int
		known, bound bool
	}{{1000, false, false}, {10000, false, false}, {10000, true, false}, {10000, false, true},
		{100000, false, false}, {100000, true, false}, {100000, false, true}} {
		name := fmt.Sprintf("jobs=%d", bc.n)
		running := bc.n
		switch {
		case bc.known:
			name += "/all-known"
		case bc.bound:
			name += "/slot-bound"
			running = 150
		}
		n := bc.n
		b.Run(name, func(b *testing.B) {
			cfg := dbs.Config{Ablations: dbs.Ablations{NoQueueMoves: true}, TransferRate: 50 << 20}
			if bc.known {
				cfg.DefaultTaskTime = 30 * time.Second
			}
			s, _, _, now := benchJobsRunning(b, n, running, cfg)
			if previous {
				dbs.UsePreviousTick(s)
			}
			benchTicks(b, s, now)
		})
	}
}

// naiveJob is the naive reference's copy of a job.
type naiveJob struct {
	j     *hJob
	queue dbs.Queue
	w     float64
	min   [2]int
	held  [2]int
	avail [2]int
}

// naiveTick is the paper-literal weight update: read every job through
// its interface, evaluate models 1 and 2 through package estimate's
// EstimateJob, and sort each queue by weight.
func naiveTick(jobs []naiveJob, queues [3]dbs.QueueConfig, capv [2]float64, now time.Time, byQueue *[3][]*naiveJob) {
	var nq [3]int
	for i := range jobs {
		nq[jobs[i].queue]++
	}
	for i := range jobs {
		nj := &jobs[i]
		j := nj.j
		var caps [2]estimate.Capacity
		for k := range caps {
			caps[k] = max(estimate.Capacity(queues[nj.queue].Share*capv[k]/float64(nq[nj.queue])*1000), 1)
		}
		est, err := estimate.EstimateJob(j, now, caps[:], estimate.Options{})
		if err != nil || !est.TaskTime.Known {
			nj.w = 0
			continue
		}
		tt := est.TaskTime.Avg
		var work [2]dbs.PhaseWork
		secs := 0.0
		for p := range j.Phases() {
			pr := j.Progress(schedkit.Phase(p))
			work[p] = dbs.PhaseWork{Unfinished: pr.Unfinished(), TaskTime: tt, Elapsed: max(pr.RunningElapsed(j.Submitted(), now), 0)}
			secs += float64(pr.Unfinished())*tt.Seconds() - work[p].Elapsed.Seconds()
		}
		price := queues[nj.queue].Price
		f := dbs.Weight(dbs.WeightInput{Phi: j.Phi(), Remaining: est.Remaining.Time, CannotFinish: est.Remaining.CannotFinish,
			DeadlineLeft: j.Deadline().Sub(now), SlotSeconds: max(secs, 0), Price: price, BudgetLeft: j.Budget() - j.CostSoFar()})
		m := dbs.MinimumSlots(dbs.MinInput{Phi: j.Phi(), Map: work[0], Reduce: work[1], ReduceCapacity: caps[1],
			DeadlineLeft: j.Deadline().Sub(now), Allowance: (j.Budget() - j.CostSoFar()) / price, Held: nj.held[0] + nj.held[1]})
		nj.w, nj.min = f.W, [2]int{m.Map, m.Reduce}
	}
	for q := range byQueue {
		byQueue[q] = byQueue[q][:0]
	}
	for i := range jobs {
		byQueue[jobs[i].queue] = append(byQueue[jobs[i].queue], &jobs[i])
	}
	for q := range byQueue {
		slices.SortFunc(byQueue[q], func(a, b *naiveJob) int { return naiveCmp(a, b, 0) })
	}
}

// naiveCmp orders jobs of a queue for kind k: below minimum, weight
// descending, submission, ID.
func naiveCmp(a, b *naiveJob, k int) int {
	ab, bb := a.held[k] < a.min[k], b.held[k] < b.min[k]
	switch {
	case ab != bb:
		if ab {
			return -1
		}
		return 1
	case a.w != b.w:
		if a.w > b.w {
			return -1
		}
		return 1
	}
	if c := a.j.SubmittedAt.Compare(b.j.SubmittedAt); c != 0 {
		return c
	}
	if a.j.Key < b.j.Key {
		return -1
	}
	return 1
}

func naiveJobs(b *testing.B, s *dbs.Scheduler, jobs []*hJob) []naiveJob {
	out := make([]naiveJob, len(jobs))
	for i, j := range jobs {
		st, err := s.Status(j.Key)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = naiveJob{j: j, queue: st.Queue, w: st.Weight, min: [2]int{st.Min.Map, st.Min.Reduce}, held: st.Held,
			avail: [2]int{j.Counters[0].Ready, j.Counters[1].Ready}}
	}
	return out
}

// BenchmarkTickNaive is the reference for BenchmarkTick.
func BenchmarkTickNaive(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			s, c, jobs, now := benchJobs(b, n, dbs.Config{})
			nj := naiveJobs(b, s, jobs)
			var byQueue [3][]*naiveJob
			capv := [2]float64{c.Cap[0], c.Cap[1]}
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for i := range b.N {
				naiveTick(nj, s.Queues(), capv, now.Add(time.Duration(i+1)*dbs.DefaultInterval), &byQueue)
			}
			reportCPU(b, c0)
		})
	}
}

// BenchmarkHeartbeat measures one heartbeat of a node with 2 free map
// slots and 1 free reduce slot among n queued jobs, plus the Updates
// that return the state to where it was (steady state). Target: ≤ 10 µs
// and 0 allocs at 10,000 and at 100,000 jobs.
func BenchmarkHeartbeat(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			s, c, jobs, now := benchJobs(b, n, dbs.Config{})
			for _, j := range jobs[:n/4] {
				// A quarter have ready reduces, their maps done (dbs
				// gives reduce slots only then).
				m := &j.Counters[0]
				m.FinishedDurationSum += time.Duration(m.Running+m.Ready) * 30 * time.Second
				m.Finished, m.Running, m.RunningStartSum, m.Ready = m.Total, 0, 0, 0
				j.Counters[1].Ready = j.Counters[1].Total
				_ = s.Update(j.Key)
			}
			if _, err := s.Tick(now, nil); err != nil {
				b.Fatal(err)
			}
			node := c.NodeList[0]
			dst := make([]dbs.Decision, 0, 8)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for range b.N {
				var err error
				dst, err = s.Heartbeat(now, node, dst[:0])
				if err != nil || len(dst) == 0 {
					b.Fatal(err, len(dst))
				}
				for _, d := range dst {
					_ = s.Update(d.Job) // nothing started: back to the same state
				}
			}
			reportCPU(b, c0)
		})
	}
}

// naiveHeartbeat is the paper-literal heartbeat: sort every queue's jobs
// for the slot's kind and take the first with a ready task, per slot.
func naiveHeartbeat(jobs []naiveJob, queues [3]dbs.QueueConfig, free [2]int, byQueue *[3][]*naiveJob, dst []dbs.Decision) []dbs.Decision {
	var used [3][2]int
	for i := range jobs {
		used[jobs[i].queue][0] += jobs[i].held[0]
		used[jobs[i].queue][1] += jobs[i].held[1]
	}
	for q := range byQueue {
		byQueue[q] = byQueue[q][:0]
	}
	for i := range jobs {
		byQueue[jobs[i].queue] = append(byQueue[jobs[i].queue], &jobs[i])
	}
	for k := range 2 {
		for q := range byQueue {
			slices.SortFunc(byQueue[q], func(a, b *naiveJob) int { return naiveCmp(a, b, k) })
		}
		for ; free[k] > 0; free[k]-- {
			best, br := -1, 0.0
			for q := 2; q >= 0; q-- {
				r := float64(used[q][k]) / queues[q].Share
				if best < 0 || r < br {
					best, br = q, r
				}
			}
			for _, nj := range byQueue[best] {
				if nj.avail[k] > 0 {
					dst = append(dst, dbs.Decision{Action: dbs.Assign, Job: nj.j.Key, Phase: schedkit.Phase(k), Count: 1})
					used[best][k]++
					break
				}
			}
		}
	}
	return dst
}

// BenchmarkHeartbeatNaive is the reference for BenchmarkHeartbeat.
func BenchmarkHeartbeatNaive(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			s, _, jobs, _ := benchJobs(b, n, dbs.Config{})
			nj := naiveJobs(b, s, jobs)
			var byQueue [3][]*naiveJob
			dst := make([]dbs.Decision, 0, 8)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for range b.N {
				dst = naiveHeartbeat(nj, s.Queues(), [2]int{2, 1}, &byQueue, dst[:0])
			}
			reportCPU(b, c0)
		})
	}
}

// benchTicks times b.N weight updates of s, one every DefaultInterval
// after now, and reports their CPU time; the set-up's garbage is
// collected first, so it is not charged to the updates, and one update
// runs first, so that the timed ones are the steady state (the first
// evaluates every job and sizes the scratch).
func benchTicks(b *testing.B, s *dbs.Scheduler, now time.Time) {
	b.Helper()
	dst, err := s.Tick(now, nil)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := range b.N {
		dst, err = s.Tick(now.Add(time.Duration(i+1)*dbs.DefaultInterval), dst[:0])
		if err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, c0)
}
