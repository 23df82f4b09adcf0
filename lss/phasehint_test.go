package lss_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/lss"
)

// hinted returns j with per-phase hints (a negative entry: no hint).
func hinted(j *hostJob, hints ...time.Duration) *hostJob {
	j.PhaseHints = make([]time.Duration, len(hints))
	j.PhaseHintSet = make([]bool, len(hints))
	for p, h := range hints {
		if h >= 0 {
			j.PhaseHints[p], j.PhaseHintSet[p] = h, true
		}
	}
	return j
}

// twoJobs: on one node × (2 map, 1 reduce), A and B each have 2 of 4
// maps finished in 20s (Tavg 10s), 2 ready, and one reduce to come. A's
// deadline is 200s, B's 150s. A hints its reduce at 120s (and its maps at
// 50s, ignored: its maps have finished tasks of their own).
//
//	paper:  A: (⌈2/2⌉ + ⌈1/1⌉)·10s = 20s,   spare 200s − 20s  = 180s
//	        B: 20s,                          spare 150s − 20s  = 130s → B first
//	hints:  A: ⌈2/2⌉·10s + ⌈1/1⌉·120s = 130s, spare 200s − 130s = 70s → A first
//	        B: no hints: 20s, spare 130s
func twoJobs() (a, b *hostJob) {
	maps := schedkit.PhaseProgress{Total: 4, Finished: 2, Ready: 2, FinishedDurationSum: 20 * sec}
	a = hinted(pjob("A", 0, 200*sec, maps, schedkit.PhaseProgress{Total: 1}), 50*sec, 120*sec)
	b = pjob("B", 0, 150*sec, maps, schedkit.PhaseProgress{Total: 1})
	return a, b
}

// Algorithm 1 with the reduce hint: A's single long reduce makes it the
// tighter job, so it gets the node's map slots instead of B.
func TestPhaseHintsChangeOrder(t *testing.T) {
	tests := []struct {
		name  string
		cfg   lss.Config
		want  string
		remA  time.Duration
		first schedkit.JobID
	}{
		{"paper: B (spare 130s) before A (180s)", lss.Config{}, "assign B map×2 on n00 (pass 2)\n", 20 * sec, "B"},
		{"hints: A (spare 70s) before B (130s)", lss.Config{PhaseTaskTimeHints: true}, "assign A map×2 on n00 (pass 2)\n", 130 * sec, "A"},
		{"hints + per-phase: the same (no reduce finished)", lss.Config{PhaseTaskTimeHints: true, PerPhaseTaskTime: true}, "assign A map×2 on n00 (pass 2)\n", 130 * sec, "A"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			both(t, func(t *testing.T, lit bool) {
				cl := newCluster(1, 2, 1, 0)
				cfg := tc.cfg
				cfg.Cluster, cfg.Literal = cl, lit
				s := mustNew(t, cfg)
				a, b := twoJobs()
				mustSubmit(t, s, t0, a, b)
				st, err := s.Order(t0, nil)
				if err != nil {
					t.Fatal(err)
				}
				if st[0].Job != tc.first {
					t.Fatalf("order %v, %v; want %s first", st[0].Job, st[1].Job, tc.first)
				}
				for _, js := range st {
					if js.Job == "A" && js.Figures.Remaining.Time != tc.remA {
						t.Fatalf("A remaining %v, want %v", js.Figures.Remaining.Time, tc.remA)
					}
					if js.Figures.TaskTime != (estimate.TaskTime{Avg: 10 * sec, Known: true}) {
						t.Fatalf("%s: kill threshold %+v, want the pooled 10s", js.Job, js.Figures.TaskTime)
					}
				}
				expect(t, heartbeat(t, s, t0, cl.NodeList[0]), tc.want)
			})
		})
	}
}

