package lss_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/lss/lsstest"
)

// variant is one configuration the property test and the fuzz target run
// both implementations under.
type variant struct {
	name   string
	cfg    lss.Config
	phases int
	slots  []float64 // per node: map, reduce, merge
}

var variants = []variant{
	{"paper", lss.Config{}, 2, []float64{2, 1, 0}},
	{"soft", lss.Config{SoftDeadlines: true}, 2, []float64{2, 1, 0}},
	{"per-phase", lss.Config{PerPhaseTaskTime: true}, 2, []float64{2, 1, 0}},
	{"heterogeneous", lss.Config{Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": 2, "n01": 0.5, "n02": 1.25}}, 2, []float64{2, 1, 0}},
	{"admission", lss.Config{Admission: true, AdmissionTaskTime: 15 * sec}, 2, []float64{2, 1, 0}},
	{"three-phases", lss.Config{PhaseKinds: []string{"map-slot", "reduce-slot", "merge-slot"}}, 3, []float64{2, 1, 1}},
	{"shared-kind", lss.Config{PhaseKinds: []string{"map-slot", "map-slot", "reduce-slot"}, SoftDeadlines: true, PerPhaseTaskTime: true}, 3, []float64{3, 1, 0}},
	// Appended, so that the fuzz corpus keeps its variant numbers.
	{"phase-hints", lss.Config{PhaseTaskTimeHints: true}, 2, []float64{2, 1, 0}},
	{"phase-hints per-phase admission", lss.Config{PhaseTaskTimeHints: true, PerPhaseTaskTime: true, Admission: true}, 2, []float64{2, 1, 0}},
	{"phase-hints three-phases heterogeneous", lss.Config{PhaseTaskTimeHints: true, PhaseKinds: []string{"map-slot", "reduce-slot", "merge-slot"}, Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n01": 1.5}}, 3, []float64{2, 1, 1}},
	{"waves", lss.Config{WaveRemaining: true}, 2, []float64{2, 1, 0}},
	{"optimistic-kill", lss.Config{OptimisticKill: true}, 2, []float64{2, 1, 0}},
	{"recommended", lss.Recommended(), 2, []float64{2, 1, 0}},
	{"waves optimistic per-phase soft", lss.Config{WaveRemaining: true, OptimisticKill: true, PerPhaseTaskTime: true, SoftDeadlines: true}, 2, []float64{2, 1, 0}},
	{"waves optimistic phase-hints three-phases heterogeneous", lss.Config{WaveRemaining: true, OptimisticKill: true, PhaseTaskTimeHints: true, PhaseKinds: []string{"map-slot", "reduce-slot", "merge-slot"}, Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": 0.5, "n01": 1.5}}, 3, []float64{2, 1, 1}},
	{"waves shared-kind admission", lss.Config{WaveRemaining: true, PhaseKinds: []string{"map-slot", "map-slot", "reduce-slot"}, Admission: true, AdmissionTaskTime: 15 * sec}, 3, []float64{3, 1, 0}},
	{"no-first-pass", lss.Config{NoFirstMapPass: true}, 2, []float64{2, 1, 0}},
	{"no-first-pass waves soft three-phases", lss.Config{NoFirstMapPass: true, WaveRemaining: true, SoftDeadlines: true, PhaseKinds: []string{"map-slot", "reduce-slot", "merge-slot"}}, 3, []float64{2, 1, 1}},
}

// pair returns the variant's config as indexed and literal.
func (v variant) pair() []lss.Config {
	fast, lit := v.cfg, v.cfg
	lit.Literal = true
	return []lss.Config{fast, lit}
}

func newVariantHost(v variant, seed uint64, failf func(string, ...any)) *lsstest.Host {
	rng := rand.New(rand.NewPCG(seed, 0x155))
	cl := newCluster(3+int(seed%3), v.slots...)
	return lsstest.NewHost(rng, cl, v.phases, v.pair(), failf)
}

// TestFastEqualsLiteral runs the indexed and the literal implementation
// side by side on random event sequences and requires identical decisions
// (kills, infeasible reports, assignments, figures) and errors after
// every operation, and the host's invariants (no slot or task
// over-assigned, killed jobs get nothing).
func TestFastEqualsLiteral(t *testing.T) {
	seeds, steps := 40, 600
	if testing.Short() {
		seeds, steps = 8, 300
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			kills, assigned := 0, 0
			for seed := range uint64(seeds) {
				h := newVariantHost(v, seed, t.Fatalf)
				for range steps {
					h.Step(lsstest.RandomEvent(h.Rand))
				}
				kills += h.Kills
				assigned += h.Assigned
			}
			t.Logf("%d tasks assigned, %d jobs killed", assigned, kills)
			if assigned == 0 {
				t.Fatal("nothing assigned: the test exercises nothing")
			}
			if !v.cfg.SoftDeadlines && kills == 0 {
				t.Fatal("nothing killed: the test exercises no kill")
			}
		})
	}
}

// FuzzEvents decodes a host event sequence from bytes and runs it on both
// implementations: no panic, identical decisions and errors, invariants
// hold.
func FuzzEvents(f *testing.F) {
	f.Add(uint8(0), uint64(1), []byte{0, 0, 4, 9, 4, 15, 0, 4, 4, 9})
	f.Add(uint8(1), uint64(7), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add(uint8(5), uint64(3), []byte{0, 0, 0, 15, 15, 13, 4, 9, 9, 15})
	f.Add(uint8(3), uint64(11), []byte{13, 0, 0, 4, 13, 4, 15, 9, 12, 15})
	f.Add(uint8(7), uint64(5), []byte{0, 0, 4, 9, 9, 4, 15, 0, 14, 4, 9, 15, 15})
	f.Add(uint8(9), uint64(2), []byte{0, 0, 0, 4, 9, 13, 4, 9, 14, 15, 15, 12, 15})
	for vi := 10; vi < 18; vi++ {
		f.Add(uint8(vi), uint64(vi), []byte{0, 0, 4, 9, 4, 15, 0, 4, 4, 9, 13, 4, 9, 14, 15, 15, 12, 15})
	}
	f.Fuzz(func(t *testing.T, vi uint8, seed uint64, ops []byte) {
		if len(ops) > 400 {
			ops = ops[:400]
		}
		v := variants[int(vi)%len(variants)]
		h := newVariantHost(v, seed, t.Fatalf)
		for i, op := range ops {
			h.Step(lsstest.Event{Op: int(op), Arg: seed*uint64(i+1) ^ uint64(op)<<40})
		}
	})
}
