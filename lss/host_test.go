package lss_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/resource"
)

// A tiny in-memory host: jobs, nodes and a cluster implementing the root
// interfaces over plain fields.

var t0 = time.Date(2013, 10, 1, 0, 0, 0, 0, time.UTC)

const sec = time.Second

type hostJob struct {
	id        schedkit.JobID
	submitted time.Time
	deadline  time.Time
	ph        []schedkit.PhaseProgress
	hint      time.Duration
	base      []time.Duration // simulation: nominal task time per phase
	// phint are per-phase task time hints (PhaseTaskTimeHinter), with
	// phintOK saying whether one is given; nil: none.
	phint   []time.Duration
	phintOK []bool
}

var (
	_ schedkit.Job       = (*hostJob)(nil)
	_ lss.TaskTimeHinter = (*hintJob)(nil)

	_ lss.PhaseTaskTimeHinter = (*hostJob)(nil)
	_ lss.PhaseTaskTimeHinter = hintJob{}
)

func (j *hostJob) ID() schedkit.JobID                               { return j.id }
func (j *hostJob) Submitted() time.Time                             { return j.submitted }
func (j *hostJob) Deadline() time.Time                              { return j.deadline }
func (j *hostJob) Phases() int                                      { return len(j.ph) }
func (j *hostJob) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.ph[p] }

// PhaseTaskTimeHint implements lss.PhaseTaskTimeHinter; schedulers
// without Config.PhaseTaskTimeHints never call it.
func (j *hostJob) PhaseTaskTimeHint(p schedkit.Phase) (time.Duration, bool) {
	if int(p) >= len(j.phint) {
		return 0, false
	}
	return j.phint[p], j.phintOK[p]
}

// hintJob declares an a-priori task time.
type hintJob struct{ *hostJob }

func (j hintJob) TaskTimeHint() time.Duration { return j.hint }

// newJob returns a job submitted at sub with the given deadline (zero:
// none) and task counts per phase; phase 0 is ready, later phases not.
func newJob(id string, sub, deadline time.Time, tasks ...int) *hostJob {
	j := &hostJob{id: schedkit.JobID(id), submitted: sub, deadline: deadline}
	for p, n := range tasks {
		pr := schedkit.PhaseProgress{Total: n}
		if p == 0 {
			pr.Ready = n
		}
		j.ph = append(j.ph, pr)
		j.base = append(j.base, 20*sec)
	}
	return j
}

type hostNode struct {
	id         schedkit.NodeID
	cap, avail resource.Vector
}

var _ schedkit.Node = (*hostNode)(nil)

func (n *hostNode) ID() schedkit.NodeID                      { return n.id }
func (n *hostNode) Rack() schedkit.RackID                    { return "rack0" }
func (n *hostNode) Capacity() resource.Vector                { return n.cap }
func (n *hostNode) Available() resource.Vector               { return n.avail }
func (n *hostNode) Accelerators() []schedkit.AcceleratorInfo { return nil }

type hostCluster struct {
	space *resource.Space
	nodes []*hostNode
	cap   resource.Vector
	added int // nodes ever added: a new node never reuses a failed one's ID
}

var _ schedkit.Cluster = (*hostCluster)(nil)

func (c *hostCluster) Space() *resource.Space    { return c.space }
func (c *hostCluster) Nodes() int                { return len(c.nodes) }
func (c *hostCluster) Node(i int) schedkit.Node  { return c.nodes[i] }
func (c *hostCluster) Capacity() resource.Vector { return c.cap }
func (c *hostCluster) recount() {
	c.cap = c.space.Zero()
	c.each(func(n *hostNode) { _ = c.cap.Add(n.cap) })
}
func (c *hostCluster) each(fn func(n *hostNode)) {
	for _, n := range c.nodes {
		fn(n)
	}
}
func (c *hostCluster) node(i int) *hostNode { return c.nodes[i%len(c.nodes)] }
func (c *hostCluster) addNode(slots ...float64) *hostNode {
	n := &hostNode{id: schedkit.NodeID(fmt.Sprintf("n%02d", c.added)), cap: c.space.Zero()}
	c.added++
	copy(n.cap, slots)
	n.avail = n.cap.Clone()
	c.nodes = append(c.nodes, n)
	c.recount()
	return n
}

// kinds for up to three phases: map, reduce, and a third slot kind.
var thirdSlot = resource.Kind{Name: "merge-slot", Unit: "slots", Integral: true}

func newCluster(nodes int, slots ...float64) *hostCluster {
	space, err := resource.NewSpace(resource.CPU, resource.MapSlot, resource.ReduceSlot, thirdSlot)
	if err != nil {
		panic(err)
	}
	c := &hostCluster{space: space}
	for range nodes {
		c.addNode(append([]float64{8}, slots...)...)
	}
	c.recount()
	return c
}

