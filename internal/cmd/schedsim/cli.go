package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/schedkit/schedkit/internal/experiment"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // a run or an output failed
	exitUsage = 2 // bad flags or arguments
)

type options struct {
	experiments []string
	params      experiment.Params
	out         string
	svgDir      string
	list        bool
	assumptions bool
	suite       bool // the default suite (no -experiment, no -trace)
	full        bool // -full: experiments at their full size, not their SuiteScale
}

// run is schedsim: it parses args, runs the experiments and writes the
// tables to stdout, progress and errors to stderr, and returns the exit
// code. Errors are one line: "schedsim: ...".
func run(args []string, stdout, stderr io.Writer) int {
	opt, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedsim: %v\n", err)
		return exitUsage
	}
	if opt.list {
		writeList(stdout)
		return exitOK
	}
	results, code := runExperiments(opt, stderr)
	if code != exitOK {
		return code
	}
	if err := write(stdout, opt.out, results, opt.assumptions); err != nil {
		fmt.Fprintf(stderr, "schedsim: %v\n", oneLine(err))
		return exitError
	}
	if opt.svgDir != "" {
		if err := writeSVGs(opt.svgDir, results); err != nil {
			fmt.Fprintf(stderr, "schedsim: %v\n", oneLine(err))
			return exitError
		}
	}
	return exitOK
}

// runExperiments runs opt's experiments, each at its compact size unless
// -full, and after the default suite its scorecard. On failure it prints
// the one-line error and returns the exit code.
func runExperiments(opt options, stderr io.Writer) ([]experiment.Result, int) {
	var results []experiment.Result
	for _, name := range opt.experiments {
		e, err := experiment.Lookup(name)
		if err != nil {
			fmt.Fprintf(stderr, "schedsim: %v\n", err)
			return nil, exitUsage
		}
		p := opt.params
		if !opt.full {
			p = e.SuiteParams(p)
		}
		res, err := e.Run(p)
		if err != nil {
			fmt.Fprintf(stderr, "schedsim: %v\n", oneLine(err))
			if errors.Is(err, experiment.ErrParams) || errors.Is(err, experiment.ErrUnknown) || errors.Is(err, experiment.ErrInput) {
				return nil, exitUsage
			}
			return nil, exitError
		}
		results = append(results, res)
	}
	if opt.suite {
		results = append(results, experiment.ScorecardResult(results))
	}
	return results, exitOK
}

// oneLine joins a multi-line error (errors.Join) into one line.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

const usageHead = `schedsim runs schedkit's scheduling experiments in a deterministic
discrete-event simulator and prints comparison tables: policies as
columns, metrics as rows, then the assumptions behind the workload.

Usage:
  go run ./internal/cmd/schedsim [flags]

With no flags it runs the default suite: %s.
Every experiment runs at its compact size, named with -experiment as in
the suite; -full runs the full size (-list gives each factor).

Flags:
`

