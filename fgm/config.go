package fgm

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/nilvalue"
	"github.com/schedkit/schedkit/resource"
)

// Estimator predicts a pending task's stages (paper 004 §2.2). An
// *estimate.History is one through HistoryEstimator; a host with better
// knowledge (or a test's oracle) supplies its own. ok false means the
// task is unpredictable: it gets its requested quantity.
type Estimator interface {
	Predict(t schedkit.Task) (p estimate.Profile, ok bool)
}

// HistoryEstimator predicts from an *estimate.History by the task's
// similarity key.
type HistoryEstimator struct{ History *estimate.History }

// Predict returns the History's prediction for t's similarity key.
func (h HistoryEstimator) Predict(t schedkit.Task) (estimate.Profile, bool) {
	return h.History.Predict(t.Similarity())
}

// Config configures a Scheduler. Cluster is required; every other zero
// field takes the default named, which is the paper's method.
type Config struct {
	// Cluster is the host's view of the cluster. New registers its live
	// nodes (AddNode and RemoveNode change membership later) and reads
	// its Space and total Capacity (the denominator of DRF shares).
	Cluster schedkit.Cluster

	// History, if set, learns from finished tasks: the scheduler buffers
	// each running task's usage samples (SampleTask), tags each with the
	// compression rate its plan expected, and hands them to
	// History.Observe when the task succeeds (Release). Unless Estimator
	// is set, predictions also come from it.
	History *estimate.History
	// Estimator, if set, predicts instead of History (an oracle, a
	// host's own model). With neither, every task is unpredictable.
	Estimator Estimator

	// IdleThreshold is I_h of Algorithm 1 and Th of formula (16): a
	// server whose free amount of some kind now is below IdleThreshold ×
	// its capacity is skipped (and counts as used up after an
	// allocation); conformity counts only while measured idle is below
	// it. In [0, 1); default 0.05.
	IdleThreshold float64
	// CompressionLimit is the limitation of formula (7): the largest
	// compression rate of a compressible kind. In [0, 1); default
	// resource.DefaultCompressionLimit (10%). Ablations.NoCompression
	// turns compression off.
	CompressionLimit float64
	// Penalty is p of formulas (5)–(7), the extra slowdown contention
	// costs; finite; default 0.05 (our choice: the paper measured its
	// curve, figure 4, but printed no value). Since 0 means the default,
	// p = 0 is written NoPenalty (any negative value).
	Penalty float64
	// Fairness orders pending jobs (Algorithm 1 line 4). Default DRF.
	Fairness Fairness
	// LocalityWait bounds delay scheduling: a task whose input lies on
	// other nodes is skipped on a non-local server until it has waited
	// this long since it was first skipped. Default 3 s; negative turns
	// locality off (any server at once).
	LocalityWait time.Duration
	// Horizon is how long an open-ended reservation lasts: an
	// unpredictable task's requested quantity, or an overdue task's
	// peak of the incompressible kinds, is reserved over
	// [now, now+Horizon) until the task is
	// released. Default 24 h.
	Horizon time.Duration
	// MaxStages caps the stages of a prediction; more is an
	// ErrInvalidEstimate. Default 64.
	MaxStages int
	// MaxSamples caps the usage samples buffered per running task; when
	// full, neighbouring pairs are merged (time-weighted, formula (14)),
	// halving the buffer. Default 256.
	MaxSamples int

	// Thresholds of Algorithm 3 on the mean conformity (16) of a server's
	// worst kind: above ThFG fine-grained without compression, above
	// ThCG coarse-grained, above ThSA stop allocation. Conformity here is
	// normalised by capacity (see Conformity), so 0.01 is a 10% of
	// capacity shortfall held throughout. Defaults 0.0025, 0.01, 0.04;
	// 0 ≤ ThFG < ThCG < ThSA required.
	ThFG, ThCG, ThSA float64
	// ConformityWindow is how many recent conformity values (one per
	// Tick) a server's mean covers. Default 5.
	ConformityWindow int
	// DegradeSlack: a server under stop-allocation is degrading, and gets
	// one task reclaimed per Tick, while a running task has run longer
	// than (1 + DegradeSlack) × its formula (15) duration. Default 0.5.
	DegradeSlack float64

	// Ablations switch parts of the paper's method off, for experiments
	// that measure what each part contributes; a host leaves it zero.
	Ablations Ablations

	// Options; all off in the paper's method.

	// CapAtRequest allocates compressible kinds at least the task's full
	// request (a host limit such as a cgroup quota at the request) while
	// still reserving the prediction on the server's timeline; without it
	// the plan allocates the predicted demand, as the paper does, raised
	// to the allocation floor (1 − CompressionLimit of the request).
	CapAtRequest bool
	// Progressive orders the jobs again after every allocation, as DRF's
	// progressive filling does, instead of once per Schedule call as
	// Algorithm 1 is printed (where a job first in order may take the
	// whole server before the next is considered).
	Progressive bool
	// CountPinned makes conformity (16) count, on a host that enforces
	// allocations as limits, a task's use of a compressible kind pinned
	// at an allocation below its request (a sample at least 95% of the
	// plan step's allocation) as use of its whole request: the host's
	// limit hides how much more the task wanted, which (16), counting
	// only measured use above the reservations, cannot see.
	CountPinned bool
	// StrictOrder makes a server's first refusal in a call hold it: when
	// the first task Algorithm 1's walk tries on the server, that of the
	// job first in Fairness order, does not fit, nothing is placed there
	// in that call. As printed, the walk goes on to later jobs and places
	// what fits, so a task that needs more than the holes running tasks
	// leave (an unpredictable one at its padded request, among learned
	// and smaller demands) is passed by smaller tasks of jobs with larger
	// shares for as long as the holes stay small; with StrictOrder the
	// server waits for the job with the smallest share, as a YARN
	// scheduler reserves a node for a container that does not fit. A
	// task refused for want of an integral kind (a slot) of which the
	// server has no unit free does not hold it.
	StrictOrder bool
	// ChargeMean charges a predicted task to its job's DRF share at the
	// work-weighted mean of its plan's allocations instead of their
	// element-wise maximum (the paper does not say which; the mean is
	// nearer what the job holds over the task's life when the plan's
	// steps differ).
	ChargeMean bool
	// HostChecksSteps is for hosts that check every step of a plan
	// against the node's free capacity at assignment (the simulator
	// does): Schedule then also requires each step's incompressible
	// demand to fit node.Available() now, less what the call has already
	// placed on the node. It gives up the stage-by-stage reuse of
	// incompressible kinds (memory freed later by a running task) that
	// such a host would refuse; compressible kinds keep it.
	HostChecksSteps bool
}

