package lss_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
)

// at returns t0 + d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// pjob returns a job submitted at sub (after t0) with deadline dl (after
// t0; negative: none) and the given counters.
func pjob(id string, sub, dl time.Duration, phases ...schedkit.PhaseProgress) *hostJob {
	j := &hostJob{Key: schedkit.JobID(id), SubmittedAt: at(sub), Counters: phases}
	if dl >= 0 {
		j.DeadlineAt = at(dl)
	}
	return j
}

// both runs fn for the indexed and the literal implementation.
func both(t *testing.T, fn func(t *testing.T, literal bool)) {
	for _, lit := range []bool{false, true} {
		t.Run(map[bool]string{false: "indexed", true: "literal"}[lit], func(t *testing.T) { fn(t, lit) })
	}
}

func mustNew(t *testing.T, cfg lss.Config) *lss.Scheduler {
	t.Helper()
	s, err := lss.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustSubmit(t *testing.T, s *lss.Scheduler, now time.Time, jobs ...*hostJob) {
	t.Helper()
	for _, j := range jobs {
		if err := s.Submit(now, j); err != nil {
			t.Fatal(err)
		}
	}
}

// lines renders decisions one per line.
func lines(ds []lss.Decision) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintln(&b, d)
	}
	return b.String()
}

func heartbeat(t *testing.T, s *lss.Scheduler, now time.Time, n *hostNode) []lss.Decision {
	t.Helper()
	ds, err := s.Heartbeat(now, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func expect(t *testing.T, ds []lss.Decision, want string) {
	t.Helper()
	if got := lines(ds); got != want {
		t.Fatalf("decisions:\n%s\nwant:\n%s", got, want)
	}
}

// A job with finished tasks and little spare time ("old") would take
// every free map slot by least spare time; pass 1 gives the newly
// submitted job its first map before that.
func TestNewJobGetsFirstMapBeforeOlderJobsFillTheNode(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		old := pjob("old", 0, 200*sec,
			schedkit.PhaseProgress{Total: 10, Finished: 2, Ready: 8, FinishedDurationSum: 40 * sec},
			schedkit.PhaseProgress{Total: 1})
		fresh := pjob("new", 100*sec, 2000*sec, schedkit.PhaseProgress{Total: 5, Ready: 5}, schedkit.PhaseProgress{Total: 1})
		mustSubmit(t, s, at(100*sec), old, fresh)
		expect(t, heartbeat(t, s, at(100*sec), cl.NodeList[0]), ""+
			"assign new map×1 on n00 (pass 1)\n"+
			"assign old map×1 on n00 (pass 2)\n")
	})
}

// Reduce slots are filled only in pass 3, after every map assignment, and
// only with reduces the host says are ready.
func TestReducesOnlyInPassThree(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		// a: maps done, reduce ready, least spare; b: maps ready.
		a := pjob("a", 0, 100*sec,
			schedkit.PhaseProgress{Total: 2, Finished: 2, FinishedDurationSum: 40 * sec},
			schedkit.PhaseProgress{Total: 1, Ready: 1})
		b := pjob("b", 0, 900*sec,
			schedkit.PhaseProgress{Total: 4, Finished: 1, Ready: 3, FinishedDurationSum: 20 * sec},
			schedkit.PhaseProgress{Total: 2})
		mustSubmit(t, s, at(10*sec), a, b)
		expect(t, heartbeat(t, s, at(10*sec), cl.NodeList[0]), ""+
			"assign b map×2 on n00 (pass 2)\n"+
			"assign a reduce×1 on n00 (pass 3)\n")
	})
}

