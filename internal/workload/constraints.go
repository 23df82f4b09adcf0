package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// DeadlineBasis says what "isolated run time" a generated deadline is a
// multiple of.
type DeadlineBasis uint8

// Deadline bases.
const (
	// CriticalPath: the job alone with unlimited slots, i.e. the sum over
	// phases of the longest task of the phase.
	CriticalPath DeadlineBasis = iota
	// ClusterShare: the job alone with MapSlots slots for its first phase
	// and ReduceSlots for later phases; each phase takes max(longest task,
	// total task time / slots), a lower bound on any schedule's length.
	ClusterShare
)

// DeadlineRule generates deadlines for jobs whose source gives none:
// Deadline = k × isolated run time (relative to Submit), k drawn uniformly
// from [KMin, KMax], rounded up to the second. KMax = 0 disables the rule.
type DeadlineRule struct {
	KMin, KMax float64
	Basis      DeadlineBasis
	// MapSlots and ReduceSlots define the share for ClusterShare.
	MapSlots, ReduceSlots int
}

// Enabled reports whether the rule generates deadlines.
func (r DeadlineRule) Enabled() bool { return r.KMax != 0 }

// Isolated returns the job's isolated run time under the rule's basis.
func (r DeadlineRule) Isolated(j *JobSpec) time.Duration {
	total := 0.0 // seconds
	for p, ph := range j.Phases {
		longest, sum := 0.0, 0.0
		for i := range ph.Len() {
			d := ph.Duration(i).Seconds()
			sum += d
			longest = math.Max(longest, d)
		}
		if r.Basis == ClusterShare {
			slots := r.MapSlots
			if p > 0 {
				slots = r.ReduceSlots
			}
			if slots > 0 {
				longest = math.Max(longest, sum/float64(slots))
			}
		}
		total += longest
	}
	return secondsToDuration(total)
}

func (r DeadlineRule) validate() error {
	if !r.Enabled() {
		return nil
	}
	if !(positive(r.KMin) && positive(r.KMax) && r.KMin <= r.KMax) {
		return configErr("DeadlineRule.K", ErrRange, "need 0 < KMin ≤ KMax < ∞, have [%v, %v]", r.KMin, r.KMax)
	}
	switch r.Basis {
	case CriticalPath:
	case ClusterShare:
		if r.MapSlots <= 0 || r.ReduceSlots <= 0 {
			return configErr("DeadlineRule.Slots", ErrRange, "ClusterShare needs positive slots, have %d map, %d reduce", r.MapSlots, r.ReduceSlots)
		}
	default:
		return configErr("DeadlineRule.Basis", ErrConfig, "unknown basis %d", r.Basis)
	}
	return nil
}

// String states the rule, as listed in Workload.Assumptions.
func (r DeadlineRule) String() string {
	basis := "critical path with unlimited slots"
	if r.Basis == ClusterShare {
		basis = fmt.Sprintf("alone on %d map / %d reduce slots", r.MapSlots, r.ReduceSlots)
	}
	return fmt.Sprintf("deadline = submit + k × isolated run time (%s), k ~ U[%g, %g], rounded up to 1s", basis, r.KMin, r.KMax)
}

// BudgetRule generates budgets: Budget = u × Price × Σ task seconds, u
// drawn uniformly from [UMin, UMax]. Price is a reference price per
// slot-second (a policy's queues may charge other prices). UMax = 0
// disables the rule.
type BudgetRule struct {
	UMin, UMax float64
	Price      float64
}

// Enabled reports whether the rule generates budgets.
func (r BudgetRule) Enabled() bool { return r.UMax != 0 }

func (r BudgetRule) validate() error {
	if !r.Enabled() {
		return nil
	}
	if !(positive(r.UMin) && positive(r.UMax) && r.UMin <= r.UMax) {
		return configErr("BudgetRule.U", ErrRange, "need 0 < UMin ≤ UMax < ∞, have [%v, %v]", r.UMin, r.UMax)
	}
	if !positive(r.Price) {
		return configErr("BudgetRule.Price", ErrRange, "%v is not a positive finite price", r.Price)
	}
	return nil
}

