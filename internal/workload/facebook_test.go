package workload_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/workload"
)

func jobInput(j workload.JobSpec) float64 {
	m := j.Phases[0].Tasks
	return float64(m[0].DataSize) * float64(len(m))
}

// Invariants of every draw: valid in Paper004Space, the total reached
// within one split, the per-job cap kept, requests covering every stage's
// demand, one similarity key per job phase, submissions as configured.
func TestFacebookMixInvariants(t *testing.T) {
	space := workload.Paper004Space()
	for seed := uint64(0); seed < 20; seed++ {
		for _, window := range []time.Duration{0, 5 * time.Minute} {
			c := workload.DefaultFBMix(float64(25 + 25*(seed%8)))
			c.Window = window
			w, err := workload.GenerateFacebookMix(c, rand.New(rand.NewPCG(seed, 9)))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Validate(space); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			total, split := 0.0, c.SplitMB*workload.MiB
			for i, j := range w.Jobs {
				in := jobInput(j)
				total += in
				if in > c.MaxJobShare*c.TotalInputGB*workload.GiB+float64(len(j.Phases[0].Tasks)) {
					t.Errorf("seed %d job %s: input %.0f over the cap", seed, j.ID, in)
				}
				if window == 0 && j.Submit != 0 || window > 0 && i == 0 && j.Submit != 0 {
					t.Errorf("seed %d job %s submitted at %v", seed, j.ID, j.Submit)
				}
				for p, ph := range j.Phases {
					key := [2]any{ph.Tasks[0].Logic, ph.Tasks[0].DataSize}
					for k, task := range ph.Tasks {
						if got := [2]any{task.Logic, task.DataSize}; got != key {
							t.Fatalf("job %s phase %d task %d key %v, want %v", j.ID, p, k, got, key)
						}
						for _, st := range task.Profile {
							for x := range st.Demand {
								if st.Demand[x] > task.Requested[x]+1e-9 {
									t.Fatalf("job %s phase %d task %d kind %d: demand %v over request %v", j.ID, p, k, x, st.Demand[x], task.Requested[x])
								}
							}
						}
					}
				}
			}
			want := c.TotalInputGB * workload.GiB
			if math.Abs(total-want) > split*float64(len(w.Jobs)) || total < want-split {
				t.Errorf("seed %d: total input %.3g, want %.3g", seed, total, want)
			}
			if len(w.Assumptions) < 8 {
				t.Errorf("only %d assumption lines", len(w.Assumptions))
			}
		}
	}
}