// However many jobs want slots, no kind is assigned more than the node
// has free, and no job more tasks than it has ready.
func TestNoSlotOverAssigned(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 3, 2, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		for i := range 20 {
			mustSubmit(t, s, t0, pjob(fmt.Sprintf("j%02d", i), 0, time.Duration(100+i)*sec,
				schedkit.PhaseProgress{Total: 1 + i%3, Ready: 1 + i%3},
				schedkit.PhaseProgress{Total: 2, Ready: i % 2}))
		}
		ds := heartbeat(t, s, t0, cl.NodeList[0])
		perKind := map[schedkit.Phase]int{}
		for _, d := range ds {
			perKind[d.Phase] += d.Count
		}
		if perKind[schedkit.PhaseMap] != 3 || perKind[schedkit.PhaseReduce] != 2 {
			t.Fatalf("assigned %v, want 3 maps and 2 reduces:\n%s", perKind, lines(ds))
		}
		// Pass 1 took the three earliest deadlines, one map each; the
		// reduces went to the earliest deadlines with a ready reduce.
		expect(t, ds, ""+
			"assign j00 map×1 on n00 (pass 1)\n"+
			"assign j01 map×1 on n00 (pass 1)\n"+
			"assign j02 map×1 on n00 (pass 1)\n"+
			"assign j01 reduce×1 on n00 (pass 3)\n"+
			"assign j03 reduce×1 on n00 (pass 3)\n")
		// A second node heartbeating before the host applied anything:
		// j00–j02 and j03 (its reduce) are no longer first-map candidates
		// — what was assigned counts as running — and the ready reduces
		// of j01 and j03 are taken.
		n2 := cl.AddNode("", "rack0", []float64{8, 2, 1, 0})
		expect(t, heartbeat(t, s, t0, n2), ""+
			"assign j04 map×1 on n01 (pass 1)\n"+
			"assign j05 map×1 on n01 (pass 1)\n"+
			"assign j05 reduce×1 on n01 (pass 3)\n")
	})
}

// The kill rules with worked numbers. Cluster: 4 map and 2 reduce slots.
// Every job has finished maps averaging 20s (Tavg = 20s) except "young".
func TestKillThreshold(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(2, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		done := func(n int) schedkit.PhaseProgress {
			return schedkit.PhaseProgress{Total: n + 8, Finished: n, Ready: 8, FinishedDurationSum: time.Duration(n) * 20 * sec}
		}
		red := schedkit.PhaseProgress{Total: 1}
		// remaining = (⌈8/4⌉ + ⌈1/2⌉)·20s = 60s for each below; now = 100s.
		mustSubmit(t, s, at(100*sec),
			// spare = 145s − 100s − 60s = −15s; −15s + 20s ≥ 0: kept
			pjob("tolerated", 0, 145*sec, done(2), red),
			// spare = 135s − 100s − 60s = −25s; −25s + 20s < 0: killed
			pjob("hopeless", 0, 135*sec, done(2), red),
			// spare = 140s − 100s − 60s = −20s; −20s + 20s = 0, not < 0: kept
			pjob("edge", 0, 140*sec, done(2), red),
			// no task finished: (5) spare = 120s − 100s = 20s; never killed early
			pjob("young", 0, 120*sec, schedkit.PhaseProgress{Total: 100, Ready: 100}, red),
			// no deadline: never killed, served last
			pjob("relaxed", 0, -1, done(2), red),
		)
		ds := heartbeat(t, s, at(100*sec), cl.NodeList[0])
		expect(t, ds, ""+
			"kill hopeless: spare+tavg<0 (spare -25s, tavg 20s)\n"+
			"assign young map×1 on n00 (pass 1)\n"+
			"assign edge map×1 on n00 (pass 2)\n")
		f := ds[0].Figures
		if f.Remaining.Time != 60*sec || !f.Deadline.Equal(at(135*sec)) || !f.Now.Equal(at(100*sec)) || f.TaskTime.Avg != 20*sec {
			t.Fatalf("kill figures %+v", f)
		}
		// 121s: young's deadline has passed; edge's spare is 140 − 121 −
		// 60 = −41s and tolerated's 145 − 121 − 60 = −36s, both below
		// −20s. Kills come in queue order; relaxed's reduce is not ready.
		ds = heartbeat(t, s, at(121*sec), cl.NodeList[1])
		expect(t, ds, ""+
			"kill edge: spare+tavg<0 (spare -41s, tavg 20s)\n"+
			"kill tolerated: spare+tavg<0 (spare -36s, tavg 20s)\n"+
			"kill young: deadline passed (spare -1s, tavg unknown)\n"+
			"assign relaxed map×2 on n01 (pass 2)\n")
		if s.Len() != 1 {
			t.Fatalf("Len = %d after kills, want 1", s.Len())
		}
	})
}

