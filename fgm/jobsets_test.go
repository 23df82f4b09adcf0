package fgm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// TestJobSetMatchesSort: after random insertions, removals and changes
// of a job's key (taken out before the change is seen, put back after,
// as fixSets does), a jobSet's in-order walk is the jobs sorted by
// compareJobs, and every node keeps the treap's invariants.
func TestJobSetMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := &Scheduler{cfg: Config{Fairness: FIFO{}}}
	js := &jobSets{s: s}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var set jobSet
	in := map[*jobEntry]*tnode{}
	var all []*jobEntry
	for i := range 300 {
		all = append(all, &jobEntry{state: JobState{ID: schedkit.JobID(fmt.Sprint("j", i)), Submitted: t0.Add(time.Duration(rng.IntN(50)) * time.Second)}})
	}
	for step := range 5000 {
		j := all[rng.IntN(len(all))]
		x := in[j]
		switch {
		case x == nil:
			x = &tnode{j: j, prio: js.treePrio()}
			js.insert(&set, x)
			in[j] = x
		case rng.IntN(2) == 0:
			set.remove(x)
			delete(in, j)
		default: // the key changes while j is in the set: out, change, in
			set.remove(x)
			j.state.Submitted = t0.Add(time.Duration(rng.IntN(50)) * time.Second)
			js.insert(&set, x)
		}
		var got []*jobEntry
		for x := set.first(); x != nil; x = x.next() {
			got = append(got, x.j)
		}
		want := make([]*jobEntry, 0, len(in))
		for j := range in {
			want = append(want, j)
		}
		slices.SortFunc(want, s.compareJobs)
		if !slices.Equal(got, want) || set.n != len(in) {
			t.Fatalf("step %d: walk of %d jobs (n %d) is not the sorted %d", step, len(got), set.n, len(want))
		}
		if err := checkTreap(set.root, nil); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
}

func checkTreap(x, parent *tnode) error {
	if x == nil {
		return nil
	}
	if x.parent != parent {
		return fmt.Errorf("node %s: wrong parent", x.j.state.ID)
	}
	if parent != nil && x.prio > parent.prio {
		return fmt.Errorf("node %s: priority above its parent's", x.j.state.ID)
	}
	if err := checkTreap(x.left, x); err != nil {
		return err
	}
	return checkTreap(x.right, x)
}

// TestFixSetsDRFMatchesSort: with DRF, the sets compare keys cached in
// their nodes, fixSets fixes only the sets a walk visits (the others
// stay stale until a walk visits them) and leaves a moved job's node in
// place when its neighbours still bracket it. After random changes of
// the jobs' shares (many ties: equal shares, equal submission times),
// of their queue combinations and of their being active, each fixed
// set's in-order walk is its jobs sorted by compareJobs on their live
// states, the treaps keep their invariants, and both ways of fixing
// (keeping in place or not) are met.
func TestFixSetsDRFMatchesSort(t *testing.T) {
	if sz := unsafe.Sizeof(tnode{}); sz > 64 {
		t.Fatalf("tnode is %d bytes, more than a cache line", sz)
	}
	for _, c := range []struct{ jobs, changes int }{{200, 4}, {30, 12}} {
		t.Run(fmt.Sprintf("jobs=%d/changes=%d", c.jobs, c.changes), func(t *testing.T) {
			fixSetsScenario(t, c.jobs, c.changes)
		})
	}
}

