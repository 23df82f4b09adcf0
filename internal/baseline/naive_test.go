package baseline

import (
	"math"
	"sort"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// The naive references: the baselines as they were before the index,
// scanning every active job on every choice. Tests check the indexed
// policies make exactly their decisions; benchmarks measure the ratio.

// naiveOrdered is FIFO or EDF by a scan of the ordered queue.
type naiveOrdered struct {
	name  string
	less  func(a, b *sim.Job) bool
	jobs  []*sim.Job
	batch batch
}

func (o *naiveOrdered) Name() string { return o.name + "(naive)" }

func (o *naiveOrdered) Submit(_ time.Time, j *sim.Job) error {
	i := sort.Search(len(o.jobs), func(i int) bool { return o.less(j, o.jobs[i]) })
	o.jobs = append(o.jobs, nil)
	copy(o.jobs[i+1:], o.jobs[i:])
	o.jobs[i] = j
	return nil
}

func (o *naiveOrdered) JobEnded(_ time.Time, j *sim.Job, _ sim.Outcome) error {
	for i := range o.jobs {
		if o.jobs[i] == j {
			o.jobs = append(o.jobs[:i], o.jobs[i+1:]...)
			break
		}
	}
	return nil
}

func (o *naiveOrdered) Heartbeat(_ time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if c.Ready() == 0 || !o.batch.begin(n) {
		return dst, nil
	}
	for _, j := range o.jobs {
		dst = o.batch.fillJob(j, c, dst)
		if o.batch.exhausted() {
			break
		}
	}
	return dst, nil
}

// naiveSharer is progressive filling by a scan of every active job, group
// sums recomputed every round.
type naiveSharer struct {
	s      sharer // configuration, batch and key functions
	groups map[string]*naiveGroup
}

type naiveGroup struct {
	alloc         resource.Vector
	count         int
	weight, limit float64
}

func newNaive(p sim.Policy) sim.Policy {
	switch p := p.(type) {
	case *FIFO:
		return &naiveOrdered{name: p.name, less: p.less}
	case *EDF:
		return &naiveOrdered{name: p.name, less: p.less}
	case *Fair:
		return &naiveSharer{s: p.sharer}
	case *DRF:
		return &naiveSharer{s: p.sharer}
	case *Capacity:
		return &naiveSharer{s: p.sharer}
	}
	panic("no naive reference")
}

func (n *naiveSharer) Name() string                     { return n.s.name + "(naive)" }
func (n *naiveSharer) Submit(time.Time, *sim.Job) error { return nil }

func (n *naiveSharer) Heartbeat(_ time.Time, nd *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	s := &n.s
	if c.Ready() == 0 || !s.batch.begin(nd) {
		return dst, nil
	}
	if s.measure == byKind && s.kind < 0 {
		k, _ := c.Space().Index(s.kindStr)
		s.kind = k
	}
	s.cap = c.Capacity()
	if s.measure == byCount {
		for p := 0; p < schedkit.MaxPhases && !s.batch.exhausted(); p++ {
			if c.ReadyIn(schedkit.Phase(p)) > 0 {
				dst = n.round(c, p, dst)
			}
		}
		return dst, nil
	}
	return n.round(c, -1, dst), nil
}

func (n *naiveSharer) round(c *sim.Cluster, p int, dst []sim.Decision) []sim.Decision {
	s := &n.s
	b := &s.batch
	blockBit := uint64(1) << 63
	if p >= 0 {
		blockBit = uint64(1) << uint(p)
	}
	if s.grouped {
		n.loadGroups(c, p)
	}
	for {
		var best *sim.Job
		var bestG *naiveGroup
		var bestGK, bestK float64
		for _, j := range c.Jobs() {
			st := b.state(j)
			if st.blockedMask&blockBit != 0 || !hasReady(j, st, p) {
				continue
			}
			gk := 0.0
			var g *naiveGroup
			if s.grouped {
				g = n.groups[j.Class()]
				gk = n.groupKey(g)
				if gk >= g.limit {
					continue
				}
			}
			k := s.jobKey(j, st, p)
			if best == nil || gk < bestGK || (gk == bestGK && (k < bestK || (k == bestK && before(j, best)))) {
				best, bestG, bestGK, bestK = j, g, gk, k
			}
		}
		if best == nil {
			return dst
		}
		st := b.state(best)
		m := len(dst)
		var ok bool
		if p >= 0 {
			dst, ok = b.tryPhase(best, schedkit.Phase(p), c, dst)
		} else {
			dst, ok = b.tryJob(best, c, dst)
		}
		if !ok {
			st.blockedMask |= blockBit
			continue
		}
		if bestG != nil {
			_ = bestG.alloc.Add(dst[m].Task.Requested())
			bestG.count++
		}
		if b.exhausted() {
			return dst
		}
	}
}

func (n *naiveSharer) groupKey(g *naiveGroup) float64 {
	s := &n.s
	var x float64
	switch s.measure {
	case byCount:
		x = float64(g.count)
	case byKind:
		if c := s.cap[s.kind]; c > 0 {
			x = g.alloc[s.kind] / c
		}
	default:
		x = dominant(g.alloc, nil, s.cap)
	}
	return x / g.weight
}

// loadGroups sums, every round, the allocation (and running count of
// phase p) of every group with an active job.
func (n *naiveSharer) loadGroups(c *sim.Cluster, p int) {
	s := &n.s
	if n.groups == nil {
		n.groups = map[string]*naiveGroup{}
	}
	for _, g := range n.groups {
		g.count = 0
		for k := range g.alloc {
			g.alloc[k] = 0
		}
	}
	for _, j := range c.Jobs() {
		g := n.groups[j.Class()]
		if g == nil {
			g = &naiveGroup{alloc: make(resource.Vector, len(s.cap)), weight: 1, limit: math.Inf(1)}
			if s.weight != nil {
				g.weight = s.weight(j.Class())
			}
			if s.limit != nil {
				g.limit = s.limit(j.Class())
			}
			n.groups[j.Class()] = g
		}
		_ = g.alloc.Add(j.Allocated())
		if p >= 0 && p < j.Phases() {
			g.count += j.Progress(schedkit.Phase(p)).Running
		}
	}
}