// Killed jobs get nothing, even when they have ready tasks and the node
// has free slots; soft deadlines report instead, once, and keep serving.
func TestKilledJobsGetNothing(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		late := pjob("late", 0, 50*sec, schedkit.PhaseProgress{Total: 4, Ready: 4}, schedkit.PhaseProgress{Total: 1, Ready: 1})
		mustSubmit(t, s, t0, late)
		expect(t, heartbeat(t, s, at(51*sec), cl.NodeList[0]), "kill late: deadline passed (spare -1s, tavg unknown)\n")
		expect(t, heartbeat(t, s, at(52*sec), cl.NodeList[0]), "")
		if err := s.Update("late"); err == nil {
			t.Fatal("Update of a killed job: no error")
		}
	})
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit, SoftDeadlines: true})
		late := pjob("late", 0, 50*sec, schedkit.PhaseProgress{Total: 4, Ready: 4}, schedkit.PhaseProgress{Total: 1, Ready: 1})
		mustSubmit(t, s, t0, late)
		expect(t, heartbeat(t, s, at(51*sec), cl.NodeList[0]), ""+
			"infeasible late: deadline passed (spare -1s, tavg unknown)\n"+
			"assign late map×1 on n00 (pass 1)\n"+
			"assign late map×1 on n00 (pass 2)\n"+
			"assign late reduce×1 on n00 (pass 3)\n")
		expect(t, heartbeat(t, s, at(52*sec), cl.NodeList[0]), "assign late map×2 on n00 (pass 2)\n")
	})
}

// Queue order: least spare time first; ties by earlier deadline, earlier
// submission, then ID; jobs without deadline last.
func TestOrderTies(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 8, 1, 0)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit})
		m := func() schedkit.PhaseProgress { return schedkit.PhaseProgress{Total: 1, Ready: 1} }
		// With Tavg 10s and 1 map + 1 reduce left on 8 + 1 slots the
		// remaining time is 20s: "x" (deadline 120s) has spare 100s at 0,
		// like the fresh "a", "b", "c" (deadline 100s): equal spare, so
		// earlier deadline first, then earlier submission (b), then ID.
		x := pjob("x", 0, 120*sec, schedkit.PhaseProgress{Total: 2, Finished: 1, Ready: 1, FinishedDurationSum: 10 * sec}, schedkit.PhaseProgress{Total: 1})
		mustSubmit(t, s, at(sec),
			pjob("nodl", 0, -1, m()),
			pjob("c", 1*sec, 100*sec, m()),
			pjob("b", 0, 100*sec, m()),
			pjob("a", 1*sec, 100*sec, m()),
			pjob("early", 0, 50*sec, m()),
			x,
		)
		st, err := s.Order(t0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, j := range st {
			got = append(got, fmt.Sprintf("%s:%v", j.Job, j.Figures.Spare.Time))
		}
		want := "early:50s b:1m40s a:1m40s c:1m40s x:1m40s nodl:0s"
		if strings.Join(got, " ") != want {
			t.Fatalf("order %s\nwant  %s", strings.Join(got, " "), want)
		}
	})
}

// A phase with unfinished work and no slots (a rolling restart took
// every reduce slot away): remaining is "cannot finish", spare −∞, but
// that is the cluster's state, not the job's, so no job is killed early
// (nor reported infeasible) for it; Order and the figures report it
// (Remaining.NoCapacity), the job is ordered first, and the deadline
// rule still applies. Once the slots are back, the job is judged as
// usual.
func TestNoCapacityDoesNotKill(t *testing.T) {
	for _, soft := range []bool{false, true} {
		both(t, func(t *testing.T, lit bool) {
			cl := newCluster(1, 2, 0, 0) // no reduce slots anywhere
			s := mustNew(t, lss.Config{Cluster: cl, Literal: lit, SoftDeadlines: soft, Admission: true, AdmissionTaskTime: 10 * sec})
			j := pjob("j", 0, 100*sec,
				schedkit.PhaseProgress{Total: 4, Finished: 1, Ready: 3, FinishedDurationSum: 10 * sec},
				schedkit.PhaseProgress{Total: 1})
			fresh := pjob("fresh", 0, 1000*sec, schedkit.PhaseProgress{Total: 4, Ready: 4}, schedkit.PhaseProgress{Total: 1})
			mustSubmit(t, s, t0, j, fresh) // admission: nothing to judge by
			ds := heartbeat(t, s, t0, cl.NodeList[0])
			expect(t, ds, ""+
				"assign fresh map×1 on n00 (pass 1)\n"+
				"assign j map×1 on n00 (pass 2)\n")
			if r := ds[1].Figures.Remaining; !r.CannotFinish || !r.NoCapacity {
				t.Fatalf("remaining %+v, want CannotFinish and NoCapacity", r)
			}
			st, err := s.Order(t0, nil)
			if err != nil || len(st) != 2 || st[0].Job != "j" || st[0].Kill != lss.NoReason || !st[0].Figures.Remaining.NoCapacity {
				t.Fatalf("Order = %+v, %v; want j first, NoCapacity, no kill", st, err)
			}
			// The deadline rule still applies.
			cl.NodeList[0].Free[1] = 0
			want := "kill j: deadline passed (spare -inf, tavg 10s)\n"
			if soft {
				want = "infeasible j: deadline passed (spare -inf, tavg 10s)\n"
			}
			expect(t, heartbeat(t, s, at(101*sec), cl.NodeList[0]), want)
		})
	}
	// Slots back: the usual early kill.
	cl := newCluster(1, 2, 0, 0)
	s := mustNew(t, lss.Config{Cluster: cl})
	mustSubmit(t, s, t0, pjob("j", 0, 15*sec,
		schedkit.PhaseProgress{Total: 4, Finished: 1, Ready: 3, FinishedDurationSum: 10 * sec},
		schedkit.PhaseProgress{Total: 1}))
	cl.NodeList[0].Free[1] = 0
	expect(t, heartbeat(t, s, t0, cl.NodeList[0]), "")
	cl.NodeList[0].Cap[2], cl.NodeList[0].Free[2] = 1, 1
	cl.Recount()
	expect(t, heartbeat(t, s, at(sec), cl.NodeList[0]), "kill j: spare+tavg<0 (spare -16s, tavg 10s)\n")
}

