package policy

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// DBSPriceSpread is how far the adapter's default queue prices sit from
// the simulator's reference price p (Config.Prices, what every baseline
// pays): Low (1 − s)·p, Mid p, High (1 + s)·p. Paper 003 prints no
// prices; a symmetric spread keeps the mean price of one job per queue
// at p, so DBS is not cheaper by construction.
const DBSPriceSpread = 0.25

// DBSShares are the adapter's default queue shares with
// dbs.CapacitySharing, indexed by dbs.Queue (dbs.DefaultCapacityQueues'
// shares: High 50%, Mid 30%, Low 20%). With dbs.PrioritySharing (the
// default) the queues have no floor (dbs.DefaultQueues).
var DBSShares = [3]float64{dbs.Low: 0.2, dbs.Mid: 0.3, dbs.High: 0.5}

// DBSOptions selects how a DBS adapter runs. The zero value is the
// paper's algorithm (dbs.PrioritySharing, no floors) with prices spread
// DBSPriceSpread around the simulator's reference price.
type DBSOptions struct {
	// Name is the policy's column name; "" means "DBS".
	Name string
	// Queues overrides the queue shares and prices (per slot-second);
	// the zero value means no floors (DBSShares with
	// dbs.CapacitySharing) at the spread prices.
	Queues [3]dbs.QueueConfig
	// Sharing, MinimumFirst and PhiAwareMoves are the dbs.Config
	// options.
	Sharing                     dbs.Sharing
	MinimumFirst, PhiAwareMoves bool
	// Ablations are dbs.Config.Ablations. With EarlyReduces, reduces
	// are assigned as soon as the simulator's slow-start makes them
	// ready.
	Ablations dbs.Ablations
	// Interval is dbs.Config.Interval (0: 500 ms).
	Interval time.Duration
	// HoldDown is dbs.Config.HoldDown (0: the default; negative: none).
	HoldDown time.Duration
}

// DBSMove is one promotion or demotion the adapter carried out.
type DBSMove struct {
	At       time.Duration // virtual time
	Job      string
	From, To dbs.Queue
	Price    float64 // per slot-second from At on
}

// DBSReversalWindow is the virtual time within which a move back to the
// queue a job just left counts as reversed (DBSStats.Reversed).
const DBSReversalWindow = 2 * time.Second

// Reversed counts the moves that put a job back in the queue its
// previous move took it from within window of that move.
func (s DBSStats) Reversed(window time.Duration) int {
	type last struct {
		at   time.Duration
		from dbs.Queue
	}
	prev := make(map[string]last)
	n := 0
	for _, m := range s.Moves {
		if l, ok := prev[m.Job]; ok && m.To == l.from && m.At-l.at <= window {
			n++
		}
		prev[m.Job] = last{m.At, m.From}
	}
	return n
}

