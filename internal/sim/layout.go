package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// init lays out w's jobs in b, none submitted.
func (b *book) init(cfg *Config, eng *engine, wd *world, w *workload.Workload, computingOnly bool) error {
	*b = book{eng: eng, w: wd, slowStart: cfg.SlowStart, prices: cfg.Prices, computingOnly: computingOnly}
	b.vecBuf = wd.space.Zero()
	l := layout{b: b, k: wd.k}
	return l.jobs(w)
}

// layout lays a workload out as a book's jobs, checking it: what New
// needs of it and the book, once the run starts, does not.
type layout struct {
	b        *book
	k        int
	specBuf  workload.TaskSpec // each task of a TaskBatch, shaped to be checked
	fitReq   resource.Vector   // the last request found to fit a node
	interned []resource.Vector // shared request and demand vectors (intern)
	started  []uint64          // arena of the jobs' begun bits
	allocs   []float64         // arena of the jobs' allocations
	last     time.Duration     // the previous job's submission
	unshaped bool              // some TaskBatch phase is not shaped
}

// jobs lays out w's jobs (the book's eng, w and rules are set).
func (l *layout) jobs(w *workload.Workload) error {
	b := l.b
	nTasks := 0
	for i := range w.Jobs {
		for _, ph := range w.Jobs[i].Phases {
			nTasks += ph.Len()
		}
	}
	if nTasks > math.MaxInt32 || len(w.Jobs) > math.MaxInt32 {
		return &WorkloadError{Reason: "too many jobs or tasks"}
	}
	b.byID = make(map[schedkit.JobID]*Job, len(w.Jobs))
	b.jobs = make([]Job, len(w.Jobs))
	b.holding = make([]uint64, (len(w.Jobs)+63)/64)
	b.wanting = make([]uint64, (len(w.Jobs)+63)/64)
	l.allocs = make([]float64, l.k*len(w.Jobs))
	l.started = make([]uint64, 0, nTasks/64+2*len(w.Jobs))
	for i := range w.Jobs {
		if err := l.job(i, &w.Jobs[i]); err != nil {
			return err
		}
	}
	b.shareShapes = !l.unshaped
	return nil
}

// job lays out job i.
func (l *layout) job(i int, js *workload.JobSpec) error {
	b := l.b
	if js.ID == "" {
		return &WorkloadError{Where: fmt.Sprintf("job %d", i), Reason: "empty ID"}
	}
	if _, dup := b.byID[schedkit.JobID(js.ID)]; dup {
		return &WorkloadError{Job: js.ID, Reason: "duplicate ID"}
	}
	if js.Submit < l.last {
		return &WorkloadError{Job: js.ID, Reason: fmt.Sprintf("submitted at %v, before the previous job (%v)", js.Submit, l.last)}
	}
	l.last = js.Submit
	if js.Deadline < 0 {
		return &WorkloadError{Job: js.ID, Reason: fmt.Sprintf("negative deadline %v", js.Deadline)}
	}
	if len(js.Phases) == 0 || len(js.Phases) > schedkit.MaxPhases {
		return &WorkloadError{Job: js.ID, Reason: fmt.Sprintf("%d phases, want 1..%d", len(js.Phases), schedkit.MaxPhases)}
	}
	j := &b.jobs[i]
	j.b, j.spec, j.idx, j.id = b, js, int32(i), schedkit.JobID(js.ID)
	j.submitOff = int64(js.Submit)
	j.submitted = Epoch.Add(js.Submit)
	if js.Deadline > 0 {
		j.deadline = j.submitted.Add(js.Deadline)
	}
	j.alloc = resource.Vector(l.allocs[i*l.k : (i+1)*l.k : (i+1)*l.k])
	j.phases = make([]jobPhase, len(js.Phases))
	total := 0
	for p := range js.Phases {
		ph := &j.phases[p]
		ph.first = total
		ph.next = ph.first
		if err := l.phase(js, p, ph); err != nil {
			return err
		}
		total += ph.prog.Total
	}
	if total == 0 {
		return &WorkloadError{Job: js.ID, Reason: "no tasks"}
	}
	j.nTasks = total
	for p := range j.phases {
		if js.Phases[p].Batch != nil && len(js.Phases[p].Tasks) == 0 && !j.phases[p].shaped {
			l.unshaped = true
		}
	}
	words := (total + 63) / 64
	l.started = append(l.started, make([]uint64, words)...)
	j.begun = l.started[len(l.started)-words : len(l.started) : len(l.started)]
	b.byID[j.id] = j
	return nil
}

