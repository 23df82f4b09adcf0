package dbs

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// QueueConfig is one queue's configured share of the slots and its price.
type QueueConfig struct {
	// Share is the queue's part of each slot kind, in [0, 1], rounded to
	// millionths; the shares of the three queues add up to at most 1.
	// What it guarantees depends on Config.Sharing: with PrioritySharing
	// (the default) it is a floor, the slots of each kind the queue's
	// jobs get before a higher queue's; with CapacitySharing it is the
	// queue's guaranteed share, an idle share lent to the other queues.
	Share float64
	// Price is c_q, the charge per slot-second of a job in the queue:
	// finite and positive.
	Price float64
}

// DefaultQueues are the queues used when Config.Queues is the zero
// value, indexed by Queue: Low at 0.02, Mid at 0.03, High at 0.05 per
// slot-second, none with a floor. The paper gives no figures (its
// configuration file is not printed); these are ours, with High the
// highest price as the paper requires.
var DefaultQueues = [3]QueueConfig{
	Low:  {Share: 0, Price: 0.02},
	Mid:  {Share: 0, Price: 0.03},
	High: {Share: 0, Price: 0.05},
}

// DefaultCapacityQueues are the queues used with CapacitySharing when
// Config.Queues is the zero value: DefaultQueues' prices with shares Low
// 20%, Mid 30%, High 50% (ours: High the largest share, as the paper
// requires of the proportions in its configuration file).
var DefaultCapacityQueues = [3]QueueConfig{
	Low:  {Share: 0.2, Price: 0.02},
	Mid:  {Share: 0.3, Price: 0.03},
	High: {Share: 0.5, Price: 0.05},
}

// Sharing is how the queues divide the slots (Config.Sharing).
type Sharing uint8

// The ways to share the slots between the queues.
const (
	// PrioritySharing (the default) reads the queues as the paper's
	// "queues of different priorities": a free slot goes to the highest
	// queue, among those with a ready task of the slot's kind, that
	// holds less than its floor (QueueConfig.Share) of the kind, else to
	// the highest queue with a ready task; in the queue, to a job below
	// its model-2 minimum first. Config.MinimumFirst serves every
	// queue's jobs below their minimums, High to Low, before that.
	PrioritySharing Sharing = iota
	// CapacitySharing (option) reads the shares as a capacity
	// scheduler's guarantees: a free slot goes to the queue using the
	// smallest fraction of its share (ties to the higher queue), an idle
	// share is lent to the others and comes back as the lent slots' tasks
	// end. Config.MinimumFirst serves every queue's minimums before
	// shares.
	CapacitySharing
)

// String returns "priority" or "capacity".
func (s Sharing) String() string {
	switch s {
	case PrioritySharing:
		return "priority"
	case CapacitySharing:
		return "capacity"
	}
	return fmt.Sprintf("Sharing(%d)", uint8(s))
}

// DefaultInterval is Δ, the paper's weight update period.
const DefaultInterval = 500 * time.Millisecond

// DefaultHoldDownUpdates is Config.HoldDown's default in weight updates:
// ten updates, 5 s at DefaultInterval.
const DefaultHoldDownUpdates = 10

