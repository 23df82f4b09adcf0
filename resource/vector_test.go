package resource

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/internal/drf"
)

func TestNewSpace(t *testing.T) {
	s, err := NewSpace(CPU, Memory, MapSlot)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 || s.Kind(1) != Memory || !s.Compressible(0) || s.Compressible(1) || s.Compressible(9) {
		t.Fatalf("space = %+v", s.kinds)
	}
	if i, ok := s.Index("map-slot"); !ok || i != 2 {
		t.Fatalf("Index(map-slot) = %d, %v", i, ok)
	}
	if _, ok := s.Index("gpu"); ok {
		t.Fatal("Index(gpu) found")
	}
	if (s.Kind(-1) != Kind{}) {
		t.Fatal("Kind(-1) not zero")
	}
	for name, kinds := range map[string][]Kind{
		"none":      nil,
		"empty":     {CPU, {}},
		"duplicate": {CPU, Memory, CPU},
	} {
		if _, err := NewSpace(kinds...); !errors.Is(err, ErrKind) {
			t.Errorf("%s: err = %v, want ErrKind", name, err)
		}
	}
}

func TestSpaceValidate(t *testing.T) {
	s, _ := NewSpace(CPU, Memory, MapSlot)
	tests := []struct {
		name    string
		v       []float64
		wantErr error
		index   int
	}{
		{"ok", []float64{1.5, 1 << 30, 2}, nil, 0},
		{"short", []float64{1, 2}, ErrLength, -1},
		{"NaN", []float64{math.NaN(), 1, 1}, ErrNotFinite, 0},
		{"Inf", []float64{1, math.Inf(1), 1}, ErrNotFinite, 1},
		{"-Inf", []float64{1, 1, math.Inf(-1)}, ErrNotFinite, 2},
		{"negative", []float64{1, -1, 1}, ErrNegative, 1},
		{"fractional slot", []float64{1, 1, 1.5}, ErrNotIntegral, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := s.New(tc.v...)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Index != tc.index {
					t.Fatalf("err = %#v, want index %d", err, tc.index)
				}
				if v != nil {
					t.Fatal("vector returned with error")
				}
			}
		})
	}
}

