package sim

import (
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
	Events      int // events processed (stale progress events excluded)
	StaleEvents int // progress events superseded by a rate change
	Heartbeats  int // heartbeats delivered to the policy
	// QuietHeartbeats are heartbeats of full nodes not delivered to a
	// FullNodeSkipper (they count in Events, not in Heartbeats).
	QuietHeartbeats int
	Assigned        int // task attempts started
	Succeeded       int // task attempts that succeeded
	Failed          int // attempts failed by an incompressible over-commit
	Lost            int // attempts lost to a node going down
	Preempted       int // attempts stopped by Preempt decisions
	Retried         int // attempts started for a task that had run before
	KilledJobs      int // jobs ended by KillJob decisions
	RejectedJobs    int // jobs refused at submission
	FailedJobs      int // jobs ended because a task failed MaxAttempts times
	Invalid         int // decisions that could not be carried out
	PolicyCalls     int // Submit, Heartbeat and NodeChanged calls
	MaxHeap         int // largest event-heap size
	PlanOvercommit  int // plan steps applied although their incompressible allocation no longer fit
	Ticks           int // Ticker calls
	UsageSamples    int // usage sampling rounds delivered to a UsageWatcher
	TaskSamples     int // per-task usage samples delivered (UsageWatcher.TaskSampled calls)
}

