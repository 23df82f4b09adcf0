package schedkit

import (
	"errors"
	"fmt"
	"math"

	"github.com/schedkit/schedkit/internal/nilvalue"
)

// ErrInconsistentHost is wrapped by the errors of CheckJob and
// CheckCluster: a host's views that contradict themselves.
var ErrInconsistentHost = errors.New("schedkit: inconsistent host view")

// CheckJob is a self-check a host can run in its own tests, after every
// change to a job: j is not nil (nor a typed nil pointer), has an ID, a
// phase count in [1, MaxPhases], a submission time that is not the zero
// time, a deadline not before its submission, and counters that pass PhaseProgress.Validate. The error wraps
// ErrInconsistentHost (and ErrInvalidProgress for counters).
func CheckJob(j Job) error {
	if nilvalue.Is(j) {
		return fmt.Errorf("%w: nil job", ErrInconsistentHost)
	}
	id := j.ID()
	switch n := j.Phases(); {
	case id == "":
		return fmt.Errorf("%w: job with an empty ID", ErrInconsistentHost)
	case n < 1 || n > MaxPhases:
		return fmt.Errorf("%w: job %q has %d phases, want 1..%d", ErrInconsistentHost, id, n, MaxPhases)
	case j.Submitted().IsZero():
		return fmt.Errorf("%w: job %q: submission time is the zero time", ErrInconsistentHost, id)
	case !j.Deadline().IsZero() && j.Deadline().Before(j.Submitted()):
		return fmt.Errorf("%w: job %q: deadline %v before submission %v", ErrInconsistentHost, id, j.Deadline(), j.Submitted())
	}
	for p := range j.Phases() {
		if err := j.Progress(Phase(p)).Validate(); err != nil {
			return fmt.Errorf("%w: job %q phase %s: %w", ErrInconsistentHost, id, Phase(p), err)
		}
	}
	return nil
}

// CheckCluster is a self-check a host can run in its own tests, after
// every change to its cluster: c and its Space are set, every node is
// non-nil with a unique ID and a rack, every vector has the Space's
// length and finite, non-negative amounts, no node has more available
// than its capacity, and the cluster's Capacity equals the sum of its
// nodes' capacities (to a relative 1e-9, for fractional kinds). The error
// wraps ErrInconsistentHost.
func CheckCluster(c Cluster) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInconsistentHost}, args...)...)
	}
	if nilvalue.Is(c) {
		return bad("nil cluster")
	}
	sp := c.Space()
	if sp == nil {
		return bad("cluster with a nil Space")
	}
	n := sp.Len()
	sum := make([]float64, n)
	seen := make(map[NodeID]int, c.Nodes())
	vec := func(node NodeID, what string, v []float64) error {
		if len(v) != n {
			return bad("node %q: %s has %d elements, the Space %d", node, what, len(v), n)
		}
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return bad("node %q: %s of %q is %v", node, what, sp.Kind(i).Name, x)
			}
		}
		return nil
	}
	for i := range c.Nodes() {
		nd := c.Node(i)
		if nilvalue.Is(nd) {
			return bad("Node(%d) is nil", i)
		}
		id := nd.ID()
		if j, dup := seen[id]; dup {
			return bad("nodes %d and %d share the ID %q", j, i, id)
		}
		seen[id] = i
		if nd.Rack() == "" {
			return bad("node %q has no rack", id)
		}
		capy, avail := nd.Capacity(), nd.Available()
		if err := vec(id, "capacity", capy); err != nil {
			return err
		}
		if err := vec(id, "available", avail); err != nil {
			return err
		}
		for k := range n {
			if avail[k] > capy[k] {
				return bad("node %q: %v %q available, more than its capacity %v", id, avail[k], sp.Kind(k).Name, capy[k])
			}
			sum[k] += capy[k]
		}
	}
	total := c.Capacity()
	if len(total) != n {
		return bad("cluster capacity has %d elements, the Space %d", len(total), n)
	}
	for k := range n {
		if d := math.Abs(total[k] - sum[k]); !(d <= 1e-9*math.Max(1, math.Abs(sum[k]))) {
			return bad("cluster capacity of %q is %v, its nodes sum to %v", sp.Kind(k).Name, total[k], sum[k])
		}
	}
	return nil
}
