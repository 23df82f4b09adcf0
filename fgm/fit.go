package fgm

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/resource"
)

// Test names the test of Algorithm 1 that refused a task on a server.
type Test uint8

// Tests, in the order Fit (and Schedule) apply them.
const (
	// Passed: the task fits.
	Passed Test = iota
	// UsedUp: line 1, the server is used up: some kind's free amount now
	// (plus the compression allowance of a compressible kind) is below
	// IdleThreshold × capacity, or an incompressible kind's measured idle
	// amount is.
	UsedUp
	// RequestedQuantity: an unpredictable task's request exceeds the
	// least free amount over [now, now+Horizon).
	RequestedQuantity
	// StageMatch: Algorithm 2 refused one of the task's stages.
	StageMatch
	// MeasuredIdle: the task's first stage (its request if
	// unpredictable) exceeds an incompressible kind's measured idle
	// amount.
	MeasuredIdle
)

var testNames = [...]string{"passed", "used-up", "requested-quantity", "stage-match", "measured-idle"}

// String returns the test's name.
func (t Test) String() string {
	if int(t) < len(testNames) {
		return testNames[t]
	}
	return fmt.Sprintf("Test(%d)", uint8(t))
}

// Server is one server's state as a host that keeps it itself hands it
// to Fit: a host that places one task at a time (a Kubernetes scheduler
// plugin) and so keeps each node's reservations rather than a
// Scheduler.
type Server struct {
	// Capacity is the server's capacity N, per kind.
	Capacity resource.Vector
	// Epoch is the instant at offset 0 of Free's clock: a time t is read
	// on the timeline at t − Epoch.
	Epoch time.Time
	// Free is the server's free-resource timeline on the host's clock:
	// Capacity minus the foreign load minus the reservations of the
	// tasks running there (the remaining predicted stages; the request
	// of an unpredictable task, or the peak of the incompressible kinds
	// of an overdue task, over [now, now+Horizon)).
	Free *resource.Timeline
	// Measured says a node usage sample is in force: Used is the latest
	// measured total usage, Placed the incompressible demand of the first
	// stages (requests of unpredictable tasks) placed since that sample.
	// Without one (Measured false) both are ignored and may be nil.
	Measured     bool
	Used, Placed resource.Vector
}

// Verdict is Fit's answer: the test that refused the task (Passed if
// none), how it was matched, and where it did not fit.
type Verdict struct {
	Test Test
	// Mode is Requested for an unpredictable task, FineGrained otherwise.
	Mode Mode
	// Refusal: the kind concerned (and for StageMatch the stage and
	// instant). For UsedUp, Free is the free amount (plus allowance)
	// or measured idle amount and Demand the threshold it fell below;
	// for RequestedQuantity, Free is the least free over the horizon;
	// for MeasuredIdle, Free is the measured idle amount. Stage is −1
	// where no stage is concerned.
	Refusal Refusal
}

// FitConfig configures a Fitter; zero fields take the defaults of the
// same fields of Config.
type FitConfig struct {
	Space            *resource.Space
	IdleThreshold    float64
	CompressionLimit float64
	Penalty          float64
	Horizon          time.Duration
	NoCompression    bool
}

// Fitter is Algorithm 1's tests for one task on one server under the
// fine-grained policy with compression, the decision Schedule makes for
// each task, for hosts that place one task at a time and keep the
// servers' state themselves:
//
//  1. the server is skipped if it is used up (line 1);
//  2. an unpredictable task gets its requested quantity if the least
//     free over [now, now+Horizon) holds it; a predictable one goes
//     through Algorithm 2 (Matcher) with compression;
//  3. its first stage (its request if unpredictable) must fit every
//     incompressible kind's measured idle amount.
//
// checkQoS (deadlines of running tasks), the server policies of
// Algorithm 3, delay scheduling and integral kinds at the request are
// the host's part (or Schedule's). A Fitter is immutable and safe for
// concurrent use.
type Fitter struct {
	m          *Matcher
	comp       []bool
	integral   []bool
	idle, lim  float64
	horizon    time.Duration
	dims       int
	compresses bool
}