// ---------------------------------------------------------------------
// sim drives one or two schedulers (the indexed one and the literal one)
// in lockstep through a little cluster simulation, checking invariants.

type task struct {
	job        *hostJob
	phase      int
	node       *hostNode
	start, end time.Time
}

type sim struct {
	rng      *rand.Rand
	cl       *hostCluster
	scheds   []*lss.Scheduler
	jobs     map[schedkit.JobID]*hostJob
	running  []task
	now      time.Time
	decs     [][]lss.Decision
	pending  []lss.Decision // assignments applied late (delay mode)
	held     map[schedkit.JobID]bool
	phases   int
	hints    bool  // the schedulers run with PhaseTaskTimeHints
	kinds    []int // phase → slot kind's index in the Space
	failf    func(format string, args ...any)
	kills    int
	assigned int
	done     int
	nextID   int
	idPool   []schedkit.JobID // recycled IDs, for allocation-free benchmarks
	jobPool  []*hostJob
	onEnd    func(j *hostJob) // called when a job ends (done or killed)
}

func newSim(rng *rand.Rand, cl *hostCluster, phases int, cfgs []lss.Config, failf func(string, ...any)) *sim {
	s := &sim{rng: rng, cl: cl, jobs: map[schedkit.JobID]*hostJob{}, held: map[schedkit.JobID]bool{}, now: t0, phases: phases, failf: failf}
	s.hints = cfgs[0].PhaseTaskTimeHints
	kinds := cfgs[0].PhaseKinds
	if len(kinds) == 0 {
		kinds = lss.DefaultPhaseKinds
	}
	for _, name := range kinds[:phases] {
		i, _ := cl.space.Index(name)
		s.kinds = append(s.kinds, i)
	}
	for _, cfg := range cfgs {
		cfg.Cluster = cl
		sch, err := lss.New(cfg)
		if err != nil {
			failf("New: %v", err)
		}
		s.scheds = append(s.scheds, sch)
		s.decs = append(s.decs, make([]lss.Decision, 0, 64))
	}
	return s
}

// call runs fn on every scheduler and checks they return the same error.
func (s *sim) call(what string, fn func(*lss.Scheduler) error) error {
	var first error
	for i, sch := range s.scheds {
		err := fn(sch)
		if i == 0 {
			first = err
		} else if fmt.Sprint(err) != fmt.Sprint(first) {
			s.failf("%s: scheduler %d error %v, scheduler 0 error %v", what, i, err, first)
		}
	}
	return first
}

func (s *sim) newID() schedkit.JobID {
	if n := len(s.idPool); n > 0 {
		id := s.idPool[n-1]
		s.idPool = s.idPool[:n-1]
		return id
	}
	s.nextID++
	return schedkit.JobID(fmt.Sprintf("j%05d", s.nextID))
}

// randomJob makes a job submitted now with random tasks and deadline.
func (s *sim) randomJob() *hostJob {
	var j *hostJob
	if n := len(s.jobPool); n > 0 {
		j = s.jobPool[n-1]
		s.jobPool = s.jobPool[:n-1]
	} else {
		j = &hostJob{ph: make([]schedkit.PhaseProgress, s.phases), base: make([]time.Duration, s.phases)}
	}
	j.id = s.newID()
	j.submitted = s.now
	work := time.Duration(0)
	for p := range s.phases {
		n := 1 + s.rng.IntN(12)
		if p > 0 {
			n = s.rng.IntN(3)
		}
		j.ph[p] = schedkit.PhaseProgress{Total: n}
		j.base[p] = time.Duration(5+s.rng.IntN(40)) * sec
		work += time.Duration(n) * j.base[p]
	}
	j.ph[0].Ready = j.ph[0].Total
	j.deadline = time.Time{}
	if s.rng.IntN(10) > 0 {
		// between a tenth and twice the job's serial work
		j.deadline = s.now.Add(work/10 + time.Duration(s.rng.Int64N(int64(2*work)+1)))
		if s.rng.IntN(2) == 0 {
			// coarse deadlines, so that ties in spare time and deadline
			// exercise the submission and ID tie-breaks
			j.deadline = j.deadline.Truncate(20 * sec)
			if j.deadline.Before(s.now) {
				j.deadline = s.now
			}
		}
	}
	j.hint = 0
	if s.rng.IntN(2) == 0 {
		j.hint = j.base[0]
	}
	s.phaseHints(j)
	return j
}

