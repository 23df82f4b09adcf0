package experiment

import (
	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
)

// capacity3Policy is the Capacity baseline with three fixed queues, one
// per φ (the workload's classes must be the queue names, see
// byPhiQueue), at DBS's shares, each job charged its queue's price.
func capacity3Policy() Policy {
	return Policy{Name: "capacity-3q", Doc: "Capacity with the three DBS queues, their shares and prices", New: func(env Env) (sim.Policy, error) {
		return baseline.NewCapacity3(env.Config.Prices, policy.DBSShares, policy.DBSPriceSpread)
	}}
}