// Delivered returns st as if every quiet heartbeat had been delivered:
// the counters a run with Config.DeliverFullHeartbeats has when the
// skipped calls were indeed no-ops (how tests of a FullNodeSkipper
// compare the two runs).
func (st Stats) Delivered() Stats {
	st.Heartbeats += st.QuietHeartbeats
	st.PolicyCalls += st.QuietHeartbeats
	st.QuietHeartbeats = 0
	return st
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
	tk     Ticker
	uw     UsageWatcher
	quiet  bool // skip heartbeats of full nodes (FullNodeSkipper)
	// fast: nodes keep incremental sums of their running attempts' terms
	// (sums.go): no offload kinds, and at most allocInline kinds.
	fast bool
	// computingOnly: the policy assigns only tasks of computing phases
	// (ComputingPhaseAssigner); readyBy counts only those.
	computingOnly bool
	rng           *rand.Rand
	noise         *rand.Rand // usage-sample noise, apart from rng
	name          string

	jobs    []Job
	tasks   []*Task // every task object, live or pooled; index = Task.gidx
	free    []*Task // pooled task objects (their tasks succeeded)
	slab    []Task  // fresh task objects not handed out yet
	liveBuf []*Task
	pages   [pageClasses][][]*Task // pooled pages of live tasks by size class (live.go)
	specBuf workload.TaskSpec      // checks tasks of a TaskBatch at New
	fitReq  resource.Vector        // the last request found to fit a node
	// shareShapes: every TaskBatch phase is shaped (jobPhase.shaped), so
	// no Shaper ever writes into a task's buffer, and a shaped task's
	// Requested and stage Demand can be the phase's (read-only, shared
	// by its tasks and kept in cache) instead of copies.
	shareShapes bool
	interned    []resource.Vector // shared request and demand vectors (intern)
	nodes       []Node
	hot         []nodeHot // by node index: what a quiet heartbeat reads
	live        []*Node
	capacity    resource.Vector
	active      []*Job // submission order; ended jobs linger until activeList compacts
	// holding has bit i set iff job i's allocation has a positive amount
	// of some kind (noteAlloc): the only jobs whose dominant share a
	// metrics sample adds up (jainSums).
	holding []uint64
	// wanting has bit i set iff job i has ready tasks (Job.ready > 0):
	// the jobs with unmet demand, whose shares a sample's Unmet sums add
	// up (unmetJainSums).
	wanting []uint64
	nActive int // active jobs
	holes   int // ended jobs still in active
	byID    map[schedkit.JobID]*Job
	cluster Cluster

	compressible []bool
	integral     []bool
	offloadKinds []int
	incompKinds  []int
	compKinds    []int

	heap     events
	now      int64
	nowT     time.Time // Epoch + now, once Now computed it (nowOK)
	nowOK    bool
	pool     []*attempt
	runNo    uint32
	startSeq uint64
	mark     uint32
	dst      []Decision
	dirty    []*Node
	taskBuf  []*Task
	sumVec   resource.Vector
	hbNode   *Node
	useBuf   resource.Vector // a task's usage sample
	nodeBuf  resource.Vector // a node's usage sample
	tickOn   bool            // a tick is scheduled
	usageOn  bool            // a usage sample is scheduled
	records  []metrics.TaskRecord
	recVecs  []float64 // arena the records' vectors are cut from

	ready   int // Σ Ready over active jobs
	readyIn [schedkit.MaxPhases]int
	// readyBy counts ready tasks by their phase's support (the kinds
	// they ask a positive amount of; 0: unknown or none; with
	// computingOnly, tasks of computing phases only), readyMasks
	// the supports with a count > 0: a node whose available kinds
	// include no ready task's support can take no ready task
	// (FullNodeSkipper).
	readyBy     [1 << maxSupportKinds]int
	readyMasks  uint64
	running     int
	progressing int // running attempts with a positive rate
	ended       int
	external    int // submissions, background steps and node events still due
	dormant     int // live nodes without a scheduled periodic heartbeat
	lastChange  int64

	stats    Stats
	decErr   DecisionError
	samples  []metrics.Sample
	decTime  time.Duration // timed policy calls (Config.TimingSample)
	decCalls int
	// timedCalls are the policy calls timed; usageTime the usage-sample
	// deliveries' time (always timed).
	timedCalls int
	usageTime  time.Duration
	started    bool
	done       bool
	err        error
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
	s.tk, _ = p.(Ticker)
	s.uw, _ = p.(UsageWatcher)
	if s.cfg.TickInterval == 0 {
		s.tk = nil
	}
	if fs, ok := p.(FullNodeSkipper); ok && !cfg.DeliverFullHeartbeats {
		s.quiet = fs.SkipFullNodes()
	}
	if ca, ok := p.(ComputingPhaseAssigner); ok {
		s.computingOnly = ca.AssignsComputingPhasesOnly()
	}
	s.noise = rand.New(rand.NewPCG(cfg.Seed^0x6e6f697365, cfg.Seed+0x5a3c))
	s.useBuf, s.nodeBuf = s.space.Zero(), s.space.Zero()
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
	s.fast = len(s.offloadKinds) == 0 && s.k <= allocInline
	s.buildNodes()
	if err := s.buildJobs(w); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sim) buildNodes() {
	cfg := &s.cfg
	s.nodes = make([]Node, len(cfg.Nodes))
	s.hot = make([]nodeHot, len(cfg.Nodes))
	vec := make([]float64, 10*s.k*len(cfg.Nodes)) // one arena for all node vectors
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
		n.fullAt = next()
		for k, c := range n.capacity {
			n.fullAt[k] = c + slack(c)
		}
		n.alloc, n.avail, n.used, n.bg, n.rc = next(), next(), next(), next(), next()
		n.incAlloc, n.incLoad = next(), next()
		copy(n.avail, n.capacity)
		n.speed = ns.Speed
		if n.speed == 0 {
			n.speed = 1
		}
		n.accels = ns.Accelerators
		n.up = !ns.Down
		s.hot[i] = nodeHot{free: freeMask(n.avail), up: n.up}
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
	s.holding = make([]uint64, (len(w.Jobs)+63)/64)
	s.wanting = make([]uint64, (len(w.Jobs)+63)/64)
	allocs := make([]float64, s.k*len(w.Jobs))
	started := make([]uint64, 0, nTasks/64+2*len(w.Jobs))
	var last time.Duration
	unshaped := false
	defer func() { s.shareShapes = !unshaped }()
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
			shaped := len(sp.Tasks) == 0 && sp.Batch != nil
			for x := range n {
				ts, err := sp.Task(x, &s.specBuf)
				if err != nil {
					return &WorkloadError{Job: js.ID, Where: fmt.Sprintf("phase %d task %d", p, x), Reason: err.Error()}
				}
				if err := s.checkTask(js, p, x, ts); err != nil {
					return err
				}
				if x == 0 {
					ph.req = s.intern(ts.Requested)
				} else if ph.req != nil && !sameVector(ph.req, ts.Requested) {
					ph.req = nil
				}
				if shaped {
					shaped = s.sameShape(ph, sp.Batch, x, ts)
				}
				if len(ts.Locations) > 0 {
					hasLoc = true
				}
				ph.dataSize += max(ts.DataSize, 0)
			}
			if hasLoc {
				ph.loc = buildLocality(sp.Tasks, ph.first)
			}
			if shaped && n > 0 && ph.req != nil {
				ph.shaped, ph.durs = true, sp.Batch.Durations
			} else {
				ph.demand, ph.logic = nil, ""
			}
			if ph.req != nil && s.k <= maxSupportKinds {
				for k, r := range ph.req {
					if r > supportMin {
						ph.support |= 1 << k
					}
				}
			}
			total += n
		}
		if total == 0 {
			return &WorkloadError{Job: js.ID, Reason: "no tasks"}
		}
		j.nTasks = total
		for p := range j.phases {
			if js.Phases[p].Batch != nil && len(js.Phases[p].Tasks) == 0 && !j.phases[p].shaped {
				unshaped = true
			}
		}
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
// New, so shaping it again cannot fail). A shaped phase (jobPhase.shaped)
// writes into buf what the Shaper would, from the phase's copy of it.
func (s *Sim) taskSpec(j *Job, p, i int, buf *workload.TaskSpec) *workload.TaskSpec {
	if ph := &j.phases[p]; ph.shaped {
		buf.Logic, buf.DataSize, buf.Locations = ph.logic, ph.shapeDat, nil
		if cap(buf.Profile) < 1 {
			buf.Profile = make([]workload.Stage, 1)
		}
		buf.Profile = buf.Profile[:1]
		buf.Profile[0].Duration = ph.durs[i]
		if s.shareShapes {
			buf.Requested, buf.Profile[0].Demand = ph.req, ph.demand
		} else {
			buf.Requested = append(buf.Requested[:0], ph.req...)
			buf.Profile[0].Demand = append(buf.Profile[0].Demand[:0], ph.demand...)
		}
		return buf
	}
	ts, err := j.spec.Phases[p].Task(i, buf)
	if err != nil {
		return buf
	}
	return ts
}

