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
	// (15): 90s/(1-0.1) + 30s/(1-0) + 60s/(1-0.25) = 100 + 30 + 80 = 210s
	got, err := StagedDuration(
		[]time.Duration{90 * time.Second, 30 * time.Second, 60 * time.Second},
		[]float64{0.1, 0, 0.25})
	if err != nil || got != 210*time.Second {
		t.Fatalf("StagedDuration = %v, %v; want 210s", got, err)
	}
	if _, err := StagedDuration([]time.Duration{1}, nil); !errors.Is(err, ErrLength) {
		t.Fatalf("length mismatch: err = %v", err)
	}
	_, err = StagedDuration([]time.Duration{1, 2}, []float64{0, 1})
	var e *Error
	if !errors.As(err, &e) || e.Index != 1 || !errors.Is(err, ErrLimit) {
		t.Fatalf("bad rate: err = %v", err)
	}
}

func TestTimeWeightedAverage(t *testing.T) {
	tests := []struct {
		name    string
		samples []Sample
		want    float64
		wantErr error
	}{
		{"(4*10+2*30)/40=2.5", []Sample{{4, 10 * time.Second}, {2, 30 * time.Second}}, 2.5, nil},
		{"(1*1+3*1+8*2)/4=5", []Sample{{1, time.Second}, {3, time.Second}, {8, 2 * time.Second}}, 5, nil},
		{"single sample", []Sample{{7, time.Minute}}, 7, nil},
		{"zero-length samples ignored", []Sample{{100, 0}, {2, time.Second}}, 2, nil},
		{"empty", nil, 0, nil},
		{"negative values allowed", []Sample{{-2, time.Second}, {4, time.Second}}, 1, nil},
		{"NaN value", []Sample{{math.NaN(), time.Second}}, 0, ErrNotFinite},
		{"negative duration", []Sample{{1, -time.Second}}, 0, ErrNegative},
		{"overflow", []Sample{{math.MaxFloat64, time.Hour}, {math.MaxFloat64, time.Hour}}, 0, ErrOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TimeWeightedAverage(tc.samples)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("avg = %v, want %v", got, tc.want)
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
		a, err := TimeWeightedAverage([]Sample{{existing, time.Duration(d)}, {added, time.Second}})
		if err == nil && (math.IsNaN(a) || math.IsInf(a, 0)) {
			t.Fatalf("TimeWeightedAverage = %v", a)
		}
	})
}
