package dbs_test

import (
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/dbs"
)

// model3Job returns a φ = 1 job of 30 maps and 2 reduces, deadline 400 s,
// submitted at t0 and seen at t0 + 20 s: 2 maps finished in 10 s each,
// 8 running since t0 + 10 s, 20 ready. Its deadline view needs one map
// slot (200 slot-seconds left in 380 s): holding 8, it has a surplus.
func model3Job() *hJob {
	j := mrJob("j", 1, 30, 2, 400*sec, 0)
	m := &j.Counters[0]
	m.Finished, m.FinishedDurationSum = 2, 20*sec
	m.Running, m.RunningStartSum, m.Ready = 8, 8*10*sec, 20
	return j
}

// ticks runs n weight updates Δ apart from *now and returns the moves.
func ticks(t *testing.T, s *dbs.Scheduler, now *time.Time, n int) []dbs.Decision {
	t.Helper()
	var out []dbs.Decision
	for range n {
		*now = now.Add(dbs.DefaultInterval)
		ds, err := s.Tick(*now, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ds...)
	}
	return out
}

// TestTickUnmeetableNeverSurplus: a job whose only view becomes
// unmeetable (its task time grows past what its deadline leaves for the
// reduces) is short of every slot its tasks could use, not holding a
// surplus: it is not demoted (it was, when an unmeetable view counted as
// a minimum of 0), and its weight is raised, not lowered.
func TestTickUnmeetableNeverSurplus(t *testing.T) {
	c := newCluster(4, 4, 2)
	s, err := dbs.New(dbs.Config{Cluster: c})
	if err != nil {
		t.Fatal(err)
	}
	j := model3Job()
	m := &j.Counters[0]
	m.Finished, m.FinishedDurationSum = 2, 2*400*sec // Tr = 400 s > 380 s left
	now := t0.Add(20 * sec)
	if err := s.Submit(now, j); err != nil {
		t.Fatal(err)
	}
	if ds := ticks(t, s, &now, 6); len(ds) > 0 {
		t.Errorf("moves %v", ds)
	}
	st, err := s.Status("j")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Min.Unmeetable || st.Queue != dbs.High {
		t.Errorf("unmeetable %v, queue %v: want true, high", st.Min.Unmeetable, st.Queue)
	}
	// Held 8 of the 28 its maps could use: W = W₁·(1 + 20/28).
	if want := st.Model1.W * (1 + 20.0/28); math.Abs(st.Weight-want) > 1e-12*want {
		t.Errorf("weight %v, want %v", st.Weight, want)
	}
}

// TestTickHoldDown: a job demoted for a surplus whose task time then
// grows so that its deadline cannot be met is promoted back (model 3:
// a job that cannot reach its minimum goes up a queue), but not within
// the hold-down of its demotion; with no hold-down it is promoted one
// second after it was demoted.
func TestTickHoldDown(t *testing.T) {
	for _, tc := range []struct {
		holdDown time.Duration
		wantGap  time.Duration
	}{
		{0, 5 * sec},                  // the default: 10 updates
		{-1, 2 * dbs.DefaultInterval}, // none: marked, then moved
		{2 * sec, 2 * sec},            // 4 updates
	} {
		c := newCluster(4, 4, 2)
		s, err := dbs.New(dbs.Config{Cluster: c, HoldDown: tc.holdDown})
		if err != nil {
			t.Fatal(err)
		}
		j := model3Job()
		now := t0.Add(20 * sec)
		if err := s.Submit(now, j); err != nil {
			t.Fatal(err)
		}
		ds := ticks(t, s, &now, 2)
		if len(ds) != 1 || ds[0].Action != dbs.Demote || ds[0].Reason != dbs.ReasonSurplus || ds[0].To != dbs.Mid {
			t.Fatalf("hold-down %v: moves %v, want the demotion to mid", tc.holdDown, ds)
		}
		demoted := now
		// A map finished after 1180 s: Tr = 400 s; 2 maps still run.
		m := &j.Counters[0]
		m.Finished, m.FinishedDurationSum = 3, 1200*sec
		m.Running, m.RunningStartSum, m.Ready = 2, 2*10*sec, 25
		if err := s.Update("j"); err != nil {
			t.Fatal(err)
		}
		var promoted time.Time
		for range 40 {
			for _, d := range ticks(t, s, &now, 1) {
				if d.Action != dbs.Promote || d.Reason != dbs.ReasonUnmeetable {
					t.Fatalf("hold-down %v: unexpected %v (%v)", tc.holdDown, d, d.Reason)
				}
				promoted = now
			}
			if !promoted.IsZero() {
				break
			}
		}
		if got := promoted.Sub(demoted); got != tc.wantGap {
			t.Errorf("hold-down %v: promoted %v after the demotion, want %v", tc.holdDown, got, tc.wantGap)
		}
	}
}