// The same seed gives the same workload; another seed another.
func TestFacebookMixDeterministic(t *testing.T) {
	gen := func(seed uint64) workload.Workload {
		w, err := workload.Paper004Online(100, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	if !reflect.DeepEqual(gen(3), gen(3)) { // cmp.Diff takes seconds on thousands of tasks
		t.Fatal("same seed differs")
	}
	if reflect.DeepEqual(gen(3), gen(4)) {
		t.Fatal("different seeds gave the same workload")
	}
}

// Job sizes follow the published bins: with no cap and a large total the
// share of jobs per bin is within a few points of the table.
func TestFacebookMixBins(t *testing.T) {
	c := workload.DefaultFBMix(300)
	c.SplitMB = 1 // small splits: many jobs, few bytes
	c.MaxJobShare = 1
	c.Sigma, c.StragglerP = 0, 0
	w, err := workload.GenerateFacebookMix(c, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	bins := workload.FacebookBins()
	count := make([]int, len(bins))
	for _, j := range w.Jobs[:len(w.Jobs)-1] { // the last job is cut
		m := len(j.Phases[0].Tasks)
		for b, bin := range bins {
			if m >= bin.MinMaps && m <= bin.MaxMaps {
				count[b]++
			}
		}
	}
	n := float64(len(w.Jobs) - 1)
	if n < 500 {
		t.Fatalf("only %v jobs", n)
	}
	for b, bin := range bins {
		got := float64(count[b]) / n
		if math.Abs(got-bin.Fraction/1.0026) > 0.05 {
			t.Errorf("bin %+v: %.3f of %v jobs", bin, got, n)
		}
	}
}

// Requests exceed use by the stated factors: more than 1.5× for CPU and
// memory, as in the public traces.
func TestFacebookMixPadding(t *testing.T) {
	w, err := workload.Paper004Offline(1, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	var req, use [2]float64
	for _, j := range w.Jobs {
		for _, ph := range j.Phases {
			for _, task := range ph.Tasks {
				d := task.Duration().Seconds()
				for k := range 2 {
					req[k] += task.Requested[k] * d
				}
				for _, st := range task.Profile {
					for k := range 2 {
						use[k] += st.Demand[k] * st.Duration.Seconds()
					}
				}
			}
		}
	}
	for k, name := range []string{"cpu", "memory"} {
		if r := req[k] / use[k]; r < 1.5 || r > 5 {
			t.Errorf("%s requested/used = %.2f", name, r)
		}
	}
}

func TestFBMixConfigErrors(t *testing.T) {
	bad := map[string]func(*workload.FBMixConfig){
		"total":      func(c *workload.FBMixConfig) { c.TotalInputGB = 0 },
		"huge total": func(c *workload.FBMixConfig) { c.TotalInputGB = 1e12 },
		"nan total":  func(c *workload.FBMixConfig) { c.TotalInputGB = math.NaN() },
		"share":      func(c *workload.FBMixConfig) { c.MaxJobShare = 2 },
		"split":      func(c *workload.FBMixConfig) { c.SplitMB = -1 },
		"read":       func(c *workload.FBMixConfig) { c.ReadMBps = math.Inf(1) },
		"sigma":      func(c *workload.FBMixConfig) { c.Sigma = -1 },
		"cap":        func(c *workload.FBMixConfig) { c.DemandCap = 0.5 },
		"pad":        func(c *workload.FBMixConfig) { c.PadMin, c.PadMax = 2, 1 },
		"window":     func(c *workload.FBMixConfig) { c.Window = -time.Second },
		"bins":       func(c *workload.FBMixConfig) { c.Bins = []workload.FBBin{{MinMaps: 0, MaxMaps: 3, Fraction: 1}} },
		"bin sum":    func(c *workload.FBMixConfig) { c.Bins = []workload.FBBin{{MinMaps: 1, MaxMaps: 3}} },
		"apps":       func(c *workload.FBMixConfig) { c.Apps = []workload.FBApp{{Name: "x", Weight: 1}} },
		"app sum":    func(c *workload.FBMixConfig) { a := workload.FacebookApps()[:1]; a[0].Weight = 0; c.Apps = a },
	}
	for name, mut := range bad {
		c := workload.DefaultFBMix(10)
		mut(&c)
		_, err := workload.GenerateFacebookMix(c, rand.New(rand.NewPCG(1, 1)))
		var ce *workload.ConfigError
		if !errors.As(err, &ce) || !errors.Is(err, workload.ErrRange) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := workload.GenerateFacebookMix(workload.DefaultFBMix(10), nil); !errors.Is(err, workload.ErrConfig) {
		t.Errorf("nil rng: %v", err)
	}
}

func FuzzFacebookMix(f *testing.F) {
	f.Add(10.0, 0.25, 128.0, 0.3, 1.6, int64(0), uint64(1))
	f.Add(0.001, 1.0, 0.5, 0.0, 1.0, int64(time.Minute), uint64(2))
	f.Fuzz(func(t *testing.T, total, share, split, sigma, padMax float64, window int64, seed uint64) {
		c := workload.DefaultFBMix(total)
		c.MaxJobShare, c.SplitMB, c.Sigma, c.PadMax, c.Window = share, split, sigma, padMax, time.Duration(window)
		if total/split*1024 > 20000 { // keep each run small
			return
		}
		w, err := workload.GenerateFacebookMix(c, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			if !errors.Is(err, workload.ErrRange) && !errors.Is(err, workload.ErrConfig) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if err := w.Validate(workload.Paper004Space()); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkGenerateFacebookMix draws Facebook-mix workloads of growing
// total input (about 8 tasks per GB).
func BenchmarkGenerateFacebookMix(b *testing.B) {
	for _, gb := range []float64{50, 400, 3200} {
		b.Run(fmt.Sprintf("GB=%g", gb), func(b *testing.B) {
			b.ReportAllocs()
			c := workload.DefaultFBMix(gb)
			rng := rand.New(rand.NewPCG(1, 1))
			tasks := 0
			for b.Loop() {
				w, err := workload.GenerateFacebookMix(c, rng)
				if err != nil {
					b.Fatal(err)
				}
				tasks += w.Tasks()
			}
			b.ReportMetric(float64(tasks)/float64(b.N), "tasks/op")
		})
	}
}
