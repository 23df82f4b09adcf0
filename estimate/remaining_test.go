package estimate_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

func TestWaves(t *testing.T) {
	tests := []struct {
		name string
		u    int
		c    estimate.Capacity
		want int64
		ok   bool
	}{
		{"⌈10/4⌉ = 3 (partial last wave)", 10, 4 * estimate.Slot, 3, true},
		{"⌈8/4⌉ = 2 (whole waves)", 8, 4 * estimate.Slot, 2, true},
		{"⌈1/10⌉ = 1", 1, 10 * estimate.Slot, 1, true},
		{"no unfinished work: 0 waves even on 0 slots", 0, 0, 0, true},
		{"unfinished work on 0 slots: cannot finish", 3, 0, 0, false},
		{"2.5 effective slots: ⌈10/2.5⌉ = 4", 10, 2500, 4, true},
		{"2.5 effective slots: ⌈11/2.5⌉ = 5", 11, 2500, 5, true},
		{"0.001 slot: ⌈max/0.001⌉ saturates", math.MaxInt, 1, math.MaxInt64, true},
		{"negative count", -1, estimate.Slot, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := estimate.Waves(tc.u, tc.c)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Waves(%d, %d) = %d, %v; want %d, %v", tc.u, tc.c, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestElapsedShare(t *testing.T) {
	tests := []struct {
		name string
		r    time.Duration
		c    estimate.Capacity
		want time.Duration
	}{
		{"30s over 4 slots = 7.5s", 30 * s, 4 * estimate.Slot, 7500 * time.Millisecond},
		{"10ns over 3 slots rounds down to 3ns", 10, 3 * estimate.Slot, 3},
		{"30s over 2.5 effective slots = 12s", 30 * s, 2500, 12 * s},
		{"nothing running", 0, 4 * estimate.Slot, 0},
		{"no capacity: no division, zero", 30 * s, 0, 0},
		{"capped at Horizon", math.MaxInt64, 1, estimate.Horizon},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := estimate.ElapsedShare(tc.r, tc.c); got != tc.want {
				t.Fatalf("ElapsedShare(%v, %d) = %v; want %v", tc.r, tc.c, got, tc.want)
			}
		})
	}
}

