package fgm

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// ServerPolicy is a server's scheduling policy, set by Algorithm 3.
type ServerPolicy uint8

// Server policies, from the most to the least permissive.
const (
	// FineGrainedCompress: Algorithm 2 with compression (the default).
	FineGrainedCompress ServerPolicy = iota
	// FineGrainedNoCompress: Algorithm 2 with rc = 0.
	FineGrainedNoCompress
	// CoarseGrainedPolicy: peak demand against the least free over the
	// task's duration.
	CoarseGrainedPolicy
	// StopAllocation: nothing is placed on the server.
	StopAllocation
)

var policyNames = [...]string{"fine-grained", "fine-grained-no-compression", "coarse-grained", "stop-allocation"}

// String returns the policy's name.
func (p ServerPolicy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("ServerPolicy(%d)", uint8(p))
}

// UsageNode is a server that reports its measured usage. A host whose
// nodes implement it need not call SampleNode: Tick reads Used of every
// registered UsageNode first (the node given to New or AddNode, kept for
// this).
type UsageNode interface {
	schedkit.Node
	// Used is the node's total measured usage (our tasks and anything
	// else running there), the mean since the previous call.
	Used() resource.Vector
}

// UsageTask is a task that reports its measured usage. A host whose
// tasks implement it need not call SampleTask: Tick reads Used of every
// running UsageTask first.
type UsageTask interface {
	schedkit.Task
	// Used is the task's measured usage, the mean since the previous
	// call (or its start).
	Used() resource.Vector
}

// server is one node's state.
// cluster is the servers the scheduler knows.
type cluster struct {
	nodes    map[schedkit.NodeID]*server
	servers  []*server // registration order, for Tick
	capacity resource.Vector
	// maxCap is the largest capacity of each kind over the registered
	// servers (recountMaxCap); viewTL the scratch timeline of read-only
	// calls (view).
	maxCap resource.Vector
	viewTL *resource.Timeline
}

type server struct {
	s        *Scheduler
	usage    UsageNode // the node, if it reports its usage
	id       schedkit.NodeID
	pos      int
	capacity resource.Vector
	foreign  resource.Vector // estimated load no task of ours explains (14)
	base     resource.Vector // capacity − foreign
	free     *resource.Timeline
	running  []*ptask
	dirty    bool
	nextDue  time.Duration // earliest dueAt of a running task, MaxInt64 if none
	policy   ServerPolicy

	// The latest node sample, and the incompressible demand placed since
	// (measured usage does not show it yet).
	measured bool
	lastUsed []float64
	placed   []float64

	// Samples since the last Tick: formula (14) sums, per kind.
	sampled      bool
	lastAt       time.Duration
	win          []kindSums
	tasksSampled bool
	conf         []float64 // ring: ConformityWindow × dims
	overSA       int       // Ticks in a row whose own figure exceeded ThSA
	confLen      int
	confNext     int
}

func newServer(s *Scheduler, id schedkit.NodeID, capacity resource.Vector) (*server, error) {
	free, err := resource.NewTimeline(capacity)
	if err != nil {
		return nil, err
	}
	d := s.dims
	// The per-kind vectors in one block, those every Schedule call reads
	// first: a heartbeat, and a round of usage samples, touches a few
	// adjacent cache lines, not one allocation each.
	buf := make([]float64, (5+s.cfg.ConformityWindow)*d)
	next := func() []float64 {
		x := buf[:d:d]
		buf = buf[d:]
		return x
	}
	v := &server{s: s, id: id, free: free, nextDue: math.MaxInt64}
	v.capacity, v.lastUsed, v.placed, v.base, v.foreign = next(), next(), next(), next(), next()
	v.conf = buf
	v.win = make([]kindSums, d)
	copy(v.capacity, capacity)
	copy(v.base, capacity)
	return v, nil
}

// refresh brings the free timeline to now: rebuilt if a task was
// released, went overdue or the foreign estimate changed; trimmed.
func (v *server) refresh(now time.Duration) {
	if v.dirty || now >= v.nextDue {
		v.rebuild(now)
		return
	}
	v.free.TrimBefore(now)
}

// rebuild recomputes the free timeline from the running tasks.
func (v *server) rebuild(now time.Duration) {
	v.nextDue = v.rebuildInto(v.free, now)
	v.dirty = false
}

// rebuildInto sets tl to the server's free timeline at now (its base
// less the running tasks' reservations) and returns the earliest dueAt
// of a running task not yet overdue (MaxInt64 if none). It changes
// nothing of v.
func (v *server) rebuildInto(tl *resource.Timeline, now time.Duration) time.Duration {
	s := v.s
	_ = tl.Reset(v.base)
	nextDue := time.Duration(math.MaxInt64)
	h := s.cfg.Horizon
	for _, p := range v.running {
		if p.open || now >= p.dueAt {
			if h > 0 {
				_ = tl.Sub(now, now+h, p.peak)
			}
			continue
		}
		nextDue = min(nextDue, p.dueAt)
		t := p.start
		for i, w := range p.work {
			a, b := t, t+w
			t = b
			if b <= now || w == 0 {
				continue
			}
			_ = tl.Sub(max(a, now), b, resource.Vector(p.vals[i*s.dims:(i+1)*s.dims]))
		}
	}
	return nextDue
}

