package binding

import (
	"cmp"
	"fmt"
	"math/bits"
	"testing"

	"github.com/schedkit/schedkit"
)

// TestPaperAddLoopMoves measures what binding/doc.go says of the paper's
// ANode-add loop, over every rack of 1–4 ANodes holding 0–6 NNodes each
// (shapes up to order): against the fewest moves that leave the rack
// balanced (max − min ≤ 1), it moves
//
//   - when the k other stacks all hold s: the minimum, except one more
//     exactly when k·s mod (k+1) = k ({1, 1}: one move, though {1, 1, 0}
//     is already balanced);
//   - more than the minimum on some unequal stacks ({3, 2}: two moves,
//     to {1, 2, 2}, where one, to {2, 2, 1}, balances);
//   - fewer than the minimum on others ({2, 0}: none, leaving the rack
//     unbalanced; the paper does not promise balance).
func TestPaperAddLoopMoves(t *testing.T) {
	count := map[string]int{}
	examples := map[string]string{}
	var shape func(prefix []int, k int)
	shape = func(prefix []int, k int) {
		if len(prefix) == k {
			paper, best := addLoopMoves(t, prefix), minMoves(prefix)
			same := true
			for _, s := range prefix {
				same = same && s == prefix[0]
			}
			key := map[bool]string{true: "equal", false: "unequal"}[same] + "/" +
				map[int]string{-1: "fewer", 0: "minimal", 1: "more"}[cmp.Compare(paper, best)]
			count[key]++
			if k, sz := len(prefix), prefix[0]; same && (paper-best == 1) != (k*sz%(k+1) == k) {
				t.Errorf("equal stacks %v: paper %d moves, minimum %d; the doc says one more exactly when k·s mod (k+1) = k", prefix, paper, best)
			}
			if _, ok := examples[key]; !ok {
				examples[key] = fmt.Sprintf("%v: %d vs %d", prefix, paper, best)
			}
			return
		}
		for s := 0; s <= 6; s++ {
			if len(prefix) > 0 && s > prefix[len(prefix)-1] {
				break // non-increasing: each shape once
			}
			shape(append(prefix, s), k)
		}
	}
	for k := 1; k <= 4; k++ {
		shape(nil, k)
	}
	t.Logf("shapes by outcome: %v; first examples (stacks: paper vs minimum): %v", count, examples)
	if count["equal/fewer"] != 0 {
		t.Errorf("equal stacks: %v; the doc says the paper's loop never moves fewer than the minimum", examples)
	}
	if count["unequal/more"] == 0 || count["unequal/fewer"] == 0 {
		t.Errorf("the doc says the loop moves more than needed on some unequal stacks and fewer on others: %v", count)
	}
	if got := addLoopMoves(t, []int{3, 2}); got != 2 || minMoves([]int{3, 2}) != 1 {
		t.Errorf("{3, 2}: paper %d moves, minimum %d; the doc says 2 and 1", got, minMoves([]int{3, 2}))
	}
}

// addLoopMoves builds, in paper mode, a rack whose ANodes hold the given
// stack sizes and returns how many NNodes adding one more ANode moves.
// The shape is made by filling every stack to the largest size and then
// removing NNodes (the paper does not rebalance on removal).
func addLoopMoves(t *testing.T, sizes []int) int {
	tab, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sizes {
		if _, err := tab.Add(t0, anode(schedkit.NodeID(fmt.Sprintf("a%d", i)), "r")); err != nil {
			t.Fatal(err)
		}
	}
	for n := range len(sizes) * sizes[0] {
		if _, err := tab.Add(t0, nnode(schedkit.NodeID(fmt.Sprintf("n%02d", n)), "r")); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range sizes {
		st := tab.Stack(schedkit.NodeID(fmt.Sprintf("a%d", i)), nil)
		for _, u := range st[s:] {
			if _, err := tab.Remove(u.Node); err != nil {
				t.Fatal(err)
			}
		}
	}
	moves, err := tab.Add(t0, anode("new", "r"))
	if err != nil {
		t.Fatal(err)
	}
	return len(moves)
}

// minMoves is the fewest moves that balance (max − min ≤ 1) the stacks
// after an empty one joins: every unit moves except the most that can
// stay, over every choice of which stacks end one larger.
func minMoves(sizes []int) int {
	o := append(append([]int(nil), sizes...), 0)
	k, units := len(o), 0
	for _, s := range sizes {
		units += s
	}
	q, rem := units/k, units%k
	best := 0
	for mask := 0; mask < 1<<k; mask++ {
		if bits.OnesCount(uint(mask)) != rem {
			continue
		}
		kept := 0
		for j := range k {
			size := q
			if mask&(1<<j) != 0 {
				size++
			}
			kept += min(o[j], size)
		}
		best = max(best, kept)
	}
	return units - best
}
