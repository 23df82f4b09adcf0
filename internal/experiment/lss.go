package experiment

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
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

// lssColumn is one policy of an lss table.
type lssColumn struct {
	name string
	opt  *policy.LSSOptions // nil: a baseline
	base string             // baseline name in policies
}

func lssCol(opt policy.LSSOptions) lssColumn { return lssColumn{name: opt.Name, opt: &opt} }

// lssBaselines returns the baseline columns: p.Policies, else defaults.
func lssBaselines(p Params, defaults []string) ([]lssColumn, error) {
	names := p.Policies
	if len(names) == 0 {
		names = defaults
	}
	pols, err := LookupPolicies(names)
	if err != nil {
		return nil, err
	}
	out := make([]lssColumn, len(pols))
	for i, pol := range pols {
		out[i] = lssColumn{name: pol.Name, base: pol.Name}
	}
	return out, nil
}

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

// lssCell is one simulation's outcome: the summary, the record and, for
// an LSS column, the adapter's counts.
type lssCell struct {
	sum   metrics.Summary
	run   sim.Run
	stats *policy.LSSStats
}

// lssBatch collects the simulations of the whole experiment so that they
// run in one parallel batch.
type lssBatch struct {
	cases    []Case
	adapters []*policy.LSS
}

// add queues every column on one workload and cluster and returns the
// index of the first case.
func (b *lssBatch) add(label string, cfg sim.Config, w *workload.Workload, cols []lssColumn) int {
	first := len(b.cases)
	for _, col := range cols {
		i := len(b.cases)
		b.adapters = append(b.adapters, nil)
		var pol Policy
		if col.opt != nil {
			opt := *col.opt
			pol = Policy{Name: col.name, New: func(env Env) (sim.Policy, error) {
				a, err := policy.NewLSS(env.Config, opt)
				b.adapters[i] = a
				return a, err
			}}
		} else {
			pols, _ := LookupPolicies([]string{col.base})
			pol = pols[0]
		}
		b.cases = append(b.cases, Case{Label: label + "/" + col.name, Config: cfg, Workload: w, Policy: pol})
	}
	return first
}

// cells returns the outcomes of n cases from first.
func (b *lssBatch) cells(runs []sim.Run, first, n int) []lssCell {
	out := make([]lssCell, n)
	for k := range out {
		i := first + k
		out[k] = lssCell{sum: metrics.Summarize(runs[i]), run: runs[i]}
		if a := b.adapters[i]; a != nil {
			st := a.Stats()
			out[k].stats = &st
		}
	}
	return out
}