// With more phases, formula (3) sums over all of them and each kind gets
// its own pass.
func TestThreePhases(t *testing.T) {
	both(t, func(t *testing.T, lit bool) {
		cl := newCluster(1, 2, 1, 1)
		s := mustNew(t, lss.Config{Cluster: cl, Literal: lit, PhaseKinds: []string{"map-slot", "reduce-slot", "merge-slot"}})
		j := pjob("j", 0, 500*sec,
			schedkit.PhaseProgress{Total: 2, Finished: 2, FinishedDurationSum: 20 * sec},
			schedkit.PhaseProgress{Total: 3, Finished: 1, Ready: 2, FinishedDurationSum: 10 * sec},
			schedkit.PhaseProgress{Total: 2, Ready: 1})
		two := pjob("two", 0, 900*sec, schedkit.PhaseProgress{Total: 3, Ready: 3}, schedkit.PhaseProgress{Total: 1})
		mustSubmit(t, s, t0, j, two)
		ds := heartbeat(t, s, at(100*sec), cl.NodeList[0])
		expect(t, ds, ""+
			"assign two map×1 on n00 (pass 1)\n"+
			"assign two map×1 on n00 (pass 2)\n"+
			"assign j reduce×1 on n00 (pass 3)\n"+
			"assign j phase-2×1 on n00 (pass 4)\n")
		// Tavg = 30s/3 = 10s; remaining = (0 + ⌈2/1⌉ + ⌈2/1⌉)·10s = 40s;
		// spare = 500s − 100s − 40s = 360s.
		if f := ds[2].Figures; f.Remaining.Time != 40*sec || f.Spare.Time != 360*sec {
			t.Fatalf("figures %+v", f)
		}
		if err := s.Submit(t0, pjob("four", 0, 900*sec, make([]schedkit.PhaseProgress, 4)...)); err == nil {
			t.Fatal("a job with more phases than configured was accepted")
		}
	})
}

