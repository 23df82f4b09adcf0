package integration_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedkit/schedkit/internal/kube/finegrained"
)

// Predictions the History makes from testdata/fgm-history.json (the
// recorded stages, cut into the History's 32 slices):
//
//	etl, 1 GiB:  about 20s at 2 cores, 1 GiB; then 40s at 0.5 cores, 6 GiB
//	train:       60s at 4 cores, 8 GiB; then 60s at 1 core, 2 GiB
//	scan, 10 GiB: 40s at 3 cores, 0.5 GiB
//	once:        one observation only: unpredictable
//
// Predicted pods request 100m and 128Mi; kube-scheduler's
// NodeResourcesFit never binds (checkRequests), so every refusal is
// FineGrained's.

func etl(name string) fgmPod {
	return fgmPod{name: name, logic: "etl", size: 1 << 30, cpuMilli: 100, memMi: 128}
}
func train(name string) fgmPod { return fgmPod{name: name, logic: "train", cpuMilli: 100, memMi: 128} }
func scan(name string) fgmPod {
	return fgmPod{name: name, logic: "scan", size: 10 << 30, cpuMilli: 100, memMi: 128}
}

func on(p fgmPod, node string, ago time.Duration, used ...float64) fgmPod {
	p.node, p.ago = node, ago
	if len(used) == 2 {
		p.used = [2]float64{used[0], used[1]}
	}
	return p
}

