package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Stats are the simulator's counters for one run.
type Stats struct {
	Events         int // events processed (stale progress events excluded)
	StaleEvents    int // progress events superseded by a rate change
	Heartbeats     int // heartbeats delivered to the policy
	Assigned       int // task attempts started
	Succeeded      int // task attempts that succeeded
	Failed         int // attempts failed by an incompressible over-commit
	Lost           int // attempts lost to a node going down
	Preempted      int // attempts stopped by Preempt decisions
	Retried        int // attempts started for a task that had run before
	KilledJobs     int // jobs ended by KillJob decisions
	RejectedJobs   int // jobs refused at submission
	FailedJobs     int // jobs ended because a task failed MaxAttempts times
	Invalid        int // decisions that could not be carried out
	PolicyCalls    int // Submit, Heartbeat and NodeChanged calls
	MaxHeap        int // largest event-heap size
	PlanOvercommit int // plan steps that over-committed an incompressible kind
}

// Sim is one simulation of one policy on one workload. It is not safe for
// concurrent use; run independent simulations in parallel instead.
type Sim struct {
	cfg    Config
	space  *resource.Space
	k      int
	policy Policy
	tw     TaskWatcher
	jw     JobWatcher
	nw     NodeWatcher
	rng    *rand.Rand
	name   string

	jobs     []Job
	tasks    []*Task // every task object, live or pooled; index = Task.gidx
	free     []*Task // pooled task objects (their tasks succeeded)
	slab     []Task  // fresh task objects not handed out yet
	liveBuf  []*Task
	specBuf  workload.TaskSpec // checks tasks of a TaskBatch at New
	fitReq   resource.Vector   // the last request found to fit a node
	nodes    []Node
	live     []*Node
	capacity resource.Vector
	active   []*Job // submission order; ended jobs linger until activeList compacts
	nActive  int    // active jobs
	holes    int    // ended jobs still in active
	byID     map[schedkit.JobID]*Job
	cluster  Cluster

	compressible []bool
	integral     []bool
	offloadKinds []int
	incompKinds  []int
	compKinds    []int

	heap     eventHeap
	now      int64
	nowT     time.Time
	pool     []*attempt
	runNo    uint32
	startSeq uint64
	mark     uint32
	dst      []Decision
	dirty    []*Node
	taskBuf  []*Task
	sumVec   resource.Vector
	hbNode   *Node

	ready       int // Σ Ready over active jobs
	readyIn     [schedkit.MaxPhases]int
	running     int
	progressing int // running attempts with a positive rate
	ended       int
	external    int // submissions, background steps and node events still due
	dormant     int // live nodes without a scheduled periodic heartbeat
	lastChange  int64

	stats    Stats
	decErr   DecisionError
	samples  []metrics.Sample
	decTime  time.Duration
	decCalls int
	started  bool
	done     bool
	err      error
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
	s := &Sim{
		cfg:    cfg,
		space:  cfg.Space,
		k:      cfg.Space.Len(),
		policy: p,
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed5eed5eed5eed)),
		name:   w.Name,
		byID:   make(map[schedkit.JobID]*Job, len(w.Jobs)),
	}
	s.sumVec = s.space.Zero()
	s.cluster.s = s
	s.tw, _ = p.(TaskWatcher)
	s.jw, _ = p.(JobWatcher)
	s.nw, _ = p.(NodeWatcher)
	s.compressible = make([]bool, s.k)
	s.integral = make([]bool, s.k)
	for i := 0; i < s.k; i++ {
		kd := s.space.Kind(i)
		s.compressible[i] = kd.Compressible
		s.integral[i] = kd.Integral
		if kd.Compressible {
			s.compKinds = append(s.compKinds, i)
		} else {
			s.incompKinds = append(s.incompKinds, i)
		}
	}
	for _, name := range cfg.OffloadKinds {
		i, _ := s.space.Index(name)
		s.offloadKinds = append(s.offloadKinds, i)
	}
	s.buildNodes()
	if err := s.buildJobs(w); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sim) buildNodes() {
	cfg := &s.cfg
	s.nodes = make([]Node, len(cfg.Nodes))
	vec := make([]float64, 7*s.k*len(cfg.Nodes)) // one arena for all node vectors
	next := func() resource.Vector {
		v := resource.Vector(vec[:s.k:s.k])
		vec = vec[s.k:]
		return v
	}
	interval := int64(cfg.HeartbeatInterval)
	for i := range s.nodes {
		ns := &cfg.Nodes[i]
		n := &s.nodes[i]
		n.s, n.idx, n.id, n.rack = s, int32(i), ns.ID, ns.Rack
		n.capacity = next()
		copy(n.capacity, ns.Capacity)
		n.alloc, n.avail, n.used, n.bg, n.rc = next(), next(), next(), next(), next()
		copy(n.avail, n.capacity)
		n.speed = ns.Speed
		if n.speed == 0 {
			n.speed = 1
		}
		n.accels = ns.Accelerators
		n.up = !ns.Down
		n.offloaded = make([]bool, s.k)
		for _, k := range s.offloadKinds {
			if n.capacity[k] == 0 {
				n.offloaded[k] = true
				n.offload = true
			}
		}
	}
	// Even stagger: node i heartbeats at offset perm(i)·interval/N after
	// the cluster wakes, with the order permuted by the seeded rng.
	perm := s.rng.Perm(len(s.nodes))
	for i := range s.nodes {
		s.nodes[i].hbOffset = int64(perm[i]) * interval / int64(len(s.nodes))
	}
	s.capacity = s.space.Zero()
	s.rebuildLive()
}

