package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// Defaults used when the corresponding Config field is zero.
const (
	// DefaultHeartbeat is Hadoop-1's TaskTracker heartbeat interval for
	// small clusters.
	DefaultHeartbeat = 3 * time.Second
	// DefaultSlowStart is Hadoop's mapred.reduce.slowstart.completed.maps:
	// reduces become ready once 5% of the maps finished. Config.SlowStart
	// is taken literally (0 means "at once"); DefaultConfig sets this.
	DefaultSlowStart = 0.05
	// DefaultMetricsInterval is the period of metrics samples
	// (Run.Samples).
	DefaultMetricsInterval = time.Minute
	// DefaultUsageSampleInterval is the node agent's usage sampling period
	// (Config.SampleInterval, UsageWatcher).
	DefaultUsageSampleInterval = 3 * time.Second
	// DefaultSampleNoise is the relative standard deviation of the usage
	// samples' measurement noise that DefaultConfig sets.
	DefaultSampleNoise = 0.05
	// DefaultMaxAttempts is Hadoop's mapred.map.max.attempts: a task that
	// fails this many times fails its job.
	DefaultMaxAttempts = 4
	// defaultStallRounds times the heartbeat interval is the default
	// Config.StallAfter.
	defaultStallRounds = 100
)

// Config describes the cluster and the simulator's rules.
type Config struct {
	// Space is the resource space of every vector (required).
	Space *resource.Space
	// Nodes are the cluster's servers, in order; a workload's task
	// Locations index this slice (required, at least one).
	Nodes []NodeSpec
	// HeartbeatInterval is the period of each node's heartbeat; 0 means
	// DefaultHeartbeat. The N nodes are staggered evenly, offsets
	// 0, interval/N, 2·interval/N... after the cluster wakes, in an order
	// permuted by Seed (a one-node cluster heartbeats at once).
	HeartbeatInterval time.Duration
	// SlowStart is the fraction in [0, 1] of a phase's tasks that must
	// have finished before the next phase's tasks are ready (Hadoop's
	// reduce slow-start). Taken literally: 0 makes them ready at once.
	// Whatever the fraction, a task of phase p computes only after every
	// task of phases < p has finished: started early, it holds its
	// allocation and waits (the shuffle wait of a Hadoop reduce).
	SlowStart float64
	// Penalty is the contention penalty p ≥ 0 of paper 004 formula (5)
	// charged at any over-commit (a step: the same p at rc = 1% as at
	// 60%). Contention adds a penalty that grows with the over-commit;
	// a contended kind slows a task by 1 + Penalty + Contention.Penalty(rc).
	Penalty float64
	// Contention is the penalty of formula (5) as a function of the
	// node's compression rate (see Contention); the zero value adds none.
	Contention Contention
	// Enforcement is what the host enforces of a compressible allocation:
	// Limits (the zero value, a cgroup-quota-like cap) or Shares
	// (work-conserving). See the package doc, "Compression".
	Enforcement Enforcement
	// MetricsInterval is the period of metrics samples
	// (Run.Samples); 0 means DefaultMetricsInterval.
	MetricsInterval time.Duration
	// SampleInterval is the node agent's usage sampling period: a policy
	// implementing UsageWatcher hears every running task's and every live
	// node's measured usage this often while any job is active; 0 means
	// DefaultUsageSampleInterval.
	SampleInterval time.Duration
	// SampleNoise is the relative standard deviation σ ≥ 0 of the
	// multiplicative measurement noise of usage samples: each amount is
	// multiplied by max(0, 1 + σ·z), z standard normal from a generator
	// seeded by Seed (independent of the heartbeat order). 0 means exact
	// samples; DefaultConfig sets DefaultSampleNoise.
	SampleNoise float64
	// TickInterval is the period of Ticker calls while any job is active;
	// 0 means never.
	TickInterval time.Duration
	// MaxAttempts is how many times a task may fail before its job fails;
	// 0 means DefaultMaxAttempts.
	MaxAttempts int
	// Horizon ends the run at this virtual time, leaving unfinished jobs
	// Unfinished; 0 means run until every job has ended.
	Horizon time.Duration
	// StallAfter is how long the run may go without any task progressing,
	// any outside event due, or any decision, while jobs wait, before it
	// ends with ErrStalled; 0 means 100 heartbeat intervals.
	StallAfter time.Duration
	// Seed seeds the simulator's one *rand.Rand (the heartbeat order).
	Seed uint64
	// Background is load no policy controls: step changes of a node's
	// demand, in any order. It contends for compressible kinds and counts
	// towards incompressible over-commit.
	Background []BackgroundStep
	// NodeEvents take nodes down and bring them back.
	NodeEvents []NodeEvent
	// OffloadKinds names compressible kinds that a node without capacity
	// of them borrows from the node it is bound to (Bind decisions): the
	// accelerator-binding model of paper 001. A task on such a node with
	// demand for an offload kind while the node is unbound makes no
	// progress.
	OffloadKinds []string
	// Profile, if set, chooses a task's true profile when an attempt
	// starts on n (for example a GPU profile on a bound node, a CPU one
	// otherwise). The default is the workload's TaskSpec.Profile. The
	// returned stages must be valid in Space; the simulator does not copy
	// them.
	Profile func(t *Task, n *Node) []workload.Stage
	// Prices is the default price vector: a job is charged Prices[k] per
	// unit of kind k allocated per second (per slot-second for slot
	// kinds) until a SetPrice decision gives it its own; nil charges
	// nothing. Cost accrues at the price in force; JobRecord.Cost is the
	// total.
	Prices resource.Vector
	// AfterEvent, if set, is called after every event; a non-nil error
	// stops the run and is returned. Tests pass Sim.CheckInvariants.
	AfterEvent func(s *Sim) error
	// RecordTasks records every task attempt in Run.Tasks (node,
	// start, end, outcome, allocated and true usage, cost). Off by
	// default: a trace day has millions of attempts.
	RecordTasks bool
	// DeliverFullHeartbeats calls Heartbeat for idle nodes (full, or
	// fitting no ready task) even when the policy declares such calls
	// no-ops (FullNodeSkipper). Decisions and
	// metrics are the same either way; only the number of policy calls
	// and the run time differ.
	DeliverFullHeartbeats bool
	// TimingSample times one policy call in TimingSample with the wall
	// clock (two time.Now calls each) instead of every call; 0 or 1
	// times every call. The run's DecisionTime is then an estimate: the
	// timed calls' total scaled by calls/timed calls
	// (Run.TimedCalls says how many were timed). Usage-sample
	// deliveries are always timed. On a trace day, timing every call
	// costs about a tenth of the run.
	TimingSample int
}