// MovesPerJob returns how many moves each job that moved at least once
// made, sorted ascending (its median is the median moves per moved job).
func (s DBSStats) MovesPerJob() []int {
	per := make(map[string]int)
	for _, m := range s.Moves {
		per[m.Job]++
	}
	out := make([]int, 0, len(per))
	for _, n := range per {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// DBSStats counts what a DBS adapter decided over one run.
type DBSStats struct {
	// Assigned counts tasks handed out; BelowMinimum those given to a job
	// below its model-2 minimum.
	Assigned, BelowMinimum int
	// Promotions and Demotions count queue moves; Moves lists them.
	Promotions, Demotions int
	Moves                 []DBSMove
	// Rejected counts jobs refused at Submit: invalid constraints (dbs),
	// or a phase asking the other phase's slot kind (the adapter).
	Rejected int
}

// DBS runs a dbs.Scheduler as a simulator policy, doing what a Hadoop
// JobTracker embedding dbs would do (the package's host duties):
//
//   - Submit shows the job to dbs through a dbs.Job view (the *sim.Job
//     with its cost so far and data sizes from its tasks' similarity
//     keys) and schedules a SetPrice to its φ queue's price; an invalid
//     job (φ outside {0, 0.5, 1}, no budget with φ < 1…) is rejected
//     with dbs's error, never dropped silently.
//   - Counter changes (assignments applied, task ends, a phase becoming
//     ready) mark the job; marked jobs are passed to Update at the next
//     callback, once the simulator has applied everything.
//   - Tick runs dbs's weight update; each Promote or Demote becomes a
//     SetPrice to the new queue's price, in force from that instant.
//   - Heartbeat applies pending prices first, then translates each
//     Assign into sim.AssignTasks on the heartbeating node.
//   - A job that ends is removed.
//   - A job one of whose first two phases has tasks that all ask some
//     of the other phase's slot kind (map tasks asking reduce slots) is
//     rejected: dbs runs phase p's tasks in slot kind p.
//   - Any other error dbs returns, from any call, stops the run
//     (sim.ErrPolicy wrapping it).
//
// With a Space of just the two slot kinds, heartbeats of idle nodes are
// not delivered (SkipFullNodes).
//
// NewDBS asks the simulator for ticks at dbs's interval by setting the
// configuration's TickInterval when it is zero. It is not safe for
// concurrent use; the simulator calls it from one goroutine.
type DBS struct {
	name    string
	sched   *dbs.Scheduler
	cluster clusterView
	queues  [3]dbs.QueueConfig
	prices  [3]resource.Vector
	buf     []dbs.Decision
	jobs    jobTable[*dbsJob]
	pending []*sim.Job // jobs whose initial price is not yet set
	stats   DBSStats
	// slot[p] is the Space index of phase p's slot kind (map, reduce).
	slot [2]int
	// skipIdle: the Space holds only the two slot kinds (SkipFullNodes).
	skipIdle bool
	// holdReduces: reduces wait for every map (not EarlyReduces;
	// AssignsComputingPhasesOnly).
	holdReduces bool
	slab        []dbsJob // views not yet used of the last block (newJob)
	lastJob     *sim.Job // the job of the last assignment (Heartbeat)
	// eager: Update after every assignment (tests compare it with the
	// lazy Updates of exactStarts jobs).
	eager bool
}

var (
	_ sim.Policy          = (*DBS)(nil)
	_ sim.Ticker          = (*DBS)(nil)
	_ sim.TaskWatcher     = (*DBS)(nil)
	_ sim.JobWatcher      = (*DBS)(nil)
	_ sim.NodeWatcher     = (*DBS)(nil)
	_ sim.FullNodeSkipper = (*DBS)(nil)
	_ dbs.Job             = (*dbsJob)(nil)
)

// NewDBS returns a DBS adapter for a simulation configured by cfg, which
// must have a Space with map and reduce slot kinds and, unless
// opt.Queues is set, a reference price for map slots (Config.Prices);
// otherwise it returns ErrConfig. Errors from dbs.New (invalid queues,
// wrapping dbs.ErrConfig) are returned as they are.
func NewDBS(cfg *sim.Config, opt DBSOptions) (*DBS, error) {
	if cfg == nil || cfg.Space == nil {
		return nil, fmt.Errorf("%w: dbs policy needs a simulator Config with a Space", ErrConfig)
	}
	mi, ok1 := cfg.Space.Index(resource.MapSlot.Name)
	ri, ok2 := cfg.Space.Index(resource.ReduceSlot.Name)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%w: dbs policy needs %q and %q in the Space", ErrConfig, resource.MapSlot.Name, resource.ReduceSlot.Name)
	}
	q := opt.Queues
	if q == ([3]dbs.QueueConfig{}) {
		if len(cfg.Prices) != cfg.Space.Len() || !(cfg.Prices[mi] > 0) {
			return nil, fmt.Errorf("%w: dbs policy needs Config.Prices with a positive map-slot price, or explicit queues", ErrConfig)
		}
		ref := cfg.Prices[mi]
		if opt.Sharing == dbs.CapacitySharing {
			for i := range q {
				q[i].Share = DBSShares[i]
			}
		}
		q[dbs.Low].Price = (1 - DBSPriceSpread) * ref
		q[dbs.Mid].Price = ref
		q[dbs.High].Price = (1 + DBSPriceSpread) * ref
	}
	p := &DBS{name: opt.Name, cluster: clusterView{space: cfg.Space}, queues: q,
		slot: [2]int{mi, ri}, skipIdle: cfg.Space.Len() == 2, holdReduces: !opt.Ablations.EarlyReduces}
	if p.name == "" {
		p.name = "DBS"
	}
	for i := range q {
		v := cfg.Space.Zero()
		v[mi], v[ri] = q[i].Price, q[i].Price
		p.prices[i] = v
	}
	interval := opt.Interval
	if interval == 0 {
		interval = dbs.DefaultInterval
	}
	s, err := dbs.New(dbs.Config{
		Cluster: &p.cluster, Queues: q, Interval: interval, HoldDown: opt.HoldDown,
		Sharing: opt.Sharing, MinimumFirst: opt.MinimumFirst, PhiAwareMoves: opt.PhiAwareMoves,
		Ablations: opt.Ablations,
	})
	if err != nil {
		return nil, err // a *dbs.Error wrapping dbs.ErrConfig
	}
	p.sched = s
	if cfg.TickInterval == 0 {
		cfg.TickInterval = interval
	}
	return p, nil
}

// Name implements sim.Policy.
func (p *DBS) Name() string { return p.name }

// Queues returns the queues the adapter runs dbs with.
func (p *DBS) Queues() [3]dbs.QueueConfig { return p.queues }

// Stats returns the counts so far.
func (p *DBS) Stats() DBSStats {
	st := p.stats
	st.Moves = append([]DBSMove(nil), st.Moves...)
	return st
}

// SkipFullNodes implements sim.FullNodeSkipper: true when the
// simulator's Space holds only the map and reduce slot kinds. A
// heartbeat of an idle node then decides nothing and changes nothing a
// later decision depends on:
//
//  1. dbs gives a free slot of kind k only to a job with a ready task of
//     phase k (its ready counts are the simulator's: the adapter's
//     Updates run first, and an assignment not yet passed to Update
//     counts as started, which it is: exactStarts), and only while the
//     node has a free slot of kind k. In a Space of the two slot kinds,
//     a phase k whose
//     tasks all ask alike asks nothing but slot kind k (Submit rejects
//     a job whose phase asks the other kind), so the simulator counts
//     the node idle only when, for every phase k with a ready task, it
//     has no free slot of kind k (a phase whose tasks ask differently
//     never lets a node count as idle): dbs would assign nothing. With
//     AssignsComputingPhasesOnly, ready reduces whose maps are not all
//     finished are left out of that test: dbs gives them nothing.
//  2. What the call does besides is deferred to the next call, with
//     the same result. The Updates of marked jobs read the counters
//     as they are when run, and the queue heaps' heads do not depend
//     on the order of their operations (jobs are ordered by weight,
//     submission and ID: a total order). A new job's first SetPrice is
//     applied at the next call (a Tick, at most dbs's interval later,
//     or a delivered heartbeat), before its first assignment, which
//     only a delivered heartbeat makes: it holds nothing meanwhile and
//     is charged nothing either way. The scheduler's clock and
//     capacity are read again by every call.
//
// An error the skipped call would have returned (a job's counters
// broken) is returned by the next call. TestDBSQuietHeartbeatsChangeNothing
// compares whole runs with and without Config.DeliverFullHeartbeats.
func (p *DBS) SkipFullNodes() bool { return p.skipIdle }

// AssignsComputingPhasesOnly implements sim.ComputingPhaseAssigner: true
// unless EarlyReduces. dbs assigns only a job's maps and reduces, and a
// reduce only when its view of the job has no unfinished map; that view
// is a snapshot of the simulator's counters (Update), and finished
// counts only grow, so the simulator's maps are finished too: the
// reduce's phase computes. The idle test then ignores reduces that
// slow-start made ready but dbs holds back, which point 1 of
// SkipFullNodes' argument allows (dbs would give their slots nothing).
func (p *DBS) AssignsComputingPhasesOnly() bool { return p.holdReduces }

// checkSlots returns an error when one of j's first two phases has
// tasks that all ask some of the other phase's slot kind.
func (p *DBS) checkSlots(j *sim.Job) error {
	for ph := range min(j.Phases(), 2) {
		req, ok := j.PhaseRequest(schedkit.Phase(ph))
		if !ok {
			continue
		}
		if other := p.slot[1-ph]; req[other] > 0 {
			return fmt.Errorf("dbs policy: job %s: its %v tasks ask %g %s: dbs runs phase %d's tasks in %s only",
				j.ID(), schedkit.Phase(ph), req[other], p.cluster.space.Kind(other).Name, ph, p.cluster.space.Kind(p.slot[ph]).Name)
		}
	}
	return nil
}

// exactStarts reports whether every assignment dbs makes for j starts
// in full in the simulator: in a Space of the two slot kinds (skipIdle),
// each of j's first two phases has tasks that all ask at most one slot
// of their own kind (and none of the other, checkSlots). dbs assigns a
// job's phase no more tasks than it has ready (its count at the last
// Update less what dbs assigned since: ready tasks only become fewer by
// starting) and a node no more than its free slots of the kind, so the
// simulator starts exactly what was assigned: its counters then differ
// from dbs's snapshot only by what dbs itself accounts for (slots held,
// ready tasks not assigned), and the Update after the assignment would
// change nothing a heartbeat reads (slots held and ready, hence heap
// membership and keys, queue usage; the task time reads finished
// tasks). It refreshes what a weight update reads (running tasks' start
// times), so marks of such assignments are flushed before the next Tick
// (markLazy) rather than at the next call; any other change to the job
// (a task ending) marks it as usual, and that flush covers both.
func (p *DBS) exactStarts(j *sim.Job) bool {
	if !p.skipIdle {
		return false
	}
	for ph := range min(j.Phases(), 2) {
		req, ok := j.PhaseRequest(schedkit.Phase(ph))
		if !ok || req[p.slot[ph]] > 1 {
			return false
		}
	}
	return true
}

// flush passes every marked job to Update.
func (p *DBS) flush() error {
	return p.jobs.flush(p.sched.Update)
}

// prices appends the initial SetPrice of every newly submitted job.
func (p *DBS) flushPrices(dst []sim.Decision) []sim.Decision {
	for i, j := range p.pending {
		p.pending[i] = nil
		if t := p.jobs.row(j); t.queued && j.Active() {
			q, _ := dbs.QueueFor(j.Phi())
			dst = append(dst, sim.PriceJob(j, p.prices[q]))
		}
	}
	p.pending = p.pending[:0]
	return dst
}

// Submit implements sim.Policy.
func (p *DBS) Submit(now time.Time, j *sim.Job) error {
	if err := p.flush(); err != nil {
		return err
	}
	t := p.jobs.row(j)
	if err := p.checkSlots(j); err != nil {
		p.stats.Rejected++
		return sim.Reject(err.Error())
	}
	t.job = p.newJob(j)
	t.job.exactStarts = p.exactStarts(j)
	if err := p.sched.Submit(now, t.job); err != nil {
		t.job = nil
		if errors.Is(err, dbs.ErrInvalidJob) {
			p.stats.Rejected++
			return sim.Reject(err.Error())
		}
		return err
	}
	t.queued = true
	p.pending = append(p.pending, j)
	p.jobs.mark(j) // phase 0 becomes ready only after Submit returns
	return nil
}

// Tick implements sim.Ticker: dbs's weight update.
func (p *DBS) Tick(now time.Time, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p.cluster.c = c
	if err := p.flush(); err != nil {
		return dst, err
	}
	if err := p.jobs.flushLazy(p.sched.Update); err != nil {
		return dst, err
	}
	dst = p.flushPrices(dst)
	var err error
	p.buf, err = p.sched.Tick(now, p.buf[:0])
	if err != nil {
		return dst, err
	}
	for i := range p.buf {
		d := &p.buf[i]
		j := c.Job(d.Job)
		if j == nil || !j.Active() {
			return dst, fmt.Errorf("dbs moved job %q, which the simulator does not hold active", d.Job)
		}
		switch d.Action {
		case dbs.Promote:
			p.stats.Promotions++
		case dbs.Demote:
			p.stats.Demotions++
		default:
			return dst, fmt.Errorf("dbs tick decided %v", d)
		}
		p.stats.Moves = append(p.stats.Moves, DBSMove{At: now.Sub(sim.Epoch), Job: string(d.Job), From: d.From, To: d.To, Price: d.Price})
		dst = append(dst, sim.PriceJob(j, p.prices[d.To]))
	}
	return dst, nil
}

// Heartbeat implements sim.Policy.
func (p *DBS) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p.cluster.c = c
	if err := p.flush(); err != nil {
		return dst, err
	}
	dst = p.flushPrices(dst)
	var err error
	p.buf, err = p.sched.Heartbeat(now, n, p.buf[:0])
	if err != nil {
		return dst, err
	}
	for i := range p.buf {
		d := &p.buf[i]
		// Consecutive assignments often go to one job (a large job
		// takes most freed slots): look up a new one only.
		j := p.lastJob
		if j == nil || j.ID() != d.Job {
			j = c.Job(d.Job)
			p.lastJob = j
		}
		if j == nil || !j.Active() {
			return dst, fmt.Errorf("dbs assigned tasks of job %q, which the simulator does not hold active", d.Job)
		}
		if d.Action != dbs.Assign || d.Node != n.ID() {
			return dst, fmt.Errorf("dbs heartbeat of %q decided %v", n.ID(), d)
		}
		dst = append(dst, sim.AssignTasks(j, d.Phase, d.Count, nil))
		t := p.jobs.row(j)
		t.job.idle = false // its allocation grows
		p.stats.Assigned += d.Count
		if d.BelowMinimum {
			p.stats.BelowMinimum += d.Count
		}
		if t.job.exactStarts && !p.eager {
			p.jobs.markLazy(j)
		} else {
			p.jobs.mark(j)
		}
	}
	return dst, nil
}

