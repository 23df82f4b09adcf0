package policy

import (
	"errors"
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/lss"
)

// LSSOptions selects the lss.Config options an LSS runs with. The
// zero value is the paper's algorithm (lss.Config with only Cluster set).
type LSSOptions struct {
	// Name is the policy's column name; "" means "LSS".
	Name string
	// SoftDeadlines, PerPhaseTaskTime, Admission and Literal are passed to
	// lss.Config as they are. With Admission, each job hints (as an
	// lss.TaskTimeHinter) the mean finished task time of the earlier
	// ended jobs of its class: the host's figure from earlier runs of the
	// same workflow.
	SoftDeadlines, PerPhaseTaskTime, Admission, Literal bool
	// PhaseTaskTimeHints turns on lss.Config.PhaseTaskTimeHints, each job
	// hinting (as an lss.PhaseTaskTimeHinter) for each phase the mean
	// task time of that phase over the earlier ended jobs of its class
	// (none before one has finished a task of the phase). The adapter
	// measures a task of phase p > 0 from the later of its start and the
	// end of phase p−1 (the time formula (3) charges it: phases run one
	// after the other there), not from its start as the simulator and
	// Hadoop do, which would count an early reduce's shuffle wait; with
	// RawPhaseHints it uses the simulator's times as they are.
	PhaseTaskTimeHints, RawPhaseHints bool
	// Heterogeneous turns on lss.Config.Heterogeneous with every node's
	// speed factor from the simulator's configuration (NodeSpec.Speed, 0
	// meaning 1), and makes the adapter report finished task times in
	// speed-1 units (duration × speed of the node the task ran on), the
	// reference lss measures capacity in.
	Heterogeneous bool
	// PhaseKinds is lss.Config.PhaseKinds (nil: map and reduce slots).
	PhaseKinds []string
	// WaveRemaining, OptimisticKill and NoFirstMapPass are passed to
	// lss.Config as they are.
	WaveRemaining, OptimisticKill, NoFirstMapPass bool
}

// LSSStats counts what an LSS decided over one run.
type LSSStats struct {
	// Assigned counts tasks handed out.
	Assigned int
	// Kills counts Kill decisions: DeadlinePassed and SpareExhausted by
	// reason (the paper's early kill is SpareExhausted).
	Kills, DeadlinePassed, SpareExhausted int
	// EarlyKilledJobs lists the indices (sim.Job.Index) of the jobs killed
	// for SpareExhausted, in order.
	EarlyKilledJobs []int
	// Infeasible counts Infeasible reports (SoftDeadlines); InfeasibleJobs
	// lists the indices (sim.Job.Index) of the jobs reported, in order.
	Infeasible     int
	InfeasibleJobs []int
	// Refused counts jobs refused by admission control.
	Refused int
	// KillRecords lists every Kill decision, in order, with the job's
	// figures and counters at the kill.
	KillRecords []LSSKill
}

// LSSKill is one Kill decision as the adapter saw it: the job, lss's
// reason and figures, and the job's counters, per phase, at the kill.
type LSSKill struct {
	Job      int // sim.Job.Index
	Reason   lss.Reason
	Figures  lss.Figures
	Progress []schedkit.PhaseProgress
}

// LSS runs an lss.Scheduler as a simulator policy: the adapter
// between the simulator's host view and the library, doing exactly what
// a Hadoop JobTracker embedding lss would do.
//
//   - Submit passes the job (a *sim.Job is a schedkit.Job) to
//     lss.Scheduler.Submit; a refusal by admission control rejects it
//     (sim.Reject). Any other error lss returns, from any call, stops the
//     run (sim.ErrPolicy wrapping it).
//   - Every change of a job's counters — assignments the simulator
//     applied after a heartbeat, task ends (TaskWatcher), phase 0 becoming
//     ready right after Submit — marks the job; marked jobs are passed to
//     lss.Scheduler.Update at the start of the next Submit or Heartbeat,
//     once the simulator has applied everything (it reports a task end
//     before it unlocks the next phase, so updating inside TaskEnded would
//     read stale counters). lss counts its own assignments as running
//     until then.
//   - A job that ends (JobWatcher) is removed, unless lss killed it.
//   - Heartbeat translates lss decisions: Assign → sim.AssignTasks on the
//     heartbeating node, Kill → sim.Kill with the reason and the figures,
//     Infeasible → counted in Stats.
//
// It is not safe for concurrent use; the simulator calls it from one
// goroutine.
type LSS struct {
	name    string
	opt     LSSOptions
	sched   *lss.Scheduler
	cluster clusterView
	buf     []lss.Decision
	jobs    jobTable[*lssJob]
	touched []*sim.Node // nodes assigned on since the last flush (Heterogeneous)
	speeds  map[schedkit.NodeID]float64
	history map[string]*classHistory // per job class, for admission hints
	stats   LSSStats
}