// Config configures a Scheduler. Only Cluster is required; the zero
// value of every other field is the paper's algorithm with DefaultQueues.
type Config struct {
	// Cluster is the host's live view of the cluster. Tick and Heartbeat
	// read its Capacity: the map and reduce slots the queue shares divide.
	Cluster schedkit.Cluster
	// MapKind and ReduceKind name the integral resource kinds of map and
	// reduce slots in the cluster's Space. Default: resource.MapSlot and
	// resource.ReduceSlot.
	MapKind, ReduceKind string
	// Queues configures Low, Mid and High (indexed by Queue). The zero
	// value means DefaultQueues (with CapacitySharing,
	// DefaultCapacityQueues). Prices must not decrease from Low to High.
	Queues [3]QueueConfig
	// Sharing is how the queues divide the slots: PrioritySharing (the
	// zero value, the paper's priorities) or CapacitySharing (an
	// option: shares as capacity guarantees).
	Sharing Sharing
	// Interval is Δ, the least time between two weight updates (model 3);
	// Tick updates when at least Interval has passed since the last
	// update. Zero means DefaultInterval.
	Interval time.Duration
	// TransferRate is 1/Td in bytes per second: model 2's shuffle time of
	// a job is its reduce input f·δ divided by it. Zero means transfer
	// time is not modelled.
	TransferRate float64
	// HoldDown is the least time between a job's queue move and a move
	// back in the opposite direction (model 3 keeps the job marked and
	// moves it once the time is up, if it still should move). Zero means
	// DefaultHoldDownUpdates × Interval; a negative value means none.
	// Not in the paper, whose 500 ms wait between marking a job and
	// moving it already requires the cause of a move to persist; the
	// hold-down stops a job whose figures swing from being carried back
	// and forth, each move a price change the host carries out.
	HoldDown time.Duration
	// DefaultTaskTime is the a-priori task time models 1 and 2 use for a
	// job with no finished task and no TaskTimeHint. Zero means none:
	// such a job has weight 0 and a minimum of one map slot until a task
	// finishes (see JobStatus.TaskTimeUnknown).
	DefaultTaskTime time.Duration

	// MinimumFirst (option) serves minimums across the queues, as Kc &
	// Anyanwu's deadline scheduler guarantees its minimums: a free slot
	// goes first to a job below its model-2 minimum of the slot's kind,
	// in queue order (High, Mid, Low) then weight, whatever the queues'
	// priorities (PrioritySharing: the lower queues' minimums come before
	// a higher queue's jobs at their minimums) or shares
	// (CapacitySharing: even if its queue is at or above its share);
	// only when no queue's first job is below its minimum do the queues'
	// priorities or shares decide.
	MinimumFirst bool
	// PhiAwareMoves (option) lets model 3 promote only jobs with φ > 0
	// and demote only jobs with φ < 1: a promotion buys time at a higher
	// price, which a budget-only job does not value; a demotion saves
	// money at the cost of priority, which a deadline-only job does not
	// want. Weights are updated as without the option.
	PhiAwareMoves bool

	// Ablations switch parts of the algorithm off, for experiments only.
	Ablations Ablations
}

// Ablations remove one part of the algorithm each, so that an
// experiment can show where DBS's gains (or losses) come from: the first
// four remove parts of the paper's algorithm, the rest the rules that
// are ours (see the package doc). They are not options: a host leaves
// them at the zero value.
type Ablations struct {
	// StaticWeights turns model 3 off: weights and minimum slots are
	// computed once, at Submit, and no job ever changes queue.
	StaticWeights bool
	// NoQueueMoves keeps model 3's weight updates but never promotes or
	// demotes a job.
	NoQueueMoves bool
	// NoMinimumSlots drops model 2 from slot assignment: jobs below
	// their minimum get no precedence, a queue's jobs are served by
	// weight alone. Model 3 still compares held with needed slots.
	NoMinimumSlots bool
	// EarlyReduces assigns a job's reduce tasks as soon as the host
	// reports them ready (Hadoop's reduce slow-start), while its maps
	// still run. By default dbs gives a job reduce slots only once none
	// of its maps is unfinished: model 2 plans the reduces to start
	// after the maps (the latest reduce start Sr_max) and its budget view
	// charges only the tasks' work, so a reduce slot held idle before
	// then is money the model never planned for (see the package doc).
	EarlyReduces bool

	// NoAffordability promotes a job whatever its budget: the check that
	// the budget covers what is left at the higher price (ours) is off.
	NoAffordability bool
	// NoBetterOff takes every move model 3 asks for: the check that the
	// job is better off in the target queue (ours) is off.
	NoBetterOff bool
	// NoBudgetDemotion never demotes a job that cannot reach any minimum
	// (ReasonBudget, ours): such a job with φ < 1 stays where it is.
	NoBudgetDemotion bool
	// LostByWeight orders a job that cannot reach any minimum
	// (MinResult.Unmeetable) among its queue's other jobs by weight,
	// as any other job: the rule that such jobs come after the jobs that
	// can still meet a constraint (ours) is off.
	LostByWeight bool
	// UnknownByWeight orders a job without a task time among the jobs
	// below their minimum by its weight (0), as any other job: the rule
	// that such jobs get their first slot before the jobs whose minimums
	// are known (ours) is off.
	UnknownByWeight bool
	// BudgetViewOneSlot computes model 2's budget view as if the job
	// held one slot: its window is the whole allowance B/c_q, not the
	// allowance spread over the slots the job holds, so the view no
	// longer grows with them.
	BudgetViewOneSlot bool
}