func TestRemainingTime(t *testing.T) {
	const sl = estimate.Slot
	tests := []struct {
		name   string
		phases []estimate.PhaseLoad
		want   estimate.Remaining
	}{
		{"(⌈10/4⌉ + ⌈1/2⌉)·20s = 80s, nothing running",
			[]estimate.PhaseLoad{{10, 0, 20 * s, 4 * sl}, {1, 0, 20 * s, 2 * sl}},
			estimate.Remaining{Time: 80 * s, Work: 80 * s}},
		{"running maps' 30s elapsed over 4 slots subtracted: 80s − 7.5s = 72.5s",
			[]estimate.PhaseLoad{{10, 30 * s, 20 * s, 4 * sl}, {1, 0, 20 * s, 2 * sl}},
			estimate.Remaining{Time: 72500 * time.Millisecond, Work: 80 * s, Credit: 7500 * time.Millisecond}},
		{"partial wave: ⌈9/4⌉ = 3 waves, same as 12 tasks",
			[]estimate.PhaseLoad{{9, 0, 20 * s, 4 * sl}, {1, 0, 20 * s, 2 * sl}},
			estimate.Remaining{Time: 80 * s, Work: 80 * s}},
		{"maps done; 3 reduces on 2 slots, one running 5s: ⌈3/2⌉·20s − 5s/2 = 37.5s",
			[]estimate.PhaseLoad{{0, 0, 20 * s, 4 * sl}, {3, 5 * s, 20 * s, 2 * sl}},
			estimate.Remaining{Time: 37500 * time.Millisecond, Work: 40 * s, Credit: 2500 * time.Millisecond}},
		{"last task ran 30s > 20s average on 1 slot: 20s − 30s = −10s",
			[]estimate.PhaseLoad{{1, 30 * s, 20 * s, 1 * sl}},
			estimate.Remaining{Time: -10 * s, Work: 20 * s, Credit: 30 * s}},
		{"per-phase averages: ⌈10/4⌉·10s + ⌈1/2⌉·60s = 90s",
			[]estimate.PhaseLoad{{10, 0, 10 * s, 4 * sl}, {1, 0, 60 * s, 2 * sl}},
			estimate.Remaining{Time: 90 * s, Work: 90 * s}},
		{"heterogeneous 2.5 effective slots: ⌈10/2.5⌉·20s − 30s/2.5 = 68s",
			[]estimate.PhaseLoad{{10, 30 * s, 20 * s, 2500}},
			estimate.Remaining{Time: 68 * s, Work: 80 * s, Credit: 12 * s}},
		{"three sequential phases: (⌈6/3⌉ + ⌈4/2⌉ + ⌈1/1⌉)·10s = 50s",
			[]estimate.PhaseLoad{{6, 0, 10 * s, 3 * sl}, {4, 0, 10 * s, 2 * sl}, {1, 0, 10 * s, 1 * sl}},
			estimate.Remaining{Time: 50 * s, Work: 50 * s}},
		{"reduce slots gone with a reduce unfinished: cannot finish, no division",
			[]estimate.PhaseLoad{{10, 0, 20 * s, 4 * sl}, {1, 0, 20 * s, 0}},
			estimate.Remaining{Time: estimate.Horizon, Work: estimate.Horizon, CannotFinish: true, NoCapacity: true}},
		{"reduce slots gone but reduces done: fine",
			[]estimate.PhaseLoad{{10, 0, 20 * s, 4 * sl}, {0, 0, 20 * s, 0}},
			estimate.Remaining{Time: 60 * s, Work: 60 * s}},
		{"work beyond Horizon: cannot finish",
			[]estimate.PhaseLoad{{math.MaxInt32, 0, estimate.Horizon / 1000, 1 * sl}},
			estimate.Remaining{Time: estimate.Horizon, Work: estimate.Horizon, CannotFinish: true}},
		{"no phases: nothing remains", nil, estimate.Remaining{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := estimate.RemainingTime(tc.phases)
			if err != nil || got != tc.want {
				t.Fatalf("RemainingTime = %+v, %v\nwant %+v", got, err, tc.want)
			}
		})
	}
	bad := []estimate.PhaseLoad{
		{Unfinished: -1, Capacity: sl},
		{Unfinished: 1, Elapsed: -1, Capacity: sl},
		{Unfinished: 1, TaskTime: -1, Capacity: sl},
		{Unfinished: 1, Capacity: -1},
	}
	for _, b := range bad {
		_, err := estimate.RemainingTime([]estimate.PhaseLoad{{1, 0, s, sl}, b})
		var e *estimate.Error
		if !errors.Is(err, estimate.ErrInvalid) || !errors.As(err, &e) || e.Phase != 1 {
			t.Errorf("RemainingTime(%+v) error = %v, want ErrInvalid at phase 1", b, err)
		}
	}
}

// TestRemainingTimeOracle checks RemainingTime against exact rational
// arithmetic (math/big) with the documented roundings, and
// Remaining.WithElapsed against RemainingTime.
func TestRemainingTimeOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		phases := make([]estimate.PhaseLoad, 1+rng.IntN(4))
		for p := range phases {
			phases[p] = estimate.PhaseLoad{
				Unfinished: rng.IntN(50),
				Elapsed:    time.Duration(rng.Int64N(int64(500 * s))),
				TaskTime:   time.Duration(rng.Int64N(int64(100 * s))),
				Capacity:   estimate.Capacity(rng.IntN(3)) * estimate.Capacity(rng.Int64N(20000)/1000*1000+int64(rng.IntN(2))*int64(rng.IntN(999))),
			}
		}
		got, err := estimate.RemainingTime(phases)
		if err != nil {
			t.Fatal(err)
		}
		want := oracleRemaining(phases)
		if got != want {
			t.Fatalf("RemainingTime(%+v) = %+v, oracle %+v", phases, got, want)
		}
		// WithElapsed from the same phases without elapsed time.
		el, caps := make([]time.Duration, len(phases)), make([]estimate.Capacity, len(phases))
		for p, ph := range phases {
			el[p], caps[p] = ph.Elapsed, ph.Capacity
			phases[p].Elapsed = 0
		}
		base, err := estimate.RemainingTime(phases)
		if err != nil {
			t.Fatal(err)
		}
		if w := base.WithElapsed(el, caps); w != got {
			t.Fatalf("WithElapsed(%v, %v) of %+v = %+v, RemainingTime %+v", el, caps, base, w, got)
		}
	}
}

