package experiment

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
)

// Sentinel errors.
var (
	// ErrUnknown reports an experiment or policy name not in the registry.
	ErrUnknown = errors.New("experiment: unknown name")
	// ErrParams reports invalid Params (scale, policies, trace).
	ErrParams = errors.New("experiment: invalid parameters")
	// ErrRun reports a simulation that failed (a policy error, invalid
	// decisions, a stall).
	ErrRun = errors.New("experiment: run failed")
)

// Experiment is one named comparison schedsim can run.
type Experiment struct {
	// Name is what -experiment takes.
	Name string
	// Summary is one line for -list.
	Summary string
	// Run performs the experiment.
	Run func(p Params) (Result, error)
	// SuiteScale is the size factor the default suite runs it at,
	// multiplied with Params.Scale; 0 means 1. It keeps the no-flag run
	// short while -experiment NAME runs the full size.
	SuiteScale float64
}

// SuiteParams returns p as the default suite runs e: Scale multiplied by
// e.SuiteScale.
func (e Experiment) SuiteParams(p Params) Params {
	if e.SuiteScale > 0 {
		if p.Scale == 0 {
			p.Scale = 1
		}
		p.Scale *= e.SuiteScale
	}
	return p
}

// Params are the knobs every experiment receives. The zero value runs
// the experiment at its default size with seed 0 (use Defaults for the
// schedsim defaults).
type Params struct {
	// Scale multiplies the experiment's size (arrival horizon, share of a
	// trace); 1 is the default size. 0 means 1.
	Scale float64
	// Seed seeds workload generation and the simulator.
	Seed uint64
	// Policies overrides the experiment's policies (names from Policies).
	Policies []string
	// Trace and Format name a trace file and its format ("" to detect),
	// for experiments that read one.
	Trace, Format string
	// Nodes overrides the cluster size where an experiment allows it
	// (0: its default).
	Nodes int
	// Timing adds the policies' wall-clock decision time to the tables.
	// It is not reproducible, so it is off by default.
	Timing bool
	// Progress, if set, receives progress lines for long runs.
	Progress io.Writer
	// Parallel bounds how many simulations run at once (0: GOMAXPROCS).
	Parallel int
}

// Defaults returns the parameters schedsim uses without flags.
func Defaults() Params { return Params{Scale: 1, Seed: 1} }

func (p *Params) normalize() error {
	if p.Scale == 0 {
		p.Scale = 1
	}
	if !(p.Scale > 0) || math.IsInf(p.Scale, 0) {
		return fmt.Errorf("%w: scale %v is not a positive number", ErrParams, p.Scale)
	}
	if p.Nodes < 0 {
		return fmt.Errorf("%w: negative node count %d", ErrParams, p.Nodes)
	}
	return nil
}

// Result is what an experiment produced.
type Result struct {
	// Experiment is the experiment's name; Title a one-line description
	// of what was compared.
	Experiment, Title string
	// Tables are the comparisons: policies as columns, metrics as rows.
	Tables []metrics.Table
	// Assumptions lists, one line each, every rule that generated or
	// shaped the workload and the cluster.
	Assumptions []string
	// Runs are the simulations behind the tables (for plots), one per
	// policy, in column order, grouped per workload when there are
	// several.
	Runs []metrics.Run
}

// List returns the registered experiments in registry order.
func List() []Experiment { return append([]Experiment(nil), registry...) }

// Lookup returns the experiment of the given name.
func Lookup(name string) (Experiment, error) {
	for _, e := range registry {
		if e.Name == name {
			return e, nil
		}
	}
	return Experiment{}, fmt.Errorf("%w: experiment %q (have %s)", ErrUnknown, name, strings.Join(names(), ", "))
}

// Default returns the names of the experiments schedsim runs without
// flags, in order.
func Default() []string { return append([]string(nil), defaultSuite...) }

func names() []string {
	out := make([]string, len(registry))
	for i, e := range registry {
		out[i] = e.Name
	}
	return out
}
