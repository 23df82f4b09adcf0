package resource

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// oracle is the naive reference for Timeline: the value at an instant is
// the last Set covering it, plus every later Add covering it, or base.
type oracle struct {
	base Vector
	ops  []oracleOp
}

type oracleOp struct {
	set        bool
	start, end time.Duration
	v          Vector
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
			if op.set {
				copy(v, op.v)
			} else {
				_ = v.Add(op.v)
			}
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
	task, _ := NewTimeline(Vector{0, 0})
	_ = task.Set(0, 10*time.Second, Vector{4, 8})
	_ = task.Set(10*time.Second, 30*time.Second, Vector{2, 16})
	if err := tl.SubTimeline(task, 5*time.Second); err != nil {
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
	// Min over [0, 40s): <4, 16> (coarse-grained "A_x over [0,T]").
	if err := tl.Min(0, 40*time.Second, dst); err != nil || !dst.Equal(Vector{4, 16}) {
		t.Fatalf("Min = %v, %v", dst, err)
	}
	// Average over [0, 40s), (14): cores (8·5 + 4·10 + 6·20 + 8·5)/40 = 6,
	// memory (32·5 + 24·10 + 16·20 + 32·5)/40 = 22.
	if err := tl.Average(0, 40*time.Second, dst); err != nil || !dst.Equal(Vector{6, 22}) {
		t.Fatalf("Average = %v, %v", dst, err)
	}
	if err := task.Max(0, 30*time.Second, dst); err != nil || !dst.Equal(Vector{4, 16}) {
		t.Fatalf("Max = %v, %v", dst, err)
	}
	if v := tl.At(4 * time.Second); !v.Equal(Vector{8, 32}) {
		t.Fatalf("At(4s) = %v", v)
	}
	if v := tl.At(15 * time.Second); !v.Equal(Vector{6, 16}) {
		t.Fatalf("At(15s) = %v", v)
	}
	// The task ends: give the resources back, and compaction leaves nothing.
	if err := tl.AddTimeline(task, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	tl.Compact()
	if tl.Len() != 0 {
		t.Fatalf("after release and Compact, %d stages remain", tl.Len())
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
	_ = tl.Add(0, 10, Vector{1, 1})
	before := tl.Clone()
	cases := map[string]struct {
		err  error
		want error
	}{
		"reversed":       {tl.Add(10, 5, Vector{1, 1}), ErrInterval},
		"empty interval": {tl.Sub(5, 5, Vector{1, 1}), ErrInterval},
		"length":         {tl.Set(0, 5, Vector{1}), ErrLength},
		"NaN":            {tl.Add(0, 5, Vector{math.NaN(), 1}), ErrNotFinite},
		"Min reversed":   {tl.Min(5, 0, make(Vector, 2)), ErrInterval},
		"Avg length":     {tl.Average(0, 5, make(Vector, 3)), ErrLength},
		"nil timeline":   {tl.AddTimeline(nil, 0), ErrLength},
		"self":           {tl.AddTimeline(tl, 0), ErrInterval},
	}
	for name, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, c.err, c.want)
		}
	}
	other, _ := NewTimeline(Vector{0, 0})
	_ = other.Add(0, math.MaxInt64, Vector{1, 1})
	if err := tl.AddTimeline(other, 10); !errors.Is(err, ErrOverflow) {
		t.Errorf("overflow: err = %v", err)
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
				err = tl.Add(s, e, v)
				o.ops = append(o.ops, oracleOp{start: s, end: e, v: v})
			case k < 6:
				err = tl.Sub(s, e, v)
				neg := v.Clone()
				_ = neg.Scale(-1)
				o.ops = append(o.ops, oracleOp{start: s, end: e, v: neg})
			case k < 8:
				err = tl.Set(s, e, v)
				o.ops = append(o.ops, oracleOp{set: true, start: s, end: e, v: v})
			case k < 9:
				tl.Compact()
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
	mn, mx, avg := make(Vector, dims), make(Vector, dims), make(Vector, dims)
	if err := tl.Min(from, to, mn); err != nil {
		t.Fatal(err)
	}
	if err := tl.Max(from, to, mx); err != nil {
		t.Fatal(err)
	}
	if err := tl.Average(from, to, avg); err != nil {
		t.Fatal(err)
	}
	wmn, wmx, wsum := o.at(from), o.at(from), make(Vector, dims)
	for x := from; x < to; x++ {
		v := o.at(x)
		_ = wmn.Min(v)
		_ = wmx.Max(v)
		_ = wsum.Add(v)
	}
	_ = wsum.Scale(1 / float64(to-from))
	if !mn.Equal(wmn) || !mx.Equal(wmx) {
		t.Fatalf("[%d,%d): Min %v Max %v, oracle %v %v", from, to, mn, mx, wmn, wmx)
	}
	for k := range avg {
		if math.Abs(avg[k]-wsum[k]) > 1e-9 {
			t.Fatalf("[%d,%d): Average %v, oracle %v", from, to, avg, wsum)
		}
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
		_ = tl.Average(0, 200, dst)
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
			case 0:
				err = tl.Add(s, e, v)
				if err == nil {
					o.ops = append(o.ops, oracleOp{start: s, end: e, v: v})
				}
			case 1:
				err = tl.Set(s, e, v)
				if err == nil {
					o.ops = append(o.ops, oracleOp{set: true, start: s, end: e, v: v})
				}
			case 2:
				tl.Compact()
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