// TaskEnded implements sim.TaskWatcher.
func (p *DBS) TaskEnded(_ time.Time, t *sim.Task, _ schedkit.TaskState) error {
	p.jobs.mark(t.Owner())
	return nil
}

// JobEnded implements sim.JobWatcher: dbs forgets the job.
func (p *DBS) JobEnded(_ time.Time, j *sim.Job, _ sim.Outcome) error {
	t := p.jobs.row(j)
	var err error
	if t.queued {
		t.queued = false
		err = p.sched.Remove(j.ID())
	}
	t.job = nil
	return err
}

// NodeChanged implements sim.NodeWatcher: the adapter learns the
// simulator's cluster before the first job arrives.
func (p *DBS) NodeChanged(_ time.Time, _ *sim.Node, _ bool, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p.cluster.c = c
	return dst, nil
}

// dbsJob shows a *sim.Job to dbs: its cost so far and its data sizes
// (the sum of its tasks' similarity-key sizes per phase).
type dbsJob struct {
	*sim.Job
	// exactStarts: every assignment dbs makes for the job starts in full
	// (DBS.exactStarts), so the Update after one is needed only by the
	// next weight update.
	exactStarts bool
	// idle: the job's allocation had no positive amount when its cost
	// was last read (idleCost), and the adapter has assigned it no task
	// since. A job's allocation grows only when a task of it starts,
	// which only the adapter's assignments do; while it has no positive
	// amount the simulator charges nothing (Σ price × allocation is +0),
	// so the cost stays idleCost bit for bit. A weight update reads
	// every queued job's cost, most of them waiting with nothing running
	// (TestDBSIdleCost checks the cache after every event).
	idle     bool
	idleCost float64

	input, reduceInput int64
}

