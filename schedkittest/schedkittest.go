package schedkittest

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// Job is an in-memory schedkit.Job. Its fields are the host's state; the
// methods read them. It also implements lss's TaskTimeHinter and
// PhaseTaskTimeHinter over Hint and PhaseHints.
type Job struct {
	Key         schedkit.JobID
	SubmittedAt time.Time
	DeadlineAt  time.Time // zero: no deadline
	Counters    []schedkit.PhaseProgress
	// Nominal is, per phase, the task run time a simulated host draws
	// task durations around; the job's readers never see it.
	Nominal []time.Duration
	// Hint is the job's a-priori task time (TaskTimeHint); zero: none.
	Hint time.Duration
	// PhaseHints and PhaseHintSet are the per-phase task time hints
	// (PhaseTaskTimeHint); a phase beyond them, or not set, has none.
	PhaseHints   []time.Duration
	PhaseHintSet []bool
}

var _ schedkit.Job = (*Job)(nil)

// NewJob returns a job submitted at submitted with the given deadline
// (zero: none) and task counts per phase; phase 0's tasks are ready, later
// phases' are not (see MakeReady). Nominal task times are 20 s.
func NewJob(id schedkit.JobID, submitted, deadline time.Time, tasks ...int) *Job {
	j := &Job{Key: id, SubmittedAt: submitted, DeadlineAt: deadline}
	for p, n := range tasks {
		pr := schedkit.PhaseProgress{Total: n}
		if p == 0 {
			pr.Ready = n
		}
		j.Counters = append(j.Counters, pr)
		j.Nominal = append(j.Nominal, 20*time.Second)
	}
	return j
}

// ID returns Key.
func (j *Job) ID() schedkit.JobID { return j.Key }

// Submitted returns SubmittedAt.
func (j *Job) Submitted() time.Time { return j.SubmittedAt }

// Deadline returns DeadlineAt.
func (j *Job) Deadline() time.Time { return j.DeadlineAt }

// Phases returns len(Counters).
func (j *Job) Phases() int { return len(j.Counters) }

// Progress returns Counters[p].
func (j *Job) Progress(p schedkit.Phase) schedkit.PhaseProgress { return j.Counters[p] }

// TaskTimeHint returns Hint (lss.TaskTimeHinter).
func (j *Job) TaskTimeHint() time.Duration { return j.Hint }

// PhaseTaskTimeHint returns phase p's hint, if set (lss.PhaseTaskTimeHinter).
func (j *Job) PhaseTaskTimeHint(p schedkit.Phase) (time.Duration, bool) {
	if int(p) >= len(j.PhaseHints) || int(p) >= len(j.PhaseHintSet) {
		return 0, false
	}
	return j.PhaseHints[p], j.PhaseHintSet[p]
}

// Start starts one ready task of phase p at at
// (schedkit.PhaseProgress.Start).
func (j *Job) Start(p schedkit.Phase, at time.Time) error {
	return j.Counters[p].Start(j.SubmittedAt, at)
}

// Finish ends one running task of phase p, started at started, with
// success at at (schedkit.PhaseProgress.Finish). When the phase is done,
// the next phase's pending tasks become ready.
func (j *Job) Finish(p schedkit.Phase, started, at time.Time) error {
	if err := j.Counters[p].Finish(j.SubmittedAt, started, at); err != nil {
		return err
	}
	if int(p)+1 < len(j.Counters) && j.Counters[p].Done() {
		next := &j.Counters[p+1]
		_ = next.MakeReady(next.Pending() - next.Ready)
	}
	return nil
}

// Stop ends one running task of phase p, started at started, without
// success; it is ready again (schedkit.PhaseProgress.Stop).
func (j *Job) Stop(p schedkit.Phase, started time.Time) error {
	return j.Counters[p].Stop(j.SubmittedAt, started, true)
}

// Done reports whether every task of every phase has finished.
func (j *Job) Done() bool {
	for _, pr := range j.Counters {
		if !pr.Done() {
			return false
		}
	}
	return true
}

// Node is an in-memory schedkit.Node.
type Node struct {
	Key      schedkit.NodeID
	RackName schedkit.RackID
	Cap      resource.Vector // capacity
	Free     resource.Vector // available
	Accels   []schedkit.AcceleratorInfo
}

var _ schedkit.Node = (*Node)(nil)

// ID returns Key.
func (n *Node) ID() schedkit.NodeID { return n.Key }

// Rack returns RackName.
func (n *Node) Rack() schedkit.RackID { return n.RackName }

// Capacity returns Cap.
func (n *Node) Capacity() resource.Vector { return n.Cap }

// Available returns Free.
func (n *Node) Available() resource.Vector { return n.Free }

// Accelerators returns Accels.
func (n *Node) Accelerators() []schedkit.AcceleratorInfo { return n.Accels }

// ErrNoRoom is returned by Take when the node has too little free.
var ErrNoRoom = errors.New("schedkittest: not enough free on the node")

// Take reserves amount of kind k (an index in the Space): Free[k] −
// amount. It fails, changing nothing, if less than amount is free.
func (n *Node) Take(k int, amount float64) error {
	if amount > n.Free[k] {
		return fmt.Errorf("%w: node %q: %v of kind %d asked, %v free", ErrNoRoom, n.Key, amount, k, n.Free[k])
	}
	n.Free[k] -= amount
	return nil
}