// Per-phase averages and heterogeneous slots change the figures as
// documented.
func TestOptionFigures(t *testing.T) {
	mk := func() *hostJob {
		// maps: 4 finished in 40s (10s each), 8 left; reduce: 1 finished
		// in 60s, 2 left. Pooled Tavg = 100s/5 = 20s.
		return pjob("j", 0, 1000*sec,
			schedkit.PhaseProgress{Total: 12, Finished: 4, Ready: 8, FinishedDurationSum: 40 * sec},
			schedkit.PhaseProgress{Total: 3, Finished: 1, Ready: 2, FinishedDurationSum: 60 * sec})
	}
	tests := []struct {
		name string
		cfg  lss.Config
		want time.Duration
	}{
		// 2 nodes × (2 map, 1 reduce): (⌈8/4⌉ + ⌈2/2⌉)·20s = 60s
		{"paper: pooled 20s", lss.Config{}, 60 * sec},
		// ⌈8/4⌉·10s + ⌈2/2⌉·60s = 80s
		{"per-phase: 10s maps, 60s reduces", lss.Config{PerPhaseTaskTime: true}, 80 * sec},
		// n00 speed 3: map capacity 2·3 + 2 = 8, reduce 3 + 1 = 4:
		// (⌈8/8⌉ + ⌈2/4⌉)·20s = 40s
		{"heterogeneous: n00 three times as fast", lss.Config{Heterogeneous: true, NodeSpeeds: map[schedkit.NodeID]float64{"n00": 3}}, 40 * sec},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl := newCluster(2, 2, 1, 0)
			tc.cfg.Cluster = cl
			s := mustNew(t, tc.cfg)
			mustSubmit(t, s, t0, mk())
			st, err := s.Order(t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := st[0].Figures.Remaining.Time; got != tc.want {
				t.Fatalf("remaining %v, want %v", got, tc.want)
			}
		})
	}
	// SetNodeSpeed takes effect at the next heartbeat.
	cl := newCluster(2, 2, 1, 0)
	s := mustNew(t, lss.Config{Cluster: cl, Heterogeneous: true})
	mustSubmit(t, s, t0, mk())
	if err := s.SetNodeSpeed("n00", 3); err != nil {
		t.Fatal(err)
	}
	ds := heartbeat(t, s, t0, cl.NodeList[1])
	if got := ds[0].Figures.Remaining.Time; got != 40*sec {
		t.Fatalf("after SetNodeSpeed: remaining %v, want 40s", got)
	}
}

// Admission control refuses what could not make it alone, with the task
// time from observations, the job's hint, or the config, in that order.
func TestAdmission(t *testing.T) {
	cl := newCluster(1, 2, 1, 0)
	s := mustNew(t, lss.Config{Cluster: cl, Admission: true})
	// 10 maps on 2 slots + 1 reduce: (5 + 1)·T. Deadline 100s.
	j := newJob("hinted", t0, at(100*sec), 10, 1)
	j.Hint = 20 * sec // 6·20s = 120s > 100s: refused
	err := s.Submit(t0, j)
	var re *lss.RefusedError
	if !errorsAs(err, &re) || re.Remaining.Time != 120*sec || re.Spare.Time != -20*sec || re.Source != "hint" {
		t.Fatalf("Submit: %v (%+v)", err, re)
	}
	j.Hint = 15 * sec // 90s ≤ 100s: admitted
	if err := s.Submit(t0, j); err != nil {
		t.Fatal(err)
	}
	// No hint and no configured default: admitted, nothing to judge by.
	if err := s.Submit(t0, newJob("unknown", t0, at(10*sec), 10, 1)); err != nil {
		t.Fatal(err)
	}
	// Observed tasks win over the configured default.
	s2 := mustNew(t, lss.Config{Cluster: cl, Admission: true, AdmissionTaskTime: time.Hour})
	obs := pjob("obs", 0, 100*sec, schedkit.PhaseProgress{Total: 4, Finished: 2, Ready: 2, FinishedDurationSum: 20 * sec}, schedkit.PhaseProgress{Total: 1})
	if err := s2.Submit(t0, obs); err != nil { // (1 + 1)·10s = 20s
		t.Fatal(err)
	}
	if err := s2.Submit(t0, newJob("slow", t0, at(100*sec), 1)); !errorsAs(err, &re) || re.Source != "config" {
		t.Fatalf("Submit with config default: %v", err)
	}
	if s.Len() != 2 || s2.Len() != 1 {
		t.Fatalf("Len %d, %d", s.Len(), s2.Len())
	}
}

// Decisions are appended to the caller's slice without allocating once
// it has room.
func TestHeartbeatAppends(t *testing.T) {
	cl := newCluster(1, 2, 1, 0)
	s := mustNew(t, lss.Config{Cluster: cl})
	mustSubmit(t, s, t0, newJob("a", t0, at(100*sec), 3, 1))
	buf := make([]lss.Decision, 1, 8)
	buf[0].Job = "keep"
	out, err := s.Heartbeat(t0, cl.NodeList[0], buf)
	if err != nil || len(out) != 3 || out[0].Job != "keep" || &out[0] != &buf[0] {
		t.Fatalf("Heartbeat appended %v, %v", out, err)
	}
	if d := out[1].Figures.Spare; !d.Initial || d.Time != 100*sec {
		t.Fatalf("figures of a fresh job: %+v", d)
	}
}
