package fgm

// The walk of Algorithm 1 (schedule, algorithm1.go) over the pending
// tasks of one Schedule call, and the stages that accelerate it. The
// walk as printed visits the active jobs in Fairness order and each job's
// tasks in submission order, testing every task; a stage feeds it its
// job order or lets it pass by what it would test in vain, and hears
// what the queue and the walk do. Each stage is a type in a file of its
// own, joined to the walk by one line of newStages; deleting the file
// and the line leaves the decisions exactly as they are, only slower: a
// stage passes by only what the walk would try in vain, changing
// nothing. The equivalence tests compare the walk with its stages to the
// literal walk (algorithm1_literal_test.go).

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// newStages returns the accelerations of Algorithm 1's walk, in the
// order their hooks run (for order, the first that offers a job order
// gives it).
func newStages(s *Scheduler) []stage {
	return []stage{
		newJobSets(s),     // jobsets.go: the jobs that can use a server with closed kinds
		newKeptOrder(s),   // keptorder.go: the job order kept between calls
		newClosedKinds(s), // closedkinds.go: calls and jobs needing a kind the server has none of
		newClasses(s),     // classes.go: demand classes against the server's room
		newRefusals(s),    // refusals.go: refusals remembered within and across calls
		newRunSkip(s),     // runskip.go: the rest of a refused run
	}
}

// stage is an acceleration of Algorithm 1's walk. It implements the
// hooks its mask names (hooks); noStage gives the others. A stage may
// keep state per job in a table indexed by jobEntry.slot (slotTable).
type stage interface {
	// hooks returns the hooks the stage implements.
	hooks() hookSet
	// counts reports how often the stage took its fast path, by name:
	// the tests require each to be positive on a workload made for it.
	counts(add func(name string, n uint64))

	// The queue (onQueue): a job entry was made or dropped; entry p of
	// j was counted in (d = 1) or out (d = −1) of the pending entries
	// (queued, placed, withdrawn, split off a run, or restored by a
	// rollback); j's state (what Fairness reads) or being active
	// changed; every share changed (membership of the cluster); the
	// History predictions come from learned the key of p (a task that
	// ended), its version before being before (a key it evicted to make
	// room becomes unpredictable: its tasks are tested at their request).
	jobAdded(j *jobEntry)
	jobDropped(j *jobEntry)
	counted(j *jobEntry, p *ptask, d int)
	jobMoved(j *jobEntry)
	reshared()
	learned(p *ptask, before uint64)

	// begin (onBegin) starts a call on w.v at w.now; false: the walk
	// would place nothing, and is not made.
	begin(w *walk) bool
	// order (onOrder) returns the call's job order, nil to leave it to
	// the next stage (the last resort: every active job sorted).
	order(w *walk) jobSource
	// passJob (onJob) reports whether the walk would place none of j's
	// tasks, changing nothing: it passes the job by.
	passJob(w *walk, j *jobEntry) bool
	// passTask (onTask) tells whether the walk would refuse t (before
	// its prediction is asked, unless the stage asks it) and how.
	passTask(w *walk, t *try) verdict
	// refused (onTask) hears that t was tried and refused.
	refused(w *walk, t *try)
	// next (onNext) returns the index the walk goes on at after j's
	// task i was refused or passed by: at least i+1, more if the tasks
	// in between would be refused alike.
	next(w *walk, j *jobEntry, i int) int
	// placed (onPlaced) hears that a task was placed on w.v; false: no
	// more can be (the walk stops).
	placed(w *walk) bool
	// done (onJob) hears that the walk is done with j in this call.
	done(w *walk, j *jobEntry)
	// end (onEnd) hears that the walk ended (placedAny: it placed
	// something; w.partial: some stage left jobs or tasks out).
	end(w *walk, placedAny bool)
}

// hook names a stage's hook (an index of walk.on); hookSet is a set of
// them.
type hook uint8

const (
	hQueue  hook = iota // jobAdded, jobDropped, counted, jobMoved, reshared, learned
	hBegin              // begin
	hOrder              // order
	hJob                // passJob, done
	hTask               // passTask, refused
	hNext               // next
	hPlaced             // placed
	hEnd                // end
	numHooks
)

type hookSet uint16

// The hook sets a stage returns from hooks.
const (
	onQueue  hookSet = 1 << hQueue
	onBegin  hookSet = 1 << hBegin
	onOrder  hookSet = 1 << hOrder
	onJob    hookSet = 1 << hJob
	onTask   hookSet = 1 << hTask
	onNext   hookSet = 1 << hNext
	onPlaced hookSet = 1 << hPlaced
	onEnd    hookSet = 1 << hEnd
)

