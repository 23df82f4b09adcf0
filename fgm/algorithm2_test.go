package fgm_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/resource"
)

// space: CPU (compressible), memory (incompressible), disk bandwidth
// (compressible).
func testSpace(t testing.TB) *resource.Space {
	t.Helper()
	s, err := resource.NewSpace(resource.CPU, resource.Memory, resource.DiskBandwidth)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// oracle is Algorithm 2 judged instant by instant: every elementary
// interval between breakpoints of the task's stages and the timeline is
// checked at its midpoint with the same rule, and the rates are the
// largest per stage and kind.
func oracle(space *resource.Space, free *resource.Timeline, capacity resource.Vector, stages []estimate.Stage, at time.Duration, p, limit float64, compress bool) (bool, []float64) {
	dims := space.Len()
	var cuts []time.Duration
	t := at
	for _, s := range stages {
		cuts = append(cuts, t)
		t += s.Duration
	}
	end := t
	cuts = append(cuts, end)
	for i := range free.Len() {
		a, b, _ := free.Stage(i)
		cuts = append(cuts, a, b)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	rates := make([]float64, len(stages)*dims)
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if a < at || b > end || a == b {
			continue
		}
		mid := a + (b-a)/2
		// stage containing mid
		si, st := -1, at
		for k, s := range stages {
			if mid >= st && mid < st+s.Duration {
				si = k
			}
			st += s.Duration
		}
		if si < 0 {
			continue
		}
		n := free.At(mid)
		for k, d := range stages[si].Demand {
			f, N := n[k], capacity[k]
			if d == 0 || f+1e-9*N >= d {
				continue
			}
			if !space.Compressible(k) || !compress {
				return false, nil
			}
			rc, _ := resource.CompressionBound(max(0, N-f), d, p, limit)
			if f+rc*N+1e-9*N < d {
				return false, nil
			}
			rates[si*dims+k] = max(rates[si*dims+k], (d-f)/(N-f+d))
		}
	}
	return true, rates
}

func randomTimeline(rng *rand.Rand, capacity resource.Vector, n int) *resource.Timeline {
	tl, _ := resource.NewTimeline(capacity)
	for range n {
		a := time.Duration(rng.IntN(100)) * time.Second
		b := a + time.Duration(1+rng.IntN(40))*time.Second
		v := make(resource.Vector, len(capacity))
		for k := range v {
			v[k] = capacity[k] * rng.Float64() * 0.5
		}
		_ = tl.Sub(a, b, v)
	}
	return tl
}

func randomStages(rng *rand.Rand, capacity resource.Vector, n int) []estimate.Stage {
	st := make([]estimate.Stage, n)
	for i := range st {
		v := make(resource.Vector, len(capacity))
		for k := range v {
			v[k] = capacity[k] * rng.Float64() * 0.6
			if rng.IntN(8) == 0 {
				v[k] = 0
			}
		}
		st[i] = estimate.Stage{Duration: time.Duration(rng.IntN(30)) * time.Second, Demand: v}
	}
	if (estimate.Profile{Stages: st}).Duration() == 0 {
		st[0].Duration = time.Second // stages lasting 0 s in all are invalid
	}
	return st
}

func TestMatchAgainstOracle(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	rng := rand.New(rand.NewPCG(7, 11))
	accepted, compressed := 0, 0
	for iter := range 4000 {
		tl := randomTimeline(rng, capacity, rng.IntN(12))
		stages := randomStages(rng, capacity, 1+rng.IntN(8))
		at := time.Duration(rng.IntN(120)) * time.Second
		limit := []float64{0, 0.1, 0.3}[rng.IntN(3)]
		p := []float64{0, 0.05, 0.5}[rng.IntN(3)]
		compress := rng.IntN(4) != 0
		m, err := fgm.NewMatcher(space, p, limit)
		if err != nil {
			t.Fatal(err)
		}
		rates := make([]float64, len(stages)*3)
		got, err := m.Match(fgm.Server{Free: tl, Capacity: capacity}, stages, time.Time{}.Add(at), compress, rates)
		if err != nil {
			t.Fatal(err)
		}
		want, wantRates := oracle(space, tl, capacity, stages, at, p, limit, compress)
		if got != want {
			t.Fatalf("iter %d: Match %v, oracle %v\nstages %+v at %v\n", iter, got, want, stages, at)
		}
		if got {
			accepted++
			for i := range wantRates {
				if math.Abs(rates[i]-wantRates[i]) > 1e-12 {
					t.Fatalf("iter %d: rates %v, oracle %v", iter, rates, wantRates)
				}
			}
			if slices.ContainsFunc(rates, func(x float64) bool { return x > 0 }) {
				compressed++
			}
		}
	}
	if accepted < 400 || compressed < 50 {
		t.Errorf("weak test: %d accepted, %d compressed of 4000", accepted, compressed)
	}
}

// Worked numbers for line 8 of Algorithm 2 on a 16-core, 32 GiB server
// with p = 0.05 and the 10% limit.
func TestMatchWorked(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	m, _ := fgm.NewMatcher(space, 0.05, 0.1)
	cases := []struct {
		name    string
		free    resource.Vector
		demand  resource.Vector
		ok      bool
		cpuRate float64
	}{
		// fits outright
		{"fits", resource.Vector{4, 8, 100}, resource.Vector{4, 8, 100}, true, 0},
		// memory short by 1: incompressible, refused
		{"memory short", resource.Vector{8, 7, 100}, resource.Vector{4, 8, 100}, false, 0},
		// 2 cores free, 3 asked: existing 14, rc = (3 − 0.05·14)/17 = 0.1353 → 0.1;
		// 2 + 0.1·16 = 3.6 ≥ 3, accepted; the server then holds 17 on 16: rc 1/17
		{"cpu compressed", resource.Vector{2, 8, 100}, resource.Vector{3, 8, 100}, true, 1.0 / 17},
		// 2 free, 4 asked: 2 + 1.6 = 3.6 < 4, refused
		{"cpu too short", resource.Vector{2, 8, 100}, resource.Vector{4, 8, 100}, false, 0},
		// 1 free, 2 asked: existing 15, (2 − 0.75)/17 = 0.0735; 1 + 1.18 = 2.18 ≥ 2
		{"bound below limit", resource.Vector{1, 8, 100}, resource.Vector{2, 8, 100}, true, 1.0 / 17},
		// 0.5 free, 1 asked: (1 − 0.775)/16.5 = 0.0136; 0.5 + 0.218 < 1, refused
		{"bound too small", resource.Vector{0.5, 8, 100}, resource.Vector{1, 8, 100}, false, 0},
	}
	for _, c := range cases {
		tl, _ := resource.NewTimeline(c.free)
		rates := make([]float64, 3)
		ok, err := m.Match(fgm.Server{Free: tl, Capacity: capacity}, []estimate.Stage{{Duration: 10 * time.Second, Demand: c.demand}}, time.Time{}, true, rates)
		if err != nil || ok != c.ok {
			t.Errorf("%s: got %v %v, want %v", c.name, ok, err, c.ok)
			continue
		}
		if ok && math.Abs(rates[0]-c.cpuRate) > 1e-12 {
			t.Errorf("%s: cpu rate %v, want %v", c.name, rates[0], c.cpuRate)
		}
	}
}

// A task whose memory peak arrives after the server's memory frees up
// fits stage by stage but not coarse-grained (the paper's figure 1–3).
func TestMatchStagesBeatPeak(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{4, 8, 100}
	tl, _ := resource.NewTimeline(capacity)
	_ = tl.Sub(0, 10*time.Second, resource.Vector{2, 6, 0}) // a running task's first stage
	m, _ := fgm.NewMatcher(space, 0.05, 0.1)
	stages := []estimate.Stage{
		{Duration: 10 * time.Second, Demand: resource.Vector{2, 2, 0}},
		{Duration: 10 * time.Second, Demand: resource.Vector{2, 6, 0}},
	}
	rates := make([]float64, 6)
	if ok, _ := m.Match(fgm.Server{Free: tl, Capacity: capacity}, stages, time.Time{}, false, rates); !ok {
		t.Fatal("stage-by-stage match refused")
	}
	least := space.Zero()
	_ = tl.Min(0, 20*time.Second, least)
	if least[1] >= 6 {
		t.Fatal("coarse-grained would fit too; the test shows nothing")
	}
}

func TestMatchBadInput(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	tl, _ := resource.NewTimeline(capacity)
	m, _ := fgm.NewMatcher(space, 0.05, 0.1)
	rates := make([]float64, 6)
	for name, st := range map[string][]estimate.Stage{
		"negative length": {{Duration: -time.Second, Demand: resource.Vector{1, 1, 1}}},
		"nan demand":      {{Duration: time.Second, Demand: resource.Vector{math.NaN(), 1, 1}}},
		"inf demand":      {{Duration: time.Second, Demand: resource.Vector{math.Inf(1), 1, 1}}},
		"negative demand": {{Duration: time.Second, Demand: resource.Vector{1, -1, 1}}},
		"short demand":    {{Duration: time.Second, Demand: resource.Vector{1, 1}}},
	} {
		if _, err := m.Match(fgm.Server{Free: tl, Capacity: capacity}, st, time.Time{}, true, rates); !errors.Is(err, fgm.ErrInvalidEstimate) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := m.Match(fgm.Server{Free: tl, Capacity: resource.Vector{1}}, nil, time.Time{}, true, rates); !errors.Is(err, fgm.ErrInvalidNode) {
		t.Errorf("short capacity: %v", err)
	}
	if _, err := m.Match(fgm.Server{Free: nil, Capacity: capacity}, nil, time.Time{}, true, rates); !errors.Is(err, fgm.ErrInvalidNode) {
		t.Errorf("nil timeline: %v", err)
	}
	for _, bad := range [][2]float64{{math.NaN(), 0.1}, {-1, 0.1}, {0, 1}, {0, -0.1}} {
		if _, err := fgm.NewMatcher(space, bad[0], bad[1]); !errors.Is(err, fgm.ErrConfig) {
			t.Errorf("NewMatcher(%v): %v", bad, err)
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add(int64(5e9), 3.0, 8.0, int64(10e9), 2.0, 30.0, 1.0, 20.0, int64(3e9), 0.1)
	f.Fuzz(func(t *testing.T, d1 int64, c1, m1 float64, d2 int64, c2, m2, fc, fm float64, at int64, limit float64) {
		space := testSpace(t)
		capacity := resource.Vector{16, 32, 200}
		m, err := fgm.NewMatcher(space, 0.05, limit)
		if err != nil {
			return
		}
		tl, _ := resource.NewTimeline(capacity)
		if v := (resource.Vector{fc, fm, 0}); v.Validate() == nil {
			_ = tl.Sub(0, 7*time.Second, v)
		}
		stages := []estimate.Stage{
			{Duration: time.Duration(d1) % (1 << 40), Demand: resource.Vector{c1, m1, 0}},
			{Duration: time.Duration(d2) % (1 << 40), Demand: resource.Vector{c2, m2, 0}},
		}
		at = at % (1 << 40)
		rates := make([]float64, 6)
		ok, err := m.Match(fgm.Server{Free: tl, Capacity: capacity}, stages, time.Time{}.Add(time.Duration(at)), true, rates)
		if err != nil {
			if ok || !errors.Is(err, fgm.ErrInvalidEstimate) {
				t.Fatalf("%v %v", ok, err)
			}
			return
		}
		want, wantRates := oracle(space, tl, capacity, stages, time.Duration(at), 0.05, limit, true)
		if ok != want {
			t.Fatalf("Match %v oracle %v", ok, want)
		}
		if ok {
			for i := range wantRates {
				if math.Abs(rates[i]-wantRates[i]) > 1e-12 || math.IsNaN(rates[i]) {
					t.Fatalf("rates %v oracle %v", rates, wantRates)
				}
			}
		}
	})
}
