package experiment

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
	"slices"
)

// lssExp is paper 000's experiment for package lss: LSS with and without
// each of its options against FIFO, EDF and Fair (and, on the paper's
// cluster, FIFO and EDF dropping jobs at their deadline), on the paper's §4
// cluster and workflows over a sweep of offered load, on a heterogeneous
// variant of that cluster, on three-phase jobs, and on the FB-2009 day
// with generated deadlines.
var lssExp = Experiment{
	Name: "lss",
	Summary: "lss (paper 000): LSS and its options vs FIFO, EDF (also dropping jobs at their deadline), Fair on W1–W6 over a load sweep, " +
		"a heterogeneous cluster, 3-phase jobs, and FB-2009 with generated deadlines (600 and -nodes workers, default 100)",
	Run:        runLSS,
	Uses:       UsesPolicies | UsesNodes,
	SuiteScale: 0.1,
}

// Sizes and rules of the lss experiment.
const (
	// lssHorizon is the arrival horizon of the paper-000 workloads at
	// scale 1: four times the paper000 experiments' 2 h, about 300 jobs
	// per run, so that a success ratio moves by a third of a percent per
	// job rather than by more than one.
	lssHorizon = 8 * time.Hour
	// lssFBNodes is the default size of the scaled-down FB-2009 cluster.
	lssFBNodes = 100
	// lssFBKMin and lssFBKMax bound the deadline factor k of FB-2009 jobs.
	lssFBKMin, lssFBKMax = 1.5, 4.0
	// lssStageReduces is the number of first-stage reduces of a
	// three-phase job.
	lssStageReduces = 4
)

// lssPaperHorizon is the paper-000 arrival horizon at the given scale:
// lssHorizon × scale, but never below the 2 h of the paper000
// experiments, so that a small -scale shrinks the FB-2009 replay (the
// expensive part) while the paper tables keep about 76 jobs per run.
func lssPaperHorizon(scale float64) time.Duration {
	return max(time.Duration(float64(lssHorizon)*scale), workload.Paper000Light().Horizon)
}

// lssLoads are the sweep's target offered loads of the 10 map slots; 0
// stands for the WordCount model as it is (the paper's default, about
// 0.56).
var lssLoads = []float64{0.4, 0, 0.8, 1.0, 1.2}

// lssSpeeds are the heterogeneous cluster's node speed factors: a task
// of isolated duration T takes T/speed. They average 1, so the offered
// load is that of the homogeneous cluster.
var lssSpeeds = []float64{0.5, 0.75, 1, 1.25, 1.5}

// lssCol is an LSS column with opt, named after it.
func lssCol(opt policy.LSSOptions) Column {
	return Column{Name: opt.Name, Policy: Policy{Name: opt.Name, New: func(env Env) (sim.Policy, error) {
		return policy.NewLSS(env.Config, opt)
	}}}
}

// lssBaselines returns the baseline columns: p.Policies, else defaults.
func lssBaselines(p Params, defaults []string) ([]Column, error) {
	if len(p.Policies) > 0 {
		return Named(p.Policies...)
	}
	return Named(defaults...)
}