// phaseHints gives j per-phase task time hints of every kind — none, a
// zero "hint", the true nominal time, an over- and an underestimate —
// chosen from the job number, so that they draw nothing from the random
// source and leave the event sequences of the other variants unchanged.
func (s *sim) phaseHints(j *hostJob) {
	if cap(j.phint) < s.phases {
		j.phint = make([]time.Duration, s.phases)
		j.phintOK = make([]bool, s.phases)
	}
	j.phint, j.phintOK = j.phint[:s.phases], j.phintOK[:s.phases]
	for p := range s.phases {
		k := (s.nextID*7 + 3*p) % 5
		j.phint[p], j.phintOK[p] = 0, k != 0
		switch k {
		case 2:
			j.phint[p] = j.base[p]
		case 3:
			j.phint[p] = 3 * j.base[p]
		case 4:
			j.phint[p] = j.base[p] / 4
		}
	}
}

func (s *sim) submit(j *hostJob) error {
	var sj schedkit.Job = j
	if j.hint > 0 {
		sj = hintJob{j}
	}
	err := s.call("Submit "+string(j.id), func(sch *lss.Scheduler) error { return sch.Submit(s.now, sj) })
	if err == nil {
		s.jobs[j.id] = j
	}
	return err
}

func (s *sim) update(j *hostJob) {
	if s.held[j.id] {
		return // assignments not yet applied: the host waits
	}
	if err := s.call("Update "+string(j.id), func(sch *lss.Scheduler) error { return sch.Update(j.id) }); err != nil {
		s.failf("Update %s: %v", j.id, err)
	}
}

// heartbeat heartbeats node on every scheduler, compares decisions,
// checks invariants and applies them (now or, with delay, after the
// next heartbeat).
func (s *sim) heartbeat(n *hostNode, delay bool) {
	for i, sch := range s.scheds {
		var err error
		s.decs[i], err = sch.Heartbeat(s.now, n, s.decs[i][:0])
		if err != nil {
			s.failf("Heartbeat: %v", err)
			return
		}
	}
	for i := 1; i < len(s.scheds); i++ {
		if d := diffDecisions(s.decs[0], s.decs[i]); d != "" {
			s.failf("at %v on %s: fast and literal differ:\n%s", s.now.Sub(t0), n.id, d)
		}
	}
	// Apply kills at once (the scheduler has dropped those jobs), then
	// assignments now or later.
	killed := map[schedkit.JobID]bool{}
	for _, d := range s.decs[0] {
		if d.Action == lss.Kill {
			killed[d.Job] = true
			s.killJob(d.Job)
		}
	}
	if !delay {
		s.applyPending()
	}
	used := map[int]int{}
	for _, d := range s.decs[0] {
		switch d.Action {
		case lss.Assign:
			if killed[d.Job] {
				s.failf("assignment to job %s killed in the same heartbeat", d.Job)
			}
			k := s.slotIndex(int(d.Phase))
			used[k] += d.Count
			if float64(d.Count) > n.avail[k] {
				s.failf("node %s over-assigned (%d of kind %d used): %v", n.id, used[k], k, s.decs[0])
			}
			n.avail[k] -= float64(d.Count) // the host reserves the slots at once
			s.assigned += d.Count
			s.pending = append(s.pending, d)
			s.held[d.Job] = true
		}
	}
	if !delay {
		s.applyPending()
	}
}

func (s *sim) slotIndex(p int) int { return s.kinds[p] }

func (s *sim) applyPending() {
	touched := map[schedkit.JobID]*hostJob{}
	for _, d := range s.pending {
		j, ok := s.jobs[d.Job]
		if !ok {
			// killed or withdrawn meanwhile: release the reserved slots
			if node := s.nodeByID(d.Node); node != nil {
				node.avail[s.slotIndex(int(d.Phase))] += float64(d.Count)
			}
			continue
		}
		node := s.nodeByID(d.Node)
		p := int(d.Phase)
		pr := &j.ph[p]
		if pr.Ready < d.Count {
			s.failf("job %s over-assigned: %d tasks of phase %d, %d ready", d.Job, d.Count, p, pr.Ready)
			continue
		}
		if node == nil {
			// node gone: the host cannot start them; nothing changes
			touched[j.id] = j
			continue
		}
		pr.Ready -= d.Count
		pr.Running += d.Count
		pr.RunningStartSum += time.Duration(d.Count) * s.now.Sub(j.submitted)
		for range d.Count {
			dur := j.base[p] * time.Duration(80+s.rng.IntN(41)) / 100
			s.running = append(s.running, task{job: j, phase: p, node: node, start: s.now, end: s.now.Add(dur)})
		}
		touched[j.id] = j
	}
	s.pending = s.pending[:0]
	clear(s.held)
	for _, id := range sortedIDs(touched) {
		s.update(touched[id])
	}
}

