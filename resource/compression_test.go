package resource

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestCompressionRate(t *testing.T) {
	tests := []struct {
		name              string
		compressible      bool
		demand, allocated float64
		want              float64
		wantErr           error
	}{
		{"(4-3)/4=0.25", true, 4, 3, 0.25, nil},
		{"(10-9)/10=0.1", true, 10, 9, 0.1, nil},
		{"allocated=demand gives 0", true, 2, 2, 0, nil},
		{"allocated>demand gives 0", true, 2, 5, 0, nil},
		{"zero demand gives 0", true, 0, 0, 0, nil},
		{"(8-0)/8=1 all compressed", true, 8, 0, 1, nil},
		{"incompressible always 0", false, 4, 1, 0, nil},
		{"NaN demand", true, math.NaN(), 1, 0, ErrNotFinite},
		{"Inf allocated", true, 1, math.Inf(1), 0, ErrNotFinite},
		{"negative demand", true, -1, 1, 0, ErrNegative},
		{"negative allocated", true, 1, -1, 0, ErrNegative},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CompressionRate(tc.compressible, tc.demand, tc.allocated)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("rc = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestContendedDuration(t *testing.T) {
	tests := []struct {
		name    string
		t       time.Duration
		rc, p   float64
		want    time.Duration
		wantErr error
	}{
		{"(4) 90s/(1-0.1)=100s", 90 * time.Second, 0.1, 0, 100 * time.Second, nil},
		{"(4) 60s/(1-0.25)=80s", 60 * time.Second, 0.25, 0, 80 * time.Second, nil},
		{"(5) (1+0.2)*90s/(1-0.1)=120s", 90 * time.Second, 0.1, 0.2, 120 * time.Second, nil},
		{"(5) (1+0.5)*10s/(1-0.5)=30s", 10 * time.Second, 0.5, 0.5, 30 * time.Second, nil},
		{"rc=0 p=0 unchanged", 7 * time.Second, 0, 0, 7 * time.Second, nil},
		{"zero duration", 0, 0.5, 1, 0, nil},
		{"rc=1 is out of range", time.Second, 1, 0, 0, ErrLimit},
		{"rc<0", time.Second, -0.1, 0, 0, ErrLimit},
		{"rc NaN", time.Second, math.NaN(), 0, 0, ErrNotFinite},
		{"p negative", time.Second, 0.1, -0.1, 0, ErrNegative},
		{"p Inf", time.Second, 0.1, math.Inf(1), 0, ErrNotFinite},
		{"t negative", -time.Second, 0.1, 0, 0, ErrNegative},
		{"overflow", math.MaxInt64 / 2, 0.9, 0, 0, ErrOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ContendedDuration(tc.t, tc.rc, tc.p)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Fatalf("T' = %v, want %v", got, tc.want)
			}
			if tc.p == 0 {
				got4, err4 := CompressedDuration(tc.t, tc.rc)
				if got4 != got || !errors.Is(err4, tc.wantErr) {
					t.Fatalf("CompressedDuration = %v, %v; want %v, %v", got4, err4, got, err)
				}
			}
		})
	}
}