// Constraints are the rules that fill in deadlines, budgets and φ for
// jobs whose source does not give them. Draws happen job by job in
// submission order: k (if deadlines), then u (if budgets), then φ (if more
// than one choice), so the same seed gives the same workload.
type Constraints struct {
	Deadline DeadlineRule
	Budget   BudgetRule
	// Phi lists the time-influence factors (paper 003) to draw from
	// uniformly. Empty: 1 for a job with a deadline and no budget, 0 for a
	// budget and no deadline, 0.5 for both, 1 for neither.
	Phi []float64
}

// DefaultTraceConstraints returns the constraints trace readers apply by
// default: deadlines at k ∈ [1.5, 4] times the critical path, no budgets,
// φ by the default rule (so 1).
func DefaultTraceConstraints() Constraints {
	return Constraints{Deadline: DeadlineRule{KMin: 1.5, KMax: 4}}
}

// Validate checks the rules.
func (c Constraints) Validate() error {
	if err := c.Deadline.validate(); err != nil {
		return err
	}
	if err := c.Budget.validate(); err != nil {
		return err
	}
	for _, p := range c.Phi {
		if !(p >= 0 && p <= 1) {
			return configErr("Constraints.Phi", ErrRange, "%v is outside [0, 1]", p)
		}
	}
	return nil
}

// apply fills the job's missing deadline, budget and φ. Fields already
// set (given by the source) are kept: a positive Deadline or Budget, and
// φ when phiGiven.
func (c Constraints) apply(j *JobSpec, phiGiven bool, rng *rand.Rand) {
	if c.Deadline.Enabled() && j.Deadline == 0 {
		k := c.Deadline.KMin + (c.Deadline.KMax-c.Deadline.KMin)*rng.Float64()
		iso := c.Deadline.Isolated(j).Seconds()
		j.Deadline = secondsToDuration(math.Ceil(k * iso))
		if j.Deadline <= 0 {
			j.Deadline = time.Second
		}
	}
	if c.Budget.Enabled() && j.Budget == 0 {
		u := c.Budget.UMin + (c.Budget.UMax-c.Budget.UMin)*rng.Float64()
		j.Budget = u * c.Budget.Price * totalTaskSeconds(j)
	}
	if phiGiven {
		return
	}
	switch {
	case len(c.Phi) == 1:
		j.Phi = c.Phi[0]
	case len(c.Phi) > 1:
		j.Phi = c.Phi[rng.IntN(len(c.Phi))]
	case j.Deadline > 0 && j.Budget > 0:
		j.Phi = 0.5
	case j.Budget > 0:
		j.Phi = 0
	default:
		j.Phi = 1
	}
}

// assumptions returns the rules as Assumptions lines.
func (c Constraints) assumptions() []string {
	var lines []string
	if c.Deadline.Enabled() {
		lines = append(lines, c.Deadline.String())
	} else {
		lines = append(lines, "deadlines: only those the source gives (no rule)")
	}
	if c.Budget.Enabled() {
		lines = append(lines, fmt.Sprintf("budget = u × %g per slot-second × Σ task seconds, u ~ U[%g, %g]", c.Budget.Price, c.Budget.UMin, c.Budget.UMax))
	} else {
		lines = append(lines, "budgets: only those the source gives (no rule)")
	}
	if len(c.Phi) > 0 {
		lines = append(lines, fmt.Sprintf("φ drawn uniformly from %v", c.Phi))
	} else {
		lines = append(lines, "φ = 1 with a deadline only, 0 with a budget only, 0.5 with both, 1 with neither")
	}
	return lines
}

func totalTaskSeconds(j *JobSpec) float64 {
	s := 0.0
	for _, ph := range j.Phases {
		for i := range ph.Len() {
			s += ph.Duration(i).Seconds()
		}
	}
	return s
}
