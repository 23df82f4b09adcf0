package fgm_test

import (
	"errors"
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

// quarter returns a random multiple of 1/4 in [0, hi).
func quarter(rng *rand.Rand, hi float64) float64 { return float64(rng.IntN(int(hi*4))) / 4 }

// TestFitAgreesWithSchedule: on random servers (running tasks placed by
// Schedule over time, some overdue or unpredictable, foreign load and
// measured usage from samples and a Tick, tasks placed since the
// sample), Fit on the state a host keeps itself — capacity minus
// foreign load minus the remaining stages of the running tasks — decides
// exactly as Schedule does for one more task.
func TestFitAgreesWithSchedule(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	rng := rand.New(rand.NewPCG(13, 17))
	fitter, err := fgm.NewFitter(fgm.FitConfig{Space: space})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[fgm.Test]int{}
	for iter := range 600 {
		c := newCluster(space, 1, capacity)
		s := newSched(t, c, fgm.Config{Ablations: fgm.Ablations{NoPolicyAdjustment: true}, LocalityWait: -1})
		randTask := func(id string) *fgmtest.Task {
			tk := &fgmtest.Task{Task: schedkittest.Task{Key: schedkit.TaskID(id), JobKey: schedkit.JobID("j" + id), Request: resource.Vector{quarter(rng, 6), quarter(rng, 10), quarter(rng, 40)}}}
			if rng.IntN(5) > 0 {
				for range 1 + rng.IntN(4) {
					tk.Usage = append(tk.Usage, st(time.Duration(1+rng.IntN(40))*time.Second,
						quarter(rng, 6), quarter(rng, 12), quarter(rng, 60)))
				}
			}
			return tk
		}
		type run struct {
			tk    *fgmtest.Task
			start time.Duration
			used  resource.Vector
			after bool // placed after the node sample
		}
		var running []run
		at := time.Duration(0)
		for i := range rng.IntN(5) {
			tk := randTask("r" + string(rune('a'+i)))
			now := t0.Add(at)
			submit(t, s, now, tk)
			if d := schedule(t, s, now, "n00"); len(d) == 1 {
				running = append(running, run{tk: tk, start: at, used: resource.Vector{quarter(rng, 4), quarter(rng, 12), quarter(rng, 20)}})
			} else {
				_ = s.Withdraw(tk.Key)
			}
			at += time.Duration(rng.IntN(20)) * time.Second
		}
		at += time.Second
		measured := rng.IntN(3) > 0
		foreign := space.Zero()
		var used resource.Vector
		if measured {
			used = resource.Vector{quarter(rng, 12), 8 + quarter(rng, 22), quarter(rng, 150)}
			_ = s.SampleNode(t0.Add(at), "n00", used)
			at += time.Second
			ours := space.Zero()
			for _, r := range running {
				if err := s.SampleTask(t0.Add(at), r.tk.Key, r.used); err != nil {
					t.Fatal(err)
				}
				_ = ours.Add(r.used)
			}
			_ = s.SampleNode(t0.Add(at), "n00", used)
			if _, err := s.Tick(t0.Add(at), nil); err != nil {
				t.Fatal(err)
			}
			for k := range foreign {
				foreign[k] = max(0, min(capacity[k], used[k]-ours[k]))
			}
			for i := range rng.IntN(3) {
				tk := randTask("p" + string(rune('a'+i)))
				submit(t, s, t0.Add(at), tk)
				if d := schedule(t, s, t0.Add(at), "n00"); len(d) == 1 {
					running = append(running, run{tk: tk, start: at, after: true})
				} else {
					_ = s.Withdraw(tk.Key)
				}
			}
		}
		now := at + time.Duration(rng.IntN(30))*time.Second

		// The host's own state.
		base := capacity.Clone()
		_ = base.Sub(foreign)
		free, _ := resource.NewTimeline(base)
		placed := space.Zero()
		h := fgm.DefaultHorizon
		for _, r := range running {
			peak := space.Zero()
			prof := estimate.Profile{Stages: r.tk.Usage}
			prof.Peak(peak)
			if r.tk.Usage == nil {
				peak = r.tk.Request
			}
			if r.after {
				first := r.tk.Request
				if r.tk.Usage != nil {
					first = r.tk.Usage[0].Demand
				}
				for k := range placed {
					if !space.Compressible(k) {
						placed[k] += first[k]
					}
				}
			}
			if r.tk.Usage == nil || now >= r.start+prof.Duration() {
				_ = free.Sub(now, now+h, peak)
				continue
			}
			a := r.start
			for _, stg := range r.tk.Usage {
				b := a + stg.Duration
				if b > now {
					_ = free.Sub(max(a, now), b, stg.Demand)
				}
				a = b
			}
		}
		tk := randTask("new")
		rates := make([]float64, len(tk.Usage)*3)
		v, err := fitter.Fit(fgm.Server{Capacity: capacity, Free: free, Measured: measured, Used: used, Placed: placed}, time.Time{}.Add(now), tk.Usage, tk.Request, rates)
		if err != nil {
			t.Fatal(err)
		}
		counts[v.Test]++
		submit(t, s, t0.Add(now), tk)
		got := len(schedule(t, s, t0.Add(now), "n00")) == 1
		if got != (v.Test == fgm.Passed) {
			t.Fatalf("iter %d: Schedule allocates %v, Fit says %v (%+v)", iter, got, v.Test, v.Refusal)
		}
	}
	for _, test := range []fgm.Test{fgm.Passed, fgm.UsedUp, fgm.RequestedQuantity, fgm.StageMatch, fgm.MeasuredIdle} {
		if counts[test] < 10 {
			t.Errorf("weak test: %v %d times of 600 (%v)", test, counts[test], counts)
		}
	}
}

func TestFitWorkedAndBadInput(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	f, _ := fgm.NewFitter(fgm.FitConfig{Space: space})
	free, _ := resource.NewTimeline(resource.Vector{4, 2, 200})
	srv := fgm.Server{Capacity: capacity, Free: free}
	rates := make([]float64, 6)
	// 2 GB free of 32: above the 5% threshold (1.6). A 3 GB second stage
	// does not fit.
	v, err := f.Fit(srv, time.Time{}, []estimate.Stage{st(10*time.Second, 1, 1, 0), st(5*time.Second, 1, 3, 0)}, nil, rates)
	if err != nil || v.Test != fgm.StageMatch || v.Refusal.Stage != 1 || v.Refusal.Kind != 1 || v.Mode != fgm.FineGrained {
		t.Errorf("stage refusal: %+v %v", v, err)
	}
	// Unpredictable, 3 GB requested.
	v, _ = f.Fit(srv, time.Time{}, nil, resource.Vector{1, 3, 0}, nil)
	if v.Test != fgm.RequestedQuantity || v.Refusal.Kind != 1 || v.Refusal.Free != 2 || v.Mode != fgm.Requested {
		t.Errorf("request refusal: %+v", v)
	}
	// Measured: 31 GB used, 1 GB idle < 5% of 32.
	srv.Measured, srv.Used, srv.Placed = true, resource.Vector{1, 31, 0}, resource.Vector{0, 0, 0}
	v, _ = f.Fit(srv, time.Time{}, nil, resource.Vector{1, 1, 0}, nil)
	if v.Test != fgm.UsedUp || v.Refusal.Kind != 1 || v.Refusal.Free != 1 || v.Refusal.Demand != 1.6 {
		t.Errorf("used up: %+v", v)
	}
	// 28 GB used: 4 idle, a first stage of 1.5 fits, 1 placed since and
	// a first stage of 3.5 does not.
	srv.Used, srv.Placed = resource.Vector{1, 28, 0}, resource.Vector{0, 1, 0}
	v, _ = f.Fit(srv, time.Time{}, []estimate.Stage{st(time.Second, 1, 1.5, 0)}, nil, rates)
	if v.Test != fgm.Passed {
		t.Errorf("fits: %+v", v)
	}
	v, _ = f.Fit(srv, time.Time{}, []estimate.Stage{st(time.Second, 1, 3.5, 0)}, nil, rates)
	if v.Test != fgm.StageMatch { // 2 GB on the timeline refuses it first
		t.Errorf("3.5 GB: %+v", v)
	}
	free2, _ := resource.NewTimeline(capacity)
	srv.Free = free2
	v, _ = f.Fit(srv, time.Time{}, []estimate.Stage{st(time.Second, 1, 3.5, 0)}, nil, rates)
	if v.Test != fgm.MeasuredIdle || v.Refusal.Free != 3 {
		t.Errorf("measured idle: %+v", v)
	}
	for name, call := range map[string]func() error{
		"nil timeline": func() error {
			_, err := f.Fit(fgm.Server{Capacity: capacity}, time.Time{}, nil, capacity, nil)
			return err
		},
		"short capacity": func() error {
			_, err := f.Fit(fgm.Server{Capacity: capacity[:2], Free: free}, time.Time{}, nil, capacity, nil)
			return err
		},
		"measured without Used": func() error {
			_, err := f.Fit(fgm.Server{Capacity: capacity, Free: free, Measured: true}, time.Time{}, nil, capacity, nil)
			return err
		},
	} {
		if err := call(); !errors.Is(err, fgm.ErrInvalidNode) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := f.Fit(srv, time.Time{}, nil, resource.Vector{1, -1, 0}, nil); !errors.Is(err, fgm.ErrInvalidTask) {
		t.Errorf("negative request: %v", err)
	}
	if _, err := f.Fit(srv, time.Time{}, []estimate.Stage{st(time.Second, 1, 1)}, nil, rates); !errors.Is(err, fgm.ErrInvalidEstimate) {
		t.Errorf("short stage: %v", err)
	}
	if _, err := f.Fit(srv, time.Time{}, []estimate.Stage{}, nil, rates); !errors.Is(err, fgm.ErrInvalidEstimate) {
		t.Errorf("no stages: %v", err)
	}
	if _, err := fgm.NewFitter(fgm.FitConfig{}); !errors.Is(err, fgm.ErrConfig) {
		t.Errorf("nil space: %v", err)
	}
	if _, err := fgm.NewFitter(fgm.FitConfig{Space: space, IdleThreshold: 1}); !errors.Is(err, fgm.ErrConfig) {
		t.Errorf("IdleThreshold 1: %v", err)
	}
}

// An Estimator that predicts a profile with no stages gets
// ErrInvalidEstimate from Schedule, never a panic, and nothing changes.
func TestScheduleEmptyProfile(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{4, 8, 100})
	s := newSched(t, c, fgm.Config{})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{1, 1, 0}}, Usage: []estimate.Stage{}})
	d, err := s.Schedule(t0, c.NodeList[0], nil)
	if !errors.Is(err, fgm.ErrInvalidEstimate) || len(d) != 0 || s.Pending() != 1 {
		t.Errorf("Schedule = %v, %v; pending %d", d, err, s.Pending())
	}
}