func TestCompressionBound(t *testing.T) {
	tests := []struct {
		name                      string
		existing, added, p, limit float64
		want                      float64
		wantErr                   error
	}{
		// (6): (w_{n+1} − p·Σw_i) / Σ_{i≤n+1} w_i
		{"(1-0.1*3)/(3+1)=0.175 clamped to 0.1", 3, 1, 0.1, 0.1, 0.1, nil},
		{"(1-0.1*3)/(3+1)=0.175 under limit 0.2", 3, 1, 0.1, 0.2, 0.175, nil},
		{"(1-0.2*9)/(9+1)<0 clamped to 0", 9, 1, 0.2, 0.1, 0, nil},
		{"(2-0.5*4)/(4+2)=0 exactly", 4, 2, 0.5, 0.1, 0, nil},
		{"(1-0.05*10)/(10+1)=0.04545", 10, 1, 0.05, 0.1, 0.5 / 11, nil},
		{"no existing work: 1/1=1 clamped", 0, 1, 0.3, 0.1, 0.1, nil},
		{"no work at all", 0, 0, 0.1, 0.1, 0, nil},
		{"limit 0 forbids compression", 1, 1, 0, 0, 0, nil},
		{"limit 1 rejected", 1, 1, 0, 1, 0, ErrLimit},
		{"limit negative rejected", 1, 1, 0, -0.1, 0, ErrLimit},
		{"NaN work", math.NaN(), 1, 0, 0.1, 0, ErrNotFinite},
		{"negative penalty", 1, 1, -1, 0.1, 0, ErrNegative},
		{"Inf limit", 1, 1, 0, math.Inf(1), 0, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CompressionBound(tc.existing, tc.added, tc.p, tc.limit)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("rc = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCompressionBoundProperty: the bound is always within [0, limit], is
// non-increasing in the contention penalty p, and below the limit equals
// formula (6) exactly.
func TestCompressionBoundProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		existing := r.Float64() * math.Pow(10, float64(r.IntN(12)-3))
		added := r.Float64() * math.Pow(10, float64(r.IntN(12)-3))
		p := r.Float64() * 2
		limit := r.Float64() * 0.999
		rc, err := CompressionBound(existing, added, p, limit)
		if err != nil {
			t.Fatal(err)
		}
		if !(rc >= 0 && rc <= limit) {
			t.Fatalf("CompressionBound(%v,%v,%v,%v) = %v outside [0,%v]", existing, added, p, limit, rc, limit)
		}
		if rc > 0 && rc < limit {
			if want := (added - p*existing) / (existing + added); math.Abs(rc-want) > 1e-12 {
				t.Fatalf("rc = %v, (6) gives %v", rc, want)
			}
		}
		rc2, err := CompressionBound(existing, added, p+r.Float64(), limit)
		if err != nil || rc2 > rc {
			t.Fatalf("bound rose with the penalty: %v -> %v (%v)", rc, rc2, err)
		}
	}
}

func TestStagedDuration(t *testing.T) {
	s := time.Second
	tests := []struct {
		name    string
		stages  []time.Duration
		rates   []float64
		want    time.Duration
		wantErr error
		index   int // of the offending stage, with wantErr
	}{
		{"(15) 90s/(1-0.1)+30s/(1-0)+60s/(1-0.25)=100+30+80=210s",
			[]time.Duration{90 * s, 30 * s, 60 * s}, []float64{0.1, 0, 0.25}, 210 * s, nil, 0},
		{"one stage is (4): 60s/(1-0.25)=80s", []time.Duration{60 * s}, []float64{0.25}, 80 * s, nil, 0},
		{"uncompressed: the stages' sum", []time.Duration{5 * s, 7 * s}, []float64{0, 0}, 12 * s, nil, 0},
		{"none", nil, nil, 0, nil, 0},
		// 1ns/(1-0.5) + 1ns/(1-0.5) = 4ns, not 2·round(2ns); 1ns/(1-0.6) =
		// 2.5ns, 3 × 2.5 = 7.5 rounds once to 8.
		{"summed exactly, rounded once", []time.Duration{1, 1, 1}, []float64{0.6, 0.6, 0.6}, 8, nil, 0},
		{"zero-length stage", []time.Duration{0, 10 * s}, []float64{0.9, 0.5}, 20 * s, nil, 0},
		{"rate 1", []time.Duration{1, 2}, []float64{0, 1}, 0, ErrLimit, 1},
		{"negative rate", []time.Duration{1}, []float64{-0.1}, 0, ErrLimit, 0},
		{"NaN rate", []time.Duration{1, 1}, []float64{0, math.NaN()}, 0, ErrNotFinite, 1},
		{"negative stage", []time.Duration{s, -s}, []float64{0, 0}, 0, ErrNegative, 1},
		{"overflow", []time.Duration{math.MaxInt64 / 2}, []float64{0.9}, 0, ErrOverflow, -1},
		{"lengths differ", []time.Duration{1}, nil, 0, ErrLength, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StagedDuration(tc.stages, tc.rates)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Fatalf("StagedDuration = %v, %v; want %v, %v", got, err, tc.want, tc.wantErr)
			}
			var e *Error
			if tc.wantErr != nil && (!errors.As(err, &e) || e.Index != tc.index) {
				t.Fatalf("err %v: want element %d", err, tc.index)
			}
		})
	}
}

func TestMean(t *testing.T) {
	s := time.Second
	type sample struct {
		r float64
		t time.Duration
	}
	tests := []struct {
		name    string
		samples []sample
		want    float64
	}{
		{"(14) (4·10+2·30)/40=2.5", []sample{{4, 10 * s}, {2, 30 * s}}, 2.5},
		{"(1·1+3·1+8·2)/4=5", []sample{{1, s}, {3, s}, {8, 2 * s}}, 5},
		{"one sample", []sample{{7, time.Minute}}, 7},
		{"zero-length samples weigh nothing", []sample{{100, 0}, {2, s}}, 2},
		{"empty", nil, 0},
		{"only zero-length samples", []sample{{3, 0}}, 0},
		{"negative amounts (a difference of usages)", []sample{{-2, s}, {4, s}}, 1},
		{"500ms at 6 and 1.5s at 2: (3+3)/2=3", []sample{{6, 500 * time.Millisecond}, {2, 1500 * time.Millisecond}}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m Mean
			for _, x := range tc.samples {
				m.Add(x.r, x.t.Seconds())
			}
			if got := m.Value(); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("mean = %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzCompression(f *testing.F) {
	f.Add(int64(90e9), 0.1, 0.2, 3.0, 1.0, 0.1)
	f.Add(int64(0), 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Add(int64(-1), 1.0, -1.0, math.Inf(1), math.NaN(), 1.0)
	f.Fuzz(func(t *testing.T, d int64, rc, p, existing, added, limit float64) {
		if got, err := ContendedDuration(time.Duration(d), rc, p); err == nil && got < 0 {
			t.Fatalf("ContendedDuration(%d,%v,%v) = %v < 0", d, rc, p, got)
		}
		b, err := CompressionBound(existing, added, p, limit)
		if err == nil && !(b >= 0 && b <= limit) {
			t.Fatalf("CompressionBound = %v outside [0,%v]", b, limit)
		}
		r, err := CompressionRate(true, existing, added)
		if err == nil && !(r >= 0 && r <= 1) {
			t.Fatalf("CompressionRate = %v", r)
		}
		if got, err := StagedDuration([]time.Duration{time.Duration(d), time.Second}, []float64{rc, limit}); err == nil && got < 0 {
			t.Fatalf("StagedDuration(%d,%v,%v) = %v < 0", d, rc, limit, got)
		}
		var m Mean
		m.Add(existing, float64(d))
		m.Add(added, 1e9)
		if a := m.Value(); finite(existing) && finite(added) && d >= 0 && math.Abs(existing) < 1e280 && math.Abs(added) < 1e280 &&
			!(a >= min(existing, added)-1e-9*math.Abs(a) && a <= max(existing, added)+1e-9*math.Abs(a)) {
			t.Fatalf("Mean of %v and %v = %v, outside them", existing, added, a)
		}
	})
}
