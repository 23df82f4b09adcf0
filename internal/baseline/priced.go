package baseline

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// PricedCapacity is Capacity whose queues each charge a price: a job is
// charged its queue's (its class's) price from its first heartbeat on,
// before any of its tasks can start (a SetPrice decision ahead of
// Capacity's own). It is the baseline paper 003's DBS is compared with
// on DBS's own terms: three queues, low, mid and high, at DBS's shares
// and prices (NewCapacity3). A job whose class has no price is charged
// the simulator's default price.
//
// Heartbeats of full nodes are delivered (it is no FullNodeSkipper): a
// job is priced at the next heartbeat of any node. Not safe for
// concurrent use.
type PricedCapacity struct {
	capacity *Capacity
	name     string
	prices   map[string]resource.Vector
	pending  []*sim.Job // submitted, not priced yet
}

var (
	_ sim.TaskWatcher = (*PricedCapacity)(nil)
	_ sim.JobWatcher  = (*PricedCapacity)(nil)
)

// NewCapacity3 returns Capacity with three queues, low, mid and high
// (the classes of paper 003's workloads, one per φ), at shares (low,
// mid, high), each charging base (the simulator's Config.Prices) times
// 1 − spread, 1 and 1 + spread: "Capacity (3 queues)". It returns a
// *ConfigError for a missing or invalid base, a spread outside [0, 1)
// or invalid shares (NewCapacity).
func NewCapacity3(base resource.Vector, shares [3]float64, spread float64) (*PricedCapacity, error) {
	if len(base) == 0 {
		return nil, &ConfigError{Field: "base", Reason: "no price (the simulator's Config.Prices)"}
	}
	if err := base.Validate(); err != nil {
		return nil, &ConfigError{Field: "base", Reason: err.Error()}
	}
	if !(spread >= 0 && spread < 1) {
		return nil, &ConfigError{Field: "spread", Reason: fmt.Sprintf("%v is outside [0, 1)", spread)}
	}
	names := [3]string{"low", "mid", "high"}
	factors := [3]float64{1 - spread, 1, 1 + spread}
	cfg := CapacityConfig{Shares: map[string]float64{}}
	p := &PricedCapacity{name: "Capacity (3 queues)", prices: map[string]resource.Vector{}}
	for i, q := range names {
		cfg.Shares[q] = shares[i]
		v := base.Clone()
		for k := range v {
			v[k] *= factors[i]
		}
		p.prices[q] = v
	}
	var err error
	if p.capacity, err = NewCapacity(cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// Name implements sim.Policy.
func (p *PricedCapacity) Name() string { return p.name }

// Submit implements sim.Policy: Capacity queues the job, and it is
// priced at the next heartbeat.
func (p *PricedCapacity) Submit(now time.Time, j *sim.Job) error {
	if err := p.capacity.Submit(now, j); err != nil {
		return err
	}
	p.pending = append(p.pending, j)
	return nil
}

// Heartbeat implements sim.Policy: the prices of the jobs submitted
// since the last heartbeat (still active), then Capacity's decisions.
func (p *PricedCapacity) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	for i, j := range p.pending {
		p.pending[i] = nil
		if !j.Active() {
			continue
		}
		if v, ok := p.prices[j.Class()]; ok {
			dst = append(dst, sim.PriceJob(j, v))
		}
	}
	p.pending = p.pending[:0]
	return p.capacity.Heartbeat(now, n, c, dst)
}

// TaskEnded implements sim.TaskWatcher (Capacity's index hears of every
// task end).
func (p *PricedCapacity) TaskEnded(now time.Time, t *sim.Task, state schedkit.TaskState) error {
	return p.capacity.TaskEnded(now, t, state)
}

// JobEnded implements sim.JobWatcher.
func (p *PricedCapacity) JobEnded(now time.Time, j *sim.Job, outcome sim.Outcome) error {
	return p.capacity.JobEnded(now, j, outcome)
}