// maxSlots bounds slot counts read from vectors, and maxTasks a phase's
// tasks: counts are held in int32.
const (
	maxSlots = math.MaxInt32
	maxTasks = math.MaxInt32
)

// resolved is Config after New's checks.
type resolved struct {
	kind     [2]int // map, reduce index in the Space
	queues   [3]QueueConfig
	micro    [3]int64 // shares in millionths
	interval time.Duration
	holdDown time.Duration // 0: none
	space    *resource.Space
	// priority: PrioritySharing; minFirst: minimums served before the
	// queues' order (MinimumFirst, unless Ablations.NoMinimumSlots).
	priority, minFirst bool
	order              order // a queue's order of its jobs (qheap)
}

func (c *Config) resolve() (resolved, error) {
	fail := func(format string, args ...any) (resolved, error) {
		return resolved{}, &Error{Op: "New", Err: ErrConfig, Reason: fmt.Sprintf(format, args...)}
	}
	var r resolved
	if nilvalue.Is(c.Cluster) {
		return fail("%s", nilvalue.Text("Cluster", c.Cluster))
	}
	sp := c.Cluster.Space()
	if sp == nil {
		return fail("cluster has a nil Space")
	}
	r.space = sp
	names := [2]string{c.MapKind, c.ReduceKind}
	if names[0] == "" {
		names[0] = resource.MapSlot.Name
	}
	if names[1] == "" {
		names[1] = resource.ReduceSlot.Name
	}
	for k, name := range names {
		i, ok := sp.Index(name)
		if !ok {
			return fail("kind %q not in the cluster's Space", name)
		}
		if !sp.Kind(i).Integral {
			return fail("kind %q is not integral (slots are counted whole)", name)
		}
		r.kind[k] = i
	}
	if r.kind[0] == r.kind[1] {
		return fail("map and reduce slots are the same kind %q", names[0])
	}
	if c.Sharing > CapacitySharing {
		return fail("unknown Sharing %v", c.Sharing)
	}
	r.priority = c.Sharing == PrioritySharing
	r.minFirst = c.MinimumFirst && !c.Ablations.NoMinimumSlots
	r.order = order{noMin: c.Ablations.NoMinimumSlots, unknownFirst: !c.Ablations.UnknownByWeight, lostLast: !c.Ablations.LostByWeight}
	r.queues = c.Queues
	if r.queues == ([3]QueueConfig{}) {
		r.queues = DefaultQueues
		if c.Sharing == CapacitySharing {
			r.queues = DefaultCapacityQueues
		}
	}
	sum := 0.0
	for q, qc := range r.queues {
		if math.IsNaN(qc.Share) || qc.Share < 0 || qc.Share > 1 {
			return fail("queue %s: share %v outside [0, 1]", Queue(q), qc.Share)
		}
		if math.IsNaN(qc.Price) || math.IsInf(qc.Price, 0) || qc.Price <= 0 {
			return fail("queue %s: price %v not finite and positive", Queue(q), qc.Price)
		}
		sum += qc.Share
		r.micro[q] = int64(math.Round(qc.Share * 1e6))
	}
	if sum > 1+1e-9 {
		return fail("shares add up to %v, more than 1", sum)
	}
	if r.queues[Low].Price > r.queues[Mid].Price || r.queues[Mid].Price > r.queues[High].Price {
		return fail("prices must not decrease from low to high queue")
	}
	r.interval = c.Interval
	switch {
	case r.interval < 0:
		return fail("negative Interval %v", c.Interval)
	case r.interval == 0:
		r.interval = DefaultInterval
	}
	switch {
	case c.HoldDown < 0:
		r.holdDown = 0
	case c.HoldDown == 0:
		r.holdDown = DefaultHoldDownUpdates * r.interval
		if r.holdDown/DefaultHoldDownUpdates != r.interval {
			return fail("Interval %v too long for the default HoldDown", c.Interval)
		}
	default:
		r.holdDown = c.HoldDown
	}
	if math.IsNaN(c.TransferRate) || math.IsInf(c.TransferRate, 0) || c.TransferRate < 0 {
		return fail("TransferRate %v not finite and non-negative", c.TransferRate)
	}
	if c.DefaultTaskTime < 0 {
		return fail("negative DefaultTaskTime %v", c.DefaultTaskTime)
	}
	return r, nil
}
