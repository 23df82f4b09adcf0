package resource

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// oracle is the naive reference for Timeline: the value at an instant is
// base less every Sub covering it since the last trim that forgot it.
type oracle struct {
	base Vector
	ops  []oracleOp
}

type oracleOp struct {
	start, end time.Duration
	v          Vector        // subtracted
	trimmed    time.Duration // for trim ops: everything before reads base
	trim       bool
}

func (o *oracle) at(x time.Duration) Vector {
	v := o.base.Clone()
	for _, op := range o.ops {
		switch {
		case op.trim:
			if x < op.trimmed {
				copy(v, o.base)
			}
		case x >= op.start && x < op.end:
			_ = v.Sub(op.v)
		}
	}
	return v
}

func TestTimelineWorked(t *testing.T) {
	// A server with <8 cores, 32 GB> free; reserve a task whose first
	// stage needs <4,8> for 10 s and second <2,16> for 20 s, starting at 5 s.
	tl, err := NewTimeline(Vector{8, 32})
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.Sub(5*time.Second, 15*time.Second, Vector{4, 8}); err != nil {
		t.Fatal(err)
	}
	if err := tl.Sub(15*time.Second, 35*time.Second, Vector{2, 16}); err != nil {
		t.Fatal(err)
	}
	type stage struct {
		Start, End time.Duration
		V          Vector
	}
	var got []stage
	for i := 0; i < tl.Len(); i++ {
		s, e, v := tl.Stage(i)
		got = append(got, stage{s, e, v.Clone()})
	}
	want := []stage{
		{5 * time.Second, 15 * time.Second, Vector{4, 24}},  // 8-4, 32-8
		{15 * time.Second, 35 * time.Second, Vector{6, 16}}, // 8-2, 32-16
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("stages (-want +got)\n%s", diff)
	}
	dst := make(Vector, 2)
	for _, c := range []struct {
		from, to time.Duration
		want     Vector
	}{
		// Min over [0, 40s): <4, 16> (coarse-grained "A_x over [0,T]").
		{0, 40 * time.Second, Vector{4, 16}},
		{0, 5 * time.Second, Vector{8, 32}},                 // the base before the first stage
		{16 * time.Second, 20 * time.Second, Vector{6, 16}}, // inside one stage
		{30 * time.Second, time.Minute, Vector{6, 16}},      // the last stage and the base after
		{time.Minute, 2 * time.Minute, Vector{8, 32}},       // after every stage
	} {
		if err := tl.Min(c.from, c.to, dst); err != nil || !dst.Equal(c.want) {
			t.Fatalf("Min [%v, %v) = %v, %v; want %v", c.from, c.to, dst, err, c.want)
		}
	}
	if v := tl.At(4 * time.Second); !v.Equal(Vector{8, 32}) {
		t.Fatalf("At(4s) = %v", v)
	}
	if v := tl.At(15 * time.Second); !v.Equal(Vector{6, 16}) {
		t.Fatalf("At(15s) = %v", v)
	}
	// Time passes: what lies before 20 s is forgotten.
	tl.TrimBefore(20 * time.Second)
	if s, e, v := tl.Stage(0); tl.Len() != 1 || s != 20*time.Second || e != 35*time.Second || !v.Equal(Vector{6, 16}) {
		t.Fatalf("after TrimBefore(20s): %d stages, first [%v, %v) %v", tl.Len(), s, e, v)
	}
}

func TestTimelineErrors(t *testing.T) {
	if _, err := NewTimeline(nil); !errors.Is(err, ErrLength) {
		t.Fatalf("empty base: %v", err)
	}
	if _, err := NewTimeline(Vector{math.NaN()}); !errors.Is(err, ErrNotFinite) {
		t.Fatalf("NaN base: %v", err)
	}
	tl, _ := NewTimeline(Vector{1, 1})
	_ = tl.Sub(0, 10, Vector{1, 1})
	before := &Timeline{times: slices.Clone(tl.times), vals: slices.Clone(tl.vals)}
	cases := map[string]struct {
		err  error
		want error
	}{
		"reversed":       {tl.Sub(10, 5, Vector{1, 1}), ErrInterval},
		"empty interval": {tl.Sub(5, 5, Vector{1, 1}), ErrInterval},
		"length":         {tl.Sub(0, 5, Vector{1}), ErrLength},
		"NaN":            {tl.Sub(0, 5, Vector{math.NaN(), 1}), ErrNotFinite},
		"Inf":            {tl.Sub(0, 5, Vector{1, math.Inf(-1)}), ErrNotFinite},
		"Min reversed":   {tl.Min(5, 0, make(Vector, 2)), ErrInterval},
		"Min length":     {tl.Min(0, 5, make(Vector, 3)), ErrLength},
		"Reset empty":    {tl.Reset(nil), ErrLength},
		"Reset NaN":      {tl.Reset(Vector{math.NaN(), 0}), ErrNotFinite},
	}
	for name, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, c.err, c.want)
		}
	}
	if diff := cmp.Diff(before.times, tl.times); diff != "" {
		t.Fatalf("failed calls changed the timeline: %s", diff)
	}
	if diff := cmp.Diff(before.vals, tl.vals); diff != "" {
		t.Fatalf("failed calls changed the timeline: %s", diff)
	}
}

