package deadlinebudget

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/internal/kube/queuesort"
	"github.com/schedkit/schedkit/resource"
)

// ledger is the plugin's dbs state, guarded by Plugin.mu: the one
// dbs.Scheduler it keeps for its life (weights, marks and queues are
// state), the jobs submitted to it with the price history each was
// charged, and what the last evaluations decided that is not yet acted
// on.
type ledger struct {
	sched   *dbs.Scheduler
	cluster *liveCluster
	prices  [3]float64 // per dbs.Queue
	byID    map[schedkit.JobID]*job
	costNow time.Time // the now CostSoFar charges running pods up to
	last    time.Time // latest now given to dbs
	// moves and applied are the promotions, demotions and changed terms
	// not yet acted on (events, annotations).
	moves   []Move
	applied []Applied

	// What survives a restart (persist.go): with persistOn, the records
	// to write, the jobs submitted since the last check (fresh), the
	// records refused or not written (logged), and whether the last
	// update's time was taken from the records (resumedUpdates).
	persistOn      bool
	writes         []StateWrite
	fresh          []*job
	refused        []string
	resumed        []string // jobs resumed from their records, logged
	resumedUpdates bool
	seq            uint64 // records made (StateWrite.Seq)
}

// pending is what the ledger decided that is not yet acted on.
type pending struct {
	moves   []Move
	applied []Applied
	writes  []StateWrite
	refused []string
	resumed []string
}

// take returns and forgets what is not yet acted on.
func (l *ledger) take() pending {
	p := pending{moves: l.moves, applied: l.applied, writes: l.writes, refused: l.refused, resumed: l.resumed}
	l.moves, l.applied, l.writes, l.refused, l.resumed = nil, nil, nil, nil, nil
	return p
}

// empty reports whether there is nothing to act on.
func (p pending) empty() bool {
	return len(p.moves)+len(p.applied)+len(p.writes)+len(p.refused)+len(p.resumed) == 0
}

// newLedger returns the ledger of args, or an error with dbs's reason.
func newLedger(args Args) (*ledger, error) {
	cluster := &liveCluster{}
	cfg, err := args.dbsConfig(cluster)
	if err != nil {
		return nil, err
	}
	sched, err := dbs.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", Name, err)
	}
	l := &ledger{sched: sched, cluster: cluster, byID: map[schedkit.JobID]*job{}, persistOn: args.PersistState}
	for q, qc := range sched.Queues() {
		l.prices[q] = qc.Price
	}
	return l, nil
}

// at returns now, held at the latest now given to dbs if the clock
// stepped back (dbs refuses a time before an earlier one), and records it.
func (l *ledger) at(now time.Time) time.Time {
	if now.Before(l.last) {
		now = l.last
	}
	l.last = now
	return now
}

// liveCluster is the schedkit.Cluster dbs reads: the latest snapshot's.
type liveCluster struct{ c *podjob.Cluster }

func (l *liveCluster) Space() *resource.Space { return podjob.Space() }
func (l *liveCluster) Nodes() int {
	if l.c == nil {
		return 0
	}
	return l.c.Nodes()
}
func (l *liveCluster) Node(i int) schedkit.Node { return l.c.Node(i) }
func (l *liveCluster) Capacity() resource.Vector {
	if l.c == nil {
		return podjob.Space().Zero()
	}
	return l.c.Capacity()
}

// pricePoint is a price in force from a time on.
type pricePoint struct {
	from  time.Time // zero: since ever
	price float64
}

// job is the dbs.Job the plugin submits: the latest translation of a
// Job or pod group, and the prices it was charged.
type job struct {
	l      *ledger
	cur    *podjob.Job
	queue  dbs.Queue
	prices []pricePoint
	// saved and savedPrices are the dbs state and the length of the
	// price history of the job's last record (recorded: there is one).
	saved       dbs.Saved
	savedPrices int
	recorded    bool
}

var _ dbs.Job = (*job)(nil)

func (j *job) ID() schedkit.JobID                               { return j.cur.ID() }
func (j *job) Submitted() time.Time                             { return j.cur.Submitted() }
func (j *job) Deadline() time.Time                              { return j.cur.Deadline() }
func (j *job) Phases() int                                      { return j.cur.Phases() }
func (j *job) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.cur.Progress(p) }
func (j *job) Budget() float64                                  { return j.cur.Budget() }
func (j *job) Phi() float64                                     { return j.cur.Phi() }
func (j *job) DataSizes() (int64, int64)                        { return j.cur.DataSizes() }

// CostSoFar charges each of the job's pods, for the time it held its
// slot (a running pod up to now), the price of the queue the job was in
// at each second (one slot per pod).
func (j *job) CostSoFar() float64 {
	return cost(j.cur.Runs(), j.prices, j.l.costNow)
}