// NewFitter returns a Fitter, or an error wrapping ErrConfig.
func NewFitter(cfg FitConfig) (*Fitter, error) {
	bad := func(format string, args ...any) error {
		return &Error{Op: "NewFitter", Err: ErrConfig, Reason: fmt.Sprintf(format, args...)}
	}
	if cfg.Space == nil {
		return nil, bad("nil Space")
	}
	if cfg.IdleThreshold == 0 {
		cfg.IdleThreshold = DefaultIdleThreshold
	}
	if cfg.CompressionLimit == 0 {
		cfg.CompressionLimit = resource.DefaultCompressionLimit
	}
	cfg.Penalty = resolvePenalty(cfg.Penalty)
	if cfg.Horizon == 0 {
		cfg.Horizon = DefaultHorizon
	}
	switch {
	case !(cfg.IdleThreshold >= 0 && cfg.IdleThreshold < 1):
		return nil, bad("IdleThreshold %v outside [0, 1)", cfg.IdleThreshold)
	case !(cfg.CompressionLimit >= 0 && cfg.CompressionLimit < 1):
		return nil, bad("CompressionLimit %v outside [0, 1)", cfg.CompressionLimit)
	case !(cfg.Penalty >= 0) || math.IsInf(cfg.Penalty, 0):
		return nil, bad("Penalty %v is not finite", cfg.Penalty)
	case cfg.Horizon < 0:
		return nil, bad("negative Horizon %v", cfg.Horizon)
	}
	if cfg.NoCompression {
		cfg.CompressionLimit = 0
	}
	m, err := NewMatcher(cfg.Space, cfg.Penalty, cfg.CompressionLimit)
	if err != nil {
		return nil, err
	}
	dims := cfg.Space.Len()
	f := &Fitter{m: m, comp: m.comp, integral: make([]bool, dims), idle: cfg.IdleThreshold,
		lim: cfg.CompressionLimit, horizon: cfg.Horizon, dims: dims, compresses: cfg.CompressionLimit > 0}
	for k := range dims {
		f.integral[k] = cfg.Space.Kind(k).Integral
	}
	return f, nil
}

// Horizon returns the open-ended reservation length in force.
func (f *Fitter) Horizon() time.Duration { return f.horizon }

