package lss_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
)

// TestQueueWorked checks Queue on worked numbers: the three jobs of the
// package Example, 30 s after submission, plus a hopeless one.
func TestQueueWorked(t *testing.T) {
	cl := newCluster(2, 2, 1) // 4 map, 2 reduce slots
	now := t0.Add(30 * sec)
	report := newJob("report", t0, t0.Add(300*sec), 6, 1) // fresh: spare 270s (5)
	index := newJob("index", t0, t0.Add(120*sec), 10, 1)  // spare 30s
	index.Counters[0] = schedkit.PhaseProgress{Total: 10, Finished: 4, Ready: 6, FinishedDurationSum: 80 * sec}
	index.Counters[1].Ready = 1
	backup := newJob("backup", t0, t0.Add(100*sec), 8, 1) // spare −20s, Tavg 30s: not hopeless
	backup.Counters[0] = schedkit.PhaseProgress{Total: 8, Finished: 2, Ready: 6, FinishedDurationSum: 60 * sec}
	lost := newJob("lost", t0, t0.Add(40*sec), 8, 1) // remaining 60s, spare −50s + Tavg 10s < 0
	lost.Counters[0] = schedkit.PhaseProgress{Total: 8, Finished: 2, Ready: 6, FinishedDurationSum: 20 * sec}

	for _, soft := range []bool{false, true} {
		t.Run(fmt.Sprint("soft=", soft), func(t *testing.T) {
			s, err := lss.New(lss.Config{Cluster: cl, SoftDeadlines: soft})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range []*hostJob{report, index, backup, lost} {
				if err := s.Submit(now, j); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.Queue(now, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []lss.Pick
			want = append(want, lss.Pick{Job: "report", Phase: 0, Count: 1, Pass: 1})
			if soft {
				want = append(want, lss.Pick{Job: "lost", Phase: 0, Count: 6, Pass: 2})
			}
			want = append(want,
				lss.Pick{Job: "backup", Phase: 0, Count: 6, Pass: 2},
				lss.Pick{Job: "index", Phase: 0, Count: 6, Pass: 2},
				lss.Pick{Job: "report", Phase: 0, Count: 5, Pass: 2},
				lss.Pick{Job: "index", Phase: 1, Count: 1, Pass: 3},
			)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Queue (-want +got):\n%s", diff)
			}
			if s.Len() != 4 {
				t.Errorf("Queue changed the queue: %d jobs", s.Len())
			}
		})
	}
}

func TestQueueEmptyAndErrors(t *testing.T) {
	cl := newCluster(1, 2, 1)
	s, err := lss.New(lss.Config{Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Queue(t0, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty queue: %v, %v", got, err)
	}
	if err := s.Submit(t0, newJob("a", t0, t0.Add(100*sec), 2, 1)); err != nil {
		t.Fatal(err)
	}
	_, err = s.Queue(t0.Add(1<<62), nil)
	var le *lss.Error
	if !errors.Is(err, lss.ErrTimeRange) || !errors.As(err, &le) || le.Op != "Queue" {
		t.Fatalf("far future: %v", err)
	}
	if k, ok := s.PhaseKind(1); !ok || k != 1 {
		t.Errorf("PhaseKind(1) = %d, %v", k, ok)
	}
	if _, ok := s.PhaseKind(2); ok {
		t.Error("PhaseKind(2) ok on a two-phase scheduler")
	}
}

// randomQueueJob makes a job of the given phase kinds (phase → kind
// index) with random progress at now: some finished tasks (so Tavg is
// known), some running, the rest ready or not; task time hints of every
// kind. A job with nothing finished or running has no ready task outside
// phase 0's kind (Queue's proviso).
func randomQueueJob(rng *rand.Rand, id string, now time.Time, kinds []int) *hostJob {
	sub := now.Add(-time.Duration(rng.IntN(200)) * sec)
	deadline := time.Time{}
	if rng.IntN(8) > 0 {
		deadline = now.Add(time.Duration(rng.IntN(400)-40) * sec).Truncate(20 * sec)
		if deadline.Before(sub) {
			deadline = sub
		}
	}
	j := &hostJob{Key: schedkit.JobID(id), SubmittedAt: sub, DeadlineAt: deadline}
	if rng.IntN(2) == 0 {
		j.Hint = time.Duration(5+rng.IntN(40)) * sec
	}
	started := false
	for p := range 1 + rng.IntN(len(kinds)) {
		total := 1 + rng.IntN(8)
		if p > 0 {
			total = rng.IntN(3)
		}
		pr := schedkit.PhaseProgress{Total: total}
		if rng.IntN(2) == 0 {
			pr.Finished = rng.IntN(total + 1)
			pr.FinishedDurationSum = time.Duration(pr.Finished) * time.Duration(5+rng.IntN(40)) * sec
		}
		if left := total - pr.Finished; left > 0 && rng.IntN(2) == 0 {
			pr.Running = rng.IntN(left + 1)
			for range pr.Running {
				pr.RunningStartSum += time.Duration(rng.Int64N(int64(now.Sub(sub)) + 1))
			}
		}
		pr.Ready = pr.Total - pr.Running - pr.Finished
		if p > 0 && rng.IntN(2) == 0 {
			pr.Ready = 0
		}
		started = started || pr.Finished+pr.Running > 0
		j.Counters = append(j.Counters, pr)
		j.Nominal = append(j.Nominal, 20*sec)
		j.PhaseHints = append(j.PhaseHints, time.Duration(rng.IntN(3))*10*sec)
		j.PhaseHintSet = append(j.PhaseHintSet, rng.IntN(2) == 0)
	}
	if !started {
		for p := range j.Counters {
			if kinds[p] != kinds[0] {
				j.Counters[p].Ready = 0 // no such task is ready before anything ran (see Queue)
			}
		}
	}
	return j
}

// queueLayouts are the phase layouts the prefix property runs: the
// paper's two phases, three sequential kinds, two phases sharing a kind.
var queueLayouts = []struct {
	name  string
	kinds []string
}{
	{"map-reduce", nil},
	{"three-kinds", []string{"map-slot", "reduce-slot", "merge-slot"}},
	{"shared-kind", []string{"map-slot", "map-slot", "reduce-slot"}},
}

// everyOption returns every combination of lss.Config's options: each
// bool field on or off (found by reflection, so an option added later is
// enumerated too), with speeds for Heterogeneous and an a-priori task
// time for Admission. A Config field of any other type must be listed
// here, or the test fails.
func everyOption(t *testing.T) []lss.Config {
	t.Helper()
	typ := reflect.TypeFor[lss.Config]()
	var flags []int
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch {
		case f.Type.Kind() == reflect.Bool:
			flags = append(flags, i)
		case f.Name == "Cluster", f.Name == "PhaseKinds", f.Name == "NodeSpeeds", f.Name == "AdmissionTaskTime":
		default:
			t.Fatalf("lss.Config.%s (%v): an option this test does not enumerate", f.Name, f.Type)
		}
	}
	var out []lss.Config
	for mask := range 1 << len(flags) {
		var cfg lss.Config
		v := reflect.ValueOf(&cfg).Elem()
		for b, i := range flags {
			v.Field(i).SetBool(mask&(1<<b) != 0)
		}
		if cfg.Admission {
			cfg.AdmissionTaskTime = 15 * sec
		}
		out = append(out, cfg)
	}
	return out
}

// TestQueueIsHeartbeatPrefix is the property Queue promises, for every
// combination of lss's options (both implementations among them) and
// every phase layout, on random clusters and queues: for every slot
// kind, the assignments of any sequence of heartbeats at the same
// instant are a prefix of Queue's picks of that kind.
func TestQueueIsHeartbeatPrefix(t *testing.T) {
	type key struct {
		job   schedkit.JobID
		phase schedkit.Phase
	}
	seeds := 4
	if testing.Short() {
		seeds = 1
	}
	configs, checks, assigned := everyOption(t), 0, 0
	for li, lay := range queueLayouts {
		for ci, opts := range configs {
			for seed := range seeds {
				rng := rand.New(rand.NewPCG(uint64(seed), uint64(li<<16|ci)))
				cl := newCluster(1+rng.IntN(4), float64(rng.IntN(4)), float64(rng.IntN(3)), float64(rng.IntN(3)))
				cfg := opts
				cfg.Cluster, cfg.PhaseKinds = cl, lay.kinds
				if cfg.Heterogeneous {
					cfg.NodeSpeeds = map[schedkit.NodeID]float64{}
					for _, n := range cl.NodeList {
						if rng.IntN(2) == 0 {
							cfg.NodeSpeeds[n.Key] = []float64{0.25, 0.5, 1.5, 3}[rng.IntN(4)]
						}
					}
				}
				s, err := lss.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				kinds := make([]int, s.Phases())
				for p := range kinds {
					kinds[p], _ = s.PhaseKind(schedkit.Phase(p))
				}
				now := t0.Add(500 * sec)
				var jobs []*hostJob
				for i := range 1 + rng.IntN(12) {
					jobs = append(jobs, randomQueueJob(rng, fmt.Sprintf("j%02d", i), now, kinds))
				}
				// Submit in submission order, as a host does (lss refuses
				// a time before an earlier one).
				slices.SortStableFunc(jobs, func(a, b *hostJob) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
				for _, j := range jobs {
					if err := s.Submit(j.SubmittedAt, j); err != nil && !errors.Is(err, lss.ErrNotAdmitted) {
						t.Fatalf("%s %+v seed %d: Submit %s: %v", lay.name, opts, seed, j.Key, err)
					}
				}
				picks, err := s.Queue(now, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := map[int][]key{}
				for _, p := range picks {
					for range p.Count {
						want[kinds[p.Phase]] = append(want[kinds[p.Phase]], key{p.Job, p.Phase})
					}
				}
				// Every node heartbeats with random free slots, in random
				// order, some twice.
				got := map[int][]key{}
				order := rng.Perm(len(cl.NodeList))
				order = append(order, order[:rng.IntN(len(order)+1)]...)
				for _, i := range order {
					n := cl.NodeList[i]
					for k := range n.Free {
						n.Free[k] = float64(rng.IntN(int(n.Cap[k]) + 1))
					}
					ds, err := s.Heartbeat(now, n, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, d := range ds {
						if d.Action == lss.Assign {
							for range d.Count {
								got[kinds[d.Phase]] = append(got[kinds[d.Phase]], key{d.Job, d.Phase})
							}
							assigned += d.Count
						}
					}
				}
				for k, g := range got {
					if w := want[k]; len(g) > len(w) || !slices.Equal(g, w[:len(g)]) {
						t.Fatalf("%s %+v seed %d kind %d: heartbeats assigned %v, not a prefix of Queue %v", lay.name, opts, seed, k, g, w)
					}
					checks++
				}
			}
		}
	}
	t.Logf("%d configurations × %d layouts × %d seeds: %d kinds checked, %d tasks assigned", len(configs), len(queueLayouts), seeds, checks, assigned)
	if assigned == 0 {
		t.Fatal("nothing assigned: the test exercises nothing")
	}
}
