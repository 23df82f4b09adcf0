package estimate_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

const gib = 1 << 30

func histSpace(t testing.TB) *resource.Space {
	t.Helper()
	s, err := resource.NewSpace(resource.CPU, resource.Memory)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type trueStage struct {
	d        time.Duration
	cpu, mem float64
}

// three stages: read (cpu 4, 2 GiB) 10s, compute (cpu 1, 6 GiB) 20s,
// write (cpu 8, 1 GiB) 10s.
var threeStages = []trueStage{
	{10 * time.Second, 4, 2 * gib},
	{20 * time.Second, 1, 6 * gib},
	{10 * time.Second, 8, 1 * gib},
}

// samples renders a true profile as one sample per period, the task's
// compressible kinds compressed at rc throughout (so it runs 1/(1−rc)
// longer and shows (1−rc) of its CPU demand), with multiplicative noise.
func samples(stages []trueStage, period time.Duration, rc, noise float64, rng *rand.Rand) []estimate.UsageSample {
	var out []estimate.UsageSample
	for _, st := range stages {
		wall := time.Duration(float64(st.d) / (1 - rc))
		for at := time.Duration(0); at < wall; at += period {
			d := min(period, wall-at)
			f := 1.0
			if rng != nil {
				f = 1 + noise*rng.NormFloat64()
			}
			out = append(out, estimate.UsageSample{
				Duration:    d,
				Used:        resource.Vector{st.cpu * (1 - rc) * f, st.mem * f},
				Compression: rc,
			})
		}
	}
	return out
}

var keyA = schedkit.SimilarityKey{Logic: "wordcount/map", DataSize: 128 << 20}

func newHistory(t testing.TB, cfg estimate.HistoryConfig) *estimate.History {
	t.Helper()
	if cfg.Space == nil {
		cfg.Space = histSpace(t)
	}
	h, err := estimate.NewHistory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func checkStages(t *testing.T, p estimate.Profile, want []trueStage, tol float64) {
	t.Helper()
	if len(p.Stages) != len(want) {
		t.Fatalf("got %d stages %+v, want %d", len(p.Stages), p.Stages, len(want))
	}
	for i, w := range want {
		s := p.Stages[i]
		if rel(float64(s.Duration), float64(w.d)) > tol {
			t.Errorf("stage %d: duration %v, want %v", i, s.Duration, w.d)
		}
		if rel(s.Demand[0], w.cpu) > tol || rel(s.Demand[1], w.mem) > tol {
			t.Errorf("stage %d: demand %v, want [%v %v]", i, s.Demand, w.cpu, w.mem)
		}
	}
}

func rel(got, want float64) float64 { return math.Abs(got-want) / want }

func TestHistoryKnownStages(t *testing.T) {
	h := newHistory(t, estimate.HistoryConfig{})
	for range 2 {
		if ok, err := h.Observe(keyA, samples(threeStages, time.Second, 0, 0, nil)); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	p, ok := h.Predict(keyA)
	if !ok {
		t.Fatal("unpredictable after two observations")
	}
	checkStages(t, p, threeStages, 1e-9)
	if p.Observations != 2 || p.Duration() != 40*time.Second {
		t.Errorf("observations %d duration %v", p.Observations, p.Duration())
	}
	peak := resource.Vector{0, 0}
	p.Peak(peak)
	if rel(peak[0], 8) > 1e-9 || rel(peak[1], 6*gib) > 1e-9 {
		t.Errorf("peak %v", peak)
	}
}

// Noisy observations of the same task converge (iterative smoothing)
// to within a few percent of the truth.
func TestHistoryNoisySmoothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := newHistory(t, estimate.HistoryConfig{StageThreshold: 0.2})
	for range 20 {
		if _, err := h.Observe(keyA, samples(threeStages, 3*time.Second, 0, 0.05, rng)); err != nil {
			t.Fatal(err)
		}
	}
	p, ok := h.Predict(keyA)
	if !ok {
		t.Fatal("unpredictable")
	}
	// Stage demand is the largest slice, so it sits a little above the
	// mean; 3 s samples on 1.25 s slices blur the boundaries by one slice.
	checkStages(t, p, threeStages, 0.15)
}

// A task that ran compressed is normalised back by formula (4) inverted:
// its prediction equals the uncompressed truth.
func TestHistoryCompressedNormalised(t *testing.T) {
	for _, rc := range []float64{0.05, 0.1, 0.5} {
		h := newHistory(t, estimate.HistoryConfig{})
		for range 2 {
			if _, err := h.Observe(keyA, samples(threeStages, time.Second, rc, 0, nil)); err != nil {
				t.Fatal(err)
			}
		}
		p, _ := h.Predict(keyA)
		checkStages(t, p, threeStages, 0.05)
		if rel(float64(p.Duration()), float64(40*time.Second)) > 1e-6 {
			t.Errorf("rc %v: duration %v, want 40s", rc, p.Duration())
		}
	}
}

// Worked numbers for the smoothing: α = 0.5, a flat task of 2 cores for
// 10 s then one of 4 cores for 20 s predicts 3 cores for 15 s.
func TestHistorySmoothingWorked(t *testing.T) {
	h := newHistory(t, estimate.HistoryConfig{Smoothing: 0.5})
	flat := func(cpu float64, d time.Duration) []estimate.UsageSample {
		return samples([]trueStage{{d, cpu, gib}}, time.Second, 0, 0, nil)
	}
	h.Observe(keyA, flat(2, 10*time.Second))
	h.Observe(keyA, flat(4, 20*time.Second))
	p, ok := h.Predict(keyA)
	if !ok || len(p.Stages) != 1 {
		t.Fatalf("%v %+v", ok, p)
	}
	if s := p.Stages[0]; s.Duration != 15*time.Second || math.Abs(s.Demand[0]-3) > 1e-9 || s.Demand[1] != gib {
		t.Errorf("got %v %v, want 15s [3 1GiB]", s.Duration, s.Demand)
	}
}

func TestHistoryUnpredictable(t *testing.T) {
	h := newHistory(t, estimate.HistoryConfig{MinObservations: 3})
	if _, ok := h.Predict(keyA); ok {
		t.Error("unknown key predicted")
	}
	if ok, err := h.Observe(schedkit.SimilarityKey{}, samples(threeStages, time.Second, 0, 0, nil)); ok || err != nil {
		t.Error("zero key learned", ok, err)
	}
	if _, ok := h.Predict(schedkit.SimilarityKey{}); ok {
		t.Error("zero key predicted")
	}
	for i := range 3 {
		if _, ok := h.Predict(keyA); ok {
			t.Fatalf("predicted after %d observations", i)
		}
		h.Observe(keyA, samples(threeStages, time.Second, 0, 0, nil))
	}
	if _, ok := h.Predict(keyA); !ok {
		t.Error("unpredictable after MinObservations")
	}
	// One sample is too few (MinSamples 2): an error, nothing learned.
	one := []estimate.UsageSample{{Duration: time.Second, Used: resource.Vector{1, 1}}}
	keyB := schedkit.SimilarityKey{Logic: "b"}
	ok, err := h.Observe(keyB, one)
	var tf *estimate.TooFewSamplesError
	if ok || !errors.Is(err, estimate.ErrTooFewSamples) || !errors.As(err, &tf) || tf.Got != 1 || tf.Want != 2 {
		t.Errorf("got %v %v", ok, err)
	}
	if h.Observations(keyB) != 0 || h.Len() != 1 {
		t.Error("too-short observation changed the history")
	}
}

func TestHistoryBadInputChangesNothing(t *testing.T) {
	good := samples(threeStages, time.Second, 0, 0, nil)
	bad := map[string][]estimate.UsageSample{
		"nan":          {{Duration: time.Second, Used: resource.Vector{math.NaN(), 1}}, good[0]},
		"inf":          {{Duration: time.Second, Used: resource.Vector{math.Inf(1), 1}}, good[0]},
		"negative":     {{Duration: time.Second, Used: resource.Vector{-1, 1}}, good[0]},
		"length":       {{Duration: time.Second, Used: resource.Vector{1}}, good[0]},
		"neg duration": {{Duration: -time.Second, Used: resource.Vector{1, 1}}, good[0], good[1]},
		"rate 1":       {{Duration: time.Second, Used: resource.Vector{1, 1}, Compression: 1}, good[0]},
		"rate nan":     {{Duration: time.Second, Used: resource.Vector{1, 1}, Compression: math.NaN()}, good[0]},
	}
	h := newHistory(t, estimate.HistoryConfig{})
	h.Observe(keyA, good)
	h.Observe(keyA, good)
	before, _ := h.Predict(keyA)
	want := append([]estimate.Stage(nil), before.Stages...)
	for name, s := range bad {
		ok, err := h.Observe(keyA, s)
		if ok || !errors.Is(err, estimate.ErrInvalid) {
			t.Errorf("%s: got %v %v", name, ok, err)
		}
	}
	if h.Observations(keyA) != 2 {
		t.Errorf("observations %d", h.Observations(keyA))
	}
	after, _ := h.Predict(keyA)
	for i := range want {
		if after.Stages[i].Duration != want[i].Duration || !after.Stages[i].Demand.Equal(want[i].Demand) {
			t.Errorf("stage %d changed", i)
		}
	}
	for _, cfg := range []estimate.HistoryConfig{
		{}, // nil space
		{Space: histSpace(t), Smoothing: 1.5},
		{Space: histSpace(t), Smoothing: math.NaN()},
		{Space: histSpace(t), StageThreshold: -1},
		{Space: histSpace(t), Bins: -1},
		{Space: histSpace(t), MaxKeys: -3},
	} {
		if _, err := estimate.NewHistory(cfg); !errors.Is(err, estimate.ErrInvalid) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

// At most MaxKeys keys are held; adding one more evicts the least
// recently OBSERVED key. Predict is a pure read: it neither saves a key
// from eviction nor moves Version. Worked steps with MaxKeys 3 (keys
// named by number; "o" observes, "p" predicts; the recency order is
// given most recent first).
func TestHistoryEvictionByObservation(t *testing.T) {
	key := func(i int) schedkit.SimilarityKey { return schedkit.SimilarityKey{Logic: "k", DataSize: int64(i)} }
	obs := samples(threeStages, 5*time.Second, 0, 0, nil)
	type step struct {
		op   byte // 'o' observe, 'p' predict
		key  int
		held []int // keys held after the step, most recently observed first
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"fill, then the oldest goes", []step{
			{'o', 0, []int{0}}, {'o', 1, []int{1, 0}}, {'o', 2, []int{2, 1, 0}},
			{'o', 3, []int{3, 2, 1}}, // 0 evicted
		}},
		{"a prediction does not save a key", []step{
			{'o', 0, []int{0}}, {'o', 1, []int{1, 0}}, {'o', 2, []int{2, 1, 0}},
			{'p', 0, []int{2, 1, 0}}, // under the old rule 0 became most recent
			{'o', 3, []int{3, 2, 1}}, // 0 still goes
		}},
		{"a new observation does", []step{
			{'o', 0, []int{0}}, {'o', 1, []int{1, 0}}, {'o', 2, []int{2, 1, 0}},
			{'o', 0, []int{0, 2, 1}},
			{'o', 3, []int{3, 0, 2}}, // 1 goes
			{'p', 2, []int{3, 0, 2}},
			{'o', 4, []int{4, 3, 0}}, // 2 goes
		}},
		{"predicting unknown or evicted keys changes nothing", []step{
			{'o', 0, []int{0}}, {'p', 7, []int{0}}, {'o', 1, []int{1, 0}},
			{'o', 2, []int{2, 1, 0}}, {'o', 3, []int{3, 2, 1}},
			{'p', 0, []int{3, 2, 1}}, {'o', 4, []int{4, 3, 2}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHistory(t, estimate.HistoryConfig{MaxKeys: 3, MinObservations: 1})
			for si, st := range tc.steps {
				ver := h.Version()
				switch st.op {
				case 'o':
					if ok, err := h.Observe(key(st.key), obs); !ok || err != nil {
						t.Fatalf("step %d: Observe: %v %v", si, ok, err)
					}
				case 'p':
					h.Predict(key(st.key))
					if h.Version() != ver {
						t.Errorf("step %d: Predict moved Version %d → %d", si, ver, h.Version())
					}
				}
				if h.Len() != len(st.held) {
					t.Fatalf("step %d: %d keys held, want %v", si, h.Len(), st.held)
				}
				for _, k := range st.held {
					if h.Observations(key(k)) == 0 {
						t.Fatalf("step %d: key %d not held, want %v", si, k, st.held)
					}
				}
			}
			// The order: observing a key not held evicts the last one
			// listed (the least recently observed), one by one.
			held := tc.steps[len(tc.steps)-1].held
			for i := len(held) - 1; i >= 0; i-- {
				h.Observe(key(100+i), obs)
				if h.Observations(key(held[i])) != 0 {
					t.Fatalf("key %d outlived a new key: order is not %v", held[i], held)
				}
				for _, k := range held[:i] {
					if h.Observations(key(k)) == 0 {
						t.Fatalf("key %d evicted before %d: order is not %v", k, held[i], held)
					}
				}
			}
		})
	}
}

// Predict is a pure read: whatever is predicted, in any order, the
// History's later behaviour (predictions, evictions, Version) is that of
// a History never asked (property test against a twin).
func TestHistoryPredictIsPure(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	key := func(i int) schedkit.SimilarityKey { return schedkit.SimilarityKey{Logic: "k", DataSize: int64(i)} }
	a := newHistory(t, estimate.HistoryConfig{MaxKeys: 4, MinObservations: 2})
	b := newHistory(t, estimate.HistoryConfig{MaxKeys: 4, MinObservations: 2})
	for step := range 2000 {
		k := key(rng.IntN(8))
		if rng.IntN(3) == 0 {
			obs := samples(threeStages, time.Duration(1+rng.IntN(5))*time.Second, 0, 0, nil)
			oa, ea := a.Observe(k, obs)
			ob, eb := b.Observe(k, obs)
			if oa != ob || (ea == nil) != (eb == nil) {
				t.Fatalf("step %d: Observe differs", step)
			}
		} else {
			a.Predict(k) // b is never asked but to compare
		}
		if a.Version() != b.Version() || a.Len() != b.Len() {
			t.Fatalf("step %d: version %d/%d, len %d/%d", step, a.Version(), b.Version(), a.Len(), b.Len())
		}
		for i := range 8 {
			pa, oka := a.Predict(key(i))
			pb, okb := b.Predict(key(i))
			if oka != okb || a.Observations(key(i)) != b.Observations(key(i)) || len(pa.Stages) != len(pb.Stages) || pa.Duration() != pb.Duration() {
				t.Fatalf("step %d key %d: predictions differ", step, i)
			}
		}
	}
}

// More stage changes than MaxStages are merged down to MaxStages, and a
// stage's demand covers every slice in it.
func TestHistoryMaxStages(t *testing.T) {
	var st []trueStage
	for i := range 12 {
		st = append(st, trueStage{4 * time.Second, float64(1 + i%2*7), float64(1+i) * gib})
	}
	h := newHistory(t, estimate.HistoryConfig{MaxStages: 4, Bins: 48})
	h.Observe(keyA, samples(st, time.Second, 0, 0, nil))
	h.Observe(keyA, samples(st, time.Second, 0, 0, nil))
	p, _ := h.Predict(keyA)
	if len(p.Stages) != 4 {
		t.Fatalf("%d stages", len(p.Stages))
	}
	if p.Duration() != 48*time.Second {
		t.Errorf("duration %v", p.Duration())
	}
	peak := resource.Vector{0, 0}
	p.Peak(peak)
	if rel(peak[0], 8) > 1e-9 || rel(peak[1], 12*gib) > 1e-9 {
		t.Errorf("peak %v", peak)
	}
	// memory rises stage by stage, so each merged stage's demand is at
	// least the memory of its last true stage.
	var at time.Duration
	for _, s := range p.Stages {
		at += s.Duration
		last := int((at-1)/(4*time.Second)) + 1
		if s.Demand[1] < float64(last)*gib-1 {
			t.Errorf("stage ending %v: memory %v below %d GiB", at, s.Demand[1], last)
		}
	}
}

func FuzzHistoryObserve(f *testing.F) {
	f.Add(int64(3e9), 2.0, 1e9, 0.1, int64(2e9), 4.0, 3e9, 0.0)
	f.Add(int64(-1), math.NaN(), 1.0, 1.5, int64(0), 0.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, d1 int64, c1, m1, r1 float64, d2 int64, c2, m2, r2 float64) {
		h := newHistory(t, estimate.HistoryConfig{MinObservations: 1})
		s := []estimate.UsageSample{
			{Duration: time.Duration(d1), Used: resource.Vector{c1, m1}, Compression: r1},
			{Duration: time.Duration(d2), Used: resource.Vector{c2, m2}, Compression: r2},
		}
		ok, err := h.Observe(keyA, s)
		if ok != (err == nil) {
			t.Fatalf("ok %v err %v", ok, err)
		}
		p, pok := h.Predict(keyA)
		if pok != ok {
			t.Fatalf("learned %v, predictable %v", ok, pok)
		}
		for _, st := range p.Stages {
			if st.Duration < 0 {
				t.Fatalf("negative stage %v", st.Duration)
			}
			for _, x := range st.Demand {
				if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
					t.Fatalf("bad demand %v", st.Demand)
				}
			}
		}
	})
}

func BenchmarkHistoryPredict(b *testing.B) {
	h := newHistory(b, estimate.HistoryConfig{})
	obs := samples(threeStages, time.Second, 0, 0, nil)
	h.Observe(keyA, obs)
	h.Observe(keyA, obs)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := h.Predict(keyA); !ok {
			b.Fatal("unpredictable")
		}
	}
}

// Observe's check of the amounts is one comparison per amount; a bad
// one is named as Vector.Validate names it (which amount, what is
// wrong), and −0 is an amount like 0.
func TestHistoryObserveNamesBadAmount(t *testing.T) {
	good := samples(threeStages, time.Second, 0, 0, nil)
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -math.SmallestNonzeroFloat64} {
		u := resource.Vector{1, x}
		s := append(append([]estimate.UsageSample(nil), good[:2]...), estimate.UsageSample{Duration: time.Second, Used: u})
		h := newHistory(t, estimate.HistoryConfig{})
		ok, err := h.Observe(keyA, s)
		verr := u.Validate()
		if ok || !errors.Is(err, estimate.ErrInvalid) || !errors.As(err, new(*resource.Error)) || !strings.Contains(err.Error(), "sample 2: "+strings.TrimPrefix(verr.Error(), "resource: ")) {
			t.Errorf("amount %v: got %v %v", x, ok, err)
		}
	}
	s := append(append([]estimate.UsageSample(nil), good...), estimate.UsageSample{Duration: time.Second, Used: resource.Vector{math.Copysign(0, -1), 1}})
	if ok, err := newHistory(t, estimate.HistoryConfig{}).Observe(keyA, s); !ok || err != nil {
		t.Errorf("−0: got %v %v", ok, err)
	}
}