// dbsJobBlock is the number of dbsJobs allocated at once.
const dbsJobBlock = 256

// newJob returns j's view. Views come in blocks, in submission order,
// so a weight update reading every queued job's cost walks memory
// mostly forwards rather than a job's allocation at a time.
func (p *DBS) newJob(j *sim.Job) *dbsJob {
	if len(p.slab) == 0 {
		p.slab = make([]dbsJob, dbsJobBlock)
	}
	d := &p.slab[0]
	p.slab = p.slab[1:]
	d.Job = j
	for ph := range min(j.Phases(), 2) {
		// Σ of the tasks' data sizes, without materialising every task.
		sum := j.DataSize(schedkit.Phase(ph))
		if ph == 0 {
			d.input = sum
		} else {
			d.reduceInput = sum
		}
	}
	return d
}

// CostSoFar implements dbs.Job: the simulator's cost so far, which
// accrues at the price in force. A bad figure reaches dbs as it is (dbs
// rejects it with an error that stops the run).
func (j *dbsJob) CostSoFar() float64 {
	if j.idle {
		return j.idleCost
	}
	c := j.Cost()
	if !anyPositive(j.Allocated()) {
		j.idle, j.idleCost = true, c
	}
	return c
}

// anyPositive reports whether v has a positive amount.
func anyPositive(v resource.Vector) bool {
	for _, x := range v {
		if x > 0 {
			return true
		}
	}
	return false
}

// DataSizes implements dbs.Job.
func (j *dbsJob) DataSizes() (int64, int64) { return j.input, j.reduceInput }
