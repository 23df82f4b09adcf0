package fgm

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// TaskRun is a run of n alike tasks that a host submits as one entry
// (SubmitRun) instead of n task objects: the tasks of one job (and one
// phase) with the same similarity key, the same requested vector, the
// same deadline and no data locations, such as the maps of a MapReduce
// job that has not started. A queue of millions of such tasks then costs
// the scheduler one entry per run, and the host need not make a task
// object before the task is placed.
//
// Job, Similarity, Requested, Deadline and Len are read once, at
// SubmitRun. The tasks are ordered: the scheduler treats the run exactly
// as Len tasks submitted one by one with Submit at that moment, in index
// order (TestSubmitRunMatchesSubmit), and takes them in that order.
type TaskRun interface {
	// Job is the tasks' job.
	Job() schedkit.JobID
	// Similarity is the tasks' similarity key.
	Similarity() schedkit.SimilarityKey
	// Requested is each task's requested quantity.
	Requested() resource.Vector
	// Deadline is the tasks' deadline (zero: none).
	Deadline() time.Time
	// Len is the number of tasks in the run, from 1 to 2³¹−1
	// (math.MaxInt32): a longer run is ErrInvalidTask; submit it as
	// several runs.
	Len() int
	// Task materialises the run's task i (0 ≤ i < Len): the host makes
	// the task object now. The scheduler calls it when it needs the task
	// — when Schedule places it, or earlier when an Estimator other than
	// a HistoryEstimator must be asked about it — at most once per i
	// and in increasing i, except that after a Schedule call that failed
	// on the task it returned, the same i is asked again. The task must
	// have a non-empty ID no task the scheduler holds has and the run's
	// job; the scheduler reads its ID (and gives it to the Estimator);
	// its key, request and deadline are the run's and its data
	// locations none, whatever it answers.
	Task(i int) schedkit.Task
}

// runSrc is the state of a run entry in a job's queue (ptask.src): the
// host's run, the index of its next task, and how many are left.
type runSrc struct {
	r          TaskRun
	next, left int
}

// count returns the number of tasks p stands for in its job's queue.
func (p *ptask) count() int {
	if p.src != nil {
		return p.src.left
	}
	return 1
}

// SubmitRun queues the Len alike tasks of r as pending at now, as one
// entry: the same as submitting them one by one with Submit (see
// TaskRun), but without a task object per task. It reads r's job, key,
// request, deadline and length once. It fails, changing nothing, on a
// nil run, a Len below 1 or above 2³¹−1, an empty job ID, a requested
// vector that does not fit the Space (ErrInvalidTask), a now before the
// latest given (ErrStaleTime), or a now or deadline more than 2⁶⁰ ns
// from the first time given (ErrTimeRange).
//
// A task of the run is materialised (TaskRun.Task) when it is placed:
// its Decision names it. Until then it has no ID: WithdrawJob drops
// the pending tasks of a job, runs included; Withdraw drops single
// tasks (and tasks of a run already materialised but still pending).
func (s *Scheduler) SubmitRun(now time.Time, r TaskRun) error {
	const op = "SubmitRun"
	if nilvalue.Is(r) {
		return &Error{Op: op, Err: ErrInvalidTask, Reason: nilvalue.Text("run", r)}
	}
	n, job := r.Len(), r.Job()
	switch {
	case n < 1:
		return &Error{Op: op, Err: ErrInvalidTask, Reason: fmt.Sprintf("run of %d tasks", n)}
	case n > math.MaxInt32:
		return &Error{Op: op, Err: ErrInvalidTask, Reason: fmt.Sprintf("run of %d tasks, more than %d", n, math.MaxInt32)}
	case job == "":
		return &Error{Op: op, Err: ErrInvalidTask, Reason: "empty job ID"}
	}
	req := r.Requested()
	if err := s.space.Validate(req); err != nil {
		return &Error{Op: op, Err: ErrInvalidTask, Reason: "requested: " + err.Error()}
	}
	rd, off, err := s.check(op, now)
	if err != nil {
		return err
	}
	dl, hasDL, err := taskDeadline(op, "", rd, r.Deadline())
	if err != nil {
		return err
	}
	s.clock.Commit(rd)
	p := &ptask{key: r.Similarity(), requested: req.Clone(), src: &runSrc{r: r, left: n}, deadline: dl, hasDL: hasDL}
	p.seq = s.seq + 1 // the run's tasks take seq+1 … seq+n, in order
	s.seq += uint64(n)
	p.keyID = s.keys.id(p.key, len(s.tasks))
	p.job = s.jobEntry(job, now, off)
	s.enqueue(p)
	return nil
}