// Fit decides whether a task fits srv at now (read on srv.Free's clock,
// as now − srv.Epoch): with stages if predictable (stages non-nil), else
// by requested. rates must hold len(stages) × kinds; on success it holds
// the compression each stage would cause (see Matcher.Match). It returns
// an ErrInvalidNode error for a server whose vectors do not fit the
// Space or hold NaN or infinite amounts, ErrInvalidTask for a bad
// request, ErrInvalidEstimate for bad stages (or an empty, non-nil
// slice), ErrTimeRange for a now more than 2⁶⁰ ns from srv.Epoch; it
// never panics on them.
func (f *Fitter) Fit(srv Server, t time.Time, stages []estimate.Stage, requested resource.Vector, rates []float64) (Verdict, error) {
	const op = "Fit"
	dims := f.dims
	badNode := func(reason string) (Verdict, error) {
		return Verdict{}, &Error{Op: op, Err: ErrInvalidNode, Reason: reason}
	}
	if srv.Free == nil || srv.Free.Dims() != dims || len(srv.Capacity) != dims {
		return badNode("timeline or capacity does not fit the Space")
	}
	if err := srv.Capacity.Validate(); err != nil {
		return badNode("capacity: " + err.Error())
	}
	if srv.Measured {
		if len(srv.Used) != dims || len(srv.Placed) != dims {
			return badNode("Used or Placed does not fit the Space")
		}
		for _, v := range []resource.Vector{srv.Used, srv.Placed} {
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return badNode("Used or Placed holds NaN or infinite amounts")
				}
			}
		}
	}
	predictable := stages != nil
	if predictable {
		if len(stages) == 0 {
			return Verdict{}, &Error{Op: op, Err: ErrInvalidEstimate, Reason: "a prediction with no stages (nil stages: unpredictable)"}
		}
		if len(rates) < len(stages)*dims {
			return Verdict{}, &Error{Op: op, Err: ErrInvalidEstimate, Reason: fmt.Sprintf("rates holds %d, want %d", len(rates), len(stages)*dims)}
		}
		if err := validStages(stages, dims); err != nil {
			err.Op = op
			return Verdict{}, err
		}
	} else {
		if len(requested) != dims {
			return Verdict{}, &Error{Op: op, Err: ErrInvalidTask, Reason: fmt.Sprintf("requested has %d kinds, want %d", len(requested), dims)}
		}
		if err := requested.Validate(); err != nil {
			return Verdict{}, &Error{Op: op, Err: ErrInvalidTask, Reason: "requested: " + err.Error()}
		}
	}
	now, err := timelineOffset(op, srv.Epoch, t)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Mode: FineGrained, Refusal: Refusal{Stage: -1}}
	if !predictable {
		v.Mode = Requested
	}
	allow := 0.0
	if f.compresses {
		allow = f.lim
	}
	if k, free, th := usedUpTest(f.comp, f.integral, srv.Capacity, srv.Free.At(now), srv.Measured, srv.Used, srv.Placed, f.idle, allow); k >= 0 {
		v.Test, v.Refusal.Kind, v.Refusal.Free, v.Refusal.Demand = UsedUp, k, free, th
		return v, nil
	}
	first := requested
	if predictable {
		var why Refusal
		if !f.m.match(srv.Free, srv.Capacity, stages, now, f.compresses, rates, &why) {
			v.Test, v.Refusal = StageMatch, why
			return v, nil
		}
		first = stages[0].Demand
	} else if f.horizon > 0 {
		least := make(resource.Vector, dims)
		_ = srv.Free.Min(now, now+f.horizon, least)
		if k := shortKind(requested, least, srv.Capacity); k >= 0 {
			v.Test = RequestedQuantity
			v.Refusal.Kind, v.Refusal.Demand, v.Refusal.Free = k, requested[k], least[k]
			return v, nil
		}
	}
	if srv.Measured && first != nil {
		if k := measuredShort(f.comp, srv.Capacity, srv.Used, srv.Placed, first); k >= 0 {
			v.Test = MeasuredIdle
			v.Refusal.Kind, v.Refusal.Demand = k, first[k]
			v.Refusal.Free = srv.Capacity[k] - srv.Used[k] - srv.Placed[k]
			return v, nil
		}
	}
	return v, nil
}

// shortKind returns the first kind whose demand exceeds free (within
// the relative slack), −1 if none.
func shortKind(demand, free, capacity resource.Vector) int {
	for k, d := range demand {
		if d > 0 && free[k]+slack*capacity[k] < d {
			return k
		}
	}
	return -1
}

// measuredShort returns the first incompressible kind whose demand
// exceeds the measured idle amount N − used − placed, −1 if none.
func measuredShort(comp []bool, capacity, used, placed, demand resource.Vector) int {
	for k, d := range demand {
		n := capacity[k]
		if !comp[k] && d > 0 && n-used[k]-placed[k]+slack*n < d {
			return k
		}
	}
	return -1
}

// usedUpTest is Algorithm 1's line 1 (and line 19): it returns the first
// kind that makes the server used up, with the amount that fell short
// and the threshold, or −1. See server.usedUp.
func usedUpTest(comp, integral []bool, capacity, freeNow resource.Vector, measured bool, used, placed resource.Vector, idle, allow float64) (int, float64, float64) {
	if measured {
		for k, u := range used {
			n := capacity[k]
			if n > 0 && !comp[k] && !integral[k] && n-u-placed[k] < idle*n {
				return k, n - u - placed[k], idle * n
			}
		}
	}
	for k, x := range freeNow {
		n := capacity[k]
		if n == 0 || integral[k] {
			continue
		}
		if comp[k] {
			x += allow * n
		}
		if x < idle*n {
			return k, x, idle * n
		}
	}
	return -1, 0, 0
}