func fgmHandScenarios(hist finegrained.Recording) []*fgmScenario {
	return []*fgmScenario{
		{
			// No usage samples. n1 runs a train pod 10s in (4 cores,
			// 8 GiB for 50s more, then 1 core, 2 GiB); n2 an etl pod 5s
			// in (2 cores, 1 GiB for about 15s, then 0.5 cores, 6 GiB).
			// A second train pod fits n1 only stage by stage (its
			// 8 GiB stage lands beside the first one's; by peaks,
			// 8+8 GiB, it would fill the node), but n2 keeps more room
			// over its life: least CPU 8−2−4 = 2 of 8, memory 16−6−8 =
			// 2 of 16 (score 12), against n1's 0 — it goes to n2. The
			// etl pod: n1 leaves 16−8−6 = 2 GiB (12); n2, now holding
			// etl+train, 16−6−8−1 = 1 (6): n1. The scan pod (3 cores,
			// 40s) goes where CPU is left: n1 has 8−4−2 = 2 — no; n2
			// 8−2−4 = 2 — no: refused on both, the message naming stage
			// 1 and cpu. The last train pod no longer fits anywhere.
			name:    "stages, not peaks",
			history: hist,
			nodes:   []fgmNode{{name: "n1", cores: 8, memGi: 16}, {name: "n2", cores: 8, memGi: 16}},
			running: []fgmPod{on(train("t1"), "n1", 10*time.Second), on(etl("e1"), "n2", 5*time.Second)},
			pending: []fgmPod{train("t2"), etl("e2"), scan("s2"), train("t3")},
			want:    map[string]string{"t2": "n2", "e2": "n1", "s2": "", "t3": ""},
		},
		{
			// Bad annotations are refused in PreFilter, naming the
			// annotation. Unpredictable pods (one observation of "once";
			// no annotations at all) are matched by their requests over
			// the horizon against what the train pod holds (4 cores for
			// 55s more): once (1 core) and plain (0.5) fit, big (4 cores)
			// does not — 8−4−1−0.5 = 2.5 left — although its request
			// fits what requests alone leave.
			name:    "bad annotations, unpredictable pods",
			history: hist,
			nodes:   []fgmNode{{name: "n1", cores: 8, memGi: 16}},
			running: []fgmPod{on(train("r1"), "n1", 5*time.Second)},
			pending: []fgmPod{
				{name: "bad-size", logic: "etl", bad: map[string]string{"schedkit.io/data-size": "lots"}, cpuMilli: 100, memMi: 128},
				{name: "empty-logic", bad: map[string]string{"schedkit.io/logic": ""}, cpuMilli: 100, memMi: 128},
				{name: "size-only", bad: map[string]string{"schedkit.io/data-size": "1Gi"}, cpuMilli: 100, memMi: 128},
				{name: "neg-size", logic: "etl", bad: map[string]string{"schedkit.io/data-size": "-5"}, cpuMilli: 100, memMi: 128},
				{name: "once", logic: "once", cpuMilli: 1000, memMi: 1024},
				{name: "plain", cpuMilli: 500, memMi: 1024},
				{name: "big", cpuMilli: 4000, memMi: 4096},
			},
			want: map[string]string{"once": "n1", "plain": "n1", "big": ""},
		},
		{
			// Measured usage. n1: 6 cores, 14 GiB used, of which our
			// scan pod 1 core, 1 GiB: foreign load 5 cores, 13 GiB; with
			// the scan's 3 cores reserved no CPU is left. n2: 15 GiB
			// used by foreign work, 1 GiB free. n3: our scan pod uses
			// 12 GiB (predicted 0.5): the timeline has room but only
			// 4 GiB is measured idle. n4: 32 GiB, a train pod in its
			// light stage. The etl pod: n1 has no CPU, n2 no memory for
			// its 6 GiB stage; n3 and n4 fit, n4 with more room (score
			// 50 against 37). The train pod's first 8 GiB stage fits
			// n3's timeline but not its measured idle 4 GiB; n4 takes it.
			// A second train pod finds no CPU on n4 any more (1 + 0.5 +
			// 4 + 4 cores of 8 while both train pods are in their first
			// stage: 1.5 over, beyond the 0.8 allowance) and n3's
			// measured idle memory still too small: refused everywhere.
			name:    "foreign load and measured idle",
			history: hist,
			nodes: []fgmNode{
				{name: "n1", cores: 8, memGi: 16, sample: &[2]float64{6, 14}},
				{name: "n2", cores: 8, memGi: 16, sample: &[2]float64{1, 15}},
				{name: "n3", cores: 8, memGi: 16, sample: &[2]float64{3, 12}},
				{name: "n4", cores: 8, memGi: 32, sample: &[2]float64{0.5, 2}},
			},
			running: []fgmPod{
				{name: "f1", foreign: true, node: "n1", ago: time.Minute, cpuMilli: 100, memMi: 128, used: [2]float64{5, 13}},
				on(scan("s0"), "n1", 10*time.Second, 1, 1),
				on(scan("s3"), "n3", 10*time.Second, 3, 12),
				on(train("t4"), "n4", 70*time.Second, 0.5, 2),
			},
			pending: []fgmPod{etl("e5"), train("t5"), train("t6")},
			want:    map[string]string{"e5": "n4", "t5": "n4", "t6": ""},
		},
		{
			// Compression. n1 runs a train pod (4 cores for 55s more)
			// and an unpredictable pod requesting 2.75 cores: 1.25 cores
			// free. The etl pod's first stage wants 2: 0.75 over, within
			// the allowance rc × N = 0.1 × 8 (formula (7) clamps rc =
			// (2 − 0.05·6.75)/(6.75 + 2) = 0.19 to the 10% limit): it
			// fits, compressing CPU. n2 has no CPU free (two train pods):
			// 2 cores over, beyond the allowance.
			name:    "compression",
			history: hist,
			nodes:   []fgmNode{{name: "n1", cores: 8, memGi: 32}, {name: "n2", cores: 8, memGi: 32}},
			running: []fgmPod{
				on(train("t6"), "n1", 5*time.Second),
				{name: "u6", node: "n1", ago: 5 * time.Second, cpuMilli: 2750, memMi: 1024},
				on(train("t7"), "n2", 5*time.Second),
				on(train("a7"), "n2", 5*time.Second),
			},
			pending: []fgmPod{etl("e8")},
			want:    map[string]string{"e8": "n1"},
		},
	}
}

// quarterOf returns a random multiple of 1/4 in [0, hi).
func quarterOf(rng *rand.Rand, hi float64) float64 { return float64(rng.IntN(max(1, int(hi*4)))) / 4 }

