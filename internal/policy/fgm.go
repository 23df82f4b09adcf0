package policy

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// FGMConfig configures the fgm simulator policy.
type FGMConfig struct {
	// Name in reports; default "fgm".
	Name string
	// Scheduler is the fgm configuration; its Cluster (the simulator's),
	// History and Estimator are filled in by the policy, and its Penalty
	// too (the world's, WorldPenalty) unless OwnPenalty is set.
	Scheduler fgm.Config
	// History configures the estimator (its Space is the cluster's).
	History estimate.HistoryConfig
	// Oracle, if set, predicts every task's true profile from this
	// workload (the experiment's "oracle estimates" ablation) instead of
	// learning it; the History still learns, unused.
	Oracle *workload.Workload
	// OwnPenalty keeps Scheduler.Penalty (fgm's default 0.05 when zero)
	// as fgm's planning penalty p of formulas (6)–(7). Without it fgm
	// plans with the simulated world's penalty at the largest
	// compression it plans for (WorldPenalty).
	OwnPenalty bool
	// ForeignQuantile, if set (Q > 0), estimates the foreign load of the
	// incompressible kinds by a high quantile of recent samples instead
	// of formula (14)'s mean (see ForeignQuantile). Off by default.
	ForeignQuantile ForeignQuantile
}

// WorldPenalty is the penalty the simulated world cfg charges a kind
// compressed at rate limit (sim.Config.Penalty plus the Contention
// model's p(limit)): fgm's planning penalty p unless
// FGMConfig.OwnPenalty is set. limit 0 means fgm's default compression
// limit.
func WorldPenalty(cfg *sim.Config, limit float64) float64 {
	if limit == 0 {
		limit = resource.DefaultCompressionLimit
	}
	return cfg.Penalty + cfg.Contention.Penalty(limit)
}

// FGM runs package fgm as a simulator host would: ready tasks are
// submitted as they become ready, each heartbeat runs Algorithm 1 for
// the node, usage samples feed the scheduler (and through it the
// History), ticks run Algorithm 3, and ended tasks are released. It
// implements sim.Policy, sim.Ticker, sim.UsageWatcher, sim.TaskWatcher,
// sim.JobWatcher and sim.NodeWatcher. The simulator checks every plan step against a
// node's free capacity at assignment, so the scheduler runs with
// HostChecksSteps.
//
// It is not a sim.FullNodeSkipper: a heartbeat of a node that can take
// nothing places nothing, but is not a no-op. It brings the node's
// free timeline to now (an overdue task's open reservation is anchored
// there), it submits the ready tasks of changed jobs (the time of a
// job's first Submit is its JobState.Submitted, and the order of a
// job's retries against its newly unlocked phase follows the call),
// and with data locations it starts delay-scheduling waits. Such a call
// is cheap instead: fgm answers it from its counts of pending tasks by
// the slots they request (fgm.Scheduler.Schedule, closed kinds).
type FGM struct {
	name    string
	cfg     FGMConfig
	cluster clusterView
	s       *fgm.Scheduler
	h       *estimate.History
	// known holds the tasks submitted to fgm (pending or running there);
	// the value says whether the task is also in byID, so forgetting a
	// placed task of a run (most tasks of a trace day) hashes no ID.
	known map[*sim.Task]bool
	byID  map[schedkit.TaskID]*sim.Task // known tasks but the placed ones of runs (see mat)
	// mat holds the tasks of runs materialised (simRun.Task) in the
	// Schedule call under way, in order: Heartbeat finds a decision's
	// task there, and only those not placed go to byID.
	mat  []matTask
	jobs map[*sim.Job]*fgmJob
	// Which jobs may have ready tasks fgm does not hold (see sync).
	all   bool      // every job (a node went down)
	dirty []*fgmJob // these (each once; marked)
	runs  int       // runs submitted (fgm.SubmitRun)
	ds    []fgm.Decision
	smp   resource.Vector // scratch of clamp
	// The round of usage samples of a node's tasks (TaskSampled), handed
	// to fgm with the node's (NodeSampled); roundUsed holds their amounts.
	round     []fgm.TaskUsage
	roundUsed []float64
	ready     []*sim.Task
	preds     []Prediction
	record    bool            // keep preds: the simulator records task attempts (Config.RecordTasks)
	foreign   *foreignTracker // FGMConfig.ForeignQuantile; nil when off
	// Placements by mode, for reports.
	Modes map[fgm.Mode]int
}

