package fgm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
)

// TestJobSetMatchesSort: after random insertions, removals and changes
// of a job's key (taken out before the change is seen, put back after,
// as fixSets does), a jobSet's in-order walk is the jobs sorted by
// compareJobs, and every node keeps the treap's invariants.
func TestJobSetMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := &Scheduler{cfg: Config{Fairness: FIFO{}}}
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
			x = &tnode{j: j, prio: s.treePrio()}
			s.insert(&set, x)
			in[j] = x
		case rng.IntN(2) == 0:
			set.remove(x)
			delete(in, j)
		default: // the key changes while j is in the set: out, change, in
			set.remove(x)
			j.state.Submitted = t0.Add(time.Duration(rng.IntN(50)) * time.Second)
			s.insert(&set, x)
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
