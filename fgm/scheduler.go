package fgm

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/clock"
	"github.com/schedkit/schedkit/internal/membership"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// Scheduler is paper 004's fine-grained scheduler: pending tasks, each
// server's free-resource timeline and scheduling policy, and the
// decisions of Algorithms 1–3. See the package documentation for what the
// host must do.
//
// A Scheduler is not safe for concurrent use: call it from the host's
// scheduling loop.
type Scheduler struct {
	cfg     Config
	space   *resource.Space
	kinds               // the Space's kinds as the steps read them
	matcher *Matcher    // Algorithm 2
	est     estimation  // where predictions come from
	drf     bool        // Fairness is DRF: compareJobs inlines it
	clock   clock.Clock // the time rule every schedkit scheduler follows (internal/clock)
	cluster             // the servers (server.go)
	queue               // the pending tasks and their jobs
	walk    walk        // Algorithm 1's walk and its accelerations (walk.go)
	undo    undoLog     // a Schedule call's undo log (allocate.go)
	scr     scratch     // the scratch of Schedule's tests (algorithm1.go)
	smp     samples     // the usage-sample path (formula14_samples.go)
}

// kinds is what the steps read of the Space's kinds.
type kinds struct {
	dims    int
	comp    []bool // compressible, by kind
	hasComp bool   // some kind is compressible
	// integral lists the integral kinds (slots, devices): a task is given
	// its requested quantity of them whatever the estimate says, since a
	// fraction of a slot can be neither allocated nor saved.
	integral   []int
	isIntegral []bool
}

// estimation is where predictions come from, as far as the walk's
// accelerations rely on it.
type estimation struct {
	// hist is the History predictions come from (a HistoryEstimator),
	// else nil.
	hist *estimate.History
	// alike says that tasks alike (one similarity key, one request) are
	// predicted alike, so decided alike on an unchanged server: the
	// predictions come from a History (a function of the key) or there
	// are none. It is the condition of every memory of refusals and of
	// predicting a run's tasks without materialising them (taskAt).
	alike bool
	// valid says that every prediction is valid (ErrInvalidEstimate
	// never comes): none, or a History whose profiles have at most
	// MaxStages stages. A walk that passes tasks by then skips no error.
	valid bool
}

// queue is the tasks the scheduler holds, pending or running, and their
// jobs.
type queue struct {
	tasks    map[schedkit.TaskID]*ptask
	jobs     map[schedkit.JobID]*jobEntry
	active   []*jobEntry // jobs with pending tasks
	seq      uint64      // submission and start sequence
	runSeq   uint64      // last run label given (jobEntry.runs)
	keys     keyTable    // similarity keys numbered at Submit
	locTasks int         // pending tasks with data locations
	spare    []*runState // released tasks' placed state, for reuse
	// needs counts the pending queue entries by the integral kinds they
	// request (bit i: s.integral[i], see needMask).
	needs [1 << maxNeedKinds]int32
	slots slotPool // jobEntry.slot
}

// keyTable numbers similarity keys (see id).
type keyTable struct {
	ids  map[schedkit.SimilarityKey]uint64
	next uint64
}

// slotPool hands out small job numbers, reused once a job is dropped.
type slotPool struct {
	free []int
	n    int
}

func (p *slotPool) get() int {
	if k := len(p.free); k > 0 {
		i := p.free[k-1]
		p.free = p.free[:k-1]
		return i
	}
	p.n++
	return p.n - 1
}

func (p *slotPool) put(i int) { p.free = append(p.free, i) }

// maxNeedKinds bounds the integral kinds Scheduler.needs tracks.
const maxNeedKinds = 6

// ptask is a task the scheduler holds, pending or running.
type ptask struct {
	t         schedkit.Task
	id        schedkit.TaskID
	job       *jobEntry
	key       schedkit.SimilarityKey
	keyID     uint64 // key's number (keyTable)
	requested resource.Vector
	deadline  time.Duration
	hasDL     bool
	locs      []schedkit.NodeID
	seq       uint64
	waitSince time.Duration
	waiting   bool

	running bool
	srv     *server
	// src is set for a run entry (SubmitRun): the entry stands for the
	// run's pending tasks src.left, whose first has sequence seq; t and
	// id are unset.
	src *runSrc
	// The state of a placed task, allocated at its first placement (a
	// pending task is only the fields above: a trace day holds millions).
	*runState
}