// Ablations are switches that remove one part of the paper's method
// each: the ablations of the fgm experiment. They are not options a host
// needs; the zero value is the full method.
type Ablations struct {
	// NoCompression never compresses (rc = 0 on every server).
	NoCompression bool
	// CoarseOnly matches every predictable task coarse-grained: its peak
	// against the least free over its duration.
	CoarseOnly bool
	// NoPolicyAdjustment keeps every server fine-grained with compression
	// (Tick still estimates foreign load).
	NoPolicyAdjustment bool
	// NoCheckQoS skips the deadline check of running tasks.
	NoCheckQoS bool
	// NoAllocFloor allocates each plan step's predicted demand of a
	// compressible kind even below the allocation floor (the paper's
	// allocation as printed). A host that enforces allocations as limits
	// can then stall: see "On a host that enforces limits" in the package
	// doc.
	NoAllocFloor bool
}

// Defaults of Config (and FitConfig) fields.
const (
	DefaultIdleThreshold = 0.05
	DefaultPenalty       = 0.05
	DefaultHorizon       = 24 * time.Hour
)

// NoPenalty, as Config.Penalty or FitConfig.Penalty, is p = 0: contention
// costs nothing beyond the compression itself.
const NoPenalty = -1.0

// resolvePenalty reads a configured penalty: 0 is DefaultPenalty, a
// finite negative value NoPenalty (p = 0); NaN and infinities stay, for
// the caller to refuse.
func resolvePenalty(p float64) float64 {
	switch {
	case p == 0:
		return DefaultPenalty
	case p < 0 && !math.IsInf(p, 0):
		return 0
	}
	return p
}