// TestTimelineOracle applies random operations to a Timeline and to the
// naive oracle and compares them at every breakpoint and between.
func TestTimelineOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rounds := 2000
	if testing.Short() {
		rounds = 300
	}
	for round := 0; round < rounds; round++ {
		dims := 1 + r.IntN(3)
		base := randVector(r, dims)
		tl, err := NewTimeline(base)
		if err != nil {
			t.Fatal(err)
		}
		o := &oracle{base: base.Clone()}
		for step := 0; step < 30; step++ {
			s := time.Duration(r.IntN(40))
			e := s + 1 + time.Duration(r.IntN(15))
			v := randVector(r, dims)
			switch k := r.IntN(10); {
			case k < 4:
				// A negative amount: a reservation given back.
				for i := range v {
					v[i] = -v[i]
				}
				fallthrough
			case k < 9:
				err = tl.Sub(s, e, v)
				o.ops = append(o.ops, oracleOp{start: s, end: e, v: v})
			default:
				at := time.Duration(r.IntN(40))
				tl.TrimBefore(at)
				o.ops = append(o.ops, oracleOp{trim: true, trimmed: at})
			}
			if err != nil {
				t.Fatal(err)
			}
			checkTimeline(t, tl, o, r)
		}
	}
}

func checkTimeline(t *testing.T, tl *Timeline, o *oracle, r *rand.Rand) {
	t.Helper()
	// structure: strictly increasing breakpoints, contiguous stages
	for i := 1; i < len(tl.times); i++ {
		if tl.times[i] <= tl.times[i-1] {
			t.Fatalf("breakpoints not increasing: %v", tl.times)
		}
	}
	if len(tl.vals) != tl.Len()*tl.dims {
		t.Fatalf("vals length %d for %d stages", len(tl.vals), tl.Len())
	}
	for x := time.Duration(-2); x < 60; x++ {
		if got, want := tl.At(x), o.at(x); !got.Equal(want) {
			t.Fatalf("At(%d) = %v, oracle %v; stages %v %v", x, got, want, tl.times, tl.vals)
		}
	}
	from := time.Duration(r.IntN(60) - 5)
	to := from + 1 + time.Duration(r.IntN(30))
	dims := tl.Dims()
	mn := make(Vector, dims)
	if err := tl.Min(from, to, mn); err != nil {
		t.Fatal(err)
	}
	want := o.at(from)
	for x := from; x < to; x++ {
		for k, y := range o.at(x) {
			want[k] = min(want[k], y)
		}
	}
	if !mn.Equal(want) {
		t.Fatalf("[%d,%d): Min %v, oracle %v", from, to, mn, want)
	}
}

func TestTimelineSteadyStateAllocs(t *testing.T) {
	tl, _ := NewTimeline(Vector{8, 32, 100, 100})
	v := Vector{1, 2, 3, 4}
	dst := make(Vector, 4)
	work := func() {
		for i := time.Duration(0); i < 16; i++ {
			_ = tl.Sub(i*10, i*10+15, v)
		}
		_ = tl.Min(0, 200, dst)
		_ = tl.Min(30, 100, dst)
		_ = tl.At(55)
		if err := tl.Reset(Vector{8, 32, 100, 100}); err != nil {
			t.Fatal(err)
		}
	}
	work() // grow storage
	if a := testing.AllocsPerRun(100, work); a != 0 {
		t.Fatalf("steady-state allocations per round = %v, want 0", a)
	}
}

func FuzzTimeline(f *testing.F) {
	f.Add([]byte{0, 10, 3, 1, 5, 20, 7, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		tl, _ := NewTimeline(Vector{0})
		o := &oracle{base: Vector{0}}
		for len(ops) >= 4 {
			s, e := time.Duration(ops[0]%50), time.Duration(ops[1]%50)
			v := Vector{float64(int8(ops[2]))}
			kind := ops[3] % 4
			ops = ops[4:]
			var err error
			switch kind {
			case 0, 1, 2:
				err = tl.Sub(s, e, v)
				if err == nil {
					o.ops = append(o.ops, oracleOp{start: s, end: e, v: v})
				}
			case 3:
				tl.TrimBefore(s)
				o.ops = append(o.ops, oracleOp{trim: true, trimmed: s})
			}
			if err != nil && !errors.Is(err, ErrInterval) {
				t.Fatal(err)
			}
		}
		for x := time.Duration(0); x < 55; x++ {
			if got, want := tl.At(x), o.at(x); !got.Equal(want) {
				t.Fatalf("At(%d) = %v, oracle %v", x, got, want)
			}
		}
	})
}