// TestTickBudgetRescue: a φ = 0.5 job past its deadline, its maps done
// and one 10 s reduce left, whose budget view cannot be met at Mid's
// price (0.25 left buys 8.3 s on its one slot) but can at Low's (12.5 s)
// cannot reach any minimum; its promotion is unaffordable, so model 3
// moves it down a queue, where its budget can still be met
// (ReasonBudget); with Ablations.NoBudgetDemotion it stays.
func TestTickBudgetRescue(t *testing.T) {
	for _, off := range []bool{false, true} {
		c := newCluster(4, 4, 2)
		s, err := dbs.New(dbs.Config{Cluster: c, Ablations: dbs.Ablations{NoBudgetDemotion: off}})
		if err != nil {
			t.Fatal(err)
		}
		j := mrJob("j", 0.5, 10, 1, 30*sec, 1)
		m := &j.Counters[0]
		m.Ready, m.Finished, m.FinishedDurationSum = 0, 10, 100*sec
		j.Counters[1].Ready = 1
		j.Paid = 0.75
		now := t0.Add(40 * sec)
		if err := s.Submit(now, j); err != nil {
			t.Fatal(err)
		}
		ds := ticks(t, s, &now, 2)
		if off {
			if len(ds) != 0 {
				t.Errorf("NoBudgetDemotion: moves %v, want none", ds)
			}
			continue
		}
		if len(ds) != 1 || ds[0].Action != dbs.Demote || ds[0].Reason != dbs.ReasonBudget || ds[0].To != dbs.Low {
			t.Fatalf("moves %v, want a demotion to low for the budget", ds)
		}
		if st, _ := s.Status("j"); !st.Min.Unmeetable || !st.PromotionUnaffordable {
			t.Errorf("unmeetable %v, promotion unaffordable %v: want both", st.Min.Unmeetable, st.PromotionUnaffordable)
		}
	}
}

// TestTickAffordability: a Mid job (φ = 0.5, 20 maps of 30 s, deadline
// 400 s) holding one of the two map slots it needs is marked short and,
// at the next update, promoted to High if its budget covers what is left
// there (0.05 × 660 slot-s = 33): with a budget of 40 it is; with 30
// it stays, its promotion unaffordable — unless Ablations.NoAffordability.
func TestTickAffordability(t *testing.T) {
	for _, tc := range []struct {
		budget   float64
		abl      dbs.Ablations
		promoted bool
	}{
		{40, dbs.Ablations{}, true},
		{30, dbs.Ablations{}, false},
		{30, dbs.Ablations{NoAffordability: true}, true},
	} {
		c := newCluster(5, 2, 1)
		s, err := dbs.New(dbs.Config{Cluster: c, DefaultTaskTime: 30 * sec, Ablations: tc.abl})
		if err != nil {
			t.Fatal(err)
		}
		j := mrJob("both", 0.5, 20, 2, 400*sec, tc.budget)
		m := &j.Counters[0]
		m.Ready, m.Running = 19, 1
		if err := s.Submit(t0, j); err != nil {
			t.Fatal(err)
		}
		now := t0
		ds := ticks(t, s, &now, 2)
		promoted := len(ds) == 1 && ds[0].Action == dbs.Promote && ds[0].To == dbs.High
		st, _ := s.Status("both")
		if promoted != tc.promoted || st.PromotionUnaffordable == tc.promoted {
			t.Errorf("budget %v, %+v: moves %v, unaffordable %v; want promoted %v", tc.budget, tc.abl, ds, st.PromotionUnaffordable, tc.promoted)
		}
	}
}
