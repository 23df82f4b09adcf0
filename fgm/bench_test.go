package fgm_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// naiveMatch is Algorithm 2 without the cursor: for every task stage it
// scans the timeline's stages from the first, and checks the base
// before, between and after them with At.
func naiveMatch(space *resource.Space, free *resource.Timeline, capacity resource.Vector, stages []estimate.Stage, at time.Duration, p, limit float64) bool {
	t := at
	check := func(n, s resource.Vector) bool {
		for k, d := range s {
			f, N := n[k], capacity[k]
			if d == 0 || f+1e-9*N >= d {
				continue
			}
			if !space.Compressible(k) {
				return false
			}
			rc, _ := resource.CompressionBound(max(0, N-f), d, p, limit)
			if f+rc*N+1e-9*N < d {
				return false
			}
		}
		return true
	}
	for _, s := range stages {
		a, b := t, t+s.Duration
		t = b
		if a == b {
			continue
		}
		if !check(free.At(a), s.Demand) {
			return false
		}
		for i := range free.Len() {
			sa, sb, v := free.Stage(i)
			if sb > a && sa < b && !check(v, s.Demand) {
				return false
			}
			if sb > a && sb < b && !check(free.At(sb), s.Demand) {
				return false
			}
		}
	}
	return true
}

func benchTimeline(rng *rand.Rand, capacity resource.Vector, stages int) *resource.Timeline {
	tl, _ := resource.NewTimeline(capacity)
	v := make(resource.Vector, len(capacity))
	for i := range stages {
		for k := range v {
			v[k] = capacity[k] * (0.2 + 0.5*rng.Float64()) / 2
		}
		_ = tl.Sub(time.Duration(i)*5*time.Second, time.Duration(i+1)*5*time.Second, v)
	}
	return tl
}

func benchStages(stages int) []estimate.Stage {
	out := make([]estimate.Stage, stages)
	for i := range out {
		out[i] = estimate.Stage{Duration: 30 * time.Second, Demand: resource.Vector{2 + float64(i%3), 4 + float64(i%5), 10}}
	}
	return out
}

// One task × one server stage match: ≤ 8 task stages against a ≤ 64-stage
// timeline, the task accepted (the whole walk is done).
func BenchmarkMatch(b *testing.B) {
	space := testSpace(b)
	capacity := resource.Vector{16, 32, 200}
	m, _ := fgm.NewMatcher(space, 0.05, 0.1)
	for _, ts := range []int{8, 64} {
		for _, ns := range []int{1, 4, 8} {
			tl := benchTimeline(rand.New(rand.NewPCG(1, 2)), capacity, ts)
			stages := benchStages(ns)
			at := time.Duration(ts) * 5 * time.Second / 2
			// stretch the task over the timeline: stages long enough to span it
			for i := range stages {
				stages[i].Duration = time.Duration(ts) * 5 * time.Second / time.Duration(ns) / 2
			}
			rates := make([]float64, ns*3)
			if ok, _ := m.Match(fgm.Server{Free: tl, Capacity: capacity}, stages, time.Time{}, true, rates); !ok || !naiveMatch(space, tl, capacity, stages, 0, 0.05, 0.1) {
				b.Fatal("benchmark task should be accepted")
			}
			_ = at
			name := fmt.Sprintf("timeline=%d/stages=%d", ts, ns)
			b.Run(name+"/fgm", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, _ = m.Match(fgm.Server{Free: tl, Capacity: capacity}, stages, time.Time{}, true, rates)
				}
			})
			b.Run(name+"/naive", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					naiveMatch(space, tl, capacity, stages, 0, 0.05, 0.1)
				}
			})
		}
	}
}

// roundSetup builds servers each holding three running tasks and 1,000
// pending tasks of 50 jobs over 10 similarity keys, with predictions.
type roundSetup struct {
	space   *resource.Space
	cluster *schedkittest.Cluster
	pending []*fgmtest.Task
	busy    []*fgmtest.Task // three per server, placed first
}

func newRoundSetup(b *testing.B, servers, pending int) *roundSetup {
	space := testSpace(b)
	r := &roundSetup{space: space, cluster: newCluster(space, servers, resource.Vector{16, 64, 200})}
	rng := rand.New(rand.NewPCG(5, 6))
	profile := func(key int) []estimate.Stage {
		rr := rand.New(rand.NewPCG(uint64(key), 1))
		n := 1 + rr.IntN(4)
		st := make([]estimate.Stage, n)
		for i := range st {
			st[i] = estimate.Stage{Duration: time.Duration(10+rr.IntN(50)) * time.Second,
				Demand: resource.Vector{float64(1 + rr.IntN(5)), float64(2 + rr.IntN(14)), float64(rr.IntN(20))}}
		}
		return st
	}
	for i := range servers * 3 {
		k := 100 + rng.IntN(10)
		r.busy = append(r.busy, &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("busy%06d", i)), JobKey: "busy", Similar: schedkit.SimilarityKey{Logic: "busy", DataSize: int64(k)}, Request: resource.Vector{4, 16, 0}}, Usage: profile(k)})
	}
	for i := range pending {
		k := rng.IntN(10)
		r.pending = append(r.pending, &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(fmt.Sprintf("t%06d", i)), JobKey: schedkit.JobID(fmt.Sprintf("j%02d", i%50)), Similar: schedkit.SimilarityKey{Logic: "k", DataSize: int64(k)}, Request: resource.Vector{6, 16, 0}}, Usage: profile(k)})
	}
	return r
}