// reserve subtracts a newly placed task's stages from the timeline.
func (v *server) reserve(p *ptask, now time.Duration) {
	s := v.s
	if p.open {
		if s.cfg.Horizon > 0 {
			_ = v.free.Sub(now, now+s.cfg.Horizon, p.peak)
		}
		return
	}
	v.nextDue = min(v.nextDue, p.dueAt)
	t := p.start
	for i, w := range p.work {
		if w > 0 {
			_ = v.free.Sub(t, t+w, resource.Vector(p.vals[i*s.dims:(i+1)*s.dims]))
		}
		t += w
	}
}

// measuredFits reports whether demand's incompressible kinds fit the
// server's measured idle amount (the latest sample less what was placed
// since), and records them as placed if commit.
func (v *server) measuredFits(demand resource.Vector) bool {
	return !v.measured || measuredShort(v.s.comp, v.capacity, v.lastUsed, v.placed, demand) < 0
}

// compressionIn returns the largest compression rate the free amounts f
// imply among the compressible kinds demand uses: where the reservations
// exceed the capacity (f < 0), rc = −f/(N − f), formula (1) for the
// server's total against N.
func (v *server) compressionIn(f, demand resource.Vector) float64 {
	rc := 0.0
	for k, x := range f {
		if v.s.comp[k] && x < 0 && demand[k] > 0 {
			rc = max(rc, -x/(v.capacity[k]-x))
		}
	}
	return rc
}

// usedUp reports Algorithm 1's line 1 (and line 19) test at now: some
// kind's free amount, plus the compression allowance of a compressible
// kind when the policy compresses, is below IdleThreshold × capacity;
// or, for an incompressible kind, its measured idle amount (the latest
// node sample, less what was placed since) is. Integral kinds (slots,
// devices) are left to the per-task match: they are pools that not
// every task draws on (a node with no free reduce slot still has map
// slots; one with no free GPU still runs CPU tasks), so a full one must
// not close the server — with Hadoop slots it would deadlock reduces
// waiting for maps that could never start.
// free is the server's free timeline at now.
func (v *server) usedUp(free resource.Vector) bool {
	s := v.s
	allow := 0.0
	if v.policy == FineGrainedCompress && !s.cfg.Ablations.CoarseOnly {
		allow = s.cfg.CompressionLimit
	}
	k, _, _ := usedUpTest(s.comp, s.isIntegral, v.capacity, free, v.measured, v.lastUsed, v.placed, s.cfg.IdleThreshold, allow)
	return k >= 0
}

// closedKinds returns the integral kinds (bit i: s.integral[i]) of which
// v cannot give a task anything now, 0 if none or if passing by the
// entries that request them could change more than the walk's cost
// (closedSound). A kind is closed when v has less than one unit of it
// free now (requests of integral kinds are whole, so a positive one is
// at least 1) by one of the tests every placement passes: the free
// timeline at now (free), the measured idle amount (the first stage's
// test, measuredFits), or with HostChecksSteps what the host reports
// free (hostFits). Each holds the request of an integral kind against
// it: a prediction's integral demands are the request (wholeUnits), its
// stages begin at now and last 1 ns at least (a History's do; Horizon is
// positive).
func (s *Scheduler) closedKinds(v *server, free resource.Vector) int {
	if !s.closedSound() {
		return 0
	}
	closed := 0
	for i, k := range s.integral {
		n := v.capacity[k]
		if s.comp[k] {
			continue
		}
		if free[k]+slack*n < 1 || (v.measured && n-v.lastUsed[k]-v.placed[k]+slack*n < 1) ||
			(s.cfg.HostChecksSteps && s.scr.hostFree[k]+slack*n < 1) {
			closed |= 1 << i
		}
	}
	return closed
}

// closedSound reports whether a walk that passes by the queue entries
// requesting a closed kind decides as the walk that tries them: every
// prediction is valid (none is an error the walk would meet), no
// pending task with data locations waits under delay scheduling (a
// visit starts its wait), and 1 to maxNeedKinds integral kinds (the
// counts by combination, Scheduler.needs, cover them).
func (s *Scheduler) closedSound() bool {
	return s.est.valid && len(s.integral) > 0 && len(s.integral) <= maxNeedKinds &&
		(s.locTasks == 0 || s.cfg.LocalityWait < 0)
}

// anyOpen reports whether some entry counted in needs requests none of
// the closed kinds (an entry requesting no integral kind always counts).
func (s *Scheduler) anyOpen(needs *[1 << maxNeedKinds]int32, closed int) bool {
	for m := range 1 << len(s.integral) {
		if needs[m] > 0 && m&closed == 0 {
			return true
		}
	}
	return false
}