func (s *Sim) rebuildLive() {
	s.live = s.live[:0]
	for i := range s.capacity {
		s.capacity[i] = 0
	}
	for i := range s.nodes {
		if n := &s.nodes[i]; n.up {
			s.live = append(s.live, n)
			_ = s.capacity.Add(n.capacity)
		}
	}
}

func (s *Sim) buildJobs(w *workload.Workload) error {
	nTasks := 0
	for i := range w.Jobs {
		for _, ph := range w.Jobs[i].Phases {
			nTasks += ph.Len()
		}
	}
	if nTasks > math.MaxInt32 || len(w.Jobs) > math.MaxInt32 {
		return &WorkloadError{Reason: "too many jobs or tasks"}
	}
	s.jobs = make([]Job, len(w.Jobs))
	allocs := make([]float64, s.k*len(w.Jobs))
	started := make([]uint64, 0, nTasks/64+2*len(w.Jobs))
	var last time.Duration
	for i := range w.Jobs {
		js := &w.Jobs[i]
		if js.ID == "" {
			return &WorkloadError{Where: fmt.Sprintf("job %d", i), Reason: "empty ID"}
		}
		if _, dup := s.byID[schedkit.JobID(js.ID)]; dup {
			return &WorkloadError{Job: js.ID, Reason: "duplicate ID"}
		}
		if js.Submit < last {
			return &WorkloadError{Job: js.ID, Reason: fmt.Sprintf("submitted at %v, before the previous job (%v)", js.Submit, last)}
		}
		last = js.Submit
		if js.Deadline < 0 {
			return &WorkloadError{Job: js.ID, Reason: fmt.Sprintf("negative deadline %v", js.Deadline)}
		}
		if len(js.Phases) == 0 || len(js.Phases) > schedkit.MaxPhases {
			return &WorkloadError{Job: js.ID, Reason: fmt.Sprintf("%d phases, want 1..%d", len(js.Phases), schedkit.MaxPhases)}
		}
		j := &s.jobs[i]
		j.s, j.spec, j.idx, j.id = s, js, int32(i), schedkit.JobID(js.ID)
		j.submitOff = int64(js.Submit)
		j.submitted = Epoch.Add(js.Submit)
		if js.Deadline > 0 {
			j.deadline = j.submitted.Add(js.Deadline)
		}
		j.alloc = resource.Vector(allocs[i*s.k : (i+1)*s.k : (i+1)*s.k])
		j.phases = make([]jobPhase, len(js.Phases))
		total := 0
		for p := range js.Phases {
			ph := &j.phases[p]
			ph.first = total
			ph.next = ph.first
			sp := &js.Phases[p]
			n := sp.Len()
			ph.prog.Total = n
			hasLoc := false
			for x := range n {
				ts, err := sp.Task(x, &s.specBuf)
				if err != nil {
					return &WorkloadError{Job: js.ID, Where: fmt.Sprintf("phase %d task %d", p, x), Reason: err.Error()}
				}
				if err := s.checkTask(js, p, x, ts); err != nil {
					return err
				}
				if x == 0 {
					ph.req = append(resource.Vector(nil), ts.Requested...)
				} else if ph.req != nil && !sameVector(ph.req, ts.Requested) {
					ph.req = nil
				}
				if len(ts.Locations) > 0 {
					hasLoc = true
				}
			}
			if hasLoc {
				ph.loc = buildLocality(sp.Tasks, ph.first)
			}
			total += n
		}
		if total == 0 {
			return &WorkloadError{Job: js.ID, Reason: "no tasks"}
		}
		j.nTasks = total
		words := (total + 63) / 64
		started = append(started, make([]uint64, words)...)
		j.begun = started[len(started)-words : len(started) : len(started)]
		s.byID[j.id] = j
	}
	return nil
}