func parse(args []string, stderr io.Writer) (options, error) {
	opt := options{params: experiment.Defaults()}
	fs := flag.NewFlagSet("schedsim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var exps, pols string
	fs.StringVar(&exps, "experiment", "", "comma-separated `names` of experiments to run (see -list); default: the default suite, or \"trace\" with -trace")
	fs.StringVar(&opt.params.Trace, "trace", "", "replay this trace `file` (experiment \"trace\"); format from -format or detected from the name and content")
	fs.StringVar(&opt.params.Format, "format", "", "trace `format`: swim, swf or csv (default: detect)")
	fs.StringVar(&pols, "policies", "", "comma-separated policy `names` replacing each experiment's own (see -list)")
	fs.Uint64Var(&opt.params.Seed, "seed", opt.params.Seed, "`seed` of workload generation and simulation; same seed, same tables")
	fs.Float64Var(&opt.params.Scale, "scale", opt.params.Scale, "size `factor`: arrival horizon of generated workloads, leading share of a trace's jobs (≤ 1)")
	fs.IntVar(&opt.params.Nodes, "nodes", 0, fmt.Sprintf("cluster size `n`, 1 to %d, for experiments with a variable cluster (trace replays: default 600)", experiment.MaxNodes))
	fs.Float64Var(&opt.params.Load, "load", 0, "size a trace replay's cluster for this offered `load` (e.g. 0.8: the busier slot kind is asked for 80% of its capacity); excludes -nodes")
	fs.StringVar(&opt.out, "out", "text", "output `format`: text (aligned tables), csv (one row per metric and policy: snake_case metric keys ending in their unit, numeric values, then notes and assumptions) or json (the same, per table)")
	fs.StringVar(&opt.svgDir, "svg", "", "also write plots to `dir`: per experiment, a CDF of job response times, deadline success bars and, where tasks are recorded, slots held per workflow over time")
	fs.BoolVar(&opt.full, "full", false, "run experiments at their full size (-list gives each one's compact factor, and the full size can take minutes); default: the compact size, the same with -experiment as in the default suite")
	fs.BoolVar(&opt.list, "list", false, "list experiments and policies, then exit")
	fs.BoolVar(&opt.assumptions, "assumptions", true, "print each workload's assumptions after its tables (text output)")
	fs.BoolVar(&opt.params.Timing, "timing", false, "add the policies' wall-clock decision time to the tables (not reproducible)")
	fs.IntVar(&opt.params.Parallel, "parallel", 0, "run at most `n` simulations at once (default: GOMAXPROCS); results do not depend on it")
	fs.Usage = func() {} // errors are one line; -h prints the usage below
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, usageHead, strings.Join(experiment.Default(), ", "))
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return opt, err
		}
		return opt, fmt.Errorf("%w (see -h)", err)
	}
	if fs.NArg() > 0 {
		return opt, fmt.Errorf("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	switch opt.out {
	case "text", "csv", "json":
	default:
		return opt, fmt.Errorf("-out %q: want text, csv or json", opt.out)
	}
	if !(opt.params.Scale > 0) || math.IsInf(opt.params.Scale, 0) {
		return opt, fmt.Errorf("-scale %v: want a positive number", opt.params.Scale)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["nodes"] && (opt.params.Nodes < 1 || opt.params.Nodes > experiment.MaxNodes) {
		return opt, fmt.Errorf("-nodes %d: want 1 to %d", opt.params.Nodes, experiment.MaxNodes)
	}
	if set["load"] && !(opt.params.Load > 0 && opt.params.Load <= experiment.MaxLoad) {
		return opt, fmt.Errorf("-load %v: want a target offered load in (0, %d], e.g. 0.8", opt.params.Load, experiment.MaxLoad)
	}
	if set["load"] && set["nodes"] {
		return opt, errors.New("-load sizes the cluster: give -nodes or -load, not both")
	}
	if opt.params.Parallel < 0 {
		return opt, fmt.Errorf("-parallel %d: want 0 (GOMAXPROCS) or more", opt.params.Parallel)
	}
	if opt.params.Format != "" && opt.params.Trace == "" {
		return opt, errors.New("-format needs -trace")
	}
	if set["policies"] {
		opt.params.Policies = splitList(pols)
		if len(opt.params.Policies) == 0 {
			return opt, fmt.Errorf("-policies %q names no policy (see -list)", pols)
		}
		if _, err := experiment.LookupPolicies(opt.params.Policies); err != nil {
			return opt, err
		}
	}
	if set["experiment"] && len(splitList(exps)) == 0 {
		return opt, fmt.Errorf("-experiment %q names no experiment (see -list)", exps)
	}
	switch {
	case exps != "":
		opt.experiments = splitList(exps)
	case opt.params.Trace != "":
		opt.experiments = []string{"trace"}
	default:
		opt.experiments = experiment.Default()
		opt.suite = true
	}
	for _, name := range opt.experiments {
		e, err := experiment.Lookup(name)
		if err != nil {
			return opt, err
		}
		if err := e.Check(opt.params); err != nil {
			if opt.suite {
				return opt, fmt.Errorf("%v, which the default suite runs; name experiments with -experiment", err)
			}
			return opt, err
		}
	}
	if opt.params.Trace != "" {
		fi, err := os.Stat(opt.params.Trace)
		if err != nil {
			return opt, fmt.Errorf("-trace: %w", err)
		}
		if fi.IsDir() {
			return opt, fmt.Errorf("-trace %s: is a directory, want a trace file", opt.params.Trace)
		}
	}
	opt.params.Progress = stderr
	return opt, nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func writeList(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Experiments:")
	def := map[string]bool{}
	for _, n := range experiment.Default() {
		def[n] = true
	}
	for _, e := range experiment.List() {
		mark := ""
		if def[e.Name] {
			mark = " (default)"
		}
		uses := "uses none of -policies -nodes -trace -load -timing"
		if f := e.Uses.Flags(); len(f) > 0 {
			uses = "uses " + strings.Join(f, " ")
		}
		size := ""
		if e.SuiteScale > 0 && e.SuiteScale != 1 {
			size = fmt.Sprintf("; runs at %v of its full size unless -full", e.SuiteScale)
		}
		fmt.Fprintf(tw, "  %s\t%s%s [%s%s]\n", e.Name, e.Summary, mark, uses, size)
	}
	fmt.Fprintln(tw, "\nPolicies:")
	for _, p := range experiment.Policies() {
		fmt.Fprintf(tw, "  %s\t%s\n", p.Name, p.Doc)
	}
	tw.Flush()
}
