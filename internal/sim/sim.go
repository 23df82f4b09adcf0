package sim

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Sim is one simulation of one policy on one workload. It is not safe for
// concurrent use; run independent simulations in parallel instead.
//
// It joins the simulator's parts, each of which reads only those before
// it: the engine (virtual clock and event queue), the world (nodes,
// running attempts, compression), the job book (jobs, tasks, readiness,
// charges) and the recorder (counters, samples, records). Sim carries
// out the events and the policy's decisions across them.
type Sim struct {
	cfg     Config
	name    string // the workload's
	hk      hooks
	eng     engine
	w       world
	b       book
	rec     recorder
	cluster Cluster // the view policies receive

	noise           *rand.Rand      // usage-sample noise
	useBuf, nodeBuf resource.Vector // a task's and a node's usage sample
	tickOn, usageOn bool            // a tick, a usage sample is scheduled
	external        int             // submissions, background steps and node events still due
	dormant         int             // live nodes without a scheduled periodic heartbeat
	lastChange      int64           // when a task last started or ended, or a decision or outside event changed something
	hbNode          *Node           // the heartbeating node, default of its decisions
	dst             []Decision
	started, done   bool
	err             error
}

// New builds a simulation of policy p on workload w. It validates the
// configuration and the workload (every vector in the Space, submissions
// in order, unique IDs, every task fitting at least one node) and returns
// a *ConfigError or *WorkloadError.
func New(cfg Config, w *workload.Workload, p Policy) (*Sim, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, cfgErr("policy", "nil")
	}
	if w == nil {
		return nil, &WorkloadError{Reason: "nil workload"}
	}
	s := &Sim{cfg: cfg, name: w.Name}
	var computingOnly bool
	s.hk, computingOnly = newHooks(p, &s.cfg, &s.eng)
	s.w.init(&s.cfg, &s.eng, rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed5eed5eed5eed)))
	if err := s.b.init(&s.cfg, &s.eng, &s.w, w, computingOnly); err != nil {
		return nil, err
	}
	s.rec = recorder{eng: &s.eng, w: &s.w, b: &s.b, calls: callTimer{sample: cfg.TimingSample}}
	s.cluster = Cluster{w: &s.w, b: &s.b}
	s.noise = rand.New(rand.NewPCG(cfg.Seed^0x6e6f697365, cfg.Seed+0x5a3c))
	s.useBuf, s.nodeBuf = cfg.Space.Zero(), cfg.Space.Zero()
	return s, nil
}

// Now returns the current virtual time.
func (s *Sim) Now() time.Time { return s.eng.Now() }

// Elapsed returns the virtual time since the start of the run.
func (s *Sim) Elapsed() time.Duration { return time.Duration(s.eng.now) }

// Cluster returns the cluster view policies receive.
func (s *Sim) Cluster() *Cluster { return &s.cluster }

// Stats returns the counters so far.
func (s *Sim) Stats() Stats { return s.rec.stats }

// Jobs returns the number of jobs in the workload.
func (s *Sim) Jobs() int { return len(s.b.jobs) }

// Ended returns the number of jobs that have ended so far.
func (s *Sim) Ended() int { return s.b.ended }

// Job returns the job at workload position i, or nil.
func (s *Sim) Job(i int) *Job {
	if i < 0 || i >= len(s.b.jobs) {
		return nil
	}
	return &s.b.jobs[i]
}

// KillReason returns the reason recorded when job i was killed, rejected
// or failed ("" otherwise).
func (s *Sim) KillReason(i int) string {
	if i < 0 || i >= len(s.b.jobs) {
		return ""
	}
	return s.b.jobs[i].reason
}

// Record returns the run's record (complete once the run ended).
func (s *Sim) Record() Run { return s.rec.record(s.hk.p.Name(), s.name) }

// Err returns the error that ended the run and, joined to it, a
// *DecisionError if the policy made invalid decisions; nil if neither.
func (s *Sim) Err() error {
	if s.rec.decErr.Count == 0 {
		return s.err
	}
	e := s.rec.decErr
	if s.err != nil {
		return errors.Join(s.err, &e)
	}
	return &e
}