// Once the hinted phase has a finished task of its own, the observed
// figure takes over: A's reduces (2 now, one finished in 30s) are priced
// at the phase's own 30s with PerPhaseTaskTime, at the pooled average
// without; before any task of the job finished, formula (5) applies.
func TestPhaseHintsYieldToObservations(t *testing.T) {
	mk := func() *hostJob {
		// maps 4 finished in 40s, reduces: 1 of 2 finished in 30s; pooled
		// Tavg = 70s/5 = 14s.
		return hinted(pjob("A", 0, 500*sec,
			schedkit.PhaseProgress{Total: 4, Finished: 4, FinishedDurationSum: 40 * sec},
			schedkit.PhaseProgress{Total: 2, Finished: 1, Ready: 1, FinishedDurationSum: 30 * sec}), -1, 120*sec)
	}
	fresh := hinted(pjob("F", 0, 500*sec, schedkit.PhaseProgress{Total: 4, Ready: 4}, schedkit.PhaseProgress{Total: 1}), 20*sec, 120*sec)
	tests := []struct {
		name string
		cfg  lss.Config
		job  *hostJob
		want estimate.Spare
	}{
		// ⌈1/1⌉·14s = 14s: spare 500s − 14s
		{"pooled mode: reduce observed, hint ignored", lss.Config{PhaseTaskTimeHints: true}, mk(), estimate.Spare{Time: 486 * sec}},
		// ⌈1/1⌉·30s = 30s: spare 470s
		{"per-phase: the reduce's own 30s", lss.Config{PhaseTaskTimeHints: true, PerPhaseTaskTime: true}, mk(), estimate.Spare{Time: 470 * sec}},
		{"nothing finished: formula (5), spare 500s", lss.Config{PhaseTaskTimeHints: true}, fresh, estimate.Spare{Time: 500 * sec, Initial: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Cluster = newCluster(1, 2, 1, 0)
			s := mustNew(t, cfg)
			mustSubmit(t, s, t0, tc.job)
			st, err := s.Order(t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := st[0].Figures.Spare; got != tc.want {
				t.Fatalf("spare %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Bad hints: negative or beyond estimate.Horizon is ErrInvalidJob at
// Submit (nothing queued) and Update (the old snapshot stays); without
// the option hints are not read. A hint at Horizon is legal and makes
// the job look infeasible, which is reported as such, never a panic.
func TestBadPhaseHints(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, PhaseTaskTimeHints: true, Literal: lit})
		off := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		for _, h := range []time.Duration{-1, -time.Hour, estimate.Horizon + 1, math.MaxInt64} {
			a, _ := twoJobs()
			a.PhaseHints[1] = h
			err := s.Submit(t0, a)
			var e *lss.Error
			if !errors.Is(err, lss.ErrInvalidJob) || !errorsAs(err, &e) || e.Op != "Submit" {
				t.Errorf("hint %v: Submit error %v, want ErrInvalidJob", h, err)
			}
			a.Key = schedkit.JobID("off" + h.String())
			if err := off.Submit(t0, a); err != nil {
				t.Errorf("hint %v without the option: %v", h, err)
			}
		}
		if s.Len() != 0 {
			t.Fatalf("Len = %d after refused submissions", s.Len())
		}
		a, b := twoJobs()
		mustSubmit(t, s, t0, a, b)
		a.PhaseHints[1] = -sec
		if err := s.Update("A"); !errors.Is(err, lss.ErrInvalidJob) {
			t.Fatalf("Update with a negative hint: %v", err)
		}
		// The snapshot with the 120s hint stays: A first.
		expect(t, heartbeat(t, s, t0, cl.NodeList[0]), "assign A map×2 on n00 (pass 2)\n")

		s2 := mustNew(t, lss.Config{Cluster: cl, PhaseTaskTimeHints: true, Literal: lit})
		a, _ = twoJobs()
		a.PhaseHints[1] = estimate.Horizon
		mustSubmit(t, s2, t0, a)
		ds := heartbeat(t, s2, t0, cl.NodeList[0])
		if len(ds) != 1 || ds[0].Action != lss.Kill || ds[0].Reason != lss.SpareExhausted {
			t.Fatalf("hint at Horizon: %v", lines(ds))
		}
	})
}

// Admission applies the hint rule per phase: 10 maps on 2 slots at the
// job's 10s TaskTimeHint + 1 reduce at its 60s phase hint = 5·10s + 60s
// = 110s > 100s: refused; without the option (5 + 1)·10s = 60s: admitted.
func TestPhaseHintsAdmission(t *testing.T) {
	for _, on := range []bool{false, true} {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Admission: true, PhaseTaskTimeHints: on})
		j := hinted(newJob("j", t0, at(100*sec), 10, 1), -1, 60*sec)
		j.Hint = 10 * sec
		err := s.Submit(t0, j)
		var re *lss.RefusedError
		switch {
		case on && (!errorsAs(err, &re) || re.Remaining.Time != 110*sec):
			t.Fatalf("with hints: %v (%+v), want refused with remaining 110s", err, re)
		case !on && err != nil:
			t.Fatalf("without hints: %v", err)
		}
	}
}
