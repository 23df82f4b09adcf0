package policy

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
	"github.com/schedkit/schedkit/internal/sim"
)

// AccelConfig configures an Accel policy (the accel experiment's host).
type AccelConfig struct {
	// Name heads the column.
	Name string
	// Binding is the binding table's configuration (the option measured).
	Binding binding.Config
	// Accel sends every task to an accelerator: its own node's if it has
	// one, else the ANode its node (or container) is bound to. Off, every
	// task runs on its own node's CPU (Cluster4-0).
	Accel bool
	// Pull lets a free container take the next task of the job, wherever
	// it was dealt; off, each container runs the tasks dealt to it
	// (static spread, the paper's setting).
	Pull bool
	// Containers is the number of containers per node.
	Containers int
}

// Accel plays the YARN side of paper 001 in the simulator: it keeps
// a binding.Table fed with node joins, departures and heartbeats, carries
// out its moves (sim Bind decisions for node-level binding; for
// container-level binding each task is pinned to its container's ANode
// when it starts), and runs the tasks dealt to each container one after
// the other. A container whose unit is unbound waits.
type Accel struct {
	cfg     AccelConfig
	tab     *binding.Table
	byID    map[schedkit.NodeID]*sim.Node
	sims    []*sim.Node // by index
	nodes   []accelNode
	running map[*sim.Task]accelSlot
	pending accelQueue // pull mode: the job's tasks not started
	touched []int
	mark    []bool
}

var (
	_ sim.Policy      = (*Accel)(nil)
	_ sim.NodeWatcher = (*Accel)(nil)
	_ sim.TaskWatcher = (*Accel)(nil)
)

type accelNode struct {
	up    bool
	busy  []bool
	queue []accelQueue // static mode: per container
	dealt int
}

type accelSlot struct{ node, container int }

// accelQueue is a FIFO of tasks with a retry stack in front.
type accelQueue struct {
	retry []*sim.Task
	items []*sim.Task
	head  int
}

func (q *accelQueue) peek() *sim.Task {
	if n := len(q.retry); n > 0 {
		return q.retry[n-1]
	}
	if q.head < len(q.items) {
		return q.items[q.head]
	}
	return nil
}

func (q *accelQueue) pop() {
	if n := len(q.retry); n > 0 {
		q.retry = q.retry[:n-1]
		return
	}
	q.items[q.head] = nil
	q.head++
}

// NewAccel returns the policy for a cluster of n nodes. No containers or
// no nodes return ErrConfig; an invalid cfg.Binding returns binding.New's
// error as it is.
func NewAccel(cfg AccelConfig, n int) (*Accel, error) {
	if cfg.Containers <= 0 || n <= 0 {
		return nil, fmt.Errorf("%w: accel policy needs nodes and containers > 0", ErrConfig)
	}
	tab, err := binding.New(cfg.Binding)
	if err != nil {
		return nil, err
	}
	p := &Accel{cfg: cfg, tab: tab, running: map[*sim.Task]accelSlot{},
		nodes: make([]accelNode, n), sims: make([]*sim.Node, n), mark: make([]bool, n)}
	for i := range p.nodes {
		p.nodes[i].busy = make([]bool, cfg.Containers)
		p.nodes[i].queue = make([]accelQueue, cfg.Containers)
	}
	return p, nil
}

// Name implements sim.Policy.
func (p *Accel) Name() string { return p.cfg.Name }

// Submit deals the job's tasks: each to the node its Locations name (else
// round robin), and on that node to containers in turn; in pull mode they
// join one queue.
func (p *Accel) Submit(_ time.Time, j *sim.Job) error {
	for ph := 0; ph < j.Phases(); ph++ {
		for i := 0; i < j.Tasks(schedkit.Phase(ph)); i++ {
			t := j.Task(schedkit.Phase(ph), i)
			if p.cfg.Pull {
				p.pending.items = append(p.pending.items, t)
				continue
			}
			ni := i % len(p.nodes)
			if locs := t.Locations(); len(locs) > 0 {
				ni = locs[0]
			}
			if ni >= len(p.nodes) {
				return fmt.Errorf("task %s on node %d: accel policy built for %d nodes", t.ID(), ni, len(p.nodes))
			}
			n := &p.nodes[ni]
			c := n.dealt % p.cfg.Containers
			n.dealt++
			n.queue[c].items = append(n.queue[c].items, t)
		}
	}
	return nil
}

func (p *Accel) status(n *sim.Node) binding.NodeStatus {
	return binding.NodeStatus{ID: n.ID(), Rack: n.Rack(), Accelerators: n.Accelerators(), Containers: p.cfg.Containers}
}