// The lss experiment's LSS columns, as data: adding a variant is a line.
var (
	// lssMainColumns are the sweep's and the paper tables' LSS columns.
	lssMainColumns = []Column{
		lssCol(policy.LSSOptions{Name: "LSS"}),
		lssCol(policy.LSSOptions{Name: "LSS soft", SoftDeadlines: true}),
		lssCol(policy.LSSOptions{Name: "LSS per-phase", PerPhaseTaskTime: true}),
		lssCol(policy.LSSOptions{Name: "LSS admission", Admission: true}),
		lssCol(policy.LSSOptions{Name: "LSS priors", PhaseTaskTimeHints: true}),
		lssCol(policy.LSSOptions{Name: "LSS waves", WaveRemaining: true}),
		lssCol(policy.LSSOptions{Name: "LSS optimistic", OptimisticKill: true}),
		lssCol(policy.LSSOptions{Name: "LSS no-first-pass", NoFirstMapPass: true}),
		lssCol(lssRecommended),
	}
	// lssHeteroColumns run on the heterogeneous cluster.
	lssHeteroColumns = []Column{
		lssCol(policy.LSSOptions{Name: "LSS"}),
		lssCol(policy.LSSOptions{Name: "LSS hetero", Heterogeneous: true}),
	}
	// lssThreeColumns run the three-phase jobs.
	lssThreeColumns = []Column{
		lssCol(policy.LSSOptions{Name: "LSS 3-phase", PhaseKinds: lssThreeKinds}),
		lssCol(policy.LSSOptions{Name: "LSS 3-phase per-phase", PhaseKinds: lssThreeKinds, PerPhaseTaskTime: true}),
		lssCol(policy.LSSOptions{Name: "LSS 3-phase priors", PhaseKinds: lssThreeKinds, PhaseTaskTimeHints: true}),
	}
	// lssFBColumns run the FB-2009 day: the main columns but admission
	// control (the day has no workflows to hint from). LSS soft is
	// second: the wrong-kill analysis replays each killed job under it.
	lssFBColumns = slices.DeleteFunc(slices.Clone(lssMainColumns), func(c Column) bool { return c.Name == "LSS admission" })
	// lssThreeKinds are the three-phase jobs' phase kinds.
	lssThreeKinds = []string{resource.MapSlot.Name, resource.ReduceSlot.Name, resource.ReduceSlot.Name}
)

// lssBaseNames are the lss experiment's default baselines; the paper
// tables and the load sweep add lssDropNames after FIFO and EDF, so that
// the table separates what lss gains by its order from what it gains by
// ending jobs that have missed (a drop variant ends a job at its
// deadline, lss may end it before).
var (
	lssBaseNames = []string{"fifo", "edf", "fair"}
	lssDropNames = []string{"fifo", "fifo-drop", "edf", "edf-drop", "fair", "capacity", "drf"}
)

// lssRecommendedName is the schedsim policy (and lss table column) of
// lss.Recommended.
const lssRecommendedName = "lss-recommended"

// lssRecommended is the recommended configuration (lss.Recommended) as a
// column, named as its schedsim policy.
var lssRecommended = policy.LSSOptions{Name: lssRecommendedName, OptimisticKill: true, NoFirstMapPass: true}

// reduceLikeMap returns wc with ReduceRate raised so that the single
// reduce of its largest workflow (W1/W4) takes a map's time, paper 000's
// own assumption ("a reduce task's time is roughly a map's"); the
// smaller workflows' reduces then take less. It returns the map and
// reduce base times of that workflow.
func reduceLikeMap(wc workload.PoissonConfig) (workload.PoissonConfig, time.Duration, time.Duration) {
	big := wc.Workflows[0]
	for _, w := range wc.Workflows {
		if w.InputBytes > big.InputBytes {
			big = w
		}
	}
	m := wc.Model
	if big.Reduces == 0 || big.Maps == 0 {
		return wc, 0, 0
	}
	mapT := m.MapBase(big.InputBytes/int64(big.Maps), 0)
	shuffle := int64(float64(big.InputBytes)*m.ShuffleRatio) / int64(big.Reduces)
	output := int64(float64(shuffle) * m.OutputRatio)
	fixed := m.ReduceBase(0, output) // overhead and write
	if mapT > fixed && shuffle > 0 {
		m.ReduceRate = float64(shuffle) / (mapT - fixed).Seconds()
	}
	wc.Model = m
	return wc, mapT, m.ReduceBase(shuffle, output)
}

// lssCell is one cell of an lss table with, for an LSS column, the
// adapter's counts.
type lssCell struct {
	*Cell
	stats *policy.LSSStats
}