// runState is the part of a ptask that exists once it was placed.
//
// Its first 64 bytes are all SampleTask reads and writes of it when the
// sampling cursor finds it (see sampled): a sample touches them and the
// record it appends, not the ptask.
type runState struct {
	// smp holds the buffered usage samples, one record of smpRec floats
	// each (see addSample), in a block of MaxSamples records allocated
	// at the first sample and kept with the runState.
	smp []float64
	// smpID is the task's ID while it runs and has been sampled through
	// the map (set by sampled, cleared by release and startSamples): a
	// runState whose smpID is set belongs to a running task that
	// Scheduler.tasks holds under it. smpSrv is then its server.
	smpID  schedkit.TaskID
	smpSrv *server
	// smpNext is the runState sampled right after this one the last time
	// this one was sampled (the cursor's guess for the next call).
	smpNext *runState
	lastSmp time.Duration

	start   time.Duration
	startSq uint64
	mode    Mode
	open    bool            // reserved over [now, now+Horizon) until released
	work    []time.Duration // per stage, uncompressed
	rc      []float64       // per stage, the (15) rate: max over kinds
	vals    []float64       // stage demands, stages × dims
	plan    []PlanStep      // the decision's plan (views into vals, planRC)
	planRC  []float64       // stages × dims
	abuf    []float64       // plan allocations, stages × dims
	peak    resource.Vector // element-wise max reserved over stages
	charge  resource.Vector // element-wise max allocated over steps (charged to the job)
	dueAt   time.Duration   // start + Σ work: later than this it is overdue
	predEnd time.Duration   // start + formula (15) at allocation
}

// jobEntry is a job with pending or running tasks.
type jobEntry struct {
	state     JobState
	sub       time.Duration
	pending   []*ptask // by submission sequence
	runs      []uint64 // run label of each pending task (see enqueue)
	activePos int      // in Scheduler.active, −1 if none pending
	tried     uint64   // the walk's call that is done with it (walk.call)
	slot      int      // its row in the stages' tables (slotTable)
	// needs counts the job's queue entries by the integral kinds they
	// request (as Scheduler.needs).
	needs [1 << maxNeedKinds]int32
}

// count counts queue entry p of job j in (d = 1) or out (d = −1) of the
// pending entries: their counts by the integral kinds requested, and
// the stages'.
func (s *Scheduler) count(j *jobEntry, p *ptask, d int) {
	m := s.needMask(p)
	s.needs[m] += int32(d)
	j.needs[m] += int32(d)
	s.walk.counted(j, p, d)
	s.moveJob(j)
}

// needMask returns the integral kinds pending entry p requests (bit i
// for s.integral[i]), the index of its count in s.needs.
func (s *Scheduler) needMask(p *ptask) int {
	m := 0
	for i, k := range s.integral {
		if i < maxNeedKinds && p.requested[k] > 0 {
			m |= 1 << i
		}
	}
	return m
}

// New returns a Scheduler for cfg, or an error wrapping ErrConfig.
func New(cfg Config) (*Scheduler, error) {
	space, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if cfg.History != nil && cfg.History.Config().Space.Len() != space.Len() {
		return nil, &Error{Op: "New", Err: ErrConfig, Reason: "History's Space does not match the cluster's"}
	}
	m, err := NewMatcher(space, cfg.Penalty, cfg.CompressionLimit)
	if err != nil {
		return nil, err
	}
	dims := space.Len()
	s := &Scheduler{
		cfg:     cfg,
		space:   space,
		kinds:   kinds{dims: dims, comp: make([]bool, dims), isIntegral: make([]bool, dims)},
		matcher: m,
		cluster: cluster{nodes: make(map[schedkit.NodeID]*server), capacity: space.Zero()},
		queue:   queue{tasks: make(map[schedkit.TaskID]*ptask), jobs: make(map[schedkit.JobID]*jobEntry)},
		scr:     scratch{tmp: space.Zero(), tmp2: space.Zero(), peakBuf: space.Zero()},
	}
	for k := range dims {
		s.comp[k] = space.Compressible(k)
		s.hasComp = s.hasComp || s.comp[k]
		if space.Kind(k).Integral {
			s.integral = append(s.integral, k)
			s.isIntegral[k] = true
		}
	}
	if h, ok := cfg.Estimator.(HistoryEstimator); ok {
		s.est.hist = h.History
	}
	s.est.alike = s.est.hist != nil || cfg.Estimator == nil
	s.est.valid = cfg.Estimator == nil || s.est.hist != nil && s.est.hist.Config().MaxStages <= cfg.MaxStages
	_, s.drf = cfg.Fairness.(DRF)
	s.walk.init(s, newStages(s))
	c := cfg.Cluster
	for i := range c.Nodes() {
		if err := s.AddNode(c.Node(i)); err != nil {
			e := &Error{Op: "New", Err: ErrConfig, Reason: "cluster node", Cause: err}
			var fe *Error
			if errors.As(err, &fe) {
				e.Node = fe.Node
			}
			return nil, e
		}
	}
	return s, nil
}