// Heartbeat implements sim.Policy: the node's status goes to the table,
// then its free containers take their next tasks.
func (p *Accel) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	moves, err := p.tab.Heartbeat(now, p.status(n))
	if err != nil {
		return dst, err
	}
	dst = p.carryOut(moves, dst)
	dst = p.dispatch(n, dst)
	return p.dispatchTouched(dst), nil
}

// NodeChanged implements sim.NodeWatcher: a node joining is added to the
// table, one leaving is removed; the moves are carried out.
func (p *Accel) NodeChanged(now time.Time, n *sim.Node, up bool, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	if p.byID == nil {
		if c.AllNodes() != len(p.nodes) {
			return dst, fmt.Errorf("accel policy built for %d nodes, cluster has %d", len(p.nodes), c.AllNodes())
		}
		p.byID = make(map[schedkit.NodeID]*sim.Node, len(p.nodes))
		for i := range p.nodes {
			m := c.NodeByIndex(i)
			p.byID[m.ID()] = m
			p.sims[i] = m
		}
	}
	var moves []binding.Move
	var err error
	if up {
		moves, err = p.tab.Add(now, p.status(n))
	} else {
		moves, err = p.tab.Remove(n.ID())
	}
	if err != nil {
		return dst, err
	}
	p.nodes[n.Index()].up = up
	dst = p.carryOut(moves, dst)
	if up {
		dst = p.dispatch(n, dst)
	}
	return p.dispatchTouched(dst), nil
}

// TaskEnded implements sim.TaskWatcher: the container is free; a task
// that failed (its node or its pinned ANode went down) goes back to the
// front of its queue.
func (p *Accel) TaskEnded(_ time.Time, t *sim.Task, state schedkit.TaskState) error {
	s, ok := p.running[t]
	if !ok {
		return nil
	}
	delete(p.running, t)
	n := &p.nodes[s.node]
	n.busy[s.container] = false
	if state == schedkit.TaskSucceeded {
		return nil
	}
	if p.cfg.Pull {
		p.pending.retry = append(p.pending.retry, t)
	} else {
		n.queue[s.container].retry = append(n.queue[s.container].retry, t)
	}
	p.touch(s.node)
	return nil
}

// carryOut turns the table's moves into sim decisions: with node-level
// binding the node is bound (Bind) to its unit's new ANode, or unbound if
// it now waits or serves itself; with containers nothing moves at once
// (each task is pinned when it starts). Every moved node may now start
// tasks.
func (p *Accel) carryOut(moves []binding.Move, dst []sim.Decision) []sim.Decision {
	for _, m := range moves {
		n := p.byID[m.Node]
		if n == nil || !p.nodes[n.Index()].up {
			continue
		}
		p.touch(n.Index())
		if p.cfg.Binding.Containers {
			continue
		}
		var to *sim.Node
		if m.To != m.Node {
			to = p.byID[m.To]
		}
		dst = append(dst, sim.BindNode(n, to))
	}
	return dst
}

func (p *Accel) touch(i int) {
	if !p.mark[i] {
		p.mark[i] = true
		p.touched = append(p.touched, i)
	}
}

func (p *Accel) dispatchTouched(dst []sim.Decision) []sim.Decision {
	for _, i := range p.touched {
		p.mark[i] = false
		dst = p.dispatch(p.sims[i], dst)
	}
	p.touched = p.touched[:0]
	return dst
}

// dispatch starts the next task in every free container of n whose
// accelerator is known.
func (p *Accel) dispatch(n *sim.Node, dst []sim.Decision) []sim.Decision {
	if n == nil {
		return dst
	}
	ni := n.Index()
	st := &p.nodes[ni]
	if !st.up {
		return dst
	}
	role, _ := p.tab.Role(n.ID())
	for c := range st.busy {
		if st.busy[c] {
			continue
		}
		q := &p.pending
		if !p.cfg.Pull {
			q = &st.queue[c]
		}
		t := q.peek()
		if t == nil {
			continue
		}
		d := sim.AssignTask(t, n)
		if p.cfg.Accel && role == binding.NNode {
			if !p.cfg.Binding.Containers {
				if _, ok := p.tab.Lookup(n.ID()); !ok {
					continue // unbound: wait for an ANode
				}
			} else {
				a, ok := p.tab.LookupContainer(n.ID(), c)
				if !ok {
					continue
				}
				d.Target = p.byID[a]
			}
		}
		q.pop()
		st.busy[c] = true
		p.running[t] = accelSlot{ni, c}
		dst = append(dst, d)
	}
	return dst
}
