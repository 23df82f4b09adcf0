package dbs_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
)

// firstAssigned submits jobs at now on a cluster of one node of 4 map
// and 2 reduce slots, runs one weight update and one heartbeat with one
// free map slot, and returns the job given the slot.
func firstAssigned(t *testing.T, cfg dbs.Config, now time.Time, jobs ...*hJob) schedkit.JobID {
	t.Helper()
	c := newCluster(1, 4, 2)
	cfg.Cluster = c
	s, err := dbs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if err := s.Submit(now, j); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Tick(now, nil); err != nil {
		t.Fatal(err)
	}
	c.NodeList[0].Free[0] = 1
	ds, err := s.Heartbeat(now, c.NodeList[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 {
		t.Fatalf("decisions %v, want one assignment", ds)
	}
	return ds[0].Job
}

// TestQueueOrderRules checks the two rules of ours within a queue, each
// with its ablation, on one free map slot in High:
//
//   - lost jobs last: "lost" is past its deadline (no view of model 2 can
//     be met: W₁ = MaxTerm, minimum 0) and "hopeful" holds its minimum
//     (one map slot, already running); neither is below its minimum. The
//     slot goes to the job that can still meet its deadline, though the
//     lost one weighs more; with Ablations.LostByWeight, by weight, to
//     the lost one.
//   - jobs without a task time first: "known" (a finished 10 s map, 20
//     maps left, 90 s to its deadline: minimum ⌈200/90⌉ = 3, weight above
//     0) and "new" (no task time yet: weight 0, placeholder minimum of
//     one map) are both below their minimums. The slot goes to the job
//     without a task time, which needs it to be measured at all; with
//     Ablations.UnknownByWeight, by weight, to the known one.
func TestQueueOrderRules(t *testing.T) {
	lostJobs := func() []*hJob {
		lost := mrJob("lost", 1, 10, 0, 50*sec, 0)
		lost.Counters = lost.Counters[:1]
		lost.Counters[0].Finished, lost.Counters[0].FinishedDurationSum, lost.Counters[0].Ready = 1, 10*sec, 9
		hopeful := mrJob("hopeful", 1, 10, 0, 1000*sec, 0)
		hopeful.Counters = hopeful.Counters[:1]
		h := &hopeful.Counters[0]
		h.Finished, h.FinishedDurationSum, h.Running, h.RunningStartSum, h.Ready = 1, 10*sec, 1, 95*sec, 8
		return []*hJob{lost, hopeful}
	}
	unknownJobs := func() []*hJob {
		known := mrJob("known", 1, 21, 0, 100*sec, 0)
		known.Counters = known.Counters[:1]
		known.Counters[0].Finished, known.Counters[0].FinishedDurationSum, known.Counters[0].Ready = 1, 10*sec, 20
		fresh := mrJob("new", 1, 5, 0, 1000*sec, 0)
		fresh.Counters = fresh.Counters[:1]
		return []*hJob{known, fresh}
	}
	for _, tc := range []struct {
		jobs func() []*hJob
		at   time.Duration
		abl  dbs.Ablations
		want schedkit.JobID
	}{
		{lostJobs, 100 * sec, dbs.Ablations{}, "hopeful"},
		{lostJobs, 100 * sec, dbs.Ablations{LostByWeight: true}, "lost"},
		{unknownJobs, 10 * sec, dbs.Ablations{}, "new"},
		{unknownJobs, 10 * sec, dbs.Ablations{UnknownByWeight: true}, "known"},
	} {
		if got := firstAssigned(t, dbs.Config{Ablations: tc.abl}, t0.Add(tc.at), tc.jobs()...); got != tc.want {
			t.Errorf("%+v: slot to %s, want %s", tc.abl, got, tc.want)
		}
	}
}

// TestPriorityFloor: with PrioritySharing and a floor of 25% for Low, on
// 4 map slots, a Low job at its minimum gets one slot (its floor) before
// the High job, at its minimum too, gets the rest.
func TestPriorityFloor(t *testing.T) {
	c := newCluster(1, 4, 1)
	q := dbs.DefaultQueues
	q[dbs.Low].Share = 0.25
	s, err := dbs.New(dbs.Config{Cluster: c, Queues: q, Ablations: dbs.Ablations{NoMinimumSlots: true}})
	if err != nil {
		t.Fatal(err)
	}
	high := mrJob("high", 1, 20, 0, 1000*sec, 0)
	low := mrJob("low", 0, 20, 0, 0, 100)
	low.DeadlineAt = time.Time{}
	for _, j := range []*hJob{high, low} {
		j.Counters = j.Counters[:1]
		if err := s.Submit(t0, j); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := s.Heartbeat(t0, c.NodeList[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[schedkit.JobID]int{}
	for _, d := range ds {
		got[d.Job] += d.Count
	}
	if got["low"] != 1 || got["high"] != 3 {
		t.Errorf("assigned %v, want low 1 (its floor), high 3", got)
	}
}

// TestPriorityDemotionFits: with PrioritySharing a High job holding a
// surplus (8 maps running, needing 1: model3Job) is demoted to Mid only
// if what it needs fits in what Mid's jobs' minimums leave of the 16 map
// slots: beside a Mid job needing 5 (400 slot-s of maps in about 99 s)
// it is (1 ≤ 16 − 5); beside one needing all 16 (in about 26 s) it
// stays, marked (1 > 16 − 16) — unless Ablations.NoBetterOff.
func TestPriorityDemotionFits(t *testing.T) {
	for _, tc := range []struct {
		midDeadline time.Duration // 40 maps of 10 s left: minimum ⌈400/window⌉
		abl         dbs.Ablations
		demoted     bool
	}{
		{100 * sec, dbs.Ablations{}, true},
		{26670 * time.Millisecond, dbs.Ablations{}, false},
		{26670 * time.Millisecond, dbs.Ablations{NoBetterOff: true}, true},
	} {
		c := newCluster(4, 4, 2)
		s, err := dbs.New(dbs.Config{Cluster: c, Ablations: tc.abl})
		if err != nil {
			t.Fatal(err)
		}
		now := t0.Add(20 * sec)
		j := model3Job()
		mid := mrJob("mid", 0.5, 41, 0, 0, 1e6)
		mid.Counters = mid.Counters[:1]
		mid.SubmittedAt, mid.DeadlineAt = now, now.Add(tc.midDeadline)
		m := &mid.Counters[0]
		m.Finished, m.FinishedDurationSum, m.Ready = 1, 10*sec, 40
		for _, x := range []*hJob{j, mid} {
			if err := s.Submit(now, x); err != nil {
				t.Fatal(err)
			}
		}
		demoted := false
		for _, d := range ticks(t, s, &now, 2) {
			if d.Job == "j" && d.Action == dbs.Demote {
				demoted = true
			}
		}
		if demoted != tc.demoted {
			st, _ := s.Status("mid")
			t.Errorf("Mid deadline %v, %+v: demoted %v, want %v (Mid's minimum %d)", tc.midDeadline, tc.abl, demoted, tc.demoted, st.Min.Map)
		}
	}
}

// TestPriorityQueueAvail: with PrioritySharing, model 1's V for a job in
// Mid is its part of the cluster's 10 map slots among the jobs of Mid
// and High (4: 2.5 each; T̂ = ⌈20/2.5⌉·30 s = 240 s of a 600 s
// deadline: T̂/D = 0.4), whatever High's job holds; with
// CapacitySharing, its part of Mid's 30% share, 1 (T̂ = 20·30 s = 600 s:
// 1).
func TestPriorityQueueAvail(t *testing.T) {
	for _, tc := range []struct {
		sharing dbs.Sharing
		want    float64
	}{{dbs.PrioritySharing, 0.4}, {dbs.CapacitySharing, 1}} {
		c := newCluster(5, 2, 1)
		s, err := dbs.New(dbs.Config{Cluster: c, Sharing: tc.sharing, DefaultTaskTime: 30 * sec})
		if err != nil {
			t.Fatal(err)
		}
		high := mrJob("high", 1, 40, 0, 3600*sec, 0)
		high.Counters = high.Counters[:1]
		high.Counters[0].Ready, high.Counters[0].Running = 34, 6
		if err := s.Submit(t0, high); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"m1", "m2", "m3"} {
			j := mrJob(id, 0.5, 20, 0, 600*sec, 1e6)
			j.Counters = j.Counters[:1]
			if err := s.Submit(t0, j); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Tick(t0, nil); err != nil {
			t.Fatal(err)
		}
		st, err := s.Status("m1")
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Model1.TimeTerm; got != tc.want {
			t.Errorf("%v: m1's T̂/D %v, want %v", tc.sharing, got, tc.want)
		}
	}
}
