package fgm_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/fgm/fgmtest"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// Explain decides as Match does, and its Refusal names a stage and kind
// whose demand exceeds the free amount (plus the allowance) somewhere in
// that stage.
func TestExplainAgreesWithMatch(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	rng := rand.New(rand.NewPCG(3, 5))
	refused := 0
	for iter := range 3000 {
		tl := randomTimeline(rng, capacity, rng.IntN(12))
		stages := randomStages(rng, capacity, 1+rng.IntN(8))
		at := time.Duration(rng.IntN(120)) * time.Second
		compress := rng.IntN(4) != 0
		m, _ := fgm.NewMatcher(space, 0.05, []float64{0, 0.1, 0.3}[rng.IntN(3)])
		rates := make([]float64, len(stages)*3)
		want, _ := m.Match(fgm.Server{Free: tl, Capacity: capacity}, stages, time.Time{}.Add(at), compress, rates)
		got, why, err := m.Explain(fgm.Server{Free: tl, Capacity: capacity}, stages, time.Time{}.Add(at), compress, rates)
		if err != nil || got != want {
			t.Fatalf("iter %d: Explain %v %v, Match %v", iter, got, err, want)
		}
		if got {
			if why != (fgm.Refusal{}) {
				t.Fatalf("iter %d: accepted with refusal %+v", iter, why)
			}
			continue
		}
		refused++
		if why.Stage < 0 || why.Stage >= len(stages) || why.Kind < 0 || why.Kind >= 3 {
			t.Fatalf("iter %d: refusal out of range %+v", iter, why)
		}
		s := stages[why.Stage]
		if why.Demand != s.Demand[why.Kind] || !(why.Demand > why.Free+why.Allowance) {
			t.Fatalf("iter %d: refusal %+v does not show a shortfall (stage %+v)", iter, why, s)
		}
		start := at
		for _, x := range stages[:why.Stage] {
			start += x.Duration
		}
		if why.At < start || why.At >= start+s.Duration || tl.At(why.At)[why.Kind] != why.Free {
			t.Fatalf("iter %d: refusal at %v, stage [%v, %v), free there %v", iter, why.At, start, start+s.Duration, tl.At(why.At))
		}
		// No earlier stage fails: the prefix matches.
		if ok, err := m.Match(fgm.Server{Free: tl, Capacity: capacity}, stages[:why.Stage], time.Time{}.Add(at), compress, rates); !ok && start > at {
			t.Fatalf("iter %d: stages before the refused one do not match: %v", iter, err)
		} else if !ok && err == nil {
			t.Fatalf("iter %d: stages before the refused one do not match", iter)
		}
	}
	if refused < 300 {
		t.Errorf("weak test: %d refusals of 3000", refused)
	}
}

// Worked refusal: 4 cores free, 2 GB of memory free; the second stage
// asks 3 GB.
func TestExplainWorked(t *testing.T) {
	space := testSpace(t)
	capacity := resource.Vector{16, 32, 200}
	free, _ := resource.NewTimeline(resource.Vector{4, 2, 200})
	m, _ := fgm.NewMatcher(space, 0.05, 0.1)
	stages := []estimate.Stage{st(10*time.Second, 1, 1, 0), st(5*time.Second, 1, 3, 0)}
	rates := make([]float64, 6)
	ok, why, err := m.Explain(fgm.Server{Free: free, Capacity: capacity}, stages, time.Time{}.Add(7*time.Second), true, rates)
	want := fgm.Refusal{Stage: 1, Kind: 1, At: 17 * time.Second, Demand: 3, Free: 2}
	if err != nil || ok || why != want {
		t.Errorf("Explain = %v %+v %v, want refusal %+v", ok, why, err, want)
	}
	// CPU: 4 free, 6 asked; the allowance rc × N is below 2.
	stages = []estimate.Stage{st(10*time.Second, 6, 1, 0)}
	ok, why, _ = m.Explain(fgm.Server{Free: free, Capacity: capacity}, stages, time.Time{}, true, rates)
	if ok || why.Kind != 0 || why.Stage != 0 || !(why.Allowance > 0 && why.Allowance < 2) {
		t.Errorf("cpu refusal %v %+v", ok, why)
	}
	if _, _, err := m.Explain(fgm.Server{Free: nil, Capacity: capacity}, stages, time.Time{}, true, rates); !errors.Is(err, fgm.ErrInvalidNode) {
		t.Errorf("nil timeline: %v", err)
	}
	if _, _, err := m.Explain(fgm.Server{Free: free, Capacity: capacity}, []estimate.Stage{st(-1, 1, 1, 0)}, time.Time{}, true, rates); !errors.Is(err, fgm.ErrInvalidEstimate) {
		t.Errorf("negative stage: %v", err)
	}
}

func TestMinFree(t *testing.T) {
	space := testSpace(t)
	c := newCluster(space, 1, resource.Vector{4, 8, 100})
	s := newSched(t, c, fgm.Config{})
	submit(t, s, t0, &fgmtest.Task{Task: schedkittest.Task{Key: "a", JobKey: "j", Request: resource.Vector{4, 8, 0}}, Usage: []estimate.Stage{st(10*time.Second, 1, 6, 0), st(10*time.Second, 3, 2, 0)}})
	schedule(t, s, t0, "n00")
	dst := space.Zero()
	if err := s.MinFree(t0.Add(5*time.Second), "n00", 10*time.Second, dst); err != nil || !dst.Equal(resource.Vector{1, 2, 100}) {
		t.Errorf("MinFree over [5s, 15s) = %v %v, want [1 2 100]", dst, err)
	}
	if err := s.MinFree(t0.Add(12*time.Second), "n00", 2*time.Second, dst); err != nil || !dst.Equal(resource.Vector{1, 6, 100}) {
		t.Errorf("MinFree over [12s, 14s) = %v %v, want [1 6 100]", dst, err)
	}
	if err := s.MinFree(t0.Add(12*time.Second), "nope", time.Second, dst); !errors.Is(err, fgm.ErrUnknownNode) {
		t.Errorf("MinFree of an unknown node: %v", err)
	}
	for _, bad := range []func() error{
		func() error { return s.MinFree(t0.Add(12*time.Second), "n00", 0, dst) },
		func() error { return s.MinFree(t0.Add(12*time.Second), "n00", time.Second, dst[:1]) },
	} {
		if err := bad(); !errors.Is(err, fgm.ErrInvalidNode) {
			t.Errorf("bad MinFree: %v", err)
		}
	}
	// A read does not move the clock: t0 is still a valid time for
	// reads and for state-changing calls.
	if err := s.MinFree(t0, "n00", time.Second, dst); err != nil || !dst.Equal(resource.Vector{3, 2, 100}) {
		t.Errorf("MinFree at t0 after a later read = %v %v, want [3 2 100]", dst, err)
	}
	if err := s.Submit(t0, &fgmtest.Task{Task: schedkittest.Task{Key: "b", JobKey: "j", Request: resource.Vector{1, 1, 0}}}); err != nil {
		t.Errorf("Submit at t0 after reads at t0+12s: %v", err)
	}
	if err := s.MinFree(t0.Add(1<<61), "n00", time.Second, dst); !errors.Is(err, fgm.ErrTimeRange) {
		t.Errorf("MinFree far ahead: %v", err)
	}
}