// fgmJob is what FGM keeps of a job, in one place: a heartbeat that
// syncs the job or places its task reads one map entry (or none: a run
// and its materialised tasks point here) instead of one per table.
type fgmJob struct {
	j      *sim.Job
	held   []int // per phase: known tasks not yet assigned (runs' tasks included)
	handed []int // per phase alike (sim.Job.PhaseAlike): tasks 0…handed−1 handed to fgm
	known  int   // known tasks
	marked bool  // in dirty
}

// matTask is a task of a run materialised by a Schedule call, and its
// job's entry.
type matTask struct {
	t *sim.Task
	r *fgmJob
}

// job returns j's entry, making it if new.
func (p *FGM) job(j *sim.Job) *fgmJob {
	r := p.jobs[j]
	if r == nil {
		r = &fgmJob{j: j}
		p.jobs[j] = r
	}
	return r
}

// drop forgets r if it holds nothing and is not in dirty.
func (p *FGM) drop(r *fgmJob) {
	if !r.marked && r.held == nil && r.handed == nil && r.known == 0 {
		delete(p.jobs, r.j)
	}
}

// Prediction is what fgm predicted for one task attempt it placed with a
// prediction, for the experiment's estimator error.
type Prediction struct {
	Task     string
	Attempt  int // 1 for the first attempt
	Duration time.Duration
	// Demand is the time-weighted mean predicted demand over the stages.
	Demand resource.Vector
}

