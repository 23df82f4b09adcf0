package experiment

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/resource"
)

// capacity3Policy is the Capacity baseline with three fixed queues, one
// per φ (the workload's classes must be the queue names, see
// byPhiQueue), at DBS's shares, each job charged its queue's price.
func capacity3Policy() Policy {
	return Policy{Name: "capacity-3q", Doc: "Capacity with the three DBS queues, their shares and prices", New: func(env Env) (sim.Policy, error) {
		shares := map[string]float64{"low": policy.DBSShares[0], "mid": policy.DBSShares[1], "high": policy.DBSShares[2]}
		c, err := baseline.NewCapacity(baseline.CapacityConfig{Shares: shares})
		if err != nil {
			return nil, err
		}
		if len(env.Config.Prices) != env.Config.Space.Len() {
			return nil, paramErr("capacity-3q needs Config.Prices")
		}
		pr := &queuePriced{Policy: c, name: "Capacity (3 queues)"}
		for q, f := range map[string]float64{"low": 1 - policy.DBSPriceSpread, "mid": 1, "high": 1 + policy.DBSPriceSpread} {
			v := env.Config.Prices.Clone()
			for i := range v {
				v[i] *= f
			}
			pr.prices = append(pr.prices, classPrice{q, v})
		}
		return pr, nil
	}}
}

type classPrice struct {
	class string
	price resource.Vector
}

// queuePriced wraps a policy so that each job is charged the price of its
// class from its first heartbeat on (before any of its tasks can start).
type queuePriced struct {
	sim.Policy
	name    string
	prices  []classPrice
	pending []*sim.Job
}

func (q *queuePriced) Name() string { return q.name }

func (q *queuePriced) Submit(now time.Time, j *sim.Job) error {
	if err := q.Policy.Submit(now, j); err != nil {
		return err
	}
	q.pending = append(q.pending, j)
	return nil
}

func (q *queuePriced) Heartbeat(now time.Time, n *sim.Node, c *sim.Cluster, dst []sim.Decision) ([]sim.Decision, error) {
	for i, j := range q.pending {
		q.pending[i] = nil
		if !j.Active() {
			continue
		}
		for _, cp := range q.prices {
			if cp.class == j.Class() {
				dst = append(dst, sim.PriceJob(j, cp.price))
			}
		}
	}
	q.pending = q.pending[:0]
	return q.Policy.Heartbeat(now, n, c, dst)
}

// TaskEnded forwards to the wrapped policy if it watches tasks (the
// baselines' job index relies on hearing of every task end).
func (q *queuePriced) TaskEnded(now time.Time, t *sim.Task, state schedkit.TaskState) {
	if tw, ok := q.Policy.(sim.TaskWatcher); ok {
		tw.TaskEnded(now, t, state)
	}
}

// JobEnded forwards to the wrapped policy if it watches jobs.
func (q *queuePriced) JobEnded(now time.Time, j *sim.Job, outcome metrics.Outcome) {
	if jw, ok := q.Policy.(sim.JobWatcher); ok {
		jw.JobEnded(now, j, outcome)
	}
}