// NodeSpec is one server.
type NodeSpec struct {
	ID   schedkit.NodeID
	Rack schedkit.RackID
	// Capacity in Space.
	Capacity resource.Vector
	// Speed multiplies the progress rate of every task on the node
	// (heterogeneous nodes); 0 means 1.
	Speed float64
	// Accelerators as the node reports them.
	Accelerators []schedkit.AcceleratorInfo
	// Down makes the node start down (it may come up via NodeEvents).
	Down bool
}

// BackgroundStep sets node Node's background demand to Demand from time
// At on.
type BackgroundStep struct {
	At     time.Duration
	Node   int
	Demand resource.Vector
}

// NodeEvent takes node Node down (Up false) or brings it back (Up true)
// at time At. A node going down fails the tasks running on it (retried
// elsewhere) and unbinds the nodes bound to it.
type NodeEvent struct {
	At   time.Duration
	Node int
	Up   bool
}

// DefaultConfig returns a Config with the given space and nodes and the
// Hadoop defaults: 3 s heartbeats, 5% reduce slow-start, no contention
// penalty, Limits enforcement, one-minute metrics samples, 3 s usage
// samples with 5% noise, four attempts per task.
func DefaultConfig(space *resource.Space, nodes []NodeSpec) Config {
	return Config{
		Space:             space,
		Nodes:             nodes,
		HeartbeatInterval: DefaultHeartbeat,
		SlowStart:         DefaultSlowStart,
		MetricsInterval:   DefaultMetricsInterval,
		SampleInterval:    DefaultUsageSampleInterval,
		SampleNoise:       DefaultSampleNoise,
		MaxAttempts:       DefaultMaxAttempts,
	}
}

