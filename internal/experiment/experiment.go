package experiment

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

// Sentinel errors.
var (
	// ErrUnknown reports an experiment or policy name not in the registry.
	ErrUnknown = errors.New("experiment: unknown name")
	// ErrParams reports invalid Params (scale, nodes, policies, a flag
	// the experiment does not use).
	ErrParams = errors.New("experiment: invalid parameters")
	// ErrInput reports an input file (a trace) that cannot be read or
	// holds invalid data; its message names the file, line and field.
	ErrInput = errors.New("experiment: bad input")
	// ErrRun reports a simulation that failed (a policy error, invalid
	// decisions, a stall).
	ErrRun = errors.New("experiment: run failed")
)

// MaxNodes bounds Params.Nodes and the clusters Params.Load sizes: over
// thirty times the largest cluster a SWIM trace describes (FB-2010's
// 3,000 machines), and far below the ≈960,000 nodes at which the
// simulator's heartbeat stagger (nodes × heartbeat, with the Hadoop-1
// heartbeat of nodes/100 s) would overflow int64 nanoseconds.
const MaxNodes = 100000

// MaxLoad bounds Params.Load: a target of 1,000% offered load.
const MaxLoad = 10

// classified is an error that matches a sentinel with errors.Is but
// prints only its own message, so that the printer adds the one prefix.
type classified struct{ is, err error }

func (c *classified) Error() string   { return c.err.Error() }
func (c *classified) Unwrap() []error { return []error{c.is, c.err} }

// paramErr returns an ErrParams error with the given message.
func paramErr(format string, args ...any) error {
	return &classified{ErrParams, fmt.Errorf(format, args...)}
}

// inputErr classifies err (which names its file) as ErrInput.
func inputErr(err error) error { return &classified{ErrInput, err} }

// runErr classifies err as ErrRun, labelled with the case.
func runErr(label string, err error) error {
	return &classified{ErrRun, fmt.Errorf("%s: %w", label, err)}
}

// Uses is the set of optional Params an experiment reads. Params it does
// not read must be left zero: Experiment.Check refuses them, so that a
// flag is never silently ignored.
type Uses uint8

// The optional Params, named after schedsim's flags.
const (
	UsesPolicies Uses = 1 << iota // Params.Policies (-policies)
	UsesNodes                     // Params.Nodes (-nodes)
	UsesTrace                     // Params.Trace and Format (-trace, -format)
	UsesLoad                      // Params.Load (-load)
	UsesTiming                    // Params.Timing (-timing)
)

// Experiment is one named comparison schedsim can run.
type Experiment struct {
	// Name is what -experiment takes.
	Name string
	// Summary is one line for -list.
	Summary string
	// Run performs the experiment.
	Run func(p Params) (Result, error)
	// SuiteScale is the compact size factor, multiplied with
	// Params.Scale, that schedsim runs the experiment at, in the default
	// suite and with -experiment NAME alike; 0 means 1 (the experiment is
	// compact at full size). schedsim -full runs the full size, and -list
	// gives each experiment's factor.
	SuiteScale float64
	// Uses lists the optional Params it reads (Scale, Seed, Parallel and
	// Progress are always read); Check refuses any other.
	Uses Uses
}

// usesFlags names each optional parameter after its schedsim flag.
var usesFlags = []struct {
	uses Uses
	flag string
}{{UsesPolicies, "-policies"}, {UsesNodes, "-nodes"}, {UsesTrace, "-trace"}, {UsesLoad, "-load"}, {UsesTiming, "-timing"}}

// Flags returns the schedsim flags of the optional parameters in u, in a
// fixed order.
func (u Uses) Flags() []string {
	var out []string
	for _, f := range usesFlags {
		if u&f.uses != 0 {
			out = append(out, f.flag)
		}
	}
	return out
}

// Check returns an ErrParams error naming the first optional parameter
// set in p that e does not use, as its schedsim flag ("-nodes"), or nil.
func (e Experiment) Check(p Params) error {
	set := map[Uses]bool{
		UsesPolicies: len(p.Policies) > 0, UsesNodes: p.Nodes != 0, UsesTrace: p.Trace != "" || p.Format != "",
		UsesLoad: p.Load != 0, UsesTiming: p.Timing,
	}
	for _, u := range usesFlags {
		if set[u.uses] && e.Uses&u.uses == 0 {
			return paramErr("experiment %s does not use %s", e.Name, u.flag)
		}
	}
	return nil
}

// SuiteParams returns p at e's compact size, as schedsim runs e without
// -full: Scale multiplied by e.SuiteScale.
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
	// (0: its default); at most MaxNodes.
	Nodes int
	// Load, when positive, sizes a trace replay's cluster so that its
	// offered load (the busier of map and reduce slot demand over
	// capacity, see OfferedLoad) is about Load; it excludes Nodes.
	Load float64
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
		return paramErr("scale %v is not a positive number", p.Scale)
	}
	if p.Nodes < 0 || p.Nodes > MaxNodes {
		return paramErr("%d nodes: want 1 to %d", p.Nodes, MaxNodes)
	}
	if p.Load < 0 || p.Load > MaxLoad || math.IsNaN(p.Load) {
		return paramErr("load %v: want a target in (0, %g]", p.Load, float64(MaxLoad))
	}
	if p.Load > 0 && p.Nodes > 0 {
		return paramErr("give a node count or a target load, not both")
	}
	return nil
}

// Result is what an experiment produced.
type Result struct {
	// Experiment is the experiment's name; Title a one-line description
	// of what was compared.
	Experiment, Title string
	// FileName is the stem for files written from the result (plots);
	// "" means Experiment. A trace replay names it after the trace, so
	// that two traces' plots do not overwrite each other.
	FileName string
	// Tables are the comparisons: policies as columns, metrics as rows.
	Tables []metrics.Table
	// Assumptions lists, one line each, every rule that generated or
	// shaped the workload and the cluster.
	Assumptions []string
	// Runs are the simulations behind the tables (for plots), one per
	// policy, in column order, grouped per workload when there are
	// several.
	Runs []sim.Run
	// Cells are every simulation of the experiment by setup and column
	// name, for figures read by name (the results files' sentences, the
	// scorecard).
	Cells *Cells
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
	return Experiment{}, &classified{ErrUnknown, fmt.Errorf("unknown experiment %q (have %s)", name, strings.Join(names(), ", "))}
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