// sameShape reports whether task x of batch b, shaped as ts, is the
// phase's one-stage shape (set from task 0) with duration Durations[x]:
// same Logic, DataSize and Requested, no Locations, one stage whose
// Duration is the batch's and whose Demand is the phase's. Vectors are
// compared bit for bit, so a copy is the shaped task exactly.
func (s *Sim) sameShape(ph *jobPhase, b *workload.TaskBatch, x int, ts *workload.TaskSpec) bool {
	if len(ts.Locations) > 0 || len(ts.Profile) != 1 || ts.Profile[0].Duration != b.Durations[x] {
		return false
	}
	if x == 0 {
		ph.logic, ph.shapeDat = ts.Logic, ts.DataSize
		ph.demand = s.intern(ts.Profile[0].Demand)
		return sameBits(ph.req, ts.Requested)
	}
	return ts.Logic == ph.logic && ts.DataSize == ph.shapeDat &&
		sameBits(ph.req, ts.Requested) && sameBits(ph.demand, ts.Profile[0].Demand)
}

// intern returns a read-only copy of v, shared with earlier calls for
// the same vector (bit for bit): the phases of a trace day ask for a
// handful of vectors, and one shared copy stays in cache.
func (s *Sim) intern(v resource.Vector) resource.Vector {
	for _, u := range s.interned {
		if sameBits(u, v) {
			return u
		}
	}
	u := append(resource.Vector(nil), v...)
	if len(s.interned) < maxInterned {
		s.interned = append(s.interned, u)
	}
	return u
}

// maxInterned bounds Sim.interned (beyond it, a workload of
// all-different vectors keeps its own copies).
const maxInterned = 16

func sameBits(a, b resource.Vector) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// taskID builds "<job>/<phase>/<index>" in one stack buffer (a job ID
// of up to 40 bytes), so the string is the one allocation: a trace day
// asks the ID of every task it places.
func taskID(j *Job, p, i int) schedkit.TaskID {
	var buf [64]byte
	b := append(buf[:0], j.spec.ID...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(i), 10)
	return schedkit.TaskID(b)
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
		t.own.Profile = t.stage1[:0:1]
		t.gidx = int32(len(s.tasks))
		s.tasks = append(s.tasks, t)
	}
	ts := s.taskSpec(j, p, i, &t.own)
	t.job, t.spec, t.inPhase, t.phase = j, ts, int32(i), schedkit.Phase(p)
	t.id = "" // built by ID when asked
	t.state, t.attempts, t.fails = schedkit.TaskPending, 0, 0
	t.run, t.node = nil, nil
	t.locs = nil
	if len(ts.Locations) > 0 {
		t.locs = make([]schedkit.NodeID, len(ts.Locations))
		for li, ni := range ts.Locations {
			t.locs[li] = s.nodes[ni].id
		}
	}
	j.setLive(x, t)
	return t
}

// release returns a succeeded task's object to the pool. Its version
// counters carry on, so events and retry entries naming the old task stay
// stale.
func (s *Sim) release(t *Task) {
	t.job.dropLive(t.inJob())
	t.readyGen++
	t.job, t.spec, t.locs = nil, nil, nil
	s.free = append(s.free, t)
}

// peek returns the task at index x of j: its live object, or a view of it
// written into v.
func (j *Job) peek(x int32, v *Task) *Task {
	if t := j.liveAt(x); t != nil {
		return t
	}
	j.view(x, v)
	return v
}

// maxSupportKinds bounds the kinds tracked in readyBy (2^k counters).
const maxSupportKinds = 6

// supportMin is the request below which a kind does not count as asked
// for in a phase's support: a request-based policy comparing amounts
// with a float tolerance (the baselines use 1e-9) may fit such a sliver
// on a node with none of the kind, so the idle test must not rely on it.
const supportMin = 1e-9

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