func fixSetsScenario(t *testing.T, jobs, changes int) {
	rng := rand.New(rand.NewPCG(11, uint64(jobs)))
	s := &Scheduler{cfg: Config{Fairness: DRF{}}, drf: true, kinds: kinds{integral: []int{1, 2}}}
	js := newJobSets(s).(*jobSets)
	s.walk.init(s, []stage{js})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.jobs = map[schedkit.JobID]*jobEntry{}
	var all []*jobEntry
	for i := range jobs {
		sub := time.Duration(rng.IntN(20)) * time.Second
		j := &jobEntry{activePos: -1, sub: sub, slot: i}
		j.state = JobState{ID: schedkit.JobID(fmt.Sprint("j", i)), Submitted: t0.Add(sub)}
		all = append(all, j)
		s.jobs[j.state.ID] = j
	}
	check := func(step int, open uint64) {
		for m := range 4 {
			if open&(1<<m) == 0 {
				continue
			}
			var got, want []*jobEntry
			for x := js.sets[m].first(); x != nil; x = x.next() {
				got = append(got, x.j)
			}
			for _, j := range all {
				if j.activePos >= 0 && j.needs[m] > 0 {
					want = append(want, j)
				}
			}
			slices.SortFunc(want, s.compareJobs)
			if !slices.Equal(got, want) || js.sets[m].n != len(want) {
				t.Fatalf("step %d, set %d: walk of %d jobs (n %d) is not the sorted %d", step, m, len(got), js.sets[m].n, len(want))
			}
			if err := checkTreap(js.sets[m].root, nil); err != nil {
				t.Fatalf("step %d, set %d: %v", step, m, err)
			}
		}
	}
	shares := []float64{0, 0, 0.01, 0.02, 0.02, 0.5, 1, math.MaxFloat64}
	kept := 0
	for step := range 4000 {
		for range 1 + rng.IntN(changes) {
			j := all[rng.IntN(len(all))]
			switch rng.IntN(4) {
			case 0: // active or not
				if j.activePos < 0 {
					j.activePos = 0
				} else {
					j.activePos = -1
				}
			case 1: // the combinations its queue requests
				m := rng.IntN(4)
				j.needs[m] = int32(1 - min(j.needs[m], 1))
			default:
				if rng.IntN(3) == 0 {
					j.state.Share = shares[rng.IntN(len(shares))]
				} else {
					j.state.Share += float64(rng.IntN(3)) / 100
				}
			}
			s.moveJob(j)
		}
		// The sets a walk with these kinds closed visits (bit 0 the
		// first integral kind, bit 1 the second): mostly the second
		// closed, as in a Hadoop day, the other sets left stale.
		closed := []int{2, 2, 2, 2, 0, 1, 3}[rng.IntN(7)]
		open := js.openSets(closed)
		for m := range 4 {
			bit := uint64(1) << m
			for _, j := range js.staleIn[m] {
				// What fixSets will ask first (it then trusts more
				// neighbours: those of jobs already dealt with).
				if x := js.jobs.held(j).node(m); open&bit != 0 && x != nil && x.in && j.activePos >= 0 && j.needs[m] > 0 && js.inPlace(x, bit) {
					kept++
				}
			}
		}
		js.fixSets(open)
		check(step, open)
	}
	js.fixSets(js.allSets())
	check(-1, js.allSets())
	for m := range 4 {
		if n := len(js.staleIn[m]); n != 0 {
			t.Fatalf("set %d: %d jobs left stale after fixing every set", m, n)
		}
	}
	for _, j := range all {
		st := js.jobs.held(j)
		for _, x := range st.nodes {
			if !x.in || st.stale != 0 {
				t.Fatalf("job %s: node of set %d out of its set, stale %b", j.state.ID, x.mask, st.stale)
			}
		}
	}
	if kept == 0 {
		t.Fatal("no node was left in place")
	}
}

// TestDRFKeyMonotonic: the sets compare submission offsets only while
// every job's Submitted has a monotonic clock reading exactly when the
// epoch has one (time.Time.Before compares those readings, the offsets
// came from the wall clock otherwise).
func TestDRFKeyMonotonic(t *testing.T) {
	space, err := resource.NewSpace(resource.CPU)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mono := time.Now()
	for _, c := range []struct {
		epoch, now time.Time
		want       bool
	}{{wall, wall.Add(time.Second), true}, {mono, mono.Add(time.Second), true}, {wall, mono, false}, {mono, mono.Round(0), false}} {
		s := &Scheduler{space: space, queue: queue{jobs: map[schedkit.JobID]*jobEntry{}}, drf: true, kinds: kinds{integral: []int{0}}}
		js := newJobSets(s).(*jobSets)
		s.walk.init(s, []stage{js})
		r, _ := s.clock.Check(c.epoch)
		s.clock.Commit(r)
		s.jobEntry("j", c.now, 0)
		if js.drfKey != c.want {
			t.Errorf("epoch monotonic %v, job's %v: drfKey %v, want %v", hasMonotonic(c.epoch), hasMonotonic(c.now), js.drfKey, c.want)
		}
	}
}
