package dbs_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/estimate"
)

const sec = time.Second

func TestWeightModel1(t *testing.T) {
	tests := []struct {
		name string
		in   dbs.WeightInput
		want dbs.WeightFigures
	}{
		{
			// T̂/D = 300/600 = 0.5; φ = 1 ignores the budget.
			name: "deadline only",
			in:   dbs.WeightInput{Phi: 1, Remaining: 300 * sec, DeadlineLeft: 600 * sec, SlotSeconds: 1000, Price: 0.05, BudgetLeft: 10},
			want: dbs.WeightFigures{Cost: 50, TimeTerm: 0.5, W: 0.5},
		},
		{
			// Ĉ = 0.05 × 1000 = 50; Ĉ/B = 50/200 = 0.25; φ = 0 ignores the deadline.
			name: "budget only",
			in:   dbs.WeightInput{Phi: 0, Remaining: 300 * sec, DeadlineLeft: -sec, SlotSeconds: 1000, Price: 0.05, BudgetLeft: 200},
			want: dbs.WeightFigures{Cost: 50, CostTerm: 0.25, W: 0.25},
		},
		{
			// 0.5 × 0.5 + 0.5 × 0.25 = 0.375.
			name: "both",
			in:   dbs.WeightInput{Phi: 0.5, Remaining: 300 * sec, DeadlineLeft: 600 * sec, SlotSeconds: 1000, Price: 0.05, BudgetLeft: 200},
			want: dbs.WeightFigures{Cost: 50, TimeTerm: 0.5, CostTerm: 0.25, W: 0.375},
		},
		{
			name: "deadline passed with work left",
			in:   dbs.WeightInput{Phi: 1, Remaining: 10 * sec, DeadlineLeft: -5 * sec, SlotSeconds: 10, Price: 1},
			want: dbs.WeightFigures{Cost: 10, TimeTerm: dbs.MaxTerm, W: dbs.MaxTerm},
		},
		{
			name: "no capacity",
			in:   dbs.WeightInput{Phi: 0.5, CannotFinish: true, DeadlineLeft: 600 * sec, SlotSeconds: 100, Price: 1, BudgetLeft: 400},
			want: dbs.WeightFigures{Cost: 100, TimeTerm: dbs.MaxTerm, CostTerm: 0.25, W: 0.5*dbs.MaxTerm + 0.125},
		},
		{
			name: "budget spent",
			in:   dbs.WeightInput{Phi: 0, SlotSeconds: 100, Price: 1, BudgetLeft: -3},
			want: dbs.WeightFigures{Cost: 100, CostTerm: dbs.MaxTerm, W: dbs.MaxTerm},
		},
		{
			name: "nothing left",
			in:   dbs.WeightInput{Phi: 0.5, DeadlineLeft: -sec, Price: 1, BudgetLeft: -1},
			want: dbs.WeightFigures{},
		},
		{
			// 1e9 s of work in 1 s: capped.
			name: "capped",
			in:   dbs.WeightInput{Phi: 1, Remaining: 1e9 * sec, DeadlineLeft: sec, Price: 1},
			want: dbs.WeightFigures{TimeTerm: dbs.MaxTerm, W: dbs.MaxTerm},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, dbs.Weight(tc.in)); diff != "" {
				t.Errorf("Weight(%+v) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestMinimumSlotsModel2(t *testing.T) {
	maps := dbs.PhaseWork{Unfinished: 20, TaskTime: 30 * sec} // 600 slot-s
	reds := dbs.PhaseWork{Unfinished: 4, TaskTime: 30 * sec}  // 120 slot-s
	two := 2 * estimate.Slot                                  // ⌈4/2⌉ = 2 reduce waves
	tests := []struct {
		name string
		in   dbs.MinInput
		want dbs.MinResult
	}{
		{
			// Sr_max = 600 − 2·30 − 60 = 480; nm = ⌈600/480⌉ = 2;
			// nr = ⌈120 / (600 − 60 − 480)⌉ = ⌈120/60⌉ = 2.
			name: "deadline view",
			in:   dbs.MinInput{Phi: 1, Map: maps, Reduce: reds, ReduceCapacity: two, DeadlineLeft: 600 * sec, Transfer: 60 * sec},
			want: dbs.MinResult{Map: 2, Reduce: 2, Deadline: dbs.MinView{Applies: true, Window: 600 * sec, ReduceStartLatest: 480 * sec, Map: 2, Reduce: 2}},
		},
		{
			// Maps done, a reduce ran (shuffle no longer charged): Sr = now,
			// nr = ⌈(4·30 − 20) / 100⌉ = 1.
			name: "reduce only, shuffle done",
			in: dbs.MinInput{Phi: 1, Reduce: dbs.PhaseWork{Unfinished: 4, TaskTime: 30 * sec, Elapsed: 20 * sec},
				ReduceCapacity: two, ReduceStarted: true, DeadlineLeft: 100 * sec, Transfer: 60 * sec},
			want: dbs.MinResult{Map: 0, Reduce: 1, Deadline: dbs.MinView{Applies: true, Window: 100 * sec, ReduceStartLatest: 40 * sec, Reduce: 1}},
		},
		{
			// Sr_max = 100 − 60 − 60 = −20 ≤ 0: the deadline cannot be met.
			name: "deadline unmeetable",
			in:   dbs.MinInput{Phi: 1, Map: maps, Reduce: reds, ReduceCapacity: two, DeadlineLeft: 100 * sec, Transfer: 60 * sec},
			want: dbs.MinResult{Deadline: dbs.MinView{Applies: true, Window: 100 * sec, ReduceStartLatest: -20 * sec, Unmeetable: true}, Unmeetable: true},
		},
		{
			// Allowance 2000 slot-s over 4 held slots: window 500 s;
			// Sr_max = 500 − 60 = 440; nm = ⌈600/440⌉ = 2; nr = ⌈120/60⌉ = 2.
			name: "budget view",
			in:   dbs.MinInput{Phi: 0, Map: maps, Reduce: reds, ReduceCapacity: two, DeadlineLeft: -sec, Allowance: 2000, Held: 4},
			want: dbs.MinResult{Map: 2, Reduce: 2, Budget: dbs.MinView{Applies: true, Window: 500 * sec, ReduceStartLatest: 440 * sec, Map: 2, Reduce: 2}},
		},
		{
			// Deadline: Sr_max = 300 − 60 = 240, nm = ⌈600/240⌉ = 3, nr = 2;
			// budget as above (2, 2): the larger of each.
			name: "both views",
			in:   dbs.MinInput{Phi: 0.5, Map: maps, Reduce: reds, ReduceCapacity: two, DeadlineLeft: 300 * sec, Allowance: 2000, Held: 4},
			want: dbs.MinResult{Map: 3, Reduce: 2,
				Deadline: dbs.MinView{Applies: true, Window: 300 * sec, ReduceStartLatest: 240 * sec, Map: 3, Reduce: 2},
				Budget:   dbs.MinView{Applies: true, Window: 500 * sec, ReduceStartLatest: 440 * sec, Map: 2, Reduce: 2}},
		},
		{
			// Budget spent: window 0, Sr_max = −60: unmeetable; the deadline
			// view still gives its minimum.
			name: "budget unmeetable",
			in:   dbs.MinInput{Phi: 0.5, Map: maps, Reduce: reds, ReduceCapacity: two, DeadlineLeft: 600 * sec, Allowance: -5, Held: 4},
			want: dbs.MinResult{Map: 2, Reduce: 2,
				Deadline: dbs.MinView{Applies: true, Window: 600 * sec, ReduceStartLatest: 540 * sec, Map: 2, Reduce: 2},
				Budget:   dbs.MinView{Applies: true, ReduceStartLatest: -60 * sec, Unmeetable: true}},
		},
		{
			// 90 slot-s of maps before Sr_max = 90 − 60 = 30 s: ⌈90/30⌉ =
			// 3, every map at once: the most the phase can use.
			name: "every task at once",
			in: dbs.MinInput{Phi: 1, Map: dbs.PhaseWork{Unfinished: 3, TaskTime: 30 * sec},
				Reduce: dbs.PhaseWork{Unfinished: 1, TaskTime: 60 * sec}, ReduceCapacity: two, DeadlineLeft: 90 * sec},
			want: dbs.MinResult{Map: 3, Reduce: 1, Deadline: dbs.MinView{Applies: true, Window: 90 * sec, ReduceStartLatest: 30 * sec, Map: 3, Reduce: 1}},
		},
		{
			// 90 slot-s of maps before Sr_max = 61 − 60 = 1 s: 90 slots,
			// more than the 3 maps can use (each would have to run in
			// 1 s): unmeetable, not capped at 3.
			name: "beyond its tasks",
			in: dbs.MinInput{Phi: 1, Map: dbs.PhaseWork{Unfinished: 3, TaskTime: 30 * sec},
				Reduce: dbs.PhaseWork{Unfinished: 1, TaskTime: 60 * sec}, ReduceCapacity: two, DeadlineLeft: 61 * sec},
			want: dbs.MinResult{Deadline: dbs.MinView{Applies: true, Window: 61 * sec, ReduceStartLatest: sec, Unmeetable: true}, Unmeetable: true},
		},
		{
			// Sr_max = 300 − 60 = 240: ⌈600/240⌉ = 3 map slots; the
			// cluster has 3: met with all of them.
			name: "every map slot of the cluster",
			in:   dbs.MinInput{Phi: 1, Map: maps, Reduce: reds, ReduceCapacity: two, DeadlineLeft: 300 * sec, ClusterSlots: [2]int{3, 2}},
			want: dbs.MinResult{Map: 3, Reduce: 2, Deadline: dbs.MinView{Applies: true, Window: 300 * sec, ReduceStartLatest: 240 * sec, Map: 3, Reduce: 2}},
		},
		{
			// The same needs 2.5 map slots from a cluster of 2:
			// unmeetable.
			name: "beyond the cluster",
			in:   dbs.MinInput{Phi: 1, Map: maps, Reduce: reds, ReduceCapacity: two, DeadlineLeft: 300 * sec, ClusterSlots: [2]int{2, 2}},
			want: dbs.MinResult{Deadline: dbs.MinView{Applies: true, Window: 300 * sec, ReduceStartLatest: 240 * sec, Unmeetable: true}, Unmeetable: true},
		},
		{
			// Reduce work left but no reduce capacity: never divided by.
			name: "no reduce capacity",
			in:   dbs.MinInput{Phi: 1, Map: maps, Reduce: reds, DeadlineLeft: 600 * sec},
			want: dbs.MinResult{Deadline: dbs.MinView{Applies: true, Window: 600 * sec, Unmeetable: true}, Unmeetable: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, dbs.MinimumSlots(tc.in)); diff != "" {
				t.Errorf("MinimumSlots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueueForAndSuccess(t *testing.T) {
	for _, tc := range []struct {
		phi float64
		q   dbs.Queue
		ok  bool
	}{{1, dbs.High, true}, {0.5, dbs.Mid, true}, {0, dbs.Low, true}, {0.7, 0, false}, {math.Copysign(0, -1), dbs.Low, true}} {
		if q, ok := dbs.QueueFor(tc.phi); q != tc.q || ok != tc.ok {
			t.Errorf("QueueFor(%v) = %v, %v; want %v, %v", tc.phi, q, ok, tc.q, tc.ok)
		}
	}
	for _, tc := range []struct {
		phi          float64
		dl, bud, out bool
	}{
		{1, true, false, true}, {1, false, true, false},
		{0, false, true, true}, {0, true, false, false},
		{0.5, true, false, true}, {0.5, false, true, true}, {0.5, false, false, false},
		{0.3, true, true, false},
	} {
		if got := dbs.Success(tc.phi, tc.dl, tc.bud); got != tc.out {
			t.Errorf("Success(%v, %v, %v) = %v", tc.phi, tc.dl, tc.bud, got)
		}
	}
}

// TestUpdateWeightModel3: model 3 on worked numbers (held h, needed s,
// W₁, the queue's average → W, marks, move).
func TestUpdateWeightModel3(t *testing.T) {
	tests := []struct {
		name string
		in   dbs.UpdateInput
		want dbs.UpdateResult
	}{
		{
			// h < s: W = 0.2·(1 + 3/4) = 0.35, below the average 0.6:
			// raised at least halfway, to (0.2 + 0.6)/2 = 0.4; no mark.
			name: "short below average",
			in:   dbs.UpdateInput{W1: 0.2, Average: 0.6, Held: 1, Needed: 4},
			want: dbs.UpdateResult{W: 0.4},
		},
		{
			// W = 0.6·(1 + 3/4) = 1.05 at or above the average: marked.
			name: "short above average",
			in:   dbs.UpdateInput{W1: 0.6, Average: 0.4, Held: 1, Needed: 4},
			want: dbs.UpdateResult{W: 1.05, MarkShort: true},
		},
		{
			// Marked at the previous update and still short: promoted.
			name: "short above average, marked",
			in:   dbs.UpdateInput{W1: 0.6, Average: 0.4, Held: 1, Needed: 4, MarkedShort: true},
			want: dbs.UpdateResult{W: 1.05, MarkShort: true, Move: dbs.Promote},
		},
		{
			// A job that cannot reach any minimum needs all 6 slots its
			// tasks could use (not 0): holding 2 it is short,
			// W = 10⁶·(1 + 4/6), and promoted once marked.
			name: "unmeetable: short of what it could use",
			in:   dbs.UpdateInput{W1: dbs.MaxTerm, Average: 0.5, Held: 2, Needed: 6, MarkedShort: true},
			want: dbs.UpdateResult{W: dbs.MaxTerm * (1 + 4.0/6), MarkShort: true, Move: dbs.Promote},
		},
		{
			// h > s: W = 0.8·(1 − 1/8) = 0.7, above the average 0.4:
			// lowered at least halfway, to (0.8 + 0.4)/2 = 0.6; marked.
			name: "surplus above average",
			in:   dbs.UpdateInput{W1: 0.8, Average: 0.4, Held: 4, Needed: 3},
			want: dbs.UpdateResult{W: 0.6, MarkSurplus: true},
		},
		{
			// W = 0.8·(1 − 4/12) ≈ 0.533, below halfway (0.6): kept;
			// marked before: demoted.
			name: "surplus above average, marked",
			in:   dbs.UpdateInput{W1: 0.8, Average: 0.4, Held: 6, Needed: 2, MarkedSurplus: true},
			want: dbs.UpdateResult{W: 0.8 * (1 - 4.0/12), MarkSurplus: true, Move: dbs.Demote},
		},
		{
			// Below the average a surplus lowers W = 0.3·(1 − 2/8) = 0.225
			// and marks nothing.
			name: "surplus below average",
			in:   dbs.UpdateInput{W1: 0.3, Average: 0.5, Held: 4, Needed: 2},
			want: dbs.UpdateResult{W: 0.225},
		},
		{
			// Marked at the previous update and still holding a surplus:
			// demoted, though its W₁ is now below the average (the
			// paper asks only that it "still obtains too many
			// resources"); W = 0.3·(1 − 2/8) = 0.225, marked until moved.
			name: "surplus below average, marked",
			in:   dbs.UpdateInput{W1: 0.3, Average: 0.5, Held: 4, Needed: 2, MarkedSurplus: true},
			want: dbs.UpdateResult{W: 0.225, MarkSurplus: true, Move: dbs.Demote},
		},
		{
			// The first update: W₁ 1 at or above the average 0.9,
			// holding 2 of 4: W = 1·(1 + 2/4) = 1.5, marked short.
			name: "short at 1 over 0.9",
			in:   dbs.UpdateInput{W1: 1, Average: 0.9, Held: 2, Needed: 4},
			want: dbs.UpdateResult{W: 1.5, MarkShort: true},
		},
		{
			// Its next update: W₁ slipped to 0.89, just below the average
			// 0.9, and it still holds 2 of 4: promoted all the same (the
			// paper: "if at the next update the job still cannot satisfy
			// its minimum slots, it is submitted to the queue above").
			// W = 0.89·1.5 = 1.335, above halfway (0.895): kept.
			name: "short at 0.89 under 0.9, marked",
			in:   dbs.UpdateInput{W1: 0.89, Average: 0.9, Held: 2, Needed: 4, MarkedShort: true},
			want: dbs.UpdateResult{W: 0.89 * 1.5, MarkShort: true, Move: dbs.Promote},
		},
		{
			// The surplus direction with the same figures: W₁ 1 over 0.9,
			// holding 4 of 2: W = 1·(1 − 2/8) = 0.75, under halfway
			// (0.95): kept; marked surplus.
			name: "surplus at 1 over 0.9",
			in:   dbs.UpdateInput{W1: 1, Average: 0.9, Held: 4, Needed: 2},
			want: dbs.UpdateResult{W: 0.75, MarkSurplus: true},
		},
		{
			// Next update at 0.89 under 0.9, still holding 4 of 2:
			// demoted; W = 0.89·0.75 = 0.6675.
			name: "surplus at 0.89 under 0.9, marked",
			in:   dbs.UpdateInput{W1: 0.89, Average: 0.9, Held: 4, Needed: 2, MarkedSurplus: true},
			want: dbs.UpdateResult{W: 0.89 * 0.75, MarkSurplus: true, Move: dbs.Demote},
		},
		{
			// Marked short before, now holding what it needs: no move,
			// the mark cleared.
			name: "marked short, shortfall ended",
			in:   dbs.UpdateInput{W1: 0.89, Average: 0.9, Held: 4, Needed: 4, MarkedShort: true},
			want: dbs.UpdateResult{W: 0.89},
		},
		{
			// Marked short before, now holding a surplus: not promoted;
			// below the average it is not marked surplus either.
			name: "marked short, now a surplus",
			in:   dbs.UpdateInput{W1: 0.5, Average: 0.9, Held: 4, Needed: 2, MarkedShort: true},
			want: dbs.UpdateResult{W: 0.5 * 0.75},
		},
		{
			// h = s: W = W₁, marks cleared.
			name: "holding what it needs",
			in:   dbs.UpdateInput{W1: 0.3, Average: 0.1, Held: 3, Needed: 3, MarkedShort: true},
			want: dbs.UpdateResult{W: 0.3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dbs.UpdateWeight(tc.in)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("UpdateWeight (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMinimumSlotsReducesInOneWave: while maps remain, model 2 plans the
// reduces from Sr_max in ⌈R/nr⌉ waves, so their quotient is R/⌈R/nr⌉ —
// with R ≤ nr every reduce at once, exactly R — whatever the rounding of
// Sr_max in a long window: the view is never unmeetable for it (it was,
// at a 9,281.8 s window, when the quotient rounded a hair above R).
func TestMinimumSlotsReducesInOneWave(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 10000 {
		tt := time.Duration(1+rng.IntN(100_000)) * time.Millisecond
		r := 1 + rng.IntN(8)
		in := dbs.MinInput{Phi: 1,
			Map:            dbs.PhaseWork{Unfinished: 1 + rng.IntN(10), TaskTime: tt},
			Reduce:         dbs.PhaseWork{Unfinished: r, TaskTime: tt},
			ReduceCapacity: estimate.Capacity(r+rng.IntN(4)) * estimate.Slot,
			DeadlineLeft:   time.Duration(rng.Int64N(int64(1000 * time.Hour))),
			Transfer:       time.Duration(rng.IntN(100)) * time.Second,
		}
		got := dbs.MinimumSlots(in)
		if !got.Deadline.Unmeetable && got.Reduce != r {
			t.Fatalf("%+v: reduce minimum %d, want all %d at once", in, got.Reduce, r)
		}
		srMax := in.DeadlineLeft - tt - in.Transfer
		if got.Deadline.Unmeetable && srMax > time.Duration(in.Map.Unfinished)*tt {
			t.Fatalf("%+v: unmeetable with Sr_max %v, room for every map at once", in, srMax)
		}
	}
}