// Enforcement is how the host enforces allocations of compressible kinds.
type Enforcement uint8

const (
	// Limits caps a task's use of a compressible kind at its allocation
	// (a cgroup quota): given a of a kind it demands d > a, it progresses
	// at a/d of its speed (paper 004 formula (4) with rc = 1 − a/d), and
	// formula (5) slows it further when the node's true demand exceeds
	// capacity. The default.
	Limits Enforcement = iota
	// Shares is work-conserving: a task may use idle capacity beyond its
	// allocation; only real contention (node demand over capacity) slows
	// it, by formula (5).
	Shares
)

// String returns "limits" or "shares".
func (e Enforcement) String() string {
	switch e {
	case Limits:
		return "limits"
	case Shares:
		return "shares"
	}
	return fmt.Sprintf("Enforcement(%d)", uint8(e))
}

func cfgErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// normalize validates c and fills in defaults.
func (c *Config) normalize() error {
	for _, check := range []func() error{c.checkNodes, c.checkPeriods, c.checkModel, c.checkOutside, c.checkKinds} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkNodes checks the space and the nodes.
func (c *Config) checkNodes() error {
	if c.Space == nil {
		return cfgErr("Space", "nil")
	}
	if len(c.Nodes) == 0 {
		return cfgErr("Nodes", "no nodes")
	}
	if len(c.Nodes) > math.MaxInt32 {
		return cfgErr("Nodes", "too many nodes")
	}
	ids := make(map[schedkit.NodeID]int, len(c.Nodes))
	for i, n := range c.Nodes {
		f := fmt.Sprintf("Nodes[%d]", i)
		if n.ID == "" {
			return cfgErr(f+".ID", "empty")
		}
		if j, dup := ids[n.ID]; dup {
			return cfgErr(f+".ID", "%q repeats Nodes[%d]", n.ID, j)
		}
		ids[n.ID] = i
		if n.Rack == "" {
			return cfgErr(f+".Rack", "empty")
		}
		if err := c.Space.Validate(n.Capacity); err != nil {
			return cfgErr(f+".Capacity", "%v", err)
		}
		if math.IsNaN(n.Speed) || math.IsInf(n.Speed, 0) || n.Speed < 0 {
			return cfgErr(f+".Speed", "%v is not a finite factor ≥ 0", n.Speed)
		}
		for k, a := range n.Accelerators {
			if err := a.Validate(); err != nil {
				return cfgErr(fmt.Sprintf("%s.Accelerators[%d]", f, k), "%v", err)
			}
		}
	}
	return nil
}

// checkPeriods checks the intervals, durations and counts, filling in
// their defaults.
func (c *Config) checkPeriods() error {
	if c.HeartbeatInterval < 0 {
		return cfgErr("HeartbeatInterval", "negative %v", c.HeartbeatInterval)
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = DefaultHeartbeat
	}
	if int64(c.HeartbeatInterval) > math.MaxInt64/int64(max(len(c.Nodes), defaultStallRounds)) {
		// The stagger computes node·interval, the default StallAfter
		// rounds·interval.
		return cfgErr("HeartbeatInterval", "%v × %d nodes overflows int64 nanoseconds", c.HeartbeatInterval, len(c.Nodes))
	}
	if c.MetricsInterval < 0 {
		return cfgErr("MetricsInterval", "negative %v", c.MetricsInterval)
	}
	if c.MetricsInterval == 0 {
		c.MetricsInterval = DefaultMetricsInterval
	}
	if c.SampleInterval < 0 {
		return cfgErr("SampleInterval", "negative %v", c.SampleInterval)
	}
	if c.SampleInterval == 0 {
		c.SampleInterval = DefaultUsageSampleInterval
	}
	if c.TickInterval < 0 {
		return cfgErr("TickInterval", "negative %v", c.TickInterval)
	}
	if c.TimingSample < 0 {
		return cfgErr("TimingSample", "negative %d", c.TimingSample)
	}
	if c.MaxAttempts < 0 {
		return cfgErr("MaxAttempts", "negative %d", c.MaxAttempts)
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Horizon < 0 {
		return cfgErr("Horizon", "negative %v", c.Horizon)
	}
	if c.StallAfter < 0 {
		return cfgErr("StallAfter", "negative %v", c.StallAfter)
	}
	if c.StallAfter == 0 {
		c.StallAfter = defaultStallRounds * c.HeartbeatInterval
	}
	return nil
}

// checkModel checks the rules tasks progress by: slow-start,
// contention, enforcement, sample noise.
func (c *Config) checkModel() error {
	if !(c.SlowStart >= 0 && c.SlowStart <= 1) {
		return cfgErr("SlowStart", "%v is outside [0, 1]", c.SlowStart)
	}
	if !(c.Penalty >= 0) || math.IsInf(c.Penalty, 0) {
		return cfgErr("Penalty", "%v is not a finite penalty ≥ 0", c.Penalty)
	}
	if r := c.Contention.validate(); r != "" {
		return cfgErr("Contention", "%s", r)
	}
	if c.Enforcement > Shares {
		return cfgErr("Enforcement", "unknown %v", c.Enforcement)
	}
	if !(c.SampleNoise >= 0) || math.IsInf(c.SampleNoise, 0) {
		return cfgErr("SampleNoise", "%v is not a finite deviation ≥ 0", c.SampleNoise)
	}
	return nil
}

// checkOutside checks the outside events: background load and nodes
// going down and up.
func (c *Config) checkOutside() error {
	for i, b := range c.Background {
		f := fmt.Sprintf("Background[%d]", i)
		if b.At < 0 {
			return cfgErr(f+".At", "negative %v", b.At)
		}
		if b.Node < 0 || b.Node >= len(c.Nodes) {
			return cfgErr(f+".Node", "%d out of range", b.Node)
		}
		if err := c.Space.Validate(b.Demand); err != nil {
			return cfgErr(f+".Demand", "%v", err)
		}
	}
	for i, e := range c.NodeEvents {
		f := fmt.Sprintf("NodeEvents[%d]", i)
		if e.At < 0 {
			return cfgErr(f+".At", "negative %v", e.At)
		}
		if e.Node < 0 || e.Node >= len(c.Nodes) {
			return cfgErr(f+".Node", "%d out of range", e.Node)
		}
	}
	return nil
}

// checkKinds checks the offload kinds and the prices.
func (c *Config) checkKinds() error {
	for i, name := range c.OffloadKinds {
		k, ok := c.Space.Index(name)
		if !ok {
			return cfgErr(fmt.Sprintf("OffloadKinds[%d]", i), "unknown kind %q", name)
		}
		if !c.Space.Compressible(k) {
			return cfgErr(fmt.Sprintf("OffloadKinds[%d]", i), "kind %q is not compressible", name)
		}
	}
	if c.Prices != nil {
		if len(c.Prices) != c.Space.Len() {
			return cfgErr("Prices", "%d elements, want %d", len(c.Prices), c.Space.Len())
		}
		if err := c.Prices.Validate(); err != nil {
			return cfgErr("Prices", "%v", err)
		}
	}
	return nil
}