func (s *Sim) checkTask(js *workload.JobSpec, p, x int, ts *workload.TaskSpec) error {
	where := func(f string) string { return fmt.Sprintf("phase %d task %d: %s", p, x, f) }
	if err := s.space.Validate(ts.Requested); err != nil {
		return &WorkloadError{Job: js.ID, Where: where("Requested"), Reason: err.Error()}
	}
	for i, st := range ts.Profile {
		if st.Duration < 0 {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Profile[%d]", i)), Reason: fmt.Sprintf("negative duration %v", st.Duration)}
		}
		if len(st.Demand) != s.k {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Profile[%d].Demand", i)), Reason: fmt.Sprintf("%d elements, want %d", len(st.Demand), s.k)}
		}
		if err := st.Demand.Validate(); err != nil {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Profile[%d].Demand", i)), Reason: err.Error()}
		}
	}
	for i, ni := range ts.Locations {
		if ni < 0 || ni >= len(s.nodes) {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Locations[%d]", i)), Reason: fmt.Sprintf("node %d out of range", ni)}
		}
	}
	// The request must fit some node in its incompressible kinds, or no
	// request-based policy could ever place the task.
	if s.fitReq != nil && sameVector(s.fitReq, ts.Requested) {
		return nil // the tasks of a phase mostly ask alike
	}
	fits := false
	for n := range s.nodes {
		ok := true
		for _, k := range s.incompKinds {
			if ts.Requested[k] > s.nodes[n].capacity[k] {
				ok = false
				break
			}
		}
		if ok {
			fits = true
			break
		}
	}
	if !fits {
		return &WorkloadError{Job: js.ID, Where: where("Requested"), Reason: fmt.Sprintf("%v fits no node", ts.Requested)}
	}
	s.fitReq = append(s.fitReq[:0], ts.Requested...)
	return nil
}

func buildLocality(tasks []workload.TaskSpec, first int) *locality {
	count := map[int32]int32{}
	for _, t := range tasks {
		for _, n := range t.Locations {
			count[int32(n)]++
		}
	}
	l := &locality{}
	for n := range count {
		l.nodes = append(l.nodes, n)
	}
	sortInt32(l.nodes)
	l.off = make([]int32, len(l.nodes)+1)
	pos := make(map[int32]int, len(l.nodes))
	for i, n := range l.nodes {
		l.off[i+1] = l.off[i] + count[n]
		pos[n] = i
	}
	l.tasks = make([]int32, l.off[len(l.nodes)])
	l.cur = make([]int32, len(l.nodes))
	copy(l.cur, l.off[:len(l.nodes)])
	fill := append([]int32(nil), l.cur...)
	for x, t := range tasks {
		for _, n := range t.Locations {
			i := pos[int32(n)]
			l.tasks[fill[i]] = int32(first + x)
			fill[i]++
		}
	}
	return l
}