// jobEntry returns the entry of job id, creating it (submitted at now).
func (s *Scheduler) jobEntry(id schedkit.JobID, now time.Time, off time.Duration) *jobEntry {
	j := s.jobs[id]
	if j == nil {
		j = &jobEntry{activePos: -1, sub: off, slot: s.slots.get()}
		j.state = JobState{ID: id, Submitted: now, Allocated: s.space.Zero()}
		s.jobs[id] = j
		s.walk.jobAdded(j)
	}
	return j
}

// materialise makes the head task of run entry p (pending at index i of
// its job's queue) a task of its own: the host's TaskRun.Task, checked.
// The run is not changed (see take and splitHead).
func (s *Scheduler) materialise(op string, p *ptask) (*ptask, error) {
	src := p.src
	t := src.r.Task(src.next)
	reason := ""
	var id schedkit.TaskID
	switch {
	case nilvalue.Is(t):
		reason = nilvalue.Text("task", t)
	default:
		id = t.ID()
		switch {
		case id == "":
			reason = "empty task ID"
		case t.Job() != p.job.state.ID:
			reason = fmt.Sprintf("task of job %q, run of job %q", t.Job(), p.job.state.ID)
		case s.tasks[id] != nil:
			return nil, &Error{Op: op, Task: id, Err: ErrDuplicateTask, Reason: fmt.Sprintf("TaskRun.Task(%d)", src.next)}
		}
	}
	if reason != "" {
		return nil, &Error{Op: op, Task: id, Err: ErrInvalidTask, Reason: fmt.Sprintf("TaskRun.Task(%d): %s", src.next, reason)}
	}
	q := &ptask{t: t, id: id, job: p.job, key: p.key, keyID: p.keyID, requested: p.requested,
		deadline: p.deadline, hasDL: p.hasDL, seq: p.seq}
	return q, nil
}

// splitHead materialises the head task of the run entry at index i of
// j's queue and puts it before the rest of the run as a single pending
// task (same place in the order, same run label); it returns it. The
// split is recorded in the Schedule call's undo log.
func (s *Scheduler) splitHead(op string, j *jobEntry, i int) (*ptask, error) {
	p := j.pending[i]
	q, err := s.materialise(op, p)
	if err != nil {
		return nil, err
	}
	s.tasks[q.id] = q
	s.undo.undos = append(s.undo.undos, undo{entry: p, q: q, i: i, run: j.runs[i], split: true, removed: p.src.left == 1})
	if p.src.left == 1 {
		j.pending[i] = q
		return q, nil
	}
	p.src.next++
	p.src.left--
	p.seq++
	s.count(j, q, 1)
	j.pending = append(j.pending, nil)
	copy(j.pending[i+1:], j.pending[i:])
	j.pending[i] = q
	j.runs = append(j.runs, 0)
	copy(j.runs[i+1:], j.runs[i:])
	return q, nil
}

// WithdrawJob drops every pending task of job id (its job was killed):
// single tasks and runs alike. It returns how many tasks it dropped (0
// for a job with none pending). Running tasks are ended with Release.
func (s *Scheduler) WithdrawJob(id schedkit.JobID) int {
	j := s.jobs[id]
	if j == nil || len(j.pending) == 0 {
		return 0
	}
	n := j.state.Pending
	for _, p := range j.pending {
		if p.src == nil {
			delete(s.tasks, p.id)
		}
		if len(p.locs) > 0 {
			s.locTasks--
		}
		s.count(j, p, -1)
	}
	clear(j.pending)
	j.pending, j.runs = j.pending[:0], j.runs[:0]
	j.state.Pending = 0
	s.moveJob(j)
	s.deactivate(j)
	s.dropJob(j)
	return n
}