// noStage implements every hook as the walk without the stage.
type noStage struct{}

func (noStage) hooks() hookSet                       { return 0 }
func (noStage) counts(func(string, uint64))          {}
func (noStage) jobAdded(*jobEntry)                   {}
func (noStage) jobDropped(*jobEntry)                 {}
func (noStage) counted(*jobEntry, *ptask, int)       {}
func (noStage) jobMoved(*jobEntry)                   {}
func (noStage) reshared()                            {}
func (noStage) learned(*ptask, uint64)               {}
func (noStage) begin(*walk) bool                     { return true }
func (noStage) order(*walk) jobSource                { return nil }
func (noStage) passJob(*walk, *jobEntry) bool        { return false }
func (noStage) passTask(*walk, *try) verdict         { return tryIt }
func (noStage) refused(*walk, *try)                  {}
func (noStage) next(_ *walk, _ *jobEntry, i int) int { return i + 1 }
func (noStage) placed(*walk) bool                    { return true }
func (noStage) done(*walk, *jobEntry)                {}
func (noStage) end(*walk, bool)                      {}

// verdict is passTask's answer.
type verdict uint8

const (
	tryIt verdict = iota // test the task
	// passRefused: the task would be refused; passRefusedPredicted: as
	// a predicted task (the same-key rule then applies to its key).
	passRefused
	passRefusedPredicted
)

// try is the task the walk is at: pending entry i of job j (p), and its
// prediction once asked (predict). Before refused, predicted says
// whether it was tested as a predicted task.
type try struct {
	j         *jobEntry
	i         int
	p         *ptask
	prof      estimate.Profile // the Estimator's prediction (before wholeUnits)
	ok, asked bool
	predicted bool
}

// predict returns t's prediction, asking the Estimator once.
func (t *try) predict(s *Scheduler) (estimate.Profile, bool) {
	if !t.asked {
		t.prof, t.ok = s.predict(t.p)
		t.asked = true
	}
	return t.prof, t.ok
}

// jobSource is a call's job order (Algorithm 1 line 4).
type jobSource interface {
	// next returns the next job, nil at the end.
	next() *jobEntry
	// resort orders the jobs again and starts over (Progressive).
	resort()
	// complete reports whether the order holds every active job.
	complete() bool
}

// walk is Algorithm 1's walk: its stages and the state of the call
// under way.
type walk struct {
	s      *Scheduler
	stages []stage
	on     [numHooks][]stage
	// The call: its server and time, its number (jobEntry.tried), its
	// job order; partial: a stage left jobs or tasks out, so the call
	// did not meet every refusal there is.
	v       *server
	now     time.Duration
	call    uint64
	src     jobSource
	sorted  sortedJobs
	partial bool
	cur     try // the task the walk is at (try)
}

// try starts trying pending entry i of job j, task p: the walk's current
// task, its prediction not yet asked.
func (w *walk) try(j *jobEntry, i int, p *ptask) *try {
	w.cur = try{j: j, i: i, p: p}
	return &w.cur
}

// init joins the stages.
func (w *walk) init(s *Scheduler, stages []stage) {
	w.s, w.stages = s, stages
	w.sorted.s = s
	for _, st := range stages {
		h := st.hooks()
		for i := range numHooks {
			if h&(1<<i) != 0 {
				w.on[i] = append(w.on[i], st)
			}
		}
	}
}

// The queue's events, told to the stages.

func (w *walk) jobAdded(j *jobEntry) {
	for _, st := range w.on[hQueue] {
		st.jobAdded(j)
	}
}

func (w *walk) jobDropped(j *jobEntry) {
	for _, st := range w.on[hQueue] {
		st.jobDropped(j)
	}
}

func (w *walk) counted(j *jobEntry, p *ptask, d int) {
	for _, st := range w.on[hQueue] {
		st.counted(j, p, d)
	}
}

func (w *walk) jobMoved(j *jobEntry) {
	for _, st := range w.on[hQueue] {
		st.jobMoved(j)
	}
}

func (w *walk) reshared() {
	for _, st := range w.on[hQueue] {
		st.reshared()
	}
}

func (w *walk) learned(p *ptask, before uint64) {
	for _, st := range w.on[hQueue] {
		st.learned(p, before)
	}
}

// The walk's own steps.

