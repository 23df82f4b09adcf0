package lss_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
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

// randomQueueJob makes a job with random progress at now: some finished
// tasks (so Tavg is known), some running, the rest ready or not.
func randomQueueJob(rng *rand.Rand, id string, now time.Time) *hostJob {
	sub := now.Add(-time.Duration(rng.IntN(200)) * sec)
	deadline := time.Time{}
	if rng.IntN(8) > 0 {
		deadline = now.Add(time.Duration(rng.IntN(400)-40) * sec).Truncate(20 * sec)
		if deadline.Before(sub) {
			deadline = sub
		}
	}
	j := &hostJob{Key: schedkit.JobID(id), SubmittedAt: sub, DeadlineAt: deadline}
	for p := range 2 {
		total := 1 + rng.IntN(8)
		if p == 1 {
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
		if p == 1 && rng.IntN(2) == 0 {
			pr.Ready = 0
		}
		j.Counters = append(j.Counters, pr)
		j.Nominal = append(j.Nominal, 20*sec)
	}
	if j.Counters[0].Finished+j.Counters[0].Running+j.Counters[1].Finished+j.Counters[1].Running == 0 {
		j.Counters[1].Ready = 0 // no later-phase task is ready before anything ran (see Queue)
	}
	return j
}

// TestQueueIsHeartbeatPrefix is the property Queue promises: for every
// slot kind, the assignments of any sequence of heartbeats at the same
// instant are a prefix of Queue's picks of that kind, for both
// implementations and with soft deadlines.
func TestQueueIsHeartbeatPrefix(t *testing.T) {
	type key struct {
		job   schedkit.JobID
		phase schedkit.Phase
	}
	expand := func(picks []lss.Pick, kind int) []key {
		var out []key
		for _, p := range picks {
			if int(p.Phase) != kind { // phases map to kinds 0, 1 here
				continue
			}
			for range p.Count {
				out = append(out, key{p.Job, p.Phase})
			}
		}
		return out
	}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		cl := newCluster(1+rng.IntN(4), float64(rng.IntN(4)), float64(rng.IntN(3)))
		cfg := lss.Config{Cluster: cl, Literal: rng.IntN(2) == 0, SoftDeadlines: rng.IntN(3) == 0}
		s, err := lss.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := t0.Add(500 * sec)
		var jobs []*hostJob
		for i := range 1 + rng.IntN(12) {
			jobs = append(jobs, randomQueueJob(rng, fmt.Sprintf("j%02d", i), now))
		}
		// Submit in submission order, as a host does (lss refuses a time
		// before an earlier one).
		slices.SortStableFunc(jobs, func(a, b *hostJob) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
		for _, j := range jobs {
			if err := s.Submit(j.SubmittedAt, j); err != nil {
				t.Fatalf("seed %d: Submit %s: %v", seed, j.Key, err)
			}
		}
		picks, err := s.Queue(now, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got [2][]key
		for _, n := range cl.NodeList {
			for i := range n.Free {
				n.Free[i] = float64(rng.IntN(int(n.Cap[i]) + 1))
			}
			decs, err := s.Heartbeat(now, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range decs {
				if d.Action == lss.Assign {
					for range d.Count {
						got[d.Phase] = append(got[d.Phase], key{d.Job, d.Phase})
					}
				}
			}
		}
		for kind := range 2 {
			want := expand(picks, kind)
			if len(got[kind]) > len(want) || !slices.Equal(got[kind], want[:len(got[kind])]) {
				t.Fatalf("seed %d kind %d: heartbeats assigned %v, not a prefix of Queue %v", seed, kind, got[kind], want)
			}
		}
	}
}