// taskSpec returns the workload's description of task i of phase p of j:
// its TaskSpec, or, for a TaskBatch, the task shaped into buf (checked at
// New, so shaping it again cannot fail).
func (s *Sim) taskSpec(j *Job, p, i int, buf *workload.TaskSpec) *workload.TaskSpec {
	ts, err := j.spec.Phases[p].Task(i, buf)
	if err != nil {
		return buf
	}
	return ts
}

func taskID(j *Job, p, i int) schedkit.TaskID {
	return schedkit.TaskID(j.spec.ID + "/" + strconv.Itoa(p) + "/" + strconv.Itoa(i))
}

// materialize makes the live object of the never-started task at index x
// of j, from the pool when it can.
func (s *Sim) materialize(j *Job, x int32) *Task {
	p := j.phaseOf(x)
	i := int(x) - j.phases[p].first
	var t *Task
	if n := len(s.free); n > 0 {
		t = s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
	} else {
		if len(s.slab) == 0 {
			s.slab = make([]Task, 64) // objects in blocks: fewer, larger allocations
		}
		t = &s.slab[0]
		s.slab = s.slab[1:]
		t.gidx = int32(len(s.tasks))
		s.tasks = append(s.tasks, t)
	}
	ts := s.taskSpec(j, p, i, &t.own)
	t.job, t.spec, t.inPhase, t.phase = j, ts, int32(i), schedkit.Phase(p)
	t.id = taskID(j, p, i)
	t.state, t.attempts, t.fails = schedkit.TaskPending, 0, 0
	t.run, t.node = nil, nil
	t.observed = t.observed[:0]
	t.locs = nil
	if len(ts.Locations) > 0 {
		t.locs = make([]schedkit.NodeID, len(ts.Locations))
		for li, ni := range ts.Locations {
			t.locs[li] = s.nodes[ni].id
		}
	}
	if j.live == nil {
		j.live = make(map[int32]*Task)
	}
	j.live[x] = t
	return t
}

// release returns a succeeded task's object to the pool (kept when
// Config.RecordObserved asks for its observations). Its version counters
// carry on, so events and retry entries naming the old task stay stale.
func (s *Sim) release(t *Task) {
	if s.cfg.RecordObserved {
		return
	}
	delete(t.job.live, t.inJob())
	t.readyGen++
	t.job, t.spec, t.locs = nil, nil, nil
	s.free = append(s.free, t)
}

// peek returns the task at index x of j: its live object, or a view of it
// written into v.
func (j *Job) peek(x int32, v *Task) *Task {
	if t := j.live[x]; t != nil {
		return t
	}
	j.view(x, v)
	return v
}

func sameVector(a, b resource.Vector) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// Now returns the current virtual time.
func (s *Sim) Now() time.Time { return s.nowT }

// Elapsed returns the virtual time since the start of the run.
func (s *Sim) Elapsed() time.Duration { return time.Duration(s.now) }

// Cluster returns the cluster view policies receive.
func (s *Sim) Cluster() *Cluster { return &s.cluster }

// Stats returns the counters so far.
func (s *Sim) Stats() Stats { return s.stats }

// Jobs returns the number of jobs in the workload.
func (s *Sim) Jobs() int { return len(s.jobs) }

// Ended returns the number of jobs that have ended so far.
func (s *Sim) Ended() int { return s.ended }

// Job returns the job at workload position i, or nil.
func (s *Sim) Job(i int) *Job {
	if i < 0 || i >= len(s.jobs) {
		return nil
	}
	return &s.jobs[i]
}

func (s *Sim) setNow(t int64) {
	s.now = t
	s.nowT = Epoch.Add(time.Duration(t))
}

