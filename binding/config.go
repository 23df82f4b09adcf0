package binding

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
)

// DefaultTimeout is the liveness timeout used when Config.Timeout is zero:
// ten minutes, YARN's default NodeManager expiry interval.
const DefaultTimeout = 10 * time.Minute

// Limits on one node status, so that a bad report cannot make the table
// allocate without bound.
const (
	// MaxContainers is the largest container count a node may report.
	MaxContainers = 4096
	// MaxAccelerators is the largest number of accelerators a node may
	// report.
	MaxAccelerators = 256
)

// Config selects the liveness timeout and the options. The zero Config is
// the paper's binding with DefaultTimeout.
type Config struct {
	// Timeout is the liveness timeout: Expire(now) removes every node
	// whose last heartbeat is at or before now − Timeout. Zero means
	// DefaultTimeout; negative is an error.
	Timeout time.Duration

	// Kinds lists the accelerator kinds that make a node an ANode (for
	// example only AcceleratorGPU, to keep one table per kind). Empty
	// means every kind. Devices of other kinds are kept in the status
	// registry but ignored for binding.
	Kinds []schedkit.AcceleratorKind

	// Rebalance keeps every rack balanced at all times: after each change
	// the table moves the top NNode of the largest stack onto the
	// smallest while their sizes differ by two or more, so that max − min
	// ≤ 1, and an added ANode takes NNodes only while that is needed. The
	// number of moves is the fewest any balanced outcome needs (the
	// property test checks this against a brute-force oracle). Off, the
	// table does exactly what the paper does, and removals can leave a
	// rack unbalanced. With Weighted, the top unit of the most loaded
	// stack moves to the stack it would leave least loaded while that
	// lowers the pair's maximum load (a local optimum; no minimality is
	// claimed).
	Rebalance bool

	// Weighted balances load per unit of accelerator capacity instead of
	// NNode counts (the paper's §5 weight table). An ANode's capacity is
	// the sum of the weights of its healthy devices (of the selected
	// kinds): Weights[model] when the table has the model, otherwise
	// AcceleratorInfo.EffectiveWeight. Its load is (own + bound) /
	// capacity, where own is its own work (1 for a node, its container
	// count with Containers) and bound the NNode units on its stack. A new
	// unit goes where it would leave the smallest load, (own + bound + 1)
	// / capacity. A node whose selected devices weigh zero in total is not
	// an ANode.
	Weighted bool

	// Weights is the host's weight table, accelerator model → relative
	// performance (1 = reference device). Only with Weighted. Weights must
	// be finite and non-negative; the table is copied by New.
	Weights WeightTable

	// Containers binds containers instead of whole nodes (the paper's §5):
	// each node reports how many containers it runs, and each container of
	// an NNode is bound on its own, so one NNode's accelerator work can
	// spread over several ANodes. Moves and lookups then name a container
	// index 0 … n−1. Off, every node is one unit (container 0).
	Containers bool
}

// WeightTable maps an accelerator model (AcceleratorInfo.Model) to its
// relative performance weight. Models not in the table fall back to the
// device's own EffectiveWeight.
type WeightTable map[string]float64

// Weight returns the weight of device a: t[a.Model] if present, else
// a.EffectiveWeight().
func (t WeightTable) Weight(a schedkit.AcceleratorInfo) float64 {
	if w, ok := t[a.Model]; ok {
		return w
	}
	return a.EffectiveWeight()
}

func (c *Config) validate() error {
	bad := func(reason string, cause error) error {
		return &Error{Op: "New", Reason: reason, Err: ErrConfig, Cause: cause}
	}
	if c.Timeout < 0 {
		return bad(fmt.Sprintf("negative timeout %v", c.Timeout), nil)
	}
	for _, k := range c.Kinds {
		if k == "" {
			return bad("empty accelerator kind", nil)
		}
	}
	if len(c.Weights) > 0 && !c.Weighted {
		return bad("weight table without Weighted", nil)
	}
	for _, m := range slices.Sorted(maps.Keys(c.Weights)) {
		if w := c.Weights[m]; !validWeight(w) {
			return bad(fmt.Sprintf("model %q weight %v", m, w), nil)
		}
	}
	return nil
}

func (c Config) clone() Config {
	c.Kinds = append([]schedkit.AcceleratorKind(nil), c.Kinds...)
	if c.Weights != nil {
		c.Weights = maps.Clone(c.Weights)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	return c
}

func validWeight(w float64) bool {
	return !math.IsNaN(w) && !math.IsInf(w, 0) && w >= 0
}