// Release frees amount of kind k again: Free[k] + amount, at most Cap[k].
func (n *Node) Release(k int, amount float64) {
	n.Free[k] = min(n.Free[k]+amount, n.Cap[k])
}

// Cluster is an in-memory schedkit.Cluster: a list of live nodes, an
// index of them by ID and the sum of their capacities, kept by AddNode
// and RemoveNode (change NodeList only through them, and call Recount
// after changing a node's Cap by hand).
type Cluster struct {
	Resources *resource.Space
	NodeList  []*Node
	Cap       resource.Vector // Σ NodeList[i].Cap
	added     int
	byID      map[schedkit.NodeID]*Node
}

var (
	_ schedkit.Cluster    = (*Cluster)(nil)
	_ schedkit.NodeLookup = (*Cluster)(nil)
)

// NewCluster returns an empty cluster over space.
func NewCluster(space *resource.Space) *Cluster {
	return &Cluster{Resources: space, Cap: space.Zero()}
}

// Space returns Resources.
func (c *Cluster) Space() *resource.Space { return c.Resources }

// Nodes returns len(NodeList).
func (c *Cluster) Nodes() int { return len(c.NodeList) }

// Node returns NodeList[i].
func (c *Cluster) Node(i int) schedkit.Node { return c.NodeList[i] }

// Capacity returns Cap.
func (c *Cluster) Capacity() resource.Vector { return c.Cap }

// AddNode adds a node with the given capacity, all of it free, and
// returns it. An empty id names it "nNN" from the count of nodes ever
// added, so a new node never takes a removed one's ID.
func (c *Cluster) AddNode(id schedkit.NodeID, rack schedkit.RackID, capacity resource.Vector) *Node {
	if id == "" {
		id = schedkit.NodeID(fmt.Sprintf("n%02d", c.added))
	}
	c.added++
	n := &Node{Key: id, RackName: rack, Cap: c.Resources.Zero()}
	copy(n.Cap, capacity)
	n.Free = n.Cap.Clone()
	c.NodeList = append(c.NodeList, n)
	if c.byID == nil {
		c.byID = make(map[schedkit.NodeID]*Node)
	}
	c.byID[id] = n
	c.Recount()
	return n
}

// RemoveNode takes the node with ID id out of the cluster and returns it,
// or nil if there is none.
func (c *Cluster) RemoveNode(id schedkit.NodeID) *Node {
	i := slices.IndexFunc(c.NodeList, func(n *Node) bool { return n.Key == id })
	if i < 0 {
		return nil
	}
	n := c.NodeList[i]
	c.NodeList = slices.Delete(c.NodeList, i, i+1)
	delete(c.byID, id)
	c.Recount()
	return n
}

// Lookup returns the node with ID id, or nil.
func (c *Cluster) Lookup(id schedkit.NodeID) *Node { return c.byID[id] }

// LookupNode returns the node with ID id (schedkit.NodeLookup), in O(1).
func (c *Cluster) LookupNode(id schedkit.NodeID) (schedkit.Node, bool) {
	n, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	return n, true
}

// Pick returns node i modulo the node count (a round-robin or random
// choice without bounds checks).
func (c *Cluster) Pick(i int) *Node { return c.NodeList[i%len(c.NodeList)] }

// Recount sets Cap to the sum of the nodes' capacities.
func (c *Cluster) Recount() {
	c.Cap = c.Resources.Zero()
	for _, n := range c.NodeList {
		_ = c.Cap.Add(n.Cap)
	}
}

// Check runs schedkit.CheckCluster on c and schedkit.CheckJob on each of
// jobs: the self-checks a host runs in its tests after every change.
func Check(c *Cluster, jobs ...*Job) error {
	if err := schedkit.CheckCluster(c); err != nil {
		return err
	}
	for _, j := range jobs {
		if err := schedkit.CheckJob(j); err != nil {
			return err
		}
	}
	return nil
}

// Task is an in-memory schedkit.Task.
type Task struct {
	Key       schedkit.TaskID
	JobKey    schedkit.JobID
	PhaseOf   schedkit.Phase
	Similar   schedkit.SimilarityKey
	Request   resource.Vector
	DueAt     time.Time // zero: none
	Locations []schedkit.NodeID
}

var _ schedkit.Task = (*Task)(nil)

// ID returns Key.
func (t *Task) ID() schedkit.TaskID { return t.Key }

// Job returns JobKey.
func (t *Task) Job() schedkit.JobID { return t.JobKey }

// Phase returns PhaseOf.
func (t *Task) Phase() schedkit.Phase { return t.PhaseOf }

// Similarity returns Similar.
func (t *Task) Similarity() schedkit.SimilarityKey { return t.Similar }

// Requested returns Request.
func (t *Task) Requested() resource.Vector { return t.Request }

// Deadline returns DueAt.
func (t *Task) Deadline() time.Time { return t.DueAt }

// DataLocations returns Locations.
func (t *Task) DataLocations() []schedkit.NodeID { return t.Locations }