// version is the version of the History predictions come from (0
// without one).
func (e *estimation) version() uint64 {
	if e.hist != nil {
		return e.hist.Version()
	}
	return 0
}

// Config returns the configuration with defaults filled in.
func (s *Scheduler) Config() Config { return s.cfg }

// check reads now for a state-changing call: its offset from the epoch,
// or an ErrStaleTime or ErrTimeRange error. It changes nothing; the call
// commits the reading (s.clock.Commit) once it has succeeded.
func (s *Scheduler) check(op string, now time.Time) (clock.Reading, time.Duration, error) {
	r, f := s.clock.Check(now)
	if f != clock.OK {
		return r, 0, s.timeErr(op, f, now)
	}
	return r, time.Duration(r.Now), nil
}

// peek reads now for a read-only call: range only; the clock does not
// move.
func (s *Scheduler) peek(op string, now time.Time) (time.Duration, error) {
	r, f := s.clock.Peek(now)
	if f != clock.OK {
		return 0, s.timeErr(op, f, now)
	}
	return time.Duration(r.Now), nil
}

func (s *Scheduler) timeErr(op string, f clock.Fault, now time.Time) error {
	sentinel := ErrStaleTime
	if f == clock.Range {
		sentinel = ErrTimeRange
	}
	return &Error{Op: op, Err: sentinel, Reason: s.clock.Reason(f, now)}
}

// AddNode registers a server: its capacity becomes a free-resource
// timeline, fine-grained with compression. The capacity it reads now is
// the server's for as long as it is registered: Schedule refuses a node
// value whose capacity differs (ErrInvalidNode), so a host whose server
// changed size removes it and adds it again. It fails with
// ErrInvalidNode for a nil node, an empty ID or a capacity that does not
// fit the Space, and with ErrDuplicateNode for an ID already registered.
func (s *Scheduler) AddNode(n schedkit.Node) error {
	const op = "AddNode"
	if nilvalue.Is(n) {
		return &Error{Op: op, Err: ErrInvalidNode, Reason: nilvalue.Text("node", n)}
	}
	id := n.ID()
	if id == "" {
		return &Error{Op: op, Err: ErrInvalidNode, Reason: "empty node ID"}
	}
	if _, dup := s.nodes[id]; dup {
		return &Error{Op: op, Node: id, Err: ErrDuplicateNode, Reason: "already registered"}
	}
	capacity := n.Capacity()
	if err := s.space.Validate(capacity); err != nil {
		return &Error{Op: op, Node: id, Err: ErrInvalidNode, Reason: "capacity: " + err.Error()}
	}
	srv, err := newServer(s, id, capacity)
	if err != nil {
		return &Error{Op: op, Node: id, Err: ErrInvalidNode, Reason: err.Error()}
	}
	srv.pos = len(s.servers)
	srv.usage, _ = n.(UsageNode)
	s.nodes[id] = srv
	s.servers = append(s.servers, srv)
	_ = s.capacity.Add(srv.capacity)
	s.maxCap = resize(s.maxCap, s.dims)
	_ = s.maxCap.Max(srv.capacity)
	s.reshare()
	return nil
}

