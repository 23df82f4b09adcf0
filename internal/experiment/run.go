package experiment

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// Case is one simulation of a comparison: a policy on a workload and a
// cluster.
type Case struct {
	Label    string // for progress and errors, e.g. "fb2009/FIFO"
	Config   sim.Config
	Workload *workload.Workload
	Policy   Policy
	// Done, if set, is called with the run as soon as its simulation
	// ends, in the goroutine that ran it: a place to cut per-task records
	// down before the other cases finish, so that memory holds a few
	// runs' records at a time, not every run's.
	Done func(*sim.Run)
}

// progressEvery is the wall-clock period of progress lines: a run
// reports once it has gone that long, then again every period. It is a
// variable for tests.
var progressEvery = 3 * time.Second

// progressCheck is how many simulator steps pass between looks at the
// clock: a step costs at least a microsecond, a look at the clock tens of
// nanoseconds, so a slow run still reports within a few milliseconds of
// each period.
const progressCheck = 64

// RunCases simulates every case, up to p.Parallel at a time, and returns
// the runs in case order. Results do not depend on the parallelism. A
// case whose simulation returns an error fails the whole call (wrapping
// ErrRun), since a baseline making an invalid decision is a bug.
func RunCases(p Params, cases []Case) ([]sim.Run, error) {
	done, err := runCases(p, cases)
	runs := make([]sim.Run, len(done))
	for i := range done {
		runs[i] = done[i].run
	}
	return runs, err
}

// caseOutcome is what one case left: its run, the run's summary and the
// policy instance that ran.
type caseOutcome struct {
	run    sim.Run
	sum    metrics.Summary
	policy sim.Policy
}

// runCases simulates every case as RunCases does, and summarises each
// run in the goroutine that ran it.
func runCases(p Params, cases []Case) ([]caseOutcome, error) {
	out := make([]caseOutcome, len(cases))
	var mu sync.Mutex // serialises progress lines
	err := forEach(p.Parallel, len(cases), func(i int) error {
		var err error
		out[i].run, out[i].policy, err = runCase(p, &cases[i], &mu)
		if err == nil {
			out[i].sum = metrics.Summarize(out[i].run)
		}
		return err
	})
	return out, err
}

// forEach calls f(0), …, f(n−1), up to par at a time (par ≤ 0: GOMAXPROCS),
// and joins their errors in index order. It is the experiments' one
// parallel runner: results land where f puts them, by index, so they do
// not depend on par.
func forEach(par, n int, f func(i int) error) error {
	errs := make([]error, n)
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func runCase(p Params, c *Case, mu *sync.Mutex) (sim.Run, sim.Policy, error) {
	pol, err := c.Policy.New(Env{Config: &c.Config, Workload: c.Workload})
	if err != nil {
		return sim.Run{}, nil, runErr(c.Label, err)
	}
	cfg := c.Config
	if !p.Timing && cfg.TimingSample == 0 {
		cfg.TimingSample = UntimedSample
	}
	s, err := sim.New(cfg, c.Workload, pol)
	if err != nil {
		return sim.Run{}, nil, runErr(c.Label, err)
	}
	start := time.Now()
	last := start
	for i := 0; ; i++ {
		more, err := s.Step()
		if err != nil || !more {
			break
		}
		if p.Progress != nil && i%progressCheck == 0 {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				mu.Lock()
				fmt.Fprintf(p.Progress, "schedsim: %s: %d/%d jobs done, virtual time %v, %.0fs\n",
					c.Label, s.Ended(), s.Jobs(), s.Elapsed().Round(time.Second), now.Sub(start).Seconds())
				mu.Unlock()
			}
		}
	}
	run := s.Record()
	if c.Done != nil {
		c.Done(&run)
	}
	if err := s.Err(); err != nil {
		return run, pol, runErr(c.Label, err)
	}
	return run, pol, nil
}

// Summaries summarises runs.
func Summaries(runs []sim.Run) []metrics.Summary {
	out := make([]metrics.Summary, len(runs))
	for i := range runs {
		out[i] = metrics.Summarize(runs[i])
	}
	return out
}

// Rows returns the standard comparison rows for sums, without the rows
// every summary leaves undefined, without cost and paper 003's φ success
// when no job has a budget or a cost (φ success then repeats deadline
// success), and, unless timing is set, without the wall-clock
// decision-time rows (they differ from run to run).
func Rows(sums []metrics.Summary, timing bool) []metrics.Metric {
	budgets, costs := false, false
	for i := range sums {
		budgets = budgets || sums[i].BudgetSuccess.Total > 0
		costs = costs || sums[i].TotalCost != 0
	}
	var out []metrics.Metric
	for _, m := range metrics.StandardMetrics(sums) {
		switch {
		case !timing && (m.Name == "decision time" || m.Name == "per decision"),
			!costs && m.Name == "total cost",
			!budgets && !costs && strings.HasPrefix(m.Name, "φ success"):
			continue
		}
		defined := false
		for i := range sums {
			if m.Cell(&sums[i]) != metrics.NA {
				defined = true
				break
			}
		}
		if defined {
			out = append(out, m)
		}
	}
	return out
}

// UntimedSample is sim.Config.TimingSample for runs whose tables leave
// the decision time out (Params.Timing unset): one policy call in 64 is
// timed, which keeps sim.Run.DecisionTime an estimate without two
// clock reads per call. With Params.Timing every call is timed.
const UntimedSample = 64

// Compare runs the columns on one setup and returns the main comparison
// table (and a per-class table when the workload has several classes),
// with the cells by name.
func Compare(p Params, name, title string, s Setup, cols []Column) (Result, error) {
	cells, err := RunGrids(p, name, Grid{Setups: []Setup{s}, Columns: cols})
	if err != nil {
		return Result{}, err
	}
	row := cells.Row(s.Name, cols)
	sums := Sums(row)
	res := Result{Experiment: name, Title: title, Runs: Runs(row), Cells: cells}
	res.Tables = append(res.Tables, metrics.Compare(title, sums, Rows(sums, p.Timing)))
	classes := map[string]bool{}
	for _, j := range s.Workload.Jobs {
		classes[j.Class] = true
	}
	if len(classes) > 1 {
		res.Tables = append(res.Tables, metrics.ClassTable(title+" — per class", sums))
	}
	return res, nil
}
