package experiment

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/schedkit/schedkit/internal/workload"
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
	}
	traceReplay = Experiment{
		Name:    "trace",
		Summary: "replay the -trace file (SWIM, SWF or CSV) on -nodes workers (default 600) × (2 map + 2 reduce)",
		Run: func(p Params) (Result, error) {
			if p.Trace == "" {
				return Result{}, fmt.Errorf("%w: experiment trace needs -trace FILE", ErrParams)
			}
			f, err := os.Open(p.Trace)
			if err != nil {
				return Result{}, fmt.Errorf("%w: %w", ErrParams, err)
			}
			defer f.Close()
			format := workload.FormatUnknown
			if p.Format != "" {
				if format, err = workload.ParseFormat(p.Format); err != nil {
					return Result{}, fmt.Errorf("%w: %w", ErrParams, err)
				}
			}
			return runTrace(p, "trace", f, p.Trace, format)
		},
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
			return nil, nil, fmt.Errorf("%w: %s: %w", ErrParams, name, err)
		}
		head = head[:n]
		if format = workload.DetectFormat(name, head); format == workload.FormatUnknown {
			return nil, nil, fmt.Errorf("%w: %s: cannot tell its format; use -format swim|swf|csv", ErrParams, name)
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
		return nil, nil, fmt.Errorf("%w: %w", ErrParams, err)
	}
	lines := append([]string{fmt.Sprintf("trace %s read as %v: %d jobs kept", name, format, len(w.Jobs))}, w.Assumptions...)
	if p.Scale > 1 {
		lines = append(lines, fmt.Sprintf("scale %g > 1 has no effect on a trace: all jobs replayed once", p.Scale))
	}
	lines = append(lines, fmt.Sprintf("workload seed %d", p.Seed))
	return &w, lines, nil
}

func runTrace(p Params, name string, r io.Reader, file string, format workload.Format) (Result, error) {
	w, lines, err := TraceWorkload(p, r, file, format)
	if err != nil {
		return Result{}, err
	}
	n := fbNodes
	if p.Nodes > 0 {
		n = p.Nodes
	}
	cfg, cl, err := SlotCluster(workload.SlotSpace(), n, fbMaps, fbReduces, p.Seed)
	if err != nil {
		return Result{}, err
	}
	pols, err := choose(p, baselines)
	if err != nil {
		return Result{}, err
	}
	title := fmt.Sprintf("%s replay, %d jobs on %d workers", file, len(w.Jobs), n)
	if name == "fb2009" {
		title = fmt.Sprintf("FB-2009 day (SWIM), %d jobs on %d workers", len(w.Jobs), n)
	}
	res, err := Compare(p, name, title, cfg, w, pols)
	res.Assumptions = append(lines, cl...)
	return res, err
}