// start schedules the initial events and tells a NodeWatcher about the
// nodes.
func (s *Sim) start() error {
	s.started = true
	s.setNow(0)
	s.heap.ev = make([]event, 0, 64+len(s.jobs)+len(s.cfg.Background)+len(s.cfg.NodeEvents)+2*len(s.nodes))
	for i := range s.jobs {
		s.heap.push(s.jobs[i].submitOff, evSubmit, int32(i), 0)
	}
	for i, b := range s.cfg.Background {
		s.heap.push(int64(b.At), evBackground, int32(i), 0)
	}
	for i, e := range s.cfg.NodeEvents {
		s.heap.push(int64(e.At), evNode, int32(i), 0)
	}
	s.external = len(s.jobs) + len(s.cfg.Background) + len(s.cfg.NodeEvents)
	s.heap.push(0, evSample, 0, 0)
	for i := range s.nodes {
		if s.nodes[i].up {
			s.dormant++
		}
	}
	if s.nw != nil {
		for i := range s.nodes {
			if n := &s.nodes[i]; n.up {
				if err := s.callNodeChanged(n, true); err != nil {
					return err
				}
			}
		}
	}
	s.settle()
	if len(s.jobs) == 0 {
		s.done = true
	}
	return nil
}

// Run runs the simulation to the end and returns its record. The error is
// non-nil if the policy returned an error, the run stalled, an AfterEvent
// hook failed, or the policy made invalid decisions (a *DecisionError);
// the record is filled in any case.
func (s *Sim) Run() (metrics.Run, error) {
	if s.done && s.started {
		return metrics.Run{}, ErrDone
	}
	for {
		more, err := s.Step()
		if err != nil || !more {
			break
		}
	}
	return s.Record(), s.Err()
}

// Err returns the error that ended the run and, joined to it, a
// *DecisionError if the policy made invalid decisions; nil if neither.
func (s *Sim) Err() error {
	if s.decErr.Count == 0 {
		return s.err
	}
	e := s.decErr
	if s.err != nil {
		return errors.Join(s.err, &e)
	}
	return &e
}

// Step processes one event and reports whether the run continues.
func (s *Sim) Step() (bool, error) {
	if !s.started {
		if err := s.start(); err != nil {
			s.fail(err)
			return false, err
		}
	}
	if s.done {
		return false, s.err
	}
	for {
		if s.heap.len() == 0 {
			s.finish()
			if s.ended < len(s.jobs) && s.err == nil {
				s.err = fmt.Errorf("%w: no events left with %d jobs not ended", ErrStalled, len(s.jobs)-s.ended)
			}
			return false, s.err
		}
		if h := s.cfg.Horizon; h > 0 && s.heap.peek().at > int64(h) {
			s.setNow(int64(h))
			s.finish()
			return false, nil
		}
		e := s.heap.pop()
		if e.kind == evStage && !s.stageCurrent(&e) {
			s.stats.StaleEvents++
			continue
		}
		if len(s.heap.ev) >= s.stats.MaxHeap {
			s.stats.MaxHeap = len(s.heap.ev) + 1
		}
		s.setNow(e.at)
		s.stats.Events++
		if err := s.dispatch(&e); err != nil {
			s.fail(err)
			return false, err
		}
		s.settle()
		if s.cfg.AfterEvent != nil {
			if err := s.cfg.AfterEvent(s); err != nil {
				s.fail(err)
				return false, err
			}
		}
		if s.ended == len(s.jobs) {
			s.finish()
			return false, nil
		}
		if s.nActive > 0 && s.progressing == 0 && s.external == 0 &&
			s.now-s.lastChange >= int64(s.cfg.StallAfter) {
			s.finish()
			s.err = fmt.Errorf("%w: %d jobs waiting, nothing progressing since %v", ErrStalled, s.nActive, time.Duration(s.lastChange))
			return false, s.err
		}
		return true, nil
	}
}

func (s *Sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.finish()
}