// sameServer refuses (ErrInvalidNode) a node value given to Schedule
// whose capacity is not the one v was registered with: the rule of every
// schedkit scheduler for a node value that disagrees with the node its
// cluster holds under that ID (a stale value, taken before a resize).
func (s *Scheduler) sameServer(op string, node schedkit.Node, v *server) error {
	if why := membership.CapacityDiffers(s.space, node.Capacity(), v.capacity); why != "" {
		return &Error{Op: op, Node: v.id, Err: ErrInvalidNode, Reason: why}
	}
	return nil
}

// RemoveNode forgets a server. Its running tasks are released (not
// learned from); the host decides whether to Submit them again. It fails
// with ErrUnknownNode for an unknown ID.
func (s *Scheduler) RemoveNode(id schedkit.NodeID) error {
	srv := s.nodes[id]
	if srv == nil {
		return &Error{Op: "RemoveNode", Node: id, Err: ErrUnknownNode, Reason: "not registered"}
	}
	for len(srv.running) > 0 {
		s.release(srv.running[len(srv.running)-1], false)
	}
	delete(s.nodes, id)
	s.servers = slices.Delete(s.servers, srv.pos, srv.pos+1)
	for i := srv.pos; i < len(s.servers); i++ {
		s.servers[i].pos = i
	}
	_ = s.capacity.Sub(srv.capacity)
	s.recountMaxCap()
	s.reshare()
	return nil
}

// Submit queues task t as pending at now: it is ready to run and waits
// for a server. It reads the task's ID, job, similarity key, requested
// quantity, deadline and data locations once. It fails, changing
// nothing, on a nil task, an empty task or job ID, a requested vector
// that does not fit the Space (NaN, infinite, negative, fractional
// slots) (ErrInvalidTask), a duplicate ID (ErrDuplicateTask), a now
// before the latest given (ErrStaleTime), or a now or deadline more than
// 2⁶⁰ ns from the first time given (ErrTimeRange).
func (s *Scheduler) Submit(now time.Time, t schedkit.Task) error {
	const op = "Submit"
	if nilvalue.Is(t) {
		return &Error{Op: op, Err: ErrInvalidTask, Reason: nilvalue.Text("task", t)}
	}
	id := t.ID()
	switch {
	case id == "":
		return &Error{Op: op, Err: ErrInvalidTask, Reason: "empty task ID"}
	case t.Job() == "":
		return &Error{Op: op, Task: id, Err: ErrInvalidTask, Reason: "empty job ID"}
	case s.tasks[id] != nil:
		return &Error{Op: op, Task: id, Err: ErrDuplicateTask}
	}
	req := t.Requested()
	if err := s.space.Validate(req); err != nil {
		return &Error{Op: op, Task: id, Err: ErrInvalidTask, Reason: "requested: " + err.Error()}
	}
	r, off, err := s.check(op, now)
	if err != nil {
		return err
	}
	dl, hasDL, err := taskDeadline(op, id, r, t.Deadline())
	if err != nil {
		return err
	}
	s.clock.Commit(r)
	p := &ptask{
		t: t, id: id, key: t.Similarity(),
		requested: req.Clone(),
		locs:      slices.Clone(t.DataLocations()),
		deadline:  dl, hasDL: hasDL,
	}
	s.seq++
	p.seq = s.seq
	p.keyID = s.keys.id(p.key, len(s.tasks))
	p.job = s.jobEntry(t.Job(), now, off)
	s.tasks[id] = p
	s.enqueue(p)
	return nil
}

// taskDeadline returns a task's deadline as an offset from the epoch of
// reading r (and whether it has one), or, for a deadline more than 2⁶⁰
// ns from the epoch, ErrTimeRange: the time rule every schedkit
// scheduler applies to the times a call gives besides now.
func taskDeadline(op string, id schedkit.TaskID, r clock.Reading, dl time.Time) (time.Duration, bool, error) {
	if dl.IsZero() {
		return 0, false, nil
	}
	d, ok := r.Offset(dl)
	if !ok {
		return 0, false, &Error{Op: op, Task: id, Err: ErrTimeRange, Reason: r.OutOfRange("deadline", dl)}
	}
	return time.Duration(d), true, nil
}