func oracleRemaining(phases []estimate.PhaseLoad) estimate.Remaining {
	var r estimate.Remaining
	work, credit := new(big.Int), new(big.Int)
	for _, ph := range phases {
		if ph.Unfinished > 0 && ph.Capacity == 0 {
			r.CannotFinish, r.NoCapacity = true, true
			continue
		}
		if ph.Capacity == 0 {
			continue
		}
		// waves = ⌈1000·U / C⌉
		num := big.NewInt(int64(ph.Unfinished) * 1000)
		c := big.NewInt(int64(ph.Capacity))
		q, m := new(big.Int).QuoRem(num, c, new(big.Int))
		if m.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		work.Add(work, q.Mul(q, big.NewInt(int64(ph.TaskTime))))
		e := new(big.Int).Mul(big.NewInt(int64(ph.Elapsed)), big.NewInt(1000))
		credit.Add(credit, e.Quo(e, c))
	}
	if r.CannotFinish || work.Cmp(big.NewInt(int64(estimate.Horizon))) > 0 {
		r.CannotFinish = true
		r.Time, r.Work = estimate.Horizon, estimate.Horizon
		return r
	}
	r.Work = time.Duration(work.Int64())
	r.Credit = time.Duration(credit.Int64())
	r.Time = r.Work - r.Credit
	return r
}

func FuzzRemainingTime(f *testing.F) {
	f.Add(10, int64(30*s), int64(20*s), int64(4000), 1, int64(0), int64(20*s), int64(2000))
	f.Add(1, int64(0), int64(1), int64(0), 0, int64(0), int64(0), int64(0))
	f.Add(math.MaxInt, int64(math.MaxInt64), int64(math.MaxInt64), int64(1), -1, int64(-1), int64(-1), int64(-1))
	f.Fuzz(func(t *testing.T, u1 int, e1, t1, c1 int64, u2 int, e2, t2, c2 int64) {
		phases := []estimate.PhaseLoad{
			{u1, time.Duration(e1), time.Duration(t1), estimate.Capacity(c1)},
			{u2, time.Duration(e2), time.Duration(t2), estimate.Capacity(c2)},
		}
		r, err := estimate.RemainingTime(phases)
		if err != nil {
			if !errors.Is(err, estimate.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		switch {
		case r.CannotFinish && (r.Time != estimate.Horizon || r.Work != estimate.Horizon):
			t.Fatalf("CannotFinish with figures %+v", r)
		case !r.CannotFinish && (r.Work < 0 || r.Work > estimate.Horizon || r.Credit < 0 || r.Credit > estimate.Horizon || r.Time != r.Work-r.Credit):
			t.Fatalf("figures out of bounds: %+v", r)
		case r.NoCapacity != ((u1 > 0 && c1 == 0) || (u2 > 0 && c2 == 0)):
			t.Fatalf("NoCapacity = %v for %+v", r.NoCapacity, phases)
		}
		sp := estimate.SpareLeft(time.Duration(e1), r)
		if sp.CannotFinish != r.CannotFinish {
			t.Fatalf("spare %+v from remaining %+v", sp, r)
		}
	})
}
