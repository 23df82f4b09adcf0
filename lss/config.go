package lss

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// Config configures a Scheduler. Only Cluster is required; every option
// is off in the zero value, which is the paper's algorithm.
type Config struct {
	// Cluster is the host's live view of the cluster. New resolves
	// PhaseKinds in its Space; every Heartbeat reads its Capacity (the
	// N_MapSlot and N_ReduceSlot of formula (3)) and, with Heterogeneous,
	// walks its nodes. Required.
	Cluster schedkit.Cluster

	// PhaseKinds names, for each phase p, the resource kind (by
	// resource.Kind name in the cluster's Space) whose slots run phase p's
	// tasks. The kinds must be integral. Default: {"map-slot",
	// "reduce-slot"}, Hadoop-1 MapReduce. Jobs may have fewer phases than
	// listed, never more.
	//
	// Option "more than two sequential phases": list one kind per phase
	// (several phases may share a kind). Formula (3) then sums over all
	// phases, pass 1 hands out tasks of phase 0, and pass 2 runs once per
	// distinct kind, in the order kinds first appear here, filling that
	// kind's free slots with ready tasks of the phases using it (earlier
	// phases first within a job).
	PhaseKinds []string

	// SoftDeadlines reports Infeasible decisions instead of Kill ones:
	// jobs whose deadline has passed or whose Spare + Tavg < 0 stay queued
	// and keep being scheduled by least spare time. Each job is reported
	// Infeasible once, the first time it meets a condition.
	SoftDeadlines bool

	// PerPhaseTaskTime averages task times per phase in formula (3)
	// instead of pooling map and reduce tasks as the paper does. A phase
	// with no finished task yet takes the pooled average. The kill
	// threshold Tavg stays the pooled average.
	PerPhaseTaskTime bool

	// PhaseTaskTimeHints prices each phase in formula (3) at the job's
	// a-priori task time for that phase (PhaseTaskTimeHinter) until the
	// phase has finished tasks of its own; from then on the observed
	// figure applies (the phase's own average with PerPhaseTaskTime, the
	// pooled one without). A phase without a hint takes the figure it
	// would take without this option. Formula (5) still applies before
	// any task of the job has finished, and the kill threshold Tavg stays
	// the pooled average. Admission applies the same rule per phase. Jobs
	// that do not implement PhaseTaskTimeHinter are estimated as without
	// the option. See estimate.PriorTaskTime.
	PhaseTaskTimeHints bool

	// WaveRemaining replaces formula (3) by a wave-aware remaining time
	// (the wave model, waves.go): per phase, the running tasks form a wave
	// that ends after the phase's task time minus their mean elapsed
	// time, and the pending tasks run in ⌈pending/slots⌉ waves of the
	// phase's task time after it (or beside it, on free slots). Formula
	// (3) credits running tasks only ΣR/S, S the whole cluster's slots,
	// so on a large cluster a job in its last wave looks almost a whole
	// task time further from the end than it is. The task time of each
	// phase is the one formula (3) would use (pooled, PerPhaseTaskTime,
	// PhaseTaskTimeHints). Order and kills both use it; formula (5)
	// still applies before any task has finished.
	WaveRemaining bool

	// OptimisticKill makes the early kill judge an optimistic bound
	// instead of Spare + Tavg: a job is killed early only when Deadline −
	// Now − Optimistic < 0, Optimistic being, per phase, the longer of its
	// running wave's time left (task time minus the mean elapsed time)
	// and ⌈pending/slots⌉ waves of the task time, every pending task
	// starting at once on all slots (waves.go). A phase's task time there
	// is the lower of its own average and the pooled one, and zero while
	// the phase has finished no task: the paper prices a reduce at a
	// map's time, which is a guess, not a bound. The order still follows
	// the spare time (formula (3), or WaveRemaining). The deadline rule is
	// unchanged.
	OptimisticKill bool

	// NoFirstMapPass drops Algorithm 1's first pass (lines 10–18), which
	// gives one map to every job with no finished and no running task
	// before any job gets a second one. Fresh jobs then take their turn
	// in least-spare-time order like every other job (by formula (5) they
	// come after the started jobs whose spare time is smaller). Under
	// load the first pass spreads the map slots over every new job, so
	// many jobs start and few finish by their deadline; without it the
	// slots go to the jobs closest to missing.
	NoFirstMapPass bool

	// Heterogeneous replaces slot counts in formula (3) by effective
	// capacity: each node's slots weighted by its speed factor from
	// NodeSpeeds (1 for unlisted nodes), rounded to thousandths (see
	// estimate.Capacity). Speeds are relative to the nodes whose task
	// times Tavg measures. Each Heartbeat then walks the cluster's nodes,
	// O(nodes).
	Heterogeneous bool
	// NodeSpeeds gives node speed factors for Heterogeneous, 2 meaning
	// twice as fast: each in [0.001, 1000] and rounded to thousandths
	// (speeds are counted in thousandths, as effective capacities are).
	// New copies the map;
	// SetNodeSpeed changes it later. It must be empty without
	// Heterogeneous.
	NodeSpeeds map[schedkit.NodeID]float64

	// Admission refuses, at Submit, a job that could not meet its deadline
	// even alone on the whole cluster: formula (3) with every slot for
	// it, and the task time taken from, in order, the job's own finished
	// tasks, its TaskTimeHint (if it implements TaskTimeHinter and the
	// hint is positive), or AdmissionTaskTime. With none of these the job
	// is admitted: there is nothing to judge it by.
	Admission bool
	// AdmissionTaskTime is the host's a-priori task time for admission
	// control when a job declares none. Zero means none; negative is an
	// error.
	AdmissionTaskTime time.Duration

	// Literal selects the paper's implementation as printed: every
	// heartbeat recomputes every job's average and spare time and sorts
	// the whole queue. Its decisions are identical to the default
	// indexed implementation, which is much faster on long queues; it is
	// kept for verification and comparison.
	Literal bool
}