func TestVectorArithmetic(t *testing.T) {
	// Worked: a=<1,2,3>, b=<4,5,6>
	a, b := Vector{1, 2, 3}, Vector{4, 5, 6}
	steps := []struct {
		name string
		op   func(v Vector) error
		want Vector
	}{
		{"(10) a+b=<5,7,9>", func(v Vector) error { return v.Add(b) }, Vector{5, 7, 9}},
		{"a-b=<-3,-3,-3>", func(v Vector) error { return v.Sub(b) }, Vector{-3, -3, -3}},
		{"(10)+(12) a+0.5×b=<3,4.5,6>", func(v Vector) error { return v.AddScaled(0.5, b) }, Vector{3, 4.5, 6}},
		{"max(a,<0,9,3>)=<1,9,3>", func(v Vector) error { return v.Max(Vector{0, 9, 3}) }, Vector{1, 9, 3}},
	}
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			v := a.Clone()
			if err := tc.op(v); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, v); diff != "" {
				t.Fatalf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestVectorErrorsLeaveReceiver(t *testing.T) {
	short := Vector{1}
	ops := map[string]func(v Vector) error{
		"Add":       func(v Vector) error { return v.Add(short) },
		"Sub":       func(v Vector) error { return v.Sub(short) },
		"Max":       func(v Vector) error { return v.Max(short) },
		"AddScaled": func(v Vector) error { return v.AddScaled(1, short) },
		"Fits":      func(v Vector) error { _, err := v.Fits(short); return err },
	}
	for name, op := range ops {
		v := Vector{1, 2}
		if err := op(v); !errors.Is(err, ErrLength) {
			t.Errorf("%s: err = %v, want ErrLength", name, err)
		}
		if !v.Equal(Vector{1, 2}) {
			t.Errorf("%s changed the receiver: %v", name, v)
		}
	}
	for name, op := range map[string]func(v Vector) error{
		"AddScaled NaN": func(v Vector) error { return v.AddScaled(math.NaN(), Vector{1, 1}) },
		"AddScaled Inf": func(v Vector) error { return v.AddScaled(math.Inf(1), Vector{1, 1}) },
	} {
		v := Vector{1, 2}
		if err := op(v); !errors.Is(err, ErrNotFinite) {
			t.Errorf("%s: err = %v, want ErrNotFinite", name, err)
		}
		if !v.Equal(Vector{1, 2}) {
			t.Errorf("%s changed the receiver: %v", name, v)
		}
	}
}

func TestFits(t *testing.T) {
	tests := []struct {
		name string
		a, b Vector
		fit  bool // a fits in b
	}{
		{"<1,5> in <2,1>: second element over", Vector{1, 5}, Vector{2, 1}, false},
		{"equal fits", Vector{2, 2}, Vector{2, 2}, true},
		{"<1,1> fits <2,2>", Vector{1, 1}, Vector{2, 2}, true},
		{"the last element decides", Vector{1, 1, 3}, Vector{5, 5, 2}, false},
		{"empty", Vector{}, Vector{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fit, err := tc.a.Fits(tc.b)
			if err != nil || fit != tc.fit {
				t.Fatalf("Fits = %v, %v; want %v", fit, err, tc.fit)
			}
		})
	}
}

func TestDominantShare(t *testing.T) {
	total := Vector{9, 18} // Ghodsi et al.: 9 CPUs, 18 GB
	tests := []struct {
		name    string
		v, tot  Vector
		want    float64
		wantErr error
	}{
		{"user A <1,4>: max(1/9, 4/18)=2/9", Vector{1, 4}, total, 2.0 / 9, nil},
		{"user B <3,1>: max(3/9, 1/18)=1/3", Vector{3, 1}, total, 1.0 / 3, nil},
		{"A×3 <3,12>: 12/18=2/3", Vector{3, 12}, total, 2.0 / 3, nil},
		{"zero demand", Vector{0, 0}, total, 0, nil},
		{"zero total, zero demand skipped", Vector{1, 0}, Vector{2, 0}, 0.5, nil},
		{"positive demand, zero total", Vector{1, 1}, Vector{2, 0}, 0, ErrZeroCapacity},
		{"NaN demand", Vector{math.NaN(), 1}, total, 0, ErrNotFinite},
		{"negative total", Vector{1, 1}, Vector{-1, 1}, 0, ErrNegative},
		{"length", Vector{1}, total, 0, ErrLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DominantShare(tc.v, tc.tot)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("share = %v, want %v", got, tc.want)
			}
		})
	}
}

// drf.Share (the simulator's unchecked form) equals DominantShare wherever
// DominantShare accepts its input, and on what it rejects still returns a
// finite share from the positive elements over positive totals only.
func TestDominantShareLenient(t *testing.T) {
	tests := []struct {
		name   string
		v, tot Vector
		want   float64
	}{
		{"Ghodsi user A", Vector{1, 4}, Vector{9, 18}, 2.0 / 9},
		{"rounding drift below zero", Vector{-1e-17, 2}, Vector{4, 8}, 0.25},
		{"positive demand, zero total skipped", Vector{1, 1}, Vector{2, 0}, 0.5},
		{"NaN element skipped", Vector{math.NaN(), 1}, Vector{1, 4}, 0.25},
		{"shorter total", Vector{1, 1, 1}, Vector{4, 2}, 0.5},
		{"nothing", nil, nil, 0},
	}
	for _, tc := range tests {
		if got := drf.Share(tc.v, tc.tot); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		n := 1 + r.IntN(5)
		v, tot := randVector(r, n), randVector(r, n)
		want, err := DominantShare(v, tot)
		if err != nil {
			continue
		}
		if got := drf.Share(v, tot); got != want {
			t.Fatalf("%v in %v: unchecked %v, checked %v", v, tot, got, want)
		}
	}
}

func randVector(r *rand.Rand, n int) Vector {
	v := make(Vector, n)
	for i := range v {
		v[i] = float64(r.IntN(21) - 10) // small integers: exact arithmetic
	}
	return v
}

