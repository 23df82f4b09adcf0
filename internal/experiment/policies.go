package experiment

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// Policy makes a fresh policy for one simulation. Names are what
// -policies takes; they are lower case.
type Policy struct {
	Name string
	Doc  string
	New  func(env Env) (sim.Policy, error)
}

// Env is what a policy may need to know when it is built.
type Env struct {
	Config   *sim.Config
	Workload *workload.Workload
}

// policies is every policy -policies can name, in -list order. Adding one
// is a line here (or a list of its own in an experiment's file).
var policies = []Policy{
	{"fifo", "Hadoop FIFO: submission order, then ID", func(Env) (sim.Policy, error) { return baseline.NewFIFO(), nil }},
	{"fair", "max-min fair between jobs (running tasks per phase)", func(Env) (sim.Policy, error) { return baseline.NewFair(baseline.FairConfig{}), nil }},
	{"fair-pools", "max-min fair between pools (job classes), then jobs", func(Env) (sim.Policy, error) {
		return baseline.NewFair(baseline.FairConfig{Pools: true}), nil
	}},
	{"capacity", "Capacity: one queue per class, equal guarantees, idle capacity lent", func(Env) (sim.Policy, error) {
		return baseline.NewCapacity(baseline.CapacityConfig{})
	}},
	{"drf", "Dominant Resource Fairness between jobs", func(Env) (sim.Policy, error) { return baseline.NewDRF(baseline.DRFConfig{}), nil }},
	{"drf-pools", "Dominant Resource Fairness between pools, then jobs", func(Env) (sim.Policy, error) {
		return baseline.NewDRF(baseline.DRFConfig{Pools: true}), nil
	}},
	{"edf", "earliest deadline first", func(Env) (sim.Policy, error) { return baseline.NewEDF(), nil }},
	{"fifo-drop", "FIFO, ending each job at the first heartbeat past its deadline", func(Env) (sim.Policy, error) {
		return policy.DropAtDeadline(baseline.NewFIFO()), nil
	}},
	{"edf-drop", "EDF, ending each job at the first heartbeat past its deadline", func(Env) (sim.Policy, error) {
		return policy.DropAtDeadline(baseline.NewEDF()), nil
	}},
	{"fgm", "paper 004's fine-grained stage matching with bounded compression, learned estimates, DRF order", newFGMPolicy},
	{"dbs", "paper 003 DBS: φ queues High/Mid/Low at the reference price ±25%, weights, minimum slots, promotion/demotion", func(env Env) (sim.Policy, error) {
		return policy.NewDBS(env.Config, policy.DBSOptions{})
	}},
	{"lss", "least spare time (paper 000, package lss): jobs by spare time before their deadlines", func(env Env) (sim.Policy, error) {
		return policy.NewLSS(env.Config, policy.LSSOptions{})
	}},
	{lssRecommendedName, "lss.Recommended(): least spare time without the first-map pass, killing early only when an optimistic bound misses the deadline", func(env Env) (sim.Policy, error) {
		return policy.NewLSS(env.Config, lssRecommended)
	}},
}

// baselines is the default set of the baseline experiments.
var baselines = []string{"fifo", "fair", "capacity", "drf", "edf"}

// Policies returns every named policy, in -list order.
func Policies() []Policy { return append([]Policy(nil), policies...) }

// LookupPolicies resolves names (case-insensitive).
func LookupPolicies(names []string) ([]Policy, error) {
	out := make([]Policy, 0, len(names))
	seen := map[string]bool{}
	if len(names) == 0 {
		return nil, paramErr("no policy named")
	}
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if seen[n] {
			return nil, paramErr("policy %q named twice", n)
		}
		seen[n] = true
		found := false
		for _, p := range policies {
			if p.Name == n {
				out = append(out, p)
				found = true
				break
			}
		}
		if !found {
			var have []string
			for _, p := range policies {
				have = append(have, p.Name)
			}
			return nil, &classified{ErrUnknown, fmt.Errorf("unknown policy %q (have %s)", n, strings.Join(have, ", "))}
		}
	}
	return out, nil
}

// choose returns columns of p.Policies if set, else of the defaults.
func choose(p Params, defaults []string) ([]Column, error) {
	if len(p.Policies) > 0 {
		return Named(p.Policies...)
	}
	return Named(defaults...)
}