// lssCells returns the cells with their LSS adapters' counts.
func lssCells(cells []*Cell) []lssCell {
	out := make([]lssCell, len(cells))
	for i, c := range cells {
		out[i].Cell = c
		if a, ok := c.Policy.(*policy.LSS); ok {
			st := a.Stats()
			out[i].stats = &st
		}
	}
	return out
}

// lssPoint is one load point of the sweep: its light and heavy setups.
type lssPoint struct {
	target, load, reduceLoad, factor float64
	light, heavy                     Setup
	// reduceLikeMap: the paper's load with reduces priced as maps
	// (reduceLikeMap), the sensitivity row beside the paper's point.
	reduceLikeMap bool
}

// tag is the point's row label: its offered map load.
func (pt lssPoint) tag() string {
	tag := fmt.Sprintf("%.0f%%", 100*pt.load)
	if pt.target == 0 {
		tag += " (paper)"
	}
	if pt.reduceLikeMap {
		tag += ", reduce ≈ map,"
	}
	return tag
}

// scaleModel returns wc with MapRate and ReduceRate divided by a factor
// chosen so that the offered map-slot load on 10 map and 5 reduce slots is
// target (bisection in log space); target 0 keeps the model. It returns
// the factor and the loads reached.
func scaleModel(wc workload.PoissonConfig, target float64) (workload.PoissonConfig, float64, float64, float64) {
	base := wc.Model
	at := func(f float64) (workload.PoissonConfig, float64, float64) {
		c := wc
		c.Model = base
		c.Model.MapRate = base.MapRate / f
		c.Model.ReduceRate = base.ReduceRate / f
		m, r, _ := c.OfferedLoad(10, 5)
		return c, m, r
	}
	if target <= 0 {
		c, m, r := at(1)
		return c, 1, m, r
	}
	lo, hi := math.Log(0.01), math.Log(100)
	for range 100 {
		mid := (lo + hi) / 2
		if _, m, _ := at(math.Exp(mid)); m < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	f := math.Exp((lo + hi) / 2)
	c, m, r := at(f)
	return c, f, m, r
}

// lssSweepPoint generates the light and heavy workloads of one sweep
// point (target load, and with rlm reduces priced as maps) on cfg's
// cluster. It returns the point and the workload's lines.
func lssSweepPoint(cfg sim.Config, pw Params, target float64, rlm bool) (lssPoint, []string, error) {
	lc, f, m, r := scaleModel(workload.Paper000Light(), target)
	hc, _, _, _ := scaleModel(workload.Paper000Heavy(), target)
	if rlm {
		lc, _, _ = reduceLikeMap(lc)
		hc, _, _ = reduceLikeMap(hc)
		_, r, _ = lc.OfferedLoad(10, 5)
	}
	lw, ll, err := Paper000Workload(lc, pw)
	if err != nil {
		return lssPoint{}, nil, err
	}
	hw, _, err := Paper000Workload(hc, pw)
	if err != nil {
		return lssPoint{}, nil, err
	}
	tag := fmt.Sprintf(" map load %.0f%%", 100*m)
	if rlm {
		tag += ", reduce ≈ map"
	}
	lw.Name += tag
	hw.Name += tag
	pc := cfg
	pc.RecordTasks = target == 0 && !rlm // the paper's load: slots held (fig. 2)
	pt := lssPoint{target: target, load: m, reduceLoad: r, factor: f, reduceLikeMap: rlm,
		light: Setup{Name: lw.Name, Config: pc, Workload: lw}, heavy: Setup{Name: hw.Name, Config: pc, Workload: hw}}
	return pt, ll, nil
}

// lssW1Reduce returns the base time of W1's reduce under the model as is.
func lssW1Reduce() time.Duration {
	wc := workload.Paper000Light()
	w := wc.Workflows[0]
	m := wc.Model
	shuffle := int64(float64(w.InputBytes)*m.ShuffleRatio) / int64(max(w.Reduces, 1))
	return m.ReduceBase(shuffle, int64(float64(shuffle)*m.OutputRatio))
}

// lssPlan is the lss experiment as data: its setups, which columns run
// on them, and the assumptions they state.
type lssPlan struct {
	main, hetero, three, fb []Column
	points                  []lssPoint
	paper                   int // the paper's load in points
	hetLight, hetHeavy      Setup
	threeLight, threeHeavy  Setup
	fbs                     []lssFB
	lines                   []string
}

// lssFB is one FB-2009 setup: the day on n workers.
type lssFB struct {
	nodes int
	setup Setup
}

// grids are the plan's simulations.
func (pl *lssPlan) grids() []Grid {
	var sweep, fb []Setup
	for _, pt := range pl.points {
		sweep = append(sweep, pt.light, pt.heavy)
	}
	for _, f := range pl.fbs {
		fb = append(fb, f.setup)
	}
	return []Grid{
		{Setups: sweep, Columns: pl.main},
		{Setups: []Setup{pl.hetLight, pl.hetHeavy}, Columns: pl.hetero},
		{Setups: []Setup{pl.threeLight, pl.threeHeavy}, Columns: pl.three},
		{Setups: fb, Columns: pl.fb},
	}
}

func runLSS(p Params) (Result, error) {
	pl, err := newLSSPlan(p)
	if err != nil {
		return Result{}, err
	}
	cells, err := RunGrids(p, "lss", pl.grids()...)
	if err != nil {
		return Result{}, err
	}
	return pl.result(cells), nil
}

// newLSSPlan builds the lss experiment's setups and columns.
func newLSSPlan(p Params) (*lssPlan, error) {
	if err := p.normalize(); err != nil {
		return nil, err
	}
	bases, err := lssBaselines(p, lssBaseNames)
	if err != nil {
		return nil, err
	}
	mainBases, err := lssBaselines(p, lssDropNames)
	if err != nil {
		return nil, err
	}
	pl := &lssPlan{
		main:   append(slices.Clone(lssMainColumns), mainBases...),
		hetero: append(slices.Clone(lssHeteroColumns), bases...),
		three:  append(slices.Clone(lssThreeColumns), bases...),
		fb:     append(slices.Clone(lssFBColumns), mainBases...),
	}
	pw := p
	horizon := lssPaperHorizon(p.Scale)
	pw.Scale = float64(horizon) / float64(workload.Paper000Light().Horizon)
	cfg, clLines, err := SlotCluster(workload.SlotSpace(), 5, 2, 1, p.Seed)
	if err != nil {
		return nil, err
	}
	if err := pl.sweep(cfg, pw); err != nil {
		return nil, err
	}
	pl.lines = append(pl.lines, fmt.Sprintf("arrival horizon %v (scale %g × %v, at least the paper000 experiments' 2 h)", horizon, p.Scale, lssHorizon))
	pl.lines = append(pl.lines, clLines...)

	// The heterogeneous cluster at the paper's default load.
	hcfg := cfg
	hcfg.Nodes = append([]sim.NodeSpec(nil), cfg.Nodes...)
	for i := range hcfg.Nodes {
		hcfg.Nodes[i].Speed = lssSpeeds[i%len(lssSpeeds)]
	}
	dp := pl.points[pl.paper]
	pl.hetLight = Setup{Name: "hetero/" + dp.light.Name, Config: hcfg, Workload: dp.light.Workload}
	pl.hetHeavy = Setup{Name: "hetero/" + dp.heavy.Name, Config: hcfg, Workload: dp.heavy.Workload}
	pl.lines = append(pl.lines, fmt.Sprintf("heterogeneous cluster: node speeds %v (a task of isolated time T takes T/speed; mean 1, same capacity); LSS hetero is told the speeds and reports finished task times × speed", lssSpeeds))

	// Three-phase jobs at the paper's default load.
	tl, tlLines, err := threePhaseWorkload(workload.Paper000Light(), pw)
	if err != nil {
		return nil, err
	}
	th, _, err := threePhaseWorkload(workload.Paper000Heavy(), pw)
	if err != nil {
		return nil, err
	}
	pl.threeLight = Setup{Name: tl.Name, Config: cfg, Workload: tl}
	pl.threeHeavy = Setup{Name: th.Name, Config: cfg, Workload: th}
	pl.lines = append(pl.lines, tlLines...)
	return pl, pl.fbDay(p)
}

// sweep adds the load sweep's points, light and heavy deadlines on the
// same jobs, and the lines that state them.
func (pl *lssPlan) sweep(cfg sim.Config, pw Params) error {
	var rlmReduce time.Duration
	for _, target := range lssLoads {
		for _, rlm := range []bool{false, true} {
			if rlm && target != 0 {
				continue
			}
			pt, ll, err := lssSweepPoint(cfg, pw, target, rlm)
			if err != nil {
				return err
			}
			if rlm {
				_, _, rlmReduce = reduceLikeMap(workload.Paper000Light())
			}
			if target == 0 && !rlm {
				pl.paper = len(pl.points)
				pl.lines = append(pl.lines, "paper 000 workloads (Table 2):")
				pl.lines = append(pl.lines, ll...)
			}
			pl.points = append(pl.points, pt)
		}
	}
	var sweep []string
	for _, pt := range pl.points {
		if !pt.reduceLikeMap {
			sweep = append(sweep, fmt.Sprintf("%.0f%% (rates ÷ %.3g, reduce load %.0f%%)", 100*pt.load, pt.factor, 100*pt.reduceLoad))
		}
	}
	pl.lines = append(pl.lines,
		"task durations: workload.WordCountModel (above), the paper's jobs being WordCount: a map is a fixed start-up cost plus its 32 MiB split at "+
			"the ~3 MiB/s one Hadoop-1 slot of a 2013 Xeon counts words at; the combiner leaves ~10% of the input to shuffle to the single reduce",
		"load sweep: MapRate and ReduceRate divided by one factor per point, same arrivals and jitter draws at every point; offered map-slot load "+strings.Join(sweep, ", "),
		fmt.Sprintf("reduce ≈ map rows: the paper's load with ReduceRate raised so that W1/W4's reduce takes a map's time (%v, against %v with the model as is); the smaller workflows' reduces take less; same arrivals and jitter draws",
			rlmReduce.Round(100*time.Millisecond), lssW1Reduce().Round(100*time.Millisecond)),
	)
	return nil
}

// fbDay adds FB-2009 on 600 workers and on a scaled-down cluster.
func (pl *lssPlan) fbDay(p Params) error {
	small := lssFBNodes
	if p.Nodes > 0 {
		small = p.Nodes
	}
	for k, n := range []int{fbNodes, small} {
		w, wl, err := lssFBWorkload(p, n)
		if err != nil {
			return err
		}
		fcfg, fl, err := SlotCluster(workload.SlotSpace(), n, fbMaps, fbReduces, p.Seed)
		if err != nil {
			return err
		}
		name := w.Name
		if k > 0 {
			name = "scaled-down " + name // distinct when -nodes is the trace's 600
		}
		pl.fbs = append(pl.fbs, lssFB{nodes: n, setup: Setup{Name: name, Config: fcfg, Workload: w}})
		load := fmt.Sprintf("FB-2009 offered map-slot load on %d workers: %.0f%% (Σ map task time ÷ (map slots × span of submissions))", n, 100*mapSlotLoad(w, n*fbMaps))
		if n == fbNodes {
			pl.lines = append(pl.lines, wl...)
			pl.lines = append(pl.lines, fl[0], load)
		} else {
			pl.lines = append(pl.lines, wl[len(wl)-1], fl[0], load)
		}
	}
	return nil
}