// A scheduling round: 1,000 pending tasks offered to 5,000 servers, each
// server scheduled once (Algorithm 1 per server). Setup (placing three
// tasks on every server) is outside the timer.
func BenchmarkRound(b *testing.B) {
	for _, size := range []struct{ servers, pending int }{{500, 100}, {5000, 1000}} {
		r := newRoundSetup(b, size.servers, size.pending)
		name := fmt.Sprintf("servers=%d/pending=%d", size.servers, size.pending)
		b.Run(name+"/fgm", func(b *testing.B) {
			b.ReportAllocs()
			placed := 0
			for b.Loop() {
				b.StopTimer()
				s, _ := fgm.New(fgm.Config{Cluster: r.cluster, Estimator: fgmtest.Oracle{}, LocalityWait: -1})
				now := t0
				for i, n := range r.cluster.NodeList {
					for _, tk := range r.busy[3*i : 3*i+3] {
						_ = s.Submit(now, tk)
					}
					_, _ = s.Schedule(now, n, nil)
				}
				now = now.Add(5 * time.Second)
				for _, tk := range r.pending {
					_ = s.Submit(now, tk)
				}
				var dst []fgm.Decision
				b.StartTimer()
				for _, n := range r.cluster.NodeList {
					dst, _ = s.Schedule(now, n, dst[:0])
					placed += len(dst)
				}
			}
			b.ReportMetric(float64(placed)/float64(b.N), "placed/op")
		})
		b.Run(name+"/naive", func(b *testing.B) {
			b.ReportAllocs()
			placed := 0
			for b.Loop() {
				b.StopTimer()
				tls, pend := naiveRoundSetup(r)
				b.StartTimer()
				placed += naiveRound(r, tls, pend)
			}
			b.ReportMetric(float64(placed)/float64(b.N), "placed/op")
		})
	}
}

func naiveRoundSetup(r *roundSetup) ([]*resource.Timeline, []*fgmtest.Task) {
	tls := make([]*resource.Timeline, len(r.cluster.NodeList))
	now := 5 * time.Second
	for i, n := range r.cluster.NodeList {
		tls[i], _ = resource.NewTimeline(n.Cap)
		for _, tk := range r.busy[3*i : 3*i+3] {
			t := time.Duration(0)
			for _, s := range tk.Usage {
				_ = tls[i].Sub(t, t+s.Duration, s.Demand)
				t += s.Duration
			}
		}
		tls[i].TrimBefore(now)
	}
	return tls, slices.Clone(r.pending)
}

// naiveRound is Algorithm 1 done the obvious way: per server, sort every
// pending task by its job's dominant share (recomputed from scratch),
// then try each with naiveMatch.
func naiveRound(r *roundSetup, tls []*resource.Timeline, pend []*fgmtest.Task) int {
	space := r.space
	capacity := r.cluster.Capacity()
	now := 5 * time.Second
	alloc := map[schedkit.JobID]resource.Vector{}
	placed := 0
	for i, n := range r.cluster.NodeList {
		share := func(j schedkit.JobID) float64 {
			v := alloc[j]
			if v == nil {
				return 0
			}
			s, _ := resource.DominantShare(v, capacity)
			return s
		}
		slices.SortStableFunc(pend, func(a, b *fgmtest.Task) int {
			sa, sb := share(a.JobKey), share(b.JobKey)
			switch {
			case sa < sb:
				return -1
			case sa > sb:
				return 1
			}
			return 0
		})
		for k := 0; k < len(pend); {
			tk := pend[k]
			if !naiveMatch(space, tls[i], n.Cap, tk.Usage, now, 0.05, 0.1) {
				k++
				continue
			}
			t := now
			peak := space.Zero()
			for _, s := range tk.Usage {
				_ = tls[i].Sub(t, t+s.Duration, s.Demand)
				t += s.Duration
				_ = peak.Max(s.Demand)
			}
			if alloc[tk.JobKey] == nil {
				alloc[tk.JobKey] = space.Zero()
			}
			_ = alloc[tk.JobKey].Add(peak)
			pend = slices.Delete(pend, k, k+1)
			placed++
		}
	}
	return placed
}
