package experiment

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// fbTrace is SWIM's FB-2009 day (New BSD licence, data/swim/LICENSE),
// embedded so that schedsim runs from a fresh clone.
//
//go:embed data/swim/FB-2009_samples_24_times_1hr_0.tsv
var fbTrace []byte

// FBTraceName is the embedded trace's file name.
const FBTraceName = "FB-2009_samples_24_times_1hr_0.tsv"

// fbNodes, fbMaps and fbReduces: the trace's 600-machine cluster, each
// with Hadoop 0.20's default TaskTracker slots (2 map + 2 reduce).
const fbNodes, fbMaps, fbReduces = 600, 2, 2

var (
	fb2009 = Experiment{
		Name:    "fb2009",
		Summary: "SWIM FB-2009 day (5,894 jobs, embedded) replayed on 600 workers × (2 map + 2 reduce); -scale keeps a leading share of the jobs",
		Run: func(p Params) (Result, error) {
			return runTrace(p, "fb2009", bytes.NewReader(fbTrace), FBTraceName, workload.FormatSWIM)
		},
		Uses: UsesPolicies | UsesNodes | UsesLoad | UsesTiming,
	}
	traceReplay = Experiment{
		Name:    "trace",
		Summary: "replay the -trace file (SWIM, SWF or CSV) on -nodes workers (default 600, or sized by -load) × (2 map + 2 reduce) under every policy (-policies picks)",
		Run: func(p Params) (Result, error) {
			if p.Trace == "" {
				return Result{}, paramErr("experiment trace needs -trace FILE")
			}
			format := workload.FormatUnknown
			if p.Format != "" {
				var err error
				if format, err = workload.ParseFormat(p.Format); err != nil {
					return Result{}, paramErr("-format %q: want swim, swf or csv", p.Format)
				}
			}
			f, err := os.Open(p.Trace)
			if err != nil {
				return Result{}, inputErr(err)
			}
			defer f.Close()
			return runTrace(p, "trace", f, p.Trace, format)
		},
		Uses: UsesPolicies | UsesNodes | UsesTrace | UsesLoad | UsesTiming,
	}
)

// TraceWorkload reads a trace (format detected from name and content when
// FormatUnknown) with the default trace options and keeps the leading
// ⌈scale·n⌉ of its n jobs when scale < 1. Other experiments (lss) reuse it.
func TraceWorkload(p Params, r io.Reader, name string, format workload.Format) (*workload.Workload, []string, error) {
	if err := p.normalize(); err != nil {
		return nil, nil, err
	}
	if format == workload.FormatUnknown {
		head := make([]byte, 4096)
		n, err := io.ReadFull(r, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			var pe *fs.PathError
			if !errors.As(err, &pe) { // a PathError names the file already
				err = fmt.Errorf("%s: %w", name, err)
			}
			return nil, nil, inputErr(err)
		}
		head = head[:n]
		if format = workload.DetectFormat(name, head); format == workload.FormatUnknown {
			return nil, nil, inputErr(fmt.Errorf("%s: cannot tell its format; use -format swim|swf|csv", name))
		}
		r = io.MultiReader(bytes.NewReader(head), r)
	}
	opt := workload.DefaultTraceOptions()
	opt.Compact = true // 8 bytes per SWIM task, not a TaskSpec each
	if p.Scale < 1 {
		opt.Share = p.Scale // cut by the reader, before tasks are laid out
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0xfb))
	w, err := workload.Read(r, name, format, opt, rng)
	if err != nil {
		return nil, nil, inputErr(err)
	}
	lines := append([]string{fmt.Sprintf("trace %s read as %v: %d jobs kept", name, format, len(w.Jobs))}, w.Assumptions...)
	if p.Scale > 1 {
		lines = append(lines, fmt.Sprintf("scale %g > 1 has no effect on a trace: all jobs replayed once", p.Scale))
	}
	lines = append(lines, fmt.Sprintf("workload seed %d", p.Seed))
	return &w, lines, nil
}

// tracePriceLine states the price tracePrices sets.
var tracePriceLine = fmt.Sprintf("prices: a trace states none; every slot-second costs %g (paper 003's reference, workload.Paper003Price), so every policy's cost is comparable and dbs's queues have a price", workload.Paper003Price)

// tracePrices charges every slot-second of a trace replay paper 003's
// reference price.
func tracePrices(cfg *sim.Config) {
	cfg.Prices = make(resource.Vector, cfg.Space.Len())
	for k := range cfg.Prices {
		cfg.Prices[k] = workload.Paper003Price
	}
}

func runTrace(p Params, name string, r io.Reader, file string, format workload.Format) (Result, error) {
	w, lines, err := TraceWorkload(p, r, file, format)
	if err != nil {
		return Result{}, err
	}
	space := workload.SlotSpace()
	n := fbNodes
	switch {
	case p.Nodes > 0:
		n = p.Nodes
	case p.Load > 0:
		one, _, err := SlotCluster(space, 1, fbMaps, fbReduces, p.Seed)
		if err != nil {
			return Result{}, err
		}
		if n, err = nodesForLoad(w, space, one.Nodes[0].Capacity, p.Load); err != nil {
			return Result{}, err
		}
		lines = append(lines, fmt.Sprintf("-load %g: %d workers, the fewest that keep the busiest slot kind's offered load at most %g", p.Load, n, p.Load))
	}
	cfg, cl, err := SlotCluster(space, n, fbMaps, fbReduces, p.Seed)
	if err != nil {
		return Result{}, err
	}
	tracePrices(&cfg)
	cl = append(cl, tracePriceLine)
	defaults := baselines
	if name == "trace" {
		defaults = nil // a replay of the user's trace runs every policy
		for _, pol := range policies {
			defaults = append(defaults, pol.Name)
		}
	}
	pols, err := choose(p, defaults)
	if err != nil {
		return Result{}, err
	}
	load, warning := loadLines(w, &cfg)
	var warnings []string
	for _, l := range lines {
		if strings.HasPrefix(l, "warning: ") {
			warnings = append(warnings, l)
		}
	}
	if warning != "" {
		warnings = append(warnings, "warning: "+warning)
	}
	if p.Progress != nil {
		for _, l := range warnings {
			fmt.Fprintf(p.Progress, "schedsim: %s: %s\n", name, l)
		}
	}
	title := fmt.Sprintf("%s replay, %d jobs on %d workers", traceLabel(file), len(w.Jobs), n)
	if name == "fb2009" {
		title = fmt.Sprintf("FB-2009 day (SWIM), %d jobs on %d workers", len(w.Jobs), n)
	}
	res, err := Compare(p, name, title, Setup{Name: name, Config: cfg, Workload: w}, pols)
	if err != nil {
		return Result{}, err
	}
	if load != "" {
		cl = append(cl, load)
	}
	if len(res.Tables) > 0 {
		res.Tables[0].Notes = append(res.Tables[0].Notes, warnings...)
	}
	res.Assumptions = append(lines, cl...)
	if name == "trace" {
		base := traceLabel(file)
		res.FileName = "trace-" + strings.TrimSuffix(base, filepath.Ext(base))
	}
	return res, nil
}

// traceLabel is a trace's file name without its directory: titles stay
// short and plot names (see Result.Workload) differ per trace.
func traceLabel(file string) string { return filepath.Base(file) }