// cost is Σ over runs of the slot-seconds up to now, each at the price
// in force (prices: from times ascending, the first from the zero time).
func cost(runs []podjob.Run, prices []pricePoint, now time.Time) float64 {
	total := 0.0
	for _, r := range runs {
		end := r.End
		if end.IsZero() || end.After(now) {
			end = now
		}
		for i, p := range prices {
			lo, hi := r.Start, end
			if p.from.After(lo) {
				lo = p.from
			}
			if i+1 < len(prices) && prices[i+1].from.Before(hi) {
				hi = prices[i+1].from
			}
			if hi.After(lo) {
				total += hi.Sub(lo).Seconds() * p.price
			}
		}
	}
	return total
}

// setQueue records that the job is in queue q from now on.
func (j *job) setQueue(now time.Time, q dbs.Queue) {
	switch {
	case len(j.prices) == 0: // since ever: time before the plugin saw the job
		now = time.Time{}
	case q == j.queue:
		return
	}
	j.queue = q
	j.prices = append(j.prices, pricePoint{from: now, price: j.l.prices[q]})
}

// Applied is a change of a job's terms (deadline, φ, budget, data sizes)
// the plugin applied by submitting the job to dbs again.
type Applied struct {
	Job     *podjob.Job
	Changes []string // as podjob.Job.TermsChanged
	Queue   dbs.Queue
}

// sync submits the snapshot's new jobs to dbs, updates known ones,
// removes gone ones, and reads the order into o (order). A Job
// re-created under its name is a new job. A job whose terms changed (a
// user's `kubectl annotate --overwrite`), or whose phase count did (its
// first reduce pod created without schedkit.io/tasks), is submitted
// again into its φ's queue at now — what a restarted replica does with
// it — keeping its price history; a change of terms is recorded
// (Applied).
func (l *ledger) sync(o *queuesort.Order, now time.Time) error {
	l.cluster.c = o.Snap.Cluster
	l.costNow = now
	seen := make(map[schedkit.JobID]bool, len(o.Snap.Jobs))
	var lastUpdate time.Time         // the latest of the records resumed
	for _, pj := range o.Snap.Jobs { // by ID: a fixed submission order
		id := pj.ID()
		seen[id] = true
		j := l.byID[id]
		if j != nil && j.cur.UID() != pj.UID() {
			l.remove(id)
			j = nil
		}
		if j == nil {
			j = &job{l: l, cur: pj}
			if l.persistOn {
				if ok, last := l.resume(j, now); ok {
					l.byID[id] = j
					if last.After(lastUpdate) {
						lastUpdate = last
					}
					continue
				}
			}
		} else {
			changes := pj.TermsChanged(j.cur)
			j.cur = pj
			if len(changes) == 0 && l.sched.Update(id) == nil {
				continue
			}
			l.remove(id)
			if len(changes) > 0 {
				q, _ := dbs.QueueFor(pj.Phi())
				l.applied = append(l.applied, Applied{Job: pj, Changes: changes, Queue: q})
			}
		}
		q, _ := dbs.QueueFor(pj.Phi()) // podjob checked φ
		j.setQueue(now, q)
		if err := l.sched.Submit(now, j); err != nil {
			o.JobErr[id] = err
			continue
		}
		l.byID[id] = j
		l.fresh = append(l.fresh, j)
	}
	for id := range l.byID {
		if !seen[id] {
			l.remove(id)
		}
	}
	if !lastUpdate.IsZero() && !l.resumedUpdates {
		// The first records read: the weight updates go on at the times
		// they had (an update already run here keeps its own).
		l.resumedUpdates = true
		_ = l.sched.ResumeUpdates(lastUpdate)
	}
	return l.order(o, now)
}

// remove drops job id from dbs and the ledger.
func (l *ledger) remove(id schedkit.JobID) {
	_ = l.sched.Remove(id)
	delete(l.byID, id)
}

// order runs dbs's Tick (dbs updates weights when TickInterval has
// passed), keeps its moves for act, and reads dbs.Queue into o.Seq.
func (l *ledger) order(o *queuesort.Order, now time.Time) error {
	before, start := l.sched.LastUpdate(), time.Now()
	moves, err := l.sched.Tick(now, nil)
	if err != nil {
		return err
	}
	updated := !l.sched.LastUpdate().Equal(before)
	if updated {
		WeightUpdateDuration.Observe(time.Since(start).Seconds())
		for q := range dbs.Queue(len(l.prices)) {
			Jobs.WithLabelValues(q.String()).Set(float64(l.sched.QueueLen(q)))
		}
	}
	for _, d := range moves {
		j := l.byID[d.Job]
		j.setQueue(now, d.To)
		l.moves = append(l.moves, Move{Decision: d, Job: j.cur})
		QueueMoves.WithLabelValues(moveLabels(d)).Inc()
	}
	l.persist(updated)
	picks, err := l.sched.Queue(now, nil)
	if err != nil {
		return err
	}
	of := func(pk dbs.Pick) (schedkit.JobID, schedkit.Phase, int) { return pk.Job, pk.Phase, pk.Count }
	return o.Hand(Name, queuesort.PicksOf(picks, of), nil)
}