// classHistory sums the finished task times of the ended jobs of one
// class, pooled and per phase: the host's figure from earlier runs of the
// same job.
type classHistory struct {
	sum   time.Duration
	n     int
	phSum [schedkit.MaxPhases]time.Duration
	phN   [schedkit.MaxPhases]int
}

// Compile-time checks: the adapter is a full simulator policy, and what
// it shows lss are schedkit types.
var (
	_ sim.Policy         = (*LSS)(nil)
	_ sim.TaskWatcher    = (*LSS)(nil)
	_ sim.JobWatcher     = (*LSS)(nil)
	_ sim.NodeWatcher    = (*LSS)(nil)
	_ schedkit.Cluster   = (*clusterView)(nil)
	_ schedkit.Job       = (*lssJob)(nil)
	_ lss.TaskTimeHinter = (*lssJob)(nil)

	_ lss.PhaseTaskTimeHinter = (*lssJob)(nil)
	_ schedkit.Job            = (*sim.Job)(nil)
	_ schedkit.Node           = (*sim.Node)(nil)
)

// NewLSS returns an adapter for a simulation configured by cfg. A nil
// cfg or one without a Space returns ErrConfig; errors from lss.New (an
// invalid PhaseKinds, for example, wrapping lss.ErrConfig) are returned
// as they are.
func NewLSS(cfg *sim.Config, opt LSSOptions) (*LSS, error) {
	if cfg == nil || cfg.Space == nil {
		return nil, fmt.Errorf("%w: lss policy needs a simulator Config with a Space", ErrConfig)
	}
	p := &LSS{name: opt.Name, opt: opt, cluster: clusterView{space: cfg.Space}}
	if p.name == "" {
		p.name = "LSS"
	}
	lc := lss.Config{
		Cluster:            &p.cluster,
		PhaseKinds:         opt.PhaseKinds,
		SoftDeadlines:      opt.SoftDeadlines,
		PerPhaseTaskTime:   opt.PerPhaseTaskTime,
		Admission:          opt.Admission,
		PhaseTaskTimeHints: opt.PhaseTaskTimeHints,
		Literal:            opt.Literal,
		WaveRemaining:      opt.WaveRemaining,
		OptimisticKill:     opt.OptimisticKill,
		NoFirstMapPass:     opt.NoFirstMapPass,
	}
	if opt.Heterogeneous {
		lc.Heterogeneous = true
		lc.NodeSpeeds = make(map[schedkit.NodeID]float64, len(cfg.Nodes))
		p.speeds = make(map[schedkit.NodeID]float64, len(cfg.Nodes))
		for _, n := range cfg.Nodes {
			v := n.Speed
			if v == 0 {
				v = 1
			}
			lc.NodeSpeeds[n.ID] = v
			p.speeds[n.ID] = v
		}
	}
	if opt.Admission || opt.PhaseTaskTimeHints {
		p.history = map[string]*classHistory{}
	}
	s, err := lss.New(lc)
	if err != nil {
		return nil, err
	}
	p.sched = s
	return p, nil
}

// Name implements sim.Policy.
func (p *LSS) Name() string { return p.name }

// Stats returns the counts so far.
func (p *LSS) Stats() LSSStats {
	st := p.stats
	st.InfeasibleJobs = append([]int(nil), st.InfeasibleJobs...)
	st.EarlyKilledJobs = append([]int(nil), st.EarlyKilledJobs...)
	st.KillRecords = append([]LSSKill(nil), st.KillRecords...)
	return st
}

// needsWrap reports whether jobs are shown to lss through lssJob rather
// than as the *sim.Job itself.
func (o LSSOptions) needsWrap() bool {
	return o.Heterogeneous || o.Admission || o.PhaseTaskTimeHints
}

// flush tells lss about every job whose counters changed since the last
// callback.
func (p *LSS) flush() error {
	if p.opt.Heterogeneous {
		for _, n := range p.touched {
			p.noteStarts(n)
		}
		p.touched = p.touched[:0]
	}
	return p.jobs.flush(p.sched.Update)
}

// Submit implements sim.Policy.
func (p *LSS) Submit(now time.Time, j *sim.Job) error {
	if err := p.flush(); err != nil {
		return err
	}
	t := p.jobs.row(j)
	var view schedkit.Job = j
	if p.opt.needsWrap() {
		t.job = &lssJob{Job: j, p: p}
		view = t.job
	}
	if err := p.sched.Submit(now, view); err != nil {
		var refused *lss.RefusedError
		if errors.As(err, &refused) {
			p.stats.Refused++
			return sim.Reject(fmt.Sprintf("lss admission: %s (task time %v from %s, remaining %v, spare %v)",
				refused.Job, refused.TaskTime, refused.Source, refused.Remaining.Time, refused.Spare.Time))
		}
		return err
	}
	t.queued = true
	// Phase 0 becomes ready only after Submit returns.
	p.jobs.mark(j)
	return nil
}