// DefaultPhaseKinds are the phase kinds used when Config.PhaseKinds is
// empty: map slots for phase 0, reduce slots for phase 1. Read only.
var DefaultPhaseKinds = []string{resource.MapSlot.Name, resource.ReduceSlot.Name}

// minSpeed and maxSpeed bound node speed factors: speeds are counted in
// thousandths (a speed rounds to a whole number of them, at least one),
// and effective capacities stay far from int64 overflow.
const (
	minSpeed = 0.001
	maxSpeed = 1000
)

// maxSlots bounds slot counts read from vectors.
const maxSlots = 1 << 32

// speedFault returns "" for a usable speed factor, else why it is not.
func speedFault(v float64) string {
	if v >= minSpeed && v <= maxSpeed { // false for NaN
		return ""
	}
	return fmt.Sprintf("speed %v outside [%v, %v] (speeds are counted in thousandths)", v, minSpeed, maxSpeed)
}

// layout is Config resolved against the Space at New.
type layout struct {
	phaseKind  []int   // phase → kind slot
	kindIndex  []int   // kind slot → index in the Space
	kindPhases [][]int // kind slot → phases using it, ascending
}

func (c *Config) resolve() (*resource.Space, layout, error) {
	fail := func(format string, args ...any) (*resource.Space, layout, error) {
		return nil, layout{}, &Error{Op: "New", Err: ErrConfig, Reason: fmt.Sprintf(format, args...)}
	}
	if nilvalue.Is(c.Cluster) {
		return fail("%s", nilvalue.Text("Cluster", c.Cluster))
	}
	sp := c.Cluster.Space()
	if sp == nil {
		return fail("cluster has a nil Space")
	}
	kinds := c.PhaseKinds
	if len(kinds) == 0 {
		kinds = DefaultPhaseKinds
	}
	if len(kinds) > schedkit.MaxPhases {
		return fail("%d phase kinds, at most %d", len(kinds), schedkit.MaxPhases)
	}
	var l layout
	slotOf := map[int]int{}
	for p, name := range kinds {
		i, ok := sp.Index(name)
		if !ok {
			return fail("phase %d: kind %q not in the cluster's Space", p, name)
		}
		if !sp.Kind(i).Integral {
			return fail("phase %d: kind %q is not integral (slots are counted whole)", p, name)
		}
		k, seen := slotOf[i]
		if !seen {
			k = len(l.kindIndex)
			slotOf[i] = k
			l.kindIndex = append(l.kindIndex, i)
			l.kindPhases = append(l.kindPhases, nil)
		}
		l.phaseKind = append(l.phaseKind, k)
		l.kindPhases[k] = append(l.kindPhases[k], p)
	}
	if len(c.NodeSpeeds) > 0 && !c.Heterogeneous {
		return fail("NodeSpeeds given without Heterogeneous")
	}
	for id, v := range c.NodeSpeeds {
		if why := speedFault(v); why != "" {
			return fail("node %q: %s", id, why)
		}
	}
	if c.AdmissionTaskTime < 0 {
		return fail("negative AdmissionTaskTime %v", c.AdmissionTaskTime)
	}
	return sp, l, nil
}

// Recommended returns the configuration this package recommends over the
// paper's for hard deadlines: the paper's algorithm with OptimisticKill
// and NoFirstMapPass (see the package doc, "Wrong early kills and the
// recommended configuration", for what each removes and what it was
// measured against). Set Cluster (and any other option) on the result.
func Recommended() Config {
	return Config{OptimisticKill: true, NoFirstMapPass: true}
}