// TestAlgebraLaws checks the laws of (10) and (12) and Fits against a
// naive loop, on random small-integer vectors where float arithmetic is
// exact.
func TestAlgebraLaws(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		n := r.IntN(9)
		a, b, c := randVector(r, n), randVector(r, n), randVector(r, n)
		k := float64(r.IntN(7) - 3)
		sum := func(x, y Vector) Vector { z := x.Clone(); _ = z.Add(y); return z }
		diff := func(x, y Vector) Vector { z := x.Clone(); _ = z.Sub(y); return z }
		fused := func(x Vector, k float64, y Vector) Vector { z := x.Clone(); _ = z.AddScaled(k, y); return z }
		zero := make(Vector, n)
		checks := []struct {
			law  string
			l, r Vector
		}{
			{"a+b=b+a", sum(a, b), sum(b, a)},
			{"(a+b)+c=a+(b+c)", sum(sum(a, b), c), sum(a, sum(b, c))},
			{"a+0=a", sum(a, zero), a},
			{"(a+b)-b=a", diff(sum(a, b), b), a},
			{"a+1b=a+b", fused(a, 1, b), sum(a, b)},
			{"a+k(b+c)=(a+kb)+kc", fused(a, k, sum(b, c)), fused(fused(a, k, b), k, c)},
		}
		for _, ch := range checks {
			if !ch.l.Equal(ch.r) {
				t.Fatalf("%s fails: a=%v b=%v c=%v k=%v: %v != %v", ch.law, a, b, c, k, ch.l, ch.r)
			}
		}
		naiveFits := true
		for j := range a {
			if a[j] > b[j] {
				naiveFits = false
			}
		}
		if fits, _ := a.Fits(b); fits != naiveFits {
			t.Fatalf("a=%v b=%v: Fits=%v (naive %v)", a, b, fits, naiveFits)
		}
	}
}

func FuzzVector(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 0.5)
	f.Add(math.NaN(), math.Inf(1), -1.0, 0.0, math.Inf(-1))
	s, _ := NewSpace(CPU, Memory)
	f.Fuzz(func(t *testing.T, a0, a1, b0, b1, k float64) {
		a, errA := s.New(a0, a1)
		b, errB := s.New(b0, b1)
		if errA != nil || errB != nil {
			if (errA == nil) == (a == nil) || (errB == nil) == (b == nil) {
				t.Fatal("vector and error both nil or both set")
			}
			return
		}
		c := a.Clone()
		if err := c.Add(b); err != nil {
			t.Fatal(err)
		}
		if err := c.AddScaled(k, b); err != nil && finite(k) {
			t.Fatal(err)
		}
		if _, err := a.Fits(b); err != nil {
			t.Fatal(err)
		}
		d, err := DominantShare(a, b)
		if err == nil && (math.IsNaN(d) || d < 0) {
			t.Fatalf("DominantShare(%v, %v) = %v", a, b, d)
		}
	})
}

// NaN never fits and never compares: it is an error naming the element,
// and error texts name the package once with no meaningless value.
func TestNaNAndErrorTexts(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct{ v, w Vector }{{Vector{nan, 2}, Vector{4, 4}}, {Vector{1, 2}, Vector{4, nan}}} {
		if ok, err := c.v.Fits(c.w); ok || !errors.Is(err, ErrNotFinite) {
			t.Errorf("%v.Fits(%v) = %v, %v; want false, ErrNotFinite", c.v, c.w, ok, err)
		}
	}
	_, err := Vector{nan, 2}.Fits(Vector{4, 4})
	_, err2 := NewSpace()
	_, err3 := NewSpace(CPU, CPU)
	for got, want := range map[error]string{
		err:  "resource: Vector.Fits: element 0 = NaN: value is NaN or infinite",
		err2: "resource: NewSpace: invalid kind: no kinds",
		err3: `resource: NewSpace: invalid kind: kind 1 repeats the name "cpu"`,
	} {
		if got == nil || got.Error() != want {
			t.Errorf("error %v\nwant      %s", got, want)
		}
	}
}