// Heartbeat implements sim.Policy.
func (p *LSS) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p.cluster.c = c
	if err := p.flush(); err != nil {
		return dst, err
	}
	var err error
	p.buf, err = p.sched.Heartbeat(now, n, p.buf[:0])
	if err != nil {
		return dst, err
	}
	for i := range p.buf {
		d := &p.buf[i]
		j := c.Job(d.Job)
		if j == nil || !j.Active() {
			return dst, fmt.Errorf("lss decided %v for job %q, which the simulator does not hold active", d.Action, d.Job)
		}
		switch d.Action {
		case lss.Assign:
			if d.Node != n.ID() {
				return dst, fmt.Errorf("lss assigned on node %q during the heartbeat of %q", d.Node, n.ID())
			}
			dst = append(dst, sim.AssignTasks(j, d.Phase, d.Count, nil))
			p.stats.Assigned += d.Count
			p.jobs.mark(j)
			if p.opt.Heterogeneous && (len(p.touched) == 0 || p.touched[len(p.touched)-1] != n) {
				p.touched = append(p.touched, n)
			}
		case lss.Kill:
			t := p.jobs.row(j)
			t.queued = false
			p.stats.Kills++
			switch d.Reason {
			case lss.DeadlinePassed:
				p.stats.DeadlinePassed++
			case lss.SpareExhausted:
				p.stats.SpareExhausted++
				p.stats.EarlyKilledJobs = append(p.stats.EarlyKilledJobs, j.Index())
			}
			rec := LSSKill{Job: j.Index(), Reason: d.Reason, Figures: d.Figures, Progress: make([]schedkit.PhaseProgress, j.Phases())}
			for ph := range rec.Progress {
				rec.Progress[ph] = j.Progress(schedkit.Phase(ph))
			}
			p.stats.KillRecords = append(p.stats.KillRecords, rec)
			dst = append(dst, sim.Kill(j, killReason(d)))
		case lss.Infeasible:
			p.stats.Infeasible++
			p.stats.InfeasibleJobs = append(p.stats.InfeasibleJobs, j.Index())
		default:
			return dst, fmt.Errorf("lss decision of unknown action %v", d.Action)
		}
	}
	return dst, nil
}

// killReason renders a kill with the figures that triggered it.
func killReason(d *lss.Decision) string {
	f := &d.Figures
	rem := "cannot finish"
	if !f.Remaining.CannotFinish {
		rem = f.Remaining.Time.String()
	}
	return fmt.Sprintf("lss: %s; remaining %v; deadline in %v", d, rem, f.Deadline.Sub(f.Now))
}

// TaskEnded implements sim.TaskWatcher.
func (p *LSS) TaskEnded(now time.Time, t *sim.Task, state schedkit.TaskState) error {
	j := t.Owner()
	tr := p.jobs.row(j)
	if !tr.queued {
		return nil
	}
	if tr.job != nil && p.opt.Heterogeneous {
		tr.job.taskEnded(t, state)
	}
	if tr.job != nil && p.opt.PhaseTaskTimeHints && state == schedkit.TaskSucceeded {
		tr.job.measure(now, t)
	}
	p.jobs.mark(j)
	return nil
}

// JobEnded implements sim.JobWatcher: lss forgets the job, whose task
// times join its class's history (Admission, PhaseTaskTimeHints).
func (p *LSS) JobEnded(_ time.Time, j *sim.Job, _ sim.Outcome) error {
	t := p.jobs.row(j)
	if p.history != nil {
		h := p.history[j.Class()]
		if h == nil {
			h = &classHistory{}
			p.history[j.Class()] = h
		}
		for ph := range j.Phases() {
			pr := j.Progress(schedkit.Phase(ph))
			h.sum += pr.FinishedDurationSum
			h.n += pr.Finished
			switch {
			case ph >= schedkit.MaxPhases:
			case p.opt.RawPhaseHints || t.job == nil || ph >= len(t.job.effN):
				h.phSum[ph] += pr.FinishedDurationSum
				h.phN[ph] += pr.Finished
			default:
				h.phSum[ph] += t.job.effSum[ph]
				h.phN[ph] += t.job.effN[ph]
			}
		}
	}
	var err error
	if t.queued {
		t.queued = false
		err = p.sched.Remove(j.ID())
	}
	t.job = nil
	return err
}

// NodeChanged implements sim.NodeWatcher: the adapter learns the
// simulator's cluster view before the first job arrives.
func (p *LSS) NodeChanged(_ time.Time, _ *sim.Node, _ bool, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	p.cluster.c = c
	return dst, nil
}

// noteStarts records the speed of the node every newly started task of a
// wrapped job runs on (Heterogeneous).
func (p *LSS) noteStarts(n *sim.Node) {
	for _, t := range n.Running() {
		tr := p.jobs.row(t.Owner())
		if tr.job != nil {
			tr.job.started(t, n.Speed())
		}
	}
}
