package estimate_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// TestHistoryRestore: a History restored from another's Entries predicts
// every key as the other does, and evicts the same key next; bad entries
// are refused, leaving it empty.
func TestHistoryRestore(t *testing.T) {
	cfg := estimate.HistoryConfig{Space: histSpace(t), MaxKeys: 8}
	a := newHistory(t, cfg)
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([]schedkit.SimilarityKey, 12)
	for i := range keys {
		keys[i] = schedkit.SimilarityKey{Logic: string(rune('a' + i))}
	}
	for range 60 {
		k := keys[rng.IntN(len(keys))]
		st := []trueStage{{d: time.Duration(10+rng.IntN(50)) * time.Second, cpu: 1 + 3*rng.Float64(), mem: 1 << 30}, {d: 30 * time.Second, cpu: 0.5, mem: 2 << 30}}
		if _, err := a.Observe(k, samples(st, 5*time.Second, 0, 0.05, rng)); err != nil {
			t.Fatal(err)
		}
	}
	b := newHistory(t, cfg)
	if err := b.Restore(a.Entries()); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		for _, k := range keys {
			pa, oka := a.Predict(k)
			pb, okb := b.Predict(k)
			if oka != okb || !cmp.Equal(pa, pb) {
				t.Errorf("%s: key %v: %v %+v, restored %v %+v", when, k, oka, pa, okb, pb)
			}
		}
	}
	check("restored")
	// One more key evicts the same one from both.
	extra := schedkit.SimilarityKey{Logic: "new"}
	s := samples([]trueStage{{d: time.Minute, cpu: 1, mem: 1 << 30}}, 5*time.Second, 0, 0, rng)
	_, _ = a.Observe(extra, s)
	_, _ = b.Observe(extra, s)
	check("after an eviction")

	good := a.Entries()[0]
	for name, en := range map[string]estimate.HistoryEntry{
		"zero key":     {Observations: 1, Duration: 1, Slices: good.Slices},
		"observations": {Key: good.Key, Duration: 1, Slices: good.Slices},
		"duration":     {Key: good.Key, Observations: 1, Duration: math.Inf(1), Slices: good.Slices},
		"slices":       {Key: good.Key, Observations: 1, Duration: 1, Slices: good.Slices[1:]},
		"nan":          {Key: good.Key, Observations: 1, Duration: 1, Slices: append([]float64{math.NaN()}, good.Slices[1:]...)},
	} {
		c := newHistory(t, cfg)
		if err := c.Restore([]estimate.HistoryEntry{{Key: schedkit.SimilarityKey{Logic: "ok"}, Observations: 1, Duration: 1, Slices: good.Slices}, en}); !errors.Is(err, estimate.ErrInvalid) || c.Len() != 0 {
			t.Errorf("%s: %v, %d keys", name, err, c.Len())
		}
	}
	if err := b.Restore(a.Entries()); !errors.Is(err, estimate.ErrInvalid) {
		t.Errorf("restore into a History in use: %v", err)
	}
}