// phase lays out phase p of js in ph (whose first is set): its tasks
// checked, the request they share, whether it is shaped, its locality
// index and support.
func (l *layout) phase(js *workload.JobSpec, p int, ph *jobPhase) error {
	sp := &js.Phases[p]
	n := sp.Len()
	ph.prog.Total = n
	hasLoc := false
	shaped := len(sp.Tasks) == 0 && sp.Batch != nil
	for x := range n {
		ts, err := sp.Task(x, &l.specBuf)
		if err != nil {
			return &WorkloadError{Job: js.ID, Where: fmt.Sprintf("phase %d task %d", p, x), Reason: err.Error()}
		}
		if err := l.checkTask(js, p, x, ts); err != nil {
			return err
		}
		if x == 0 {
			ph.req = l.intern(ts.Requested)
		} else if ph.req != nil && !ph.req.Equal(ts.Requested) {
			ph.req = nil
		}
		if shaped {
			shaped = l.sameShape(ph, sp.Batch, x, ts)
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
	if ph.req != nil && l.k <= maxSupportKinds {
		for k, r := range ph.req {
			if r > supportMin {
				ph.support |= 1 << k
			}
		}
	}
	return nil
}

func (l *layout) checkTask(js *workload.JobSpec, p, x int, ts *workload.TaskSpec) error {
	where := func(f string) string { return fmt.Sprintf("phase %d task %d: %s", p, x, f) }
	w := l.b.w
	if err := w.space.Validate(ts.Requested); err != nil {
		return &WorkloadError{Job: js.ID, Where: where("Requested"), Reason: err.Error()}
	}
	for i, st := range ts.Profile {
		if st.Duration < 0 {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Profile[%d]", i)), Reason: fmt.Sprintf("negative duration %v", st.Duration)}
		}
		if len(st.Demand) != l.k {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Profile[%d].Demand", i)), Reason: fmt.Sprintf("%d elements, want %d", len(st.Demand), l.k)}
		}
		if err := st.Demand.Validate(); err != nil {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Profile[%d].Demand", i)), Reason: err.Error()}
		}
	}
	for i, ni := range ts.Locations {
		if ni < 0 || ni >= len(w.nodes) {
			return &WorkloadError{Job: js.ID, Where: where(fmt.Sprintf("Locations[%d]", i)), Reason: fmt.Sprintf("node %d out of range", ni)}
		}
	}
	// The request must fit some node in its incompressible kinds, or no
	// request-based policy could ever place the task.
	if l.fitReq != nil && l.fitReq.Equal(ts.Requested) {
		return nil // the tasks of a phase mostly ask alike
	}
	if !w.fits(ts.Requested) {
		return &WorkloadError{Job: js.ID, Where: where("Requested"), Reason: fmt.Sprintf("%v fits no node", ts.Requested)}
	}
	l.fitReq = append(l.fitReq[:0], ts.Requested...)
	return nil
}

// sameShape reports whether task x of batch b, shaped as ts, is the
// phase's one-stage shape (set from task 0) with duration Durations[x]:
// same Logic, DataSize and Requested, no Locations, one stage whose
// Duration is the batch's and whose Demand is the phase's. Vectors are
// compared bit for bit, so a copy is the shaped task exactly.
func (l *layout) sameShape(ph *jobPhase, b *workload.TaskBatch, x int, ts *workload.TaskSpec) bool {
	if len(ts.Locations) > 0 || len(ts.Profile) != 1 || ts.Profile[0].Duration != b.Durations[x] {
		return false
	}
	if x == 0 {
		ph.logic, ph.shapeDat = ts.Logic, ts.DataSize
		ph.demand = l.intern(ts.Profile[0].Demand)
		return sameBits(ph.req, ts.Requested)
	}
	return ts.Logic == ph.logic && ts.DataSize == ph.shapeDat &&
		sameBits(ph.req, ts.Requested) && sameBits(ph.demand, ts.Profile[0].Demand)
}

// intern returns a read-only copy of v, shared with earlier calls for
// the same vector (bit for bit): the phases of a trace day ask for a
// handful of vectors, and one shared copy stays in cache.
func (l *layout) intern(v resource.Vector) resource.Vector {
	for _, u := range l.interned {
		if sameBits(u, v) {
			return u
		}
	}
	u := append(resource.Vector(nil), v...)
	if len(l.interned) < maxInterned {
		l.interned = append(l.interned, u)
	}
	return u
}

// maxInterned bounds layout.interned (beyond it, a workload of
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

func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