func (s *Sim) dispatch(e *event) error {
	switch e.kind {
	case evSubmit:
		s.external--
		return s.submit(&s.jobs[e.a])
	case evHeartbeat:
		return s.heartbeat(&s.nodes[e.a], e.ver != 0)
	case evStage:
		s.stageEnd(s.tasks[e.a])
	case evPlan:
		s.planStep(s.tasks[e.a], e.ver)
	case evSample:
		s.sample()
		if s.ended < len(s.jobs) {
			s.heap.push(s.now+int64(s.cfg.SampleInterval), evSample, 0, 0)
		}
	case evBackground:
		s.external--
		b := &s.cfg.Background[e.a]
		n := &s.nodes[b.Node]
		copy(n.bg, b.Demand)
		s.markDirty(n)
		s.lastChange = s.now
	case evNode:
		s.external--
		return s.nodeEvent(&s.cfg.NodeEvents[e.a])
	}
	return nil
}

func (s *Sim) submit(j *Job) error {
	j.state = jobActive
	s.addActive(j)
	j.costAt = s.now
	s.lastChange = s.now
	s.wakeHeartbeats()
	t0 := time.Now()
	err := s.policy.Submit(s.nowT, j)
	s.decTime += time.Since(t0)
	s.decCalls++
	s.stats.PolicyCalls++
	if err != nil {
		s.stats.RejectedJobs++
		s.checkKill(j)
		s.killJob(j, metrics.Rejected, err.Error())
		return nil
	}
	s.unlock(j, 0)
	s.advancePhases(j)
	return nil
}

func (s *Sim) addActive(j *Job) {
	j.activeIdx = len(s.active)
	s.active = append(s.active, j)
	s.nActive++
}

// dropActive takes an ending job off the active list in O(1): it stays
// in the slice, marked, until activeList next compacts it, so ending one
// of many queued jobs does not shift them all.
func (s *Sim) dropActive(*Job) {
	s.nActive--
	s.holes++
}

// activeList returns the active jobs in submission order, compacting the
// list first if jobs ended since the last call.
func (s *Sim) activeList() []*Job {
	if s.holes == 0 {
		return s.active
	}
	k := 0
	for _, j := range s.active {
		if j.state == jobActive {
			j.activeIdx = k
			s.active[k] = j
			k++
		}
	}
	clear(s.active[k:])
	s.active = s.active[:k]
	s.holes = 0
	return s.active
}

// wakeHeartbeats schedules the periodic heartbeats of nodes that went
// quiet while no job was active.
func (s *Sim) wakeHeartbeats() {
	if s.dormant == 0 {
		return
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.up && !n.hbOn {
			n.hbOn = true
			s.heap.push(s.now+n.hbOffset, evHeartbeat, n.idx, 0)
		}
	}
	s.dormant = 0
}

func (s *Sim) heartbeat(n *Node, oob bool) error {
	if oob {
		n.oob = false
	} else {
		if !n.up || s.nActive == 0 {
			n.hbOn = false
			if n.up {
				s.dormant++
			}
			return nil
		}
		s.heap.push(s.now+int64(s.cfg.HeartbeatInterval), evHeartbeat, n.idx, 0)
	}
	if !n.up || s.nActive == 0 {
		return nil
	}
	s.stats.Heartbeats++
	t0 := time.Now()
	dst, err := s.policy.Heartbeat(s.nowT, n, &s.cluster, s.dst[:0])
	s.decTime += time.Since(t0)
	s.decCalls++
	s.stats.PolicyCalls++
	if err != nil {
		return fmt.Errorf("%w: %s: heartbeat of %s at %v: %w", ErrPolicy, s.policy.Name(), n.id, time.Duration(s.now), err)
	}
	s.applyAll(dst, n)
	return nil
}

func (s *Sim) callNodeChanged(n *Node, up bool) error {
	t0 := time.Now()
	dst, err := s.nw.NodeChanged(s.nowT, n, up, &s.cluster, s.dst[:0])
	s.decTime += time.Since(t0)
	s.decCalls++
	s.stats.PolicyCalls++
	if err != nil {
		return fmt.Errorf("%w: %s: node %s changed at %v: %w", ErrPolicy, s.policy.Name(), n.id, time.Duration(s.now), err)
	}
	s.applyAll(dst, n)
	return nil
}