// id returns key's number, numbering it if new. Numbers come from a
// counter and are never reused, so two tasks with one number have one
// key. The table is dropped when it outgrows held (the tasks held: a
// key submitted again then gets a new number, and a memory of refusals
// by number misses once), so it stays bounded however long the
// scheduler runs.
func (t *keyTable) id(key schedkit.SimilarityKey, held int) uint64 {
	if id, ok := t.ids[key]; ok {
		return id
	}
	if t.ids == nil || len(t.ids) >= max(4096, 2*held) {
		t.ids = make(map[schedkit.SimilarityKey]uint64)
	}
	t.next++
	t.ids[key] = t.next
	return t.next
}

// enqueue puts a pending task in its job's queue in submission order.
//
// Each pending task has a run label (jobEntry.runs, beside pending, so
// that run skipping reads a dense array, runskip.go): consecutive
// pending tasks of a job that are alike (same similarity key, same
// requested vector, no data locations) usually share one, and a label
// is never shared by tasks that are not alike or not contiguous in the
// queue. Schedule may skip the rest of a run after its first task was
// refused.
func (s *Scheduler) enqueue(p *ptask) {
	j := p.job
	n := len(j.pending)
	i := n
	if n > 0 && j.pending[n-1].seq > p.seq {
		i, _ = slices.BinarySearchFunc(j.pending, p.seq, func(q *ptask, seq uint64) int {
			switch {
			case q.seq < seq:
				return -1
			case q.seq > seq:
				return 1
			}
			return 0
		})
	}
	s.runSeq++
	run := s.runSeq
	switch {
	case i == n:
		if n > 0 && alike(j.pending[n-1], p) {
			run = j.runs[n-1]
		}
	case i > 0 && j.runs[i-1] == j.runs[i]:
		// p splits a run: the part after it gets a label of its own.
		s.runSeq++
		r := j.runs[i]
		for k := i; k < n && j.runs[k] == r; k++ {
			j.runs[k] = s.runSeq
		}
	}
	j.pending = slices.Insert(j.pending, i, p)
	j.runs = slices.Insert(j.runs, i, run)
	j.state.Pending += p.count()
	s.count(j, p, 1)
	if len(p.locs) > 0 {
		s.locTasks++
	}
	if j.activePos < 0 {
		j.activePos = len(s.active)
		s.active = append(s.active, j)
	}
}

// alike reports whether Schedule would treat pending tasks a and b of
// one job alike: the same similarity key, bit-identical requested
// vectors, and no data locations (delay scheduling keeps state per
// task).
func alike(a, b *ptask) bool {
	if a.key != b.key || len(a.locs) > 0 || len(b.locs) > 0 || len(a.requested) != len(b.requested) {
		return false
	}
	for k, x := range a.requested {
		if math.Float64bits(x) != math.Float64bits(b.requested[k]) {
			return false
		}
	}
	return true
}

// dequeue removes the pending task at index i of its job's queue (the
// head task of a run entry: the entry goes with its last task).
func (s *Scheduler) dequeue(j *jobEntry, i int) {
	if src := j.pending[i].src; src != nil && src.left > 1 {
		src.next++
		src.left--
		j.pending[i].seq++
		j.state.Pending--
		s.moveJob(j)
		return
	}
	if len(j.pending[i].locs) > 0 {
		s.locTasks--
	}
	s.count(j, j.pending[i], -1)
	if i == 0 {
		// The usual case (the first task of a job's queue placed):
		// no shift of a queue that may hold many thousands of tasks.
		j.pending[0] = nil
		j.pending, j.runs = j.pending[1:], j.runs[1:]
	} else {
		j.pending = slices.Delete(j.pending, i, i+1)
		j.runs = slices.Delete(j.runs, i, i+1)
	}
	j.state.Pending--
	s.moveJob(j)
	s.deactivate(j)
}

// deactivate takes j out of the active jobs if nothing of it is pending.
func (s *Scheduler) deactivate(j *jobEntry) {
	if len(j.pending) == 0 && j.activePos >= 0 {
		last := s.active[len(s.active)-1]
		s.active[j.activePos] = last
		last.activePos = j.activePos
		s.active = s.active[:len(s.active)-1]
		j.activePos = -1
	}
}