// begin starts a call on v at now: false if a stage knows it would
// place nothing. It picks the job order.
func (w *walk) begin(v *server, now time.Duration) bool {
	w.v, w.now, w.partial = v, now, false
	w.call++
	for _, st := range w.on[hBegin] {
		if !st.begin(w) {
			return false
		}
	}
	w.src = nil
	for _, st := range w.on[hOrder] {
		if w.src = st.order(w); w.src != nil {
			break
		}
	}
	if w.src == nil {
		w.sorted.reset()
		w.src = &w.sorted
	}
	return true
}

// nextJob returns the next job to walk, nil at the end: the order's
// next job the call is not done with and no stage passes by.
func (w *walk) nextJob() *jobEntry {
	for {
		j := w.src.next()
		switch {
		case j == nil:
			return nil
		case j.tried == w.call:
		case w.passJob(j):
			j.tried = w.call
			w.partial = true
		default:
			return j
		}
	}
}

// passJob asks the stages whether the walk can pass j by.
func (w *walk) passJob(j *jobEntry) bool {
	for _, st := range w.on[hJob] {
		if st.passJob(w, j) {
			return true
		}
	}
	return false
}

// pass asks the stages whether task t would be refused.
func (w *walk) pass(t *try) verdict {
	for _, st := range w.on[hTask] {
		if v := st.passTask(w, t); v != tryIt {
			return v
		}
	}
	return tryIt
}

// refused tells the stages that t was refused.
func (w *walk) refused(t *try) {
	for _, st := range w.on[hTask] {
		st.refused(w, t)
	}
}

// skip returns where the walk goes on after j's task i was refused or
// passed by.
func (w *walk) skip(j *jobEntry, i int) int {
	n := i + 1
	for _, st := range w.on[hNext] {
		n = max(n, st.next(w, j, i))
	}
	return n
}

// placed tells the stages of a placement; false: the walk stops.
func (w *walk) placed() bool {
	for _, st := range w.on[hPlaced] {
		if !st.placed(w) {
			return false
		}
	}
	return true
}

// resort orders the jobs again (Progressive).
func (w *walk) resort() { w.src.resort() }

// done records that the call is done with j.
func (w *walk) done(j *jobEntry) {
	j.tried = w.call
	for _, st := range w.on[hJob] {
		st.done(w, j)
	}
}

// end tells the stages that the walk ended.
func (w *walk) end(placedAny bool) {
	if !w.src.complete() {
		w.partial = true
	}
	for _, st := range w.on[hEnd] {
		st.end(w, placedAny)
	}
}

// counts reports every stage's counters.
func (w *walk) counts(add func(string, uint64)) {
	for _, st := range w.stages {
		st.counts(add)
	}
}

// sortedJobs is Algorithm 1's line 4 as printed: the active jobs sorted
// in compareJobs order at the start of every call (and again after
// every allocation under Progressive).
type sortedJobs struct {
	s    *Scheduler
	jobs []*jobEntry
	k    int
}

func (o *sortedJobs) reset() {
	clear(o.jobs)
	o.jobs = append(o.jobs[:0], o.s.active...)
	slices.SortFunc(o.jobs, o.s.compareJobs)
	o.k = -1
}

func (o *sortedJobs) next() *jobEntry {
	if o.k++; o.k < len(o.jobs) {
		return o.jobs[o.k]
	}
	return nil
}

func (o *sortedJobs) resort()        { o.reset() }
func (o *sortedJobs) complete() bool { return true }

// slotTable is a stage's state per job, indexed by jobEntry.slot: the
// entry of a slot belongs to the job that last took it (owner), so a
// slot handed to a new job reads as fresh.
type slotTable[T any] struct {
	rows []slotRow[T]
}

type slotRow[T any] struct {
	owner *jobEntry
	v     T
}

// of returns j's row, reset to the zero T (keeping allocated storage
// through reset) if the slot belonged to another job.
func (t *slotTable[T]) of(j *jobEntry, reset func(*T)) *T {
	if j.slot >= len(t.rows) {
		t.rows = append(t.rows, make([]slotRow[T], j.slot+1-len(t.rows))...)
	}
	r := &t.rows[j.slot]
	if r.owner != j {
		r.owner = j
		if reset != nil {
			reset(&r.v)
		} else {
			var zero T
			r.v = zero
		}
	}
	return &r.v
}

// held returns j's row if the slot is j's, else nil.
func (t *slotTable[T]) held(j *jobEntry) *T {
	if j.slot < len(t.rows) && t.rows[j.slot].owner == j {
		return &t.rows[j.slot].v
	}
	return nil
}