func (s *Sim) applyAll(dst []Decision, n *Node) {
	s.hbNode = n
	for i := range dst {
		s.apply(&dst[i])
		dst[i] = Decision{} // drop references held by the reused buffer
	}
	s.dst = dst[:0]
	s.hbNode = nil
}

// outOfBand schedules an immediate heartbeat of n (a task ended there).
func (s *Sim) outOfBand(n *Node) {
	if n.oob || !n.up {
		return
	}
	n.oob = true
	s.heap.push(s.now, evHeartbeat, n.idx, 1)
}

func (s *Sim) nodeEvent(e *NodeEvent) error {
	n := &s.nodes[e.Node]
	if n.up == e.Up {
		return nil
	}
	s.lastChange = s.now
	if !e.Up {
		for len(n.running) > 0 {
			t := n.running[len(n.running)-1]
			s.stats.Lost++
			s.requeue(t, schedkit.TaskFailed)
		}
		// Tasks pinned to n (Decision.Target) lose their remote work.
		for i := len(n.guests) - 1; i >= 0; i-- {
			if i < len(n.guests) && n.guests[i].run.pin == n {
				s.stats.Lost++
				s.requeue(n.guests[i], schedkit.TaskFailed)
			}
		}
		for i := range s.nodes {
			if m := &s.nodes[i]; m.bound == n {
				s.bind(m, nil)
			}
		}
		n.up = false
		if !n.hbOn {
			s.dormant--
		}
	} else {
		n.up = true
		if s.nActive > 0 {
			n.hbOn = true
			s.heap.push(s.now+n.hbOffset, evHeartbeat, n.idx, 0)
		} else if !n.hbOn {
			s.dormant++
		}
	}
	s.rebuildLive()
	s.markDirty(n)
	if s.nw != nil {
		s.settle()
		return s.callNodeChanged(n, e.Up)
	}
	return nil
}

// finish ends the run: jobs not ended are Unfinished.
func (s *Sim) finish() {
	if s.done {
		return
	}
	s.done = true
	for i := range s.jobs {
		j := &s.jobs[i]
		if j.state != jobEnded {
			s.accrue(j)
			j.outcome = metrics.Unfinished
			if j.state == jobActive {
				j.endAt = s.now
			} else {
				j.endAt = j.submitOff
			}
		}
	}
}

// Record returns the run's metrics record (complete once the run ended).
func (s *Sim) Record() metrics.Run {
	r := metrics.Run{
		Policy:       s.policy.Name(),
		Workload:     s.name,
		Jobs:         make([]metrics.JobRecord, len(s.jobs)),
		Kinds:        make([]string, s.k),
		Samples:      s.samples,
		FailedTasks:  s.stats.Failed,
		RetriedTasks: s.stats.Retried,
		DecisionTime: s.decTime,
		Decisions:    s.decCalls,
		Events:       s.stats.Events,
		End:          time.Duration(s.now),
	}
	for i := range r.Kinds {
		r.Kinds[i] = s.space.Kind(i).Name
	}
	for i := range s.jobs {
		j := &s.jobs[i]
		rec := &r.Jobs[i]
		rec.ID, rec.Class = string(j.id), j.spec.Class
		rec.Submit, rec.Deadline = time.Duration(j.submitOff), j.spec.Deadline
		rec.Budget, rec.Phi = j.spec.Budget, j.spec.Phi
		rec.Outcome = j.outcome
		rec.Finish = time.Duration(j.endAt)
		rec.Start = rec.Finish
		if j.started {
			rec.Start = time.Duration(j.startAt)
		}
		rec.Cost = j.cost
		rec.CouldHaveMade, rec.CheckedKill = j.could, j.checked
		if j.state != jobEnded && j.state != jobActive {
			rec.Finish, rec.Start = rec.Submit, rec.Submit
		}
	}
	return r
}

// KillReason returns the reason recorded when job i was killed, rejected
// or failed ("" otherwise).
func (s *Sim) KillReason(i int) string {
	if i < 0 || i >= len(s.jobs) {
		return ""
	}
	return s.jobs[i].reason
}