// NewFGM returns the policy for a simulation of cfg, or an error wrapping
// ErrConfig for a nil cfg or one without a Space, or an invalid History
// or Scheduler configuration. Nodes are registered as the simulator
// reports them (NodeChanged).
func NewFGM(cfg *sim.Config, opt FGMConfig) (*FGM, error) {
	if cfg == nil || cfg.Space == nil {
		return nil, fmt.Errorf("%w: fgm policy needs a simulator Config with a Space", ErrConfig)
	}
	name := opt.Name
	if name == "" {
		name = "fgm"
	}
	p := &FGM{name: name, cfg: opt, cluster: clusterView{space: cfg.Space},
		known: map[*sim.Task]bool{}, byID: map[schedkit.TaskID]*sim.Task{}, Modes: map[fgm.Mode]int{},
		jobs: map[*sim.Job]*fgmJob{}}
	if !opt.ForeignQuantile.valid() {
		return nil, fmt.Errorf("%w: ForeignQuantile %+v: want Q in [0, 1] and a window ≥ 0", ErrConfig, opt.ForeignQuantile)
	}
	if opt.ForeignQuantile.on() {
		p.foreign = newForeignTracker(opt.ForeignQuantile, cfg.Space)
	}
	hc := opt.History
	hc.Space = cfg.Space
	h, err := estimate.NewHistory(hc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	sc := opt.Scheduler
	sc.Cluster = &p.cluster
	sc.History = h
	sc.HostChecksSteps = true
	if !opt.OwnPenalty {
		sc.Penalty = WorldPenalty(cfg, sc.CompressionLimit)
		if sc.Penalty == 0 {
			sc.Penalty = fgm.NoPenalty // a zero Penalty is fgm's default
		}
	}
	if opt.Oracle != nil {
		sc.Estimator = &oracle{w: opt.Oracle, cache: map[schedkit.TaskID][]estimate.Stage{}}
	}
	s, err := fgm.New(sc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	p.s, p.h = s, h
	p.record = cfg.RecordTasks
	return p, nil
}

// Name returns the policy's name.
func (p *FGM) Name() string { return p.name }

// Predictions returns the predictions of placed attempts, in placement
// order. They are kept only when the simulator records task attempts
// (sim.Config.RecordTasks), the records they are compared with: a trace
// day places millions of tasks.
func (p *FGM) Predictions() []Prediction { return p.preds }

// oracle predicts a task's true profile from the workload. Its cache is
// keyed by task ID, not by *sim.Task: the simulator reuses a succeeded
// task's object for another task.
type oracle struct {
	w     *workload.Workload
	cache map[schedkit.TaskID][]estimate.Stage
}

func (o *oracle) Predict(t schedkit.Task) (estimate.Profile, bool) {
	st, ok := t.(*sim.Task)
	if !ok {
		return estimate.Profile{}, false
	}
	if s, ok := o.cache[st.ID()]; ok {
		return estimate.Profile{Stages: s, Observations: 1}, true
	}
	spec := o.w.Jobs[st.Owner().Index()].Phases[st.Phase()].Tasks[st.Index()]
	s := make([]estimate.Stage, len(spec.Profile))
	for i, x := range spec.Profile {
		s[i] = estimate.Stage{Duration: x.Duration, Demand: x.Demand}
	}
	o.cache[st.ID()] = s
	return estimate.Profile{Stages: s, Observations: 1}, true
}

// NodeChanged registers a node that came up with the scheduler and
// removes one that went down (its tasks are released; the simulator
// retries them).
func (p *FGM) NodeChanged(now time.Time, n *sim.Node, up bool, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p.cluster.c = c
	if up {
		return dst, p.s.AddNode(n)
	}
	for t := range p.known {
		if t.Node() == n {
			p.forget(t)
		}
	}
	p.all = true
	return dst, p.s.RemoveNode(n.ID())
}

// Submit marks the job as changed; its ready tasks are submitted to fgm
// at the next heartbeat.
func (p *FGM) Submit(now time.Time, j *sim.Job) error {
	p.touch(j)
	return nil
}

// touch marks j as possibly holding ready tasks fgm does not know, and
// returns its entry.
func (p *FGM) touch(j *sim.Job) *fgmJob {
	r := p.job(j)
	if !r.marked {
		r.marked = true
		p.dirty = append(p.dirty, r)
	}
	return r
}

// holds reports whether t is known to fgm (pending or running there).
func (p *FGM) holds(t *sim.Task) bool {
	_, ok := p.known[t]
	return ok
}

// forget drops running task t from known (fgm released it).
func (p *FGM) forget(t *sim.Task) { p.forgetIn(t, p.jobs[t.Owner()]) }

// forgetIn is forget with the entry of t's job (nil: none).
func (p *FGM) forgetIn(t *sim.Task, r *fgmJob) {
	if p.known[t] {
		delete(p.byID, t.ID())
	}
	delete(p.known, t)
	if r != nil {
		r.known = max(r.known-1, 0)
		p.drop(r)
	}
}

// forgetDirty ends a full visit's bookkeeping: every job will be visited,
// so none is marked any more.
func (p *FGM) forgetDirty() {
	p.all = false
	for _, r := range p.dirty {
		r.marked = false
		p.drop(r)
	}
	clear(p.dirty)
	p.dirty = p.dirty[:0]
}

// sync submits every ready task fgm does not hold yet, job by job in the
// simulator's job order, each job's phases in order and each phase's
// ready tasks in ReadyTasks order.
//
// A job gains ready tasks fgm does not hold only when it is submitted,
// when one of its tasks ends (the next phase unlocks, or the task is
// ready again after a failure or preemption) or when a node goes down;
// the callbacks mark it (touch, or all), so only marked jobs are
// visited. Within a phase, held counts the tasks fgm holds that the
// simulator still has ready, so the Ready − held new tasks are found by
// reading a growing prefix of ReadyTasks rather than all of it: the new
// ones come first when they are retries, and a freshly unlocked phase is
// read once. Jobs are submitted in the order of the simulator's job
// list (submission order, i.e. job index), as when every job was
// visited, so fgm sees exactly the same Submit calls.
func (p *FGM) sync(now time.Time, c *sim.Cluster) error {
	if p.all {
		p.forgetDirty()
		for _, j := range c.Jobs() {
			if err := p.syncJob(now, p.job(j)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(p.dirty) == 0 {
		return nil
	}
	slices.SortFunc(p.dirty, func(a, b *fgmJob) int { return cmp.Compare(a.j.Index(), b.j.Index()) })
	for _, r := range p.dirty {
		r.marked = false
		if !r.j.Active() {
			p.drop(r)
			continue
		}
		if err := p.syncJob(now, r); err != nil {
			return err
		}
	}
	clear(p.dirty)
	p.dirty = p.dirty[:0]
	return nil
}

// syncJob submits j's ready tasks fgm does not hold (the reference,
// every ready task of every job read and submitted by itself at every
// heartbeat, is fgmFullScan in export_test.go).
//
// A phase whose tasks are alike (sim.Job.PhaseAlike: same key and
// request, no data locations) is handed over without materialising its
// waiting tasks: its ready tasks fgm does not hold are the tasks pending
// again after a failure (sim.Job.RetryTasks, submitted one by one) and
// then its never-started tasks from handed on, submitted as one run
// (fgm.SubmitRun), in the order ReadyTasks lists them: fgm sees the
// same tasks in the same order as from Submit calls, and a task of the
// run is materialised when fgm places it (simRun.Task).
func (p *FGM) syncJob(now time.Time, r *fgmJob) error {
	j := r.j
	held := r.held
	if held == nil {
		held = make([]int, j.Phases())
		r.held = held
	}
	for ph := range j.Phases() {
		pr := j.Progress(schedkit.Phase(ph))
		if pr.Ready == 0 {
			continue
		}
		need := pr.Ready - held[ph]
		if need <= 0 {
			continue
		}
		if key, ok := j.PhaseAlike(schedkit.Phase(ph)); ok {
			if err := p.syncRun(now, r, schedkit.Phase(ph), key, need); err != nil {
				return err
			}
			continue
		}
		m := min(pr.Ready, max(2*need, 64))
		for {
			p.ready = j.ReadyTasks(schedkit.Phase(ph), nil, p.ready[:0], m)
			found := 0
			for _, t := range p.ready {
				if !p.holds(t) {
					found++
				}
			}
			if found >= need || m >= pr.Ready {
				break
			}
			m = min(pr.Ready, 2*m)
		}
		for _, t := range p.ready {
			if p.holds(t) {
				continue
			}
			if err := p.s.Submit(now, t); err != nil {
				return err
			}
			p.hold(t, r)
			held[ph]++
		}
	}
	return nil
}

// syncRun hands fgm the need ready tasks of alike phase ph it does not
// hold: the retries, then the never-started tasks as one run.
func (p *FGM) syncRun(now time.Time, r *fgmJob, ph schedkit.Phase, key schedkit.SimilarityKey, need int) error {
	j := r.j
	handed := r.handed
	if handed == nil {
		handed = make([]int, j.Phases())
		r.handed = handed
	}
	total := j.Tasks(ph)
	fresh := total - handed[ph]
	if need > fresh {
		p.ready = j.RetryTasks(ph, p.ready[:0])
		for _, t := range p.ready {
			if p.holds(t) {
				continue
			}
			if err := p.s.Submit(now, t); err != nil {
				return err
			}
			p.hold(t, r)
			r.held[ph]++
		}
	}
	if fresh > 0 {
		req, _ := j.PhaseRequest(ph)
		run := &simRun{p: p, r: r, ph: ph, first: handed[ph], n: fresh, key: key, req: req}
		if err := p.s.SubmitRun(now, run); err != nil {
			return err
		}
		handed[ph] = total
		r.held[ph] += fresh
		p.runs++
	}
	return nil
}

// hold records t, a task of r's job, as known to fgm (and in byID).
func (p *FGM) hold(t *sim.Task, r *fgmJob) {
	p.known[t] = true
	r.known++
	p.byID[t.ID()] = t
}

// holdRun records t, a task of a run of r's job, as known to fgm;
// Heartbeat puts it in byID unless the call that materialised it placed
// it.
func (p *FGM) holdRun(t *sim.Task, r *fgmJob) {
	if _, ok := p.known[t]; !ok {
		p.known[t] = false // not in byID (yet)
	}
	r.known++
	p.mat = append(p.mat, matTask{t, r})
}

// simRun is the never-started tasks first … first+n−1 of an alike phase,
// handed to fgm as one fgm.TaskRun.
type simRun struct {
	p        *FGM
	r        *fgmJob // the job's entry
	ph       schedkit.Phase
	first, n int
	key      schedkit.SimilarityKey
	req      resource.Vector
}

// The fgm.TaskRun methods: every task of the run shares these.

func (r *simRun) Job() schedkit.JobID                { return r.r.j.ID() }
func (r *simRun) Similarity() schedkit.SimilarityKey { return r.key }
func (r *simRun) Requested() resource.Vector         { return r.req }
func (r *simRun) Deadline() time.Time                { return r.r.j.Deadline() }
func (r *simRun) Len() int                           { return r.n }

// Task materialises the run's task i in the simulator (fgm places it).
func (r *simRun) Task(i int) schedkit.Task {
	t := r.r.j.Task(r.ph, r.first+i)
	if t == nil {
		return nil
	}
	r.p.holdRun(t, r.r)
	return t
}

// Heartbeat runs Algorithm 1 for n.
func (p *FGM) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if err := p.sync(now, c); err != nil {
		return dst, err
	}
	return p.schedule(now, n, c, dst)
}

// schedule is Heartbeat once fgm holds every ready task: Algorithm 1
// for n, its decisions turned into the simulator's.
func (p *FGM) schedule(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	var err error
	p.mat = p.mat[:0]
	p.ds, err = p.s.Schedule(now, n, p.ds[:0])
	if err != nil {
		p.unplaced(0)
		return dst, err
	}
	k := 0 // p.mat[:k] are placed
	for _, d := range p.ds {
		var t *sim.Task
		var r *fgmJob
		if k < len(p.mat) && p.mat[k].t.ID() == d.Task {
			// The usual case: fgm materialised a run's task to place it.
			t, r = p.mat[k].t, p.mat[k].r
			k++
		} else {
			p.unplaced(k) // the rest of mat to byID: k stays 0 from here
			k = 0
			t = p.byID[d.Task]
			r = p.jobs[t.Owner()]
		}
		r.held[t.Phase()]-- // ready no more once assigned
		p.Modes[d.Mode]++
		if d.Mode != fgm.Requested && p.record {
			p.recordPrediction(t, d)
		}
		if len(d.Plan) == 1 {
			dst = append(dst, sim.Decision{Kind: sim.Assign, Task: t, Node: n, Alloc: d.Plan[0].Alloc})
			continue
		}
		plan := make([]sim.AllocStep, len(d.Plan))
		for i, s := range d.Plan {
			plan[i] = sim.AllocStep{Duration: s.Duration, Alloc: s.Alloc}
		}
		dst = append(dst, sim.Decision{Kind: sim.Assign, Task: t, Node: n, Plan: plan})
	}
	p.unplaced(k)
	return dst, nil
}

// unplaced puts the tasks p.mat[k:], materialised but not placed, in
// byID, and empties mat.
func (p *FGM) unplaced(k int) {
	for _, m := range p.mat[k:] {
		p.byID[m.t.ID()] = m.t
		p.known[m.t] = true
	}
	clear(p.mat)
	p.mat = p.mat[:0]
}

// task returns the known task of id: from byID, or running on node
// (a placed task of a run is not in byID).
func (p *FGM) task(id schedkit.TaskID, node schedkit.NodeID, c *sim.Cluster) *sim.Task {
	if t := p.byID[id]; t != nil {
		return t
	}
	for i := range c.AllNodes() {
		if n := c.NodeByIndex(i); n != nil && n.ID() == node {
			for _, t := range n.Running() {
				if t.ID() == id && p.holds(t) {
					return t
				}
			}
		}
	}
	for t := range p.known {
		if t.ID() == id {
			return t
		}
	}
	return nil
}

func (p *FGM) recordPrediction(t *sim.Task, d fgm.Decision) {
	var total time.Duration
	dem := make(resource.Vector, len(d.Plan[0].Reserved))
	for _, s := range d.Plan {
		total += s.Duration
	}
	for _, s := range d.Plan {
		if total > 0 {
			_ = dem.AddScaled(float64(s.Duration)/float64(total), s.Reserved)
		}
	}
	p.preds = append(p.preds, Prediction{Task: string(t.ID()), Attempt: t.Attempts() + 1, Duration: total, Demand: dem})
}

// Tick runs the policy adjustment (Algorithm 3) and preempts reclaimed
// tasks.
func (p *FGM) Tick(now time.Time, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	var err error
	p.ds, err = p.s.Tick(now, p.ds[:0])
	if err != nil {
		return dst, err
	}
	for _, d := range p.ds {
		t := p.task(d.Task, d.Node, c)
		p.forget(t) // released by fgm; pending again once preempted
		p.touch(t.Owner())
		dst = append(dst, sim.PreemptTask(t, fmt.Sprintf("%s: conformity %.3g > %.3g", d.Reason, d.Conformity, d.Threshold)))
	}
	return dst, nil
}

// TaskSampled keeps a running task's usage for the node's round: the
// simulator samples a node's tasks, then the node (sim.UsageWatcher),
// and NodeSampled hands fgm the round in one call (fgm's host duty 4).
func (p *FGM) TaskSampled(now time.Time, t *sim.Task, used resource.Vector) error {
	if n := t.Node(); n != nil {
		used = p.clamp(used, n)
	}
	if p.foreign != nil {
		p.foreign.task(used)
	}
	k := len(p.roundUsed)
	p.roundUsed = append(p.roundUsed, used...)
	p.round = append(p.round, fgm.TaskUsage{Task: t.ID(), Used: p.roundUsed[k:len(p.roundUsed):len(p.roundUsed)]})
	return nil
}

// NodeSampled passes the round of the node's tasks (SampleTasks) and the
// node's measured usage (raised by the ForeignQuantile option when it
// is set) to fgm. A round fgm refuses goes task by task, as if each
// were sampled alone: a task fgm does not hold running (unknown to it,
// or held pending) is refused with ErrUnknownTask, changing nothing, and
// that is no error here.
func (p *FGM) NodeSampled(now time.Time, n *sim.Node, used resource.Vector) error {
	err := p.sampleRound(now, n)
	clear(p.round)
	p.round, p.roundUsed = p.round[:0], p.roundUsed[:0]
	if err != nil {
		return err
	}
	if p.foreign != nil {
		used = p.foreign.node(now, n.ID(), used, n.Capacity())
	}
	return p.s.SampleNode(now, n.ID(), p.clamp(used, n))
}

// sampleRound hands fgm the round of n's tasks (see NodeSampled).
func (p *FGM) sampleRound(now time.Time, n *sim.Node) error {
	if len(p.round) == 0 || p.s.SampleTasks(now, n.ID(), p.round) == nil {
		return nil
	}
	for _, u := range p.round {
		if err := p.s.SampleTask(now, u.Task, u.Used); err != nil && !errors.Is(err, fgm.ErrUnknownTask) {
			return err
		}
	}
	return nil
}

// clamp returns used with every amount above n's capacity cut to it (in
// a scratch vector): the simulator's multiplicative measurement noise
// can report more than a node has, which fgm refuses as a sample that
// cannot be true; a node agent reading /proc never reports more.
func (p *FGM) clamp(used resource.Vector, n *sim.Node) resource.Vector {
	capacity := n.Capacity()
	for k, x := range used {
		if k < len(capacity) && x > capacity[k] {
			p.smp = append(p.smp[:0], used...)
			for k, x := range p.smp {
				if k < len(capacity) {
					p.smp[k] = min(x, capacity[k])
				}
			}
			return p.smp
		}
	}
	return used
}

// TaskEnded releases the task in fgm (learning from it if it succeeded);
// a failed task is pending again and is resubmitted at the next
// heartbeat.
func (p *FGM) TaskEnded(now time.Time, t *sim.Task, state schedkit.TaskState) error {
	r := p.touch(t.Owner())
	if !p.holds(t) {
		return nil
	}
	p.forgetIn(t, r)
	return p.s.Release(now, t.ID(), state == schedkit.TaskSucceeded)
}

// JobEnded drops the job's tasks from fgm: pending ones are withdrawn,
// running ones released without learning.
func (p *FGM) JobEnded(now time.Time, j *sim.Job, _ sim.Outcome) error {
	r := p.jobs[j]
	if r == nil {
		return nil
	}
	r.held = nil
	if r.handed != nil {
		r.handed = nil
		p.s.WithdrawJob(j.ID()) // its runs' tasks were never materialised
	}
	if r.known == 0 {
		p.drop(r)
		return nil // nothing held: no need to read (and materialise) its tasks
	}
	for ph := range j.Phases() {
		for i := range j.Tasks(schedkit.Phase(ph)) {
			t := j.Task(schedkit.Phase(ph), i)
			if !p.holds(t) {
				continue
			}
			p.forget(t)
			if p.s.Withdraw(t.ID()) != nil { // not pending: running
				if err := p.s.Release(now, t.ID(), false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var (
	_ sim.Policy       = (*FGM)(nil)
	_ sim.Ticker       = (*FGM)(nil)
	_ sim.UsageWatcher = (*FGM)(nil)
	_ sim.TaskWatcher  = (*FGM)(nil)
	_ sim.JobWatcher   = (*FGM)(nil)
	_ sim.NodeWatcher  = (*FGM)(nil)
)