// dropJob forgets a job with nothing pending or running.
func (s *Scheduler) dropJob(j *jobEntry) {
	if j.state.Pending == 0 && j.state.Running == 0 && s.jobs[j.state.ID] == j {
		delete(s.jobs, j.state.ID)
		s.walk.jobDropped(j)
		s.slots.put(j.slot)
	}
}

// Withdraw drops a pending task (its job was killed, or the host gave up
// on it). A running task is ended with Release instead. It fails with
// ErrUnknownTask for a task not pending.
func (s *Scheduler) Withdraw(id schedkit.TaskID) error {
	p := s.tasks[id]
	if p == nil || p.running {
		return &Error{Op: "Withdraw", Task: id, Err: ErrUnknownTask, Reason: "not pending"}
	}
	j := p.job
	i := slices.Index(j.pending, p)
	s.dequeue(j, i)
	delete(s.tasks, id)
	s.dropJob(j)
	return nil
}

// Release ends a running task at now: its reservation is freed. If
// succeeded and a History is configured, the task's buffered usage
// samples are learned (normalised by the compression its server was
// expected to impose; see estimate.History). A task that failed or was
// killed is not learned from; Submit it again to retry it. It fails with
// ErrUnknownTask for a task not running, ErrStaleTime or ErrTimeRange.
func (s *Scheduler) Release(now time.Time, id schedkit.TaskID, succeeded bool) error {
	const op = "Release"
	p := s.tasks[id]
	if p == nil || !p.running {
		return &Error{Op: op, Task: id, Err: ErrUnknownTask, Reason: "not running"}
	}
	rd, off, err := s.check(op, now)
	if err != nil {
		return err
	}
	s.clock.Commit(rd)
	if r := p.runState; succeeded && s.cfg.History != nil && off > r.lastSmp && len(r.smp) > 0 {
		// The tail since the last sample holds at the last sample's usage.
		last := r.smp[len(r.smp)-s.smpRec():]
		s.addSample(r, off, last[2:], last[1])
	}
	s.release(p, succeeded)
	return nil
}

// release frees p's reservation and forgets it.
func (s *Scheduler) release(p *ptask, learn bool) {
	srv := p.srv
	i := slices.Index(srv.running, p)
	srv.running = slices.Delete(srv.running, i, i+1)
	srv.dirty = true
	j := p.job
	_ = j.state.Allocated.Sub(p.charge)
	for k, x := range j.state.Allocated {
		if x < 0 || (j.state.Running == 1 && x != 0) {
			j.state.Allocated[k] = 0 // rounding: nothing running, nothing charged
		}
	}
	j.state.Running--
	s.share(j)
	r := p.runState
	if learn && s.cfg.History != nil {
		s.learn(p, s.usageSamples(r))
	}
	// Its placed state (plan, sample buffers) serves the next placement:
	// the host's views of the plan end with the release.
	r.smpID, r.smpSrv, r.smpNext = "", nil, nil
	s.spare = append(s.spare, r)
	p.runState = nil
	delete(s.tasks, p.id)
	s.dropJob(j)
}

// learn has the History learn finished task p from its samples (too
// few samples: nothing is learned) and tells the walk's stages when that
// changes the predictions.
func (s *Scheduler) learn(p *ptask, samples []estimate.UsageSample) {
	h := s.cfg.History
	if h != s.est.hist {
		_, _ = h.Observe(p.key, samples) // predictions come from elsewhere
		return
	}
	before := h.Version()
	if ok, _ := h.Observe(p.key, samples); ok {
		s.walk.learned(p, before)
	}
}

// share recomputes j's dominant share.
func (s *Scheduler) share(j *jobEntry) {
	sh, err := resource.DominantShare(j.state.Allocated, s.capacity)
	if err != nil {
		sh = math.MaxFloat64 // a demand on a kind no known node has
	}
	j.state.Share = sh
	s.moveJob(j)
}

func (s *Scheduler) reshare() {
	for _, j := range s.jobs {
		s.share(j)
	}
	s.walk.reshared()
}

// moveJob records that j's state (what Fairness reads) or its being
// active changed, so its place in order must be found again.
func (s *Scheduler) moveJob(j *jobEntry) { s.walk.jobMoved(j) }

// Pending returns the number of pending tasks (a run's counted task by
// task).
func (s *Scheduler) Pending() int {
	n := 0
	for _, j := range s.active {
		n += j.state.Pending
	}
	return n
}