// randomFGMScenario makes a random consistent state: a history of five
// keys (one a pod-template-hash; one seen once: unpredictable; a failed
// run that must not be learned), 2–4 nodes (some cordoned, most measured), pods of ours
// running where fgm placed them at their start times, foreign pods,
// node samples that add foreign load, and 4–9 pending pods.
func randomFGMScenario(t *testing.T, seed uint64) *fgmScenario {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0xf9))
	sc := &fgmScenario{name: fmt.Sprintf("random %d", seed)}
	// k3's pods are a Deployment's: keyed by their pod-template-hash
	// label, recorded under the logic podtask gives them.
	keys := []string{"k0", "k1", "k2", ns + "/pod-template-hash=h3", "k4"}
	for i, k := range keys {
		type seg struct {
			d        time.Duration
			cpu, mem float64
		}
		var segs []seg
		for range 1 + rng.IntN(3) {
			segs = append(segs, seg{time.Duration(2+rng.IntN(10)) * 5 * time.Second, 0.25 + quarterOf(rng, 5), 0.25 + quarterOf(rng, 8)})
		}
		obs := 2 + rng.IntN(2)
		if i == 4 {
			obs = 1
		}
		for j := range obs {
			r := finegrained.RecordedTask{Pod: types.UID("hist-" + k + fmt.Sprint(j)), Logic: k, Succeeded: true}
			for _, s := range segs {
				for range 2 {
					r.Samples = append(r.Samples, finegrained.RecordedSample{Duration: metav1.Duration{Duration: s.d / 2},
						Used: v1.ResourceList{v1.ResourceCPU: fgmCPUQ(s.cpu), v1.ResourceMemory: fgmMemQ(s.mem)}})
				}
			}
			sc.history.Finished = append(sc.history.Finished, r)
		}
		if i == 0 {
			sc.history.Finished = append(sc.history.Finished, finegrained.RecordedTask{Pod: "hist-failed", Logic: k, Samples: []finegrained.RecordedSample{
				{Duration: metav1.Duration{Duration: 10 * time.Second}, Used: v1.ResourceList{v1.ResourceCPU: fgmCPUQ(30), v1.ResourceMemory: fgmMemQ(60)}},
				{Duration: metav1.Duration{Duration: 10 * time.Second}, Used: v1.ResourceList{v1.ResourceCPU: fgmCPUQ(30), v1.ResourceMemory: fgmMemQ(60)}}}})
		}
	}
	randPod := func(name string) fgmPod {
		if k := rng.IntN(len(keys) + 1); k == 3 {
			return fgmPod{name: name, hash: "h3", cpuMilli: 100, memMi: 128}
		} else if k < len(keys) {
			return fgmPod{name: name, logic: keys[k], cpuMilli: 100, memMi: 128}
		}
		return fgmPod{name: name, cpuMilli: int64(100 + 100*rng.IntN(5)), memMi: int64(128 * (1 + rng.IntN(8)))}
	}
	nn := 2 + rng.IntN(3)
	for i := range nn {
		n := fgmNode{name: fmt.Sprintf("n%d", i+1), cores: []float64{8, 16}[rng.IntN(2)], memGi: []float64{16, 32}[rng.IntN(2)]}
		n.cordoned = i > 0 && rng.IntN(6) == 0
		sc.nodes = append(sc.nodes, n)
	}
	o := newFGMOracle(t, sc)
	k := 0
	for i := range sc.nodes {
		n := &sc.nodes[i]
		for range rng.IntN(4) {
			p := randPod(fmt.Sprintf("run%02d", k))
			k++
			p.node, p.ago = n.name, time.Duration(2+rng.IntN(150))*time.Second
			p.used = [2]float64{quarterOf(rng, 3), quarterOf(rng, 6)}
			sc.running = append(sc.running, p)
			if _, _, err := o.nodeSched(*n, sc.running, false); err != nil {
				sc.running = sc.running[:len(sc.running)-1] // fgm would not have placed it
			}
		}
		for range rng.IntN(3) {
			sc.running = append(sc.running, fgmPod{name: fmt.Sprintf("run%02d", k), foreign: true, node: n.name,
				ago: time.Hour, cpuMilli: 100, memMi: 128, used: [2]float64{quarterOf(rng, 3), quarterOf(rng, 6)}})
			k++
		}
		if rng.IntN(4) > 0 {
			used := [2]float64{quarterOf(rng, n.cores/3), quarterOf(rng, n.memGi/3)}
			for _, p := range sc.running {
				if p.node == n.name {
					used[0] += p.used[0]
					used[1] += p.used[1]
				}
			}
			used[0], used[1] = min(used[0], n.cores), min(used[1], n.memGi)
			n.sample = &used
		}
	}
	for i := range 4 + rng.IntN(6) {
		sc.pending = append(sc.pending, randPod(fmt.Sprintf("p%02d", i)))
	}
	return sc
}