func (s *sim) nodeByID(id schedkit.NodeID) *hostNode {
	for _, n := range s.cl.nodes {
		if n.id == id {
			return n
		}
	}
	return nil
}

func (s *sim) killJob(id schedkit.JobID) {
	j := s.jobs[id]
	if j == nil {
		s.failf("kill of unknown job %s", id)
		return
	}
	s.kills++
	s.dropTasks(j)
	delete(s.jobs, id)
	delete(s.held, id)
	if s.onEnd != nil {
		s.onEnd(j)
	}
}

func (s *sim) dropTasks(j *hostJob) {
	k := 0
	for _, t := range s.running {
		if t.job == j {
			t.node.avail[s.slotIndex(t.phase)]++
			continue
		}
		s.running[k] = t
		k++
	}
	clear(s.running[k:])
	s.running = s.running[:k]
}

// finish completes running task i at its end time (time moves there if
// it is later than now).
func (s *sim) finish(i int) {
	t := s.running[i]
	s.running[i] = s.running[len(s.running)-1]
	s.running[len(s.running)-1] = task{}
	s.running = s.running[:len(s.running)-1]
	if t.end.After(s.now) {
		s.now = t.end
	}
	t.node.avail[s.slotIndex(t.phase)]++
	j := t.job
	pr := &j.ph[t.phase]
	pr.Running--
	pr.Finished++
	pr.FinishedDurationSum += s.now.Sub(t.start)
	pr.RunningStartSum -= t.start.Sub(j.submitted)
	if pr.Finished == pr.Total && t.phase+1 < len(j.ph) {
		next := &j.ph[t.phase+1]
		next.Ready = next.Total - next.Running - next.Finished
	}
	if s.complete(j) {
		s.done++
		delete(s.jobs, j.id)
		s.call("Remove "+string(j.id), func(sch *lss.Scheduler) error { return sch.Remove(j.id) })
		if s.onEnd != nil {
			s.onEnd(j)
		}
		return
	}
	s.update(j)
}

func (s *sim) complete(j *hostJob) bool {
	for _, pr := range j.ph {
		if pr.Finished < pr.Total {
			return false
		}
	}
	return true
}

// finishDue completes every task that has ended by now.
func (s *sim) finishDue() {
	for i := 0; i < len(s.running); {
		if !s.running[i].end.After(s.now) {
			s.finish(i)
			continue
		}
		i++
	}
}

// failNode takes node i out of the cluster; its tasks go back to ready.
func (s *sim) failNode(i int) {
	if len(s.cl.nodes) <= 1 {
		return
	}
	n := s.cl.nodes[i]
	s.cl.nodes = append(s.cl.nodes[:i], s.cl.nodes[i+1:]...)
	s.cl.recount()
	k := 0
	touched := map[schedkit.JobID]*hostJob{}
	for _, t := range s.running {
		if t.node != n {
			s.running[k] = t
			k++
			continue
		}
		pr := &t.job.ph[t.phase]
		pr.Running--
		pr.Ready++
		pr.RunningStartSum -= t.start.Sub(t.job.submitted)
		touched[t.job.id] = t.job
	}
	s.running = s.running[:k]
	for _, id := range sortedIDs(touched) {
		s.update(touched[id])
	}
}

func sortedIDs(m map[schedkit.JobID]*hostJob) []schedkit.JobID {
	ids := make([]schedkit.JobID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	for i := 1; i < len(ids); i++ {
		for k := i; k > 0 && ids[k] < ids[k-1]; k-- {
			ids[k], ids[k-1] = ids[k-1], ids[k]
		}
	}
	return ids
}

func diffDecisions(a, b []lss.Decision) string {
	if len(a) == len(b) {
		same := true
		for i := range a {
			if !sameDecision(a[i], b[i]) {
				same = false
				break
			}
		}
		if same {
			return ""
		}
	}
	out := ""
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = fmt.Sprintf("%v %+v", a[i], a[i].Figures.Spare)
		}
		if i < len(b) {
			y = fmt.Sprintf("%v %+v", b[i], b[i].Figures.Spare)
		}
		mark := "  "
		if x != y {
			mark = "≠ "
		}
		out += fmt.Sprintf("%s%-60s | %s\n", mark, x, y)
	}
	return out
}

func sameDecision(a, b lss.Decision) bool {
	fa, fb := a.Figures, b.Figures
	a.Figures, b.Figures = lss.Figures{}, lss.Figures{}
	return a == b && fa.Now.Equal(fb.Now) && fa.Deadline.Equal(fb.Deadline) &&
		fa.Spare == fb.Spare && fa.TaskTime == fb.TaskTime && fa.Remaining == fb.Remaining
}