func (c *Config) resolve() (*resource.Space, error) {
	bad := func(format string, args ...any) error {
		return &Error{Op: "New", Err: ErrConfig, Reason: fmt.Sprintf(format, args...)}
	}
	if nilvalue.Is(c.Cluster) {
		return nil, bad("nil Cluster")
	}
	if c.Estimator != nil && nilvalue.Is(c.Estimator) {
		return nil, bad("Estimator is a typed nil")
	}
	if h, ok := c.Estimator.(HistoryEstimator); ok && h.History == nil {
		return nil, bad("HistoryEstimator with a nil History")
	}
	if c.Fairness != nil && nilvalue.Is(c.Fairness) {
		return nil, bad("Fairness is a typed nil")
	}
	space := c.Cluster.Space()
	if space == nil {
		return nil, bad("cluster has no Space")
	}
	if c.IdleThreshold == 0 {
		c.IdleThreshold = DefaultIdleThreshold
	}
	if c.CompressionLimit == 0 {
		c.CompressionLimit = resource.DefaultCompressionLimit
	}
	c.Penalty = resolvePenalty(c.Penalty)
	if c.Fairness == nil {
		c.Fairness = DRF{}
	}
	if c.LocalityWait == 0 {
		c.LocalityWait = 3 * time.Second
	}
	if c.Horizon == 0 {
		c.Horizon = DefaultHorizon
	}
	if c.MaxStages == 0 {
		c.MaxStages = 64
	}
	if c.MaxSamples == 0 {
		c.MaxSamples = 256
	}
	if c.ThFG == 0 && c.ThCG == 0 && c.ThSA == 0 {
		c.ThFG, c.ThCG, c.ThSA = 0.0025, 0.01, 0.04
	}
	if c.ConformityWindow == 0 {
		c.ConformityWindow = 5
	}
	if c.DegradeSlack == 0 {
		c.DegradeSlack = 0.5
	}
	in01 := func(x float64) bool { return x >= 0 && x < 1 }
	switch {
	case !in01(c.IdleThreshold):
		return nil, bad("IdleThreshold %v outside [0, 1)", c.IdleThreshold)
	case !in01(c.CompressionLimit):
		return nil, bad("CompressionLimit %v outside [0, 1)", c.CompressionLimit)
	case !(c.Penalty >= 0) || math.IsInf(c.Penalty, 0):
		return nil, bad("Penalty %v is not finite", c.Penalty)
	case c.Horizon < 0:
		return nil, bad("negative Horizon %v", c.Horizon)
	case c.MaxStages < 1 || c.MaxStages > 1<<16:
		return nil, bad("MaxStages %d outside [1, 65536]", c.MaxStages)
	case c.MaxSamples < 2 || c.MaxSamples > 1<<20:
		return nil, bad("MaxSamples %d outside [2, 2^20]", c.MaxSamples)
	case !(c.ThFG >= 0 && c.ThFG < c.ThCG && c.ThCG < c.ThSA) || math.IsInf(c.ThSA, 0):
		return nil, bad("thresholds %v < %v < %v do not hold (finite, ≥ 0)", c.ThFG, c.ThCG, c.ThSA)
	case c.ConformityWindow < 1 || c.ConformityWindow > 1<<16:
		return nil, bad("ConformityWindow %d outside [1, 65536]", c.ConformityWindow)
	case !(c.DegradeSlack > 0) || math.IsInf(c.DegradeSlack, 0):
		return nil, bad("DegradeSlack %v is not finite and > 0", c.DegradeSlack)
	}
	if c.Ablations.NoCompression {
		c.CompressionLimit = 0
	}
	if c.Estimator == nil && c.History != nil {
		c.Estimator = HistoryEstimator{c.History}
	}
	if err := space.Validate(c.Cluster.Capacity()); err != nil {
		return nil, bad("cluster capacity: %v", err)
	}
	return space, nil
}