// lssPoint is one load point of the sweep.
type lssPoint struct {
	target, load, reduceLoad, factor float64
	light, heavy                     *workload.Workload
	lightAt, heavyAt                 int
	// reduceLikeMap: the paper's load with reduces priced as maps
	// (reduceLikeMap), the sensitivity row beside the paper's point.
	reduceLikeMap bool
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
// point (target load, and with rlm reduces priced as maps) and queues
// the columns on them. It returns the point and the workload's lines.
func lssSweepPoint(b *lssBatch, cfg sim.Config, pw Params, target float64, rlm bool, cols []lssColumn) (lssPoint, []string, error) {
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
	pt := lssPoint{target: target, load: m, reduceLoad: r, factor: f, light: lw, heavy: hw, reduceLikeMap: rlm}
	pc := cfg
	pc.RecordTasks = target == 0 && !rlm // the paper's load: slots held (fig. 2)
	pt.lightAt = b.add(lw.Name, pc, lw, cols)
	pt.heavyAt = b.add(hw.Name, pc, hw, cols)
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

func runLSS(p Params) (Result, error) {
	if err := p.normalize(); err != nil {
		return Result{}, err
	}
	bases, err := lssBaselines(p, lssBaseNames)
	if err != nil {
		return Result{}, err
	}
	mainBases, err := lssBaselines(p, lssDropNames)
	if err != nil {
		return Result{}, err
	}
	main := append([]lssColumn{
		lssCol(policy.LSSOptions{Name: "LSS"}),
		lssCol(policy.LSSOptions{Name: "LSS soft", SoftDeadlines: true}),
		lssCol(policy.LSSOptions{Name: "LSS per-phase", PerPhaseTaskTime: true}),
		lssCol(policy.LSSOptions{Name: "LSS admission", Admission: true}),
		lssCol(policy.LSSOptions{Name: "LSS priors", PhaseTaskTimeHints: true}),
		lssCol(policy.LSSOptions{Name: "LSS waves", WaveRemaining: true}),
		lssCol(policy.LSSOptions{Name: "LSS optimistic", OptimisticKill: true}),
		lssCol(policy.LSSOptions{Name: "LSS no-first-pass", NoFirstMapPass: true}),
		lssCol(lssRecommended),
	}, mainBases...)
	hetero := append([]lssColumn{
		lssCol(policy.LSSOptions{Name: "LSS"}),
		lssCol(policy.LSSOptions{Name: "LSS hetero", Heterogeneous: true}),
	}, bases...)
	threeKinds := []string{resource.MapSlot.Name, resource.ReduceSlot.Name, resource.ReduceSlot.Name}
	three := append([]lssColumn{
		lssCol(policy.LSSOptions{Name: "LSS 3-phase", PhaseKinds: threeKinds}),
		lssCol(policy.LSSOptions{Name: "LSS 3-phase per-phase", PhaseKinds: threeKinds, PerPhaseTaskTime: true}),
		lssCol(policy.LSSOptions{Name: "LSS 3-phase priors", PhaseKinds: threeKinds, PhaseTaskTimeHints: true}),
	}, bases...)
	// LSS soft is second: the wrong-kill analysis replays each killed
	// job under it.
	fbCols := append([]lssColumn{
		lssCol(policy.LSSOptions{Name: "LSS"}),
		lssCol(policy.LSSOptions{Name: "LSS soft", SoftDeadlines: true}),
		lssCol(policy.LSSOptions{Name: "LSS per-phase", PerPhaseTaskTime: true}),
		lssCol(policy.LSSOptions{Name: "LSS priors", PhaseTaskTimeHints: true}),
		lssCol(policy.LSSOptions{Name: "LSS waves", WaveRemaining: true}),
		lssCol(policy.LSSOptions{Name: "LSS optimistic", OptimisticKill: true}),
		lssCol(policy.LSSOptions{Name: "LSS no-first-pass", NoFirstMapPass: true}),
		lssCol(lssRecommended),
	}, mainBases...)

	pw := p
	horizon := lssPaperHorizon(p.Scale)
	pw.Scale = float64(horizon) / float64(workload.Paper000Light().Horizon)
	cfg, clLines, err := SlotCluster(workload.SlotSpace(), 5, 2, 1, p.Seed)
	if err != nil {
		return Result{}, err
	}
	var b lssBatch
	var lines []string

	// 1. The load sweep, light and heavy deadlines on the same jobs.
	var points []lssPoint
	defaultAt := -1
	var rlmReduce time.Duration
	for _, target := range lssLoads {
		for _, rlm := range []bool{false, true} {
			if rlm && target != 0 {
				continue
			}
			pt, ll, err := lssSweepPoint(&b, cfg, pw, target, rlm, main)
			if err != nil {
				return Result{}, err
			}
			if rlm {
				_, _, rlmReduce = reduceLikeMap(workload.Paper000Light())
			}
			if target == 0 && !rlm {
				defaultAt = len(points)
				lines = append(lines, "paper 000 workloads (Table 2):")
				lines = append(lines, ll...)
			}
			points = append(points, pt)
		}
	}
	var sweep []string
	for _, pt := range points {
		if pt.reduceLikeMap {
			continue
		}
		sweep = append(sweep, fmt.Sprintf("%.0f%% (rates ÷ %.3g, reduce load %.0f%%)", 100*pt.load, pt.factor, 100*pt.reduceLoad))
	}
	lines = append(lines,
		"task durations: workload.WordCountModel (above), the paper's jobs being WordCount: a map is a fixed start-up cost plus its 32 MiB split at "+
			"the ~3 MiB/s one Hadoop-1 slot of a 2013 Xeon counts words at; the combiner leaves ~10% of the input to shuffle to the single reduce",
		"load sweep: MapRate and ReduceRate divided by one factor per point, same arrivals and jitter draws at every point; offered map-slot load "+strings.Join(sweep, ", "),
		fmt.Sprintf("reduce ≈ map rows: the paper's load with ReduceRate raised so that W1/W4's reduce takes a map's time (%v, against %v with the model as is); the smaller workflows' reduces take less; same arrivals and jitter draws",
			rlmReduce.Round(100*time.Millisecond), lssW1Reduce().Round(100*time.Millisecond)),
		fmt.Sprintf("arrival horizon %v (scale %g × %v, at least the paper000 experiments' 2 h)", horizon, p.Scale, lssHorizon),
	)
	lines = append(lines, clLines...)

	// 2. Heterogeneous cluster at the paper's default load.
	hcfg := cfg
	hcfg.Nodes = append([]sim.NodeSpec(nil), cfg.Nodes...)
	for i := range hcfg.Nodes {
		hcfg.Nodes[i].Speed = lssSpeeds[i%len(lssSpeeds)]
	}
	dp := points[defaultAt]
	hetLightAt := b.add("hetero/"+dp.light.Name, hcfg, dp.light, hetero)
	hetHeavyAt := b.add("hetero/"+dp.heavy.Name, hcfg, dp.heavy, hetero)
	lines = append(lines, fmt.Sprintf("heterogeneous cluster: node speeds %v (a task of isolated time T takes T/speed; mean 1, same capacity); LSS hetero is told the speeds and reports finished task times × speed", lssSpeeds))

	// 3. Three-phase jobs at the paper's default load.
	tl, tlLines, err := threePhaseWorkload(workload.Paper000Light(), pw)
	if err != nil {
		return Result{}, err
	}
	th, _, err := threePhaseWorkload(workload.Paper000Heavy(), pw)
	if err != nil {
		return Result{}, err
	}
	threeLightAt := b.add(tl.Name, cfg, tl, three)
	threeHeavyAt := b.add(th.Name, cfg, th, three)
	lines = append(lines, tlLines...)

	// 4. FB-2009 on 600 workers and on a scaled-down cluster.
	small := lssFBNodes
	if p.Nodes > 0 {
		small = p.Nodes
	}
	type fbCase struct {
		nodes, at int
		w         *workload.Workload
	}
	var fbs []fbCase
	for _, n := range []int{fbNodes, small} {
		w, wl, err := lssFBWorkload(p, n)
		if err != nil {
			return Result{}, err
		}
		fcfg, fl, err := SlotCluster(workload.SlotSpace(), n, fbMaps, fbReduces, p.Seed)
		if err != nil {
			return Result{}, err
		}
		fbs = append(fbs, fbCase{nodes: n, w: w, at: b.add(w.Name, fcfg, w, fbCols)})
		load := fmt.Sprintf("FB-2009 offered map-slot load on %d workers: %.0f%% (Σ map task time ÷ (map slots × span of submissions))", n, 100*mapSlotLoad(w, n*fbMaps))
		if n == fbNodes {
			lines = append(lines, wl...)
			lines = append(lines, fl[0], load)
		} else {
			lines = append(lines, wl[len(wl)-1], fl[0], load)
		}
	}

	runs, err := RunCases(p, b.cases)
	if err != nil {
		return Result{}, err
	}

	res := Result{Experiment: "lss", Title: "lss (paper 000): least spare time vs FIFO, EDF, Fair"}
	pct := func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

	lightCells := b.cells(runs, dp.lightAt, len(main))
	heavyCells := b.cells(runs, dp.heavyAt, len(main))
	res.Tables = append(res.Tables,
		lssDetail(fmt.Sprintf("paper 000 light load W1–W3 (D = 1/λ), 5 workers, offered map load %s (WordCount model as is)", pct(dp.load)),
			lightCells, []string{"W1", "W2", "W3"}),
		lssDetail(fmt.Sprintf("paper 000 heavy load W4–W6 (D < 1/λ), 5 workers, offered map load %s", pct(dp.load)),
			heavyCells, []string{"W4", "W5", "W6"}),
	)
	// The sweep tables.
	success := metrics.Table{Title: "deadline success by offered map-slot load (same jobs, light = W1–W3, heavy = W4–W6)", Columns: lssColumns(lightCells)}
	loose := metrics.Table{Title: "loosest workflow's mean response (W1 light, W4 heavy) and kills by LSS and the -drop baselines (light + heavy), by load", Columns: lssColumns(lightCells)}
	var optRows []lssOptionsRow
	for _, pt := range points {
		lc := b.cells(runs, pt.lightAt, len(main))
		hc := b.cells(runs, pt.heavyAt, len(main))
		tag := pct(pt.load)
		if pt.target == 0 {
			tag += " (paper)"
		}
		if pt.reduceLikeMap {
			tag += ", reduce ≈ map,"
		}
		optRows = append(optRows, lssOptionsRow{tag + " light", lc}, lssOptionsRow{tag + " heavy", hc})
		success.Rows = append(success.Rows,
			lssRow(tag+" light", lc, func(c *lssCell) string { return ratio3(c.sum.DeadlineSuccess) }),
			lssRow(tag+" heavy", hc, func(c *lssCell) string { return ratio3(c.sum.DeadlineSuccess) }),
		)
		loose.Rows = append(loose.Rows,
			lssRow(tag+" W1 response", lc, func(c *lssCell) string { return classResponse(c, "W1") }),
			lssRow(tag+" W4 response", hc, func(c *lssCell) string { return classResponse(c, "W4") }),
		)
		kills := metrics.Row{Name: tag + " kills (LSS, -drop): early (could) / at deadline", Cells: make([]string, len(main))}
		for i := range kills.Cells {
			kills.Cells[i] = metrics.NA
			if l, h := lc[i].stats, hc[i].stats; l != nil {
				kills.Cells[i] = fmt.Sprintf("%d (%d) / %d", l.SpareExhausted+h.SpareExhausted,
					couldHaveMade(&lc[i])+couldHaveMade(&hc[i]), l.DeadlinePassed+h.DeadlinePassed)
			} else if lc[i].dropped() {
				kills.Cells[i] = fmt.Sprintf("0 (0) / %d", lc[i].sum.Killed+hc[i].sum.Killed)
			}
		}
		loose.Rows = append(loose.Rows, kills)
	}
	res.Tables = append(res.Tables, success, loose)
	var killTables []metrics.Table
	for k, fc := range fbs {
		cells := b.cells(runs, fc.at, len(fbCols))
		optRows = append(optRows, lssOptionsRow{fmt.Sprintf("FB-2009, %d workers", fc.nodes), cells})
		var views []lssKillView
		for i := range cells {
			if cells[i].stats != nil && i != 1 { // LSS soft (1) kills nothing
				views = append(views, lssKillView{cell: &cells[i], soft: &cells[1], w: fc.w, mapSlots: fc.nodes * fbMaps})
			}
		}
		killTables = append(killTables, lssKillTable(
			fmt.Sprintf("wrong kills on the FB-2009 day, %d workers: early kills judged by the simulator's check and by the replay under LSS soft, where the wrong ones stood", fc.nodes), views))
		if k == 0 {
			killTables = append(killTables, lssKillRecords(
				fmt.Sprintf("per-kill records: LSS's early kills on the FB-2009 day, %d workers (figures at the kill; true times from the job's spec)", fc.nodes), views[0], 20))
		}
	}

	hl := b.cells(runs, hetLightAt, len(hetero))
	hh := b.cells(runs, hetHeavyAt, len(hetero))
	res.Tables = append(res.Tables, lssPair(
		fmt.Sprintf("heterogeneous cluster (speeds %v), offered map load %s", lssSpeeds, pct(dp.load)),
		hl, hh))
	t3l := b.cells(runs, threeLightAt, len(three))
	t3h := b.cells(runs, threeHeavyAt, len(three))
	res.Tables = append(res.Tables, lssPair(
		fmt.Sprintf("three-phase jobs (maps → %d reduces → 1 merge), offered map load %s", lssStageReduces, pct(dp.load)),
		t3l, t3h))
	for _, fc := range fbs {
		cells := b.cells(runs, fc.at, len(fbCols))
		res.Tables = append(res.Tables, lssDetail(
			fmt.Sprintf("FB-2009 day, %d jobs on %d workers × (2 map + 2 reduce), offered map-slot load %s, deadlines k × isolated time, k ~ U[%g, %g]",
				len(fc.w.Jobs), fc.nodes, pct(mapSlotLoad(fc.w, fc.nodes*fbMaps)), lssFBKMin, lssFBKMax),
			cells, []string{workload.ClassSmall, workload.ClassMedium, workload.ClassLarge}))
	}
	res.Tables = append(res.Tables, lssOptionsTable("LSS and its options by load: deadline success · early kills (could have made it) / kills at the deadline; best baseline beside", optRows))
	res.Tables = append(res.Tables, killTables...)
	res.Tables = append(res.Tables,
		heldTable("slots held per workflow over time (paper 000 fig. 2), light load W1–W3", runs[dp.lightAt:dp.lightAt+len(main)]),
		heldTable("slots held per workflow over time (paper 000 fig. 2), heavy load W4–W6", runs[dp.heavyAt:dp.heavyAt+len(main)]))
	// Runs for plots: the paper-default load and the FB replays.
	res.Runs = append(res.Runs, runs[dp.lightAt:dp.lightAt+len(main)]...)
	res.Runs = append(res.Runs, runs[dp.heavyAt:dp.heavyAt+len(main)]...)
	for _, fc := range fbs {
		res.Runs = append(res.Runs, runs[fc.at:fc.at+len(fbCols)]...)
	}
	res.Assumptions = append(lines,
		"LSS columns: lss.Scheduler through the simulator adapter (policy.LSS); soft = SoftDeadlines, per-phase = PerPhaseTaskTime, "+
			"admission = Admission with each job's task time hinted by the mean finished task time of earlier jobs of its workflow, "+
			"priors = PhaseTaskTimeHints with each phase's task time hinted by the mean finished task time of that phase in earlier jobs of its workflow, "+
			"a task of a later phase timed from the later of its start and the end of the previous phase (so an early reduce's shuffle wait is not counted)",
		"-drop columns: the baseline wrapped in policy.DropAtDeadline, which ends a job at the first heartbeat past its deadline (freeing its slots) but never earlier; "+
			"LSS soft never ends a job: together they split LSS's lead into what its order gains (LSS soft vs FIFO, EDF) and what ending hopeless jobs gains (FIFO-drop, EDF-drop vs FIFO, EDF)",
		"waves = WaveRemaining, optimistic = OptimisticKill, no-first-pass = NoFirstMapPass, "+lssRecommendedName+" = lss.Recommended(): OptimisticKill and NoFirstMapPass (schedsim -policies "+lssRecommendedName+")",
		"kills that could have made it: the simulator's optimistic check at the kill (running tasks finish uncontended, pending ones run in waves on every slot); "+
			"met under LSS soft: the killed job met its deadline in the LSS soft run of the same workload (same order, nothing killed)",
	)
	return res, nil
}
