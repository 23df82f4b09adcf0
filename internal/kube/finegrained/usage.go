package finegrained

import (
	"fmt"
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/schedkit/schedkit/internal/kube/podtask"
	"github.com/schedkit/schedkit/resource"
)

// nodeUsage is what the plugin keeps of the feed's node samples (the
// foreign load and measured idle memory it plans with): each node's
// latest valid sample, with the feed read it arrived at, until it
// expires. A node's usage is only as good as its last sample, so:
//
//   - a sample older than staleAfter is dropped at the next read (the
//     node is then planned as without a feed: no foreign load measured),
//     logged once; a node the feed stops listing (its metrics gone) is
//     logged once and its last sample expires the same way;
//   - a sample stamped after now (the measuring clock ahead) counts as
//     taken at the read that first saw it, so it expires too;
//   - a sample taken before its node was created belongs to a node
//     deleted and re-created under its name: not used.
//
// Guarded by Plugin.mu.
type nodeUsage struct {
	staleAfter time.Duration
	gen        uint64 // feed reads so far
	samples    map[string]*nodeSample
	missing    map[string]bool // nodes logged as missing from the feed
}

// nodeSample is a node's latest sample, the feed read (gen) at which it
// arrived, its timestamp as the feed gave it (raw: At may be clamped),
// and whether it expired (kept while the feed still returns it, so that
// the same sample is not taken as a new one).
type nodeSample struct {
	NodeUsage
	gen     uint64
	raw     time.Time
	expired bool
}

func newNodeUsage(staleAfter time.Duration) *nodeUsage {
	return &nodeUsage{staleAfter: staleAfter, samples: map[string]*nodeSample{}, missing: map[string]bool{}}
}

// read takes one feed read's node samples at now (complete: the read
// succeeded, so a node it leaves out is missing from the feed).
func (u *nodeUsage) read(logger klog.Logger, now time.Time, nodes []NodeUsage, complete bool) {
	u.gen++
	seen := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if err := validUsage(n); err != nil {
			logger.Error(err, "Ignoring a node sample", "plugin", Name, "node", n.Node)
			continue
		}
		seen[n.Node] = true
		old := u.samples[n.Node]
		s := &nodeSample{NodeUsage: n, gen: u.gen, raw: n.At}
		if n.At.After(now) {
			s.At = now
		}
		if old != nil && old.raw.Equal(n.At) {
			s.At, s.gen, s.expired = old.At, old.gen, old.expired // the same sample read again
		}
		s.Used = n.Used.Clone()
		s.Pods = append([]PodUsage(nil), n.Pods...)
		u.samples[n.Node] = s
		if u.missing[n.Node] {
			delete(u.missing, n.Node)
			logger.Info("Node back in the usage feed", "plugin", Name, "node", n.Node)
		}
	}
	for name, s := range u.samples {
		stale := now.Sub(s.At) > u.staleAfter
		switch {
		case stale && !s.expired:
			s.expired = true
			delete(u.missing, name)
			logger.Info("Node usage sample expired: no foreign load measured on the node until a fresh one", "plugin", Name,
				"node", name, "sampledAt", s.At, "metricsStaleAfter", u.staleAfter)
		case !stale && complete && !seen[name] && !u.missing[name]:
			u.missing[name] = true
			logger.Info("Node missing from the usage feed: its last sample is used until it expires", "plugin", Name,
				"node", name, "sampledAt", s.At, "expires", s.At.Add(u.staleAfter))
		}
		if s.expired && !seen[name] {
			delete(u.samples, name)
		}
	}
}

// of returns the sample in force for node at now, nil if none: expired
// samples (not yet dropped by a read) and samples taken before the node
// was created are not.
func (u *nodeUsage) of(node *v1.Node, now time.Time) *nodeSample {
	s := u.samples[node.Name]
	if s == nil || s.expired || now.Sub(s.At) > u.staleAfter || s.At.Before(node.CreationTimestamp.Time) {
		return nil
	}
	return s
}

// len is how many nodes have a sample (expired ones the feed still
// returns included).
func (u *nodeUsage) len() int { return len(u.samples) }

func validUsage(n NodeUsage) error {
	dims := podtask.Space().Len()
	check := func(what string, v resource.Vector) error {
		if len(v) != dims {
			return fmt.Errorf("%s: %s usage has %d kinds, want %d", Name, what, len(v), dims)
		}
		for k, x := range v {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("%s: %s usage of %s is %v: not finite and ≥ 0", Name, what, podtask.Space().Kind(k).Name, x)
			}
		}
		return nil
	}
	if err := check("node "+n.Node, n.Used); err != nil {
		return err
	}
	for _, p := range n.Pods {
		if err := check("pod "+string(p.Pod), p.Used); err != nil {
			return err
		}
	}
	return nil
}