// Running returns the number of tasks the scheduler has placed and not
// yet seen released.
func (s *Scheduler) Running() int {
	n := 0
	for _, j := range s.jobs {
		n += j.state.Running
	}
	return n
}

// Policy returns a server's current scheduling policy (Algorithm 3),
// false for an unknown node.
func (s *Scheduler) Policy(id schedkit.NodeID) (ServerPolicy, bool) {
	srv := s.nodes[id]
	if srv == nil {
		return 0, false
	}
	return srv.policy, true
}

// Free sets dst to a server's predicted free resources at now: capacity
// minus the estimated foreign load and the reservations of its running
// tasks (negative for a compressed kind). It only reads: now may be any
// time in range, before the latest given included, and the clock does
// not move. It fails with ErrUnknownNode for an unknown node,
// ErrInvalidNode for a dst of the wrong length, ErrTimeRange.
func (s *Scheduler) Free(now time.Time, id schedkit.NodeID, dst resource.Vector) error {
	const op = "Free"
	srv, err := s.queried(op, id, dst)
	if err != nil {
		return err
	}
	off, err := s.peek(op, now)
	if err != nil {
		return err
	}
	copy(dst, s.view(srv, off).At(off))
	return nil
}

// MinFree sets dst to the least predicted free amount of each kind on a
// server over [now, now+d): the quantity the coarse-grained match tests,
// and what a host that ranks servers (a scheduler's score) reads after a
// placement. It only reads, as Free does. It fails with ErrUnknownNode
// for an unknown node, ErrInvalidNode for a dst of the wrong length or
// an interval d ≤ 0 or longer than 2⁶⁰ ns, ErrTimeRange.
func (s *Scheduler) MinFree(now time.Time, id schedkit.NodeID, d time.Duration, dst resource.Vector) error {
	const op = "MinFree"
	srv, err := s.queried(op, id, dst)
	if err != nil {
		return err
	}
	if d <= 0 || d > time.Duration(clock.Limit) {
		return &Error{Op: op, Node: id, Err: ErrInvalidNode, Reason: fmt.Sprintf("interval %v outside (0, 2^60 ns]", d)}
	}
	off, err := s.peek(op, now)
	if err != nil {
		return err
	}
	return s.view(srv, off).Min(off, off+d, dst)
}

// queried returns the server a query names, checking the vector it
// fills.
func (s *Scheduler) queried(op string, id schedkit.NodeID, dst resource.Vector) (*server, error) {
	srv := s.nodes[id]
	if srv == nil {
		return nil, &Error{Op: op, Node: id, Err: ErrUnknownNode, Reason: "not registered"}
	}
	if len(dst) != s.dims {
		return nil, &Error{Op: op, Node: id, Err: ErrInvalidNode, Reason: fmt.Sprintf("dst has %d kinds, want %d", len(dst), s.dims)}
	}
	return srv, nil
}

// view returns v's free timeline as a read at off sees it, changing
// nothing: v's own timeline when it is current at off (no release or
// overdue task since it was brought up to date, off not before the
// latest state-changing call), else a copy rebuilt at off
// (Scheduler.viewTL, valid until the next read).
func (s *Scheduler) view(v *server, off time.Duration) *resource.Timeline {
	if !v.dirty && off < v.nextDue && off >= time.Duration(s.clock.Latest()) {
		return v.free
	}
	if s.viewTL == nil || s.viewTL.Dims() != s.dims {
		s.viewTL, _ = resource.NewTimeline(v.base) // valid: the base of a registered server
	}
	v.rebuildInto(s.viewTL, off)
	return s.viewTL
}

// recountMaxCap sets maxCap to the largest capacity of each kind over the
// registered servers: a prediction whose peak exceeds it in some kind
// fits no server (see usable).
func (s *Scheduler) recountMaxCap() {
	s.maxCap = resize(s.maxCap, s.dims)
	clear(s.maxCap)
	for _, v := range s.servers {
		_ = s.maxCap.Max(v.capacity)
	}
}

func resize(x resource.Vector, n int) resource.Vector {
	if cap(x) < n {
		return make(resource.Vector, n)
	}
	return x[:n]
}
