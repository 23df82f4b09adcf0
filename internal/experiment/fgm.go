package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// fgmExp is paper 004's evaluation of its fine-grained method (§4) on the
// paper-004 setups, with an ablation of fgm's mechanisms and the error of
// its learned estimates.
var fgmExp = Experiment{
	Name:       "fgm",
	Summary:    "paper 004 §4: fgm vs FIFO, Capacity, Fair, DRF offline, online and in the cloud; ablation vs DRF; estimator error",
	Run:        runFGM,
	SuiteScale: 0.25,
	Uses:       UsesNodes | UsesTiming,
}

// fgmTick is how often fgm's policy adjustment runs (Algorithm 3); the
// paper gives no period.
const fgmTick = 10 * time.Second

// fgmMetricsInterval is how often every policy's allocation is sampled
// for Jain's index and utilisation. The simulator's default (a minute)
// leaves 9–17 samples in an offline run, too few for a mean; the paper
// does not give its sampling period.
const fgmMetricsInterval = 5 * time.Second

// fgmBusyJobs is the number of active jobs from which a sample counts
// as "busy" in the fairness rows: the mean Jain index over all samples
// mixes the loaded phase with the tail (a few jobs, index near 1),
// whose length differs between policies.
const fgmBusyJobs = 10

// busyJain is the mean Jain index over run's samples with at least
// fgmBusyJobs active jobs.
func busyJain(run sim.Run) metrics.Number {
	sum, n := 0.0, 0
	for _, sm := range run.Samples {
		if sm.Jobs() < fgmBusyJobs {
			continue
		}
		if x, ok, _ := sm.Fairness(); ok {
			sum += x
			n++
		}
	}
	if n == 0 {
		return metrics.Number{}
	}
	return metrics.Number{V: sum / float64(n), Valid: true}
}

// fgmBaselines are the paper's comparison policies, in its order.
var fgmBaselines = []string{"fifo", "capacity", "fair", "drf"}

// fgmVariant is one configuration of the fgm policy.
type fgmVariant struct {
	name, doc  string
	cfg        fgm.Config
	oracle     bool
	ownPenalty bool                   // policy.FGMConfig.OwnPenalty
	foreign    policy.ForeignQuantile // policy.FGMConfig.ForeignQuantile
}

// fgmDefault is the scheduler configuration every fgm row uses: the
// paper's method, with compressible kinds allocated up to the request
// (the simulator enforces allocations as hard limits; see the README).
func fgmDefault() fgm.Config { return fgm.Config{CapAtRequest: true} }

func fgmVariants() []fgmVariant {
	mk := func(f func(*fgm.Config)) fgm.Config { c := fgmDefault(); f(&c); return c }
	return []fgmVariant{
		{name: "fgm", doc: "as printed (learned estimates)", cfg: fgmDefault()},
		{name: "fgm-nocompress", doc: "without compression", cfg: mk(func(c *fgm.Config) { c.Ablations.NoCompression = true })},
		{name: "fgm-coarse", doc: "coarse-grained only", cfg: mk(func(c *fgm.Config) { c.Ablations.CoarseOnly = true })},
		{name: "fgm-noadjust", doc: "without policy adjustment (Algorithm 3)", cfg: mk(func(c *fgm.Config) { c.Ablations.NoPolicyAdjustment = true })},
		{name: "fgm-noqos", doc: "without checkQoS", cfg: mk(func(c *fgm.Config) { c.Ablations.NoCheckQoS = true })},
		{name: "fgm-oracle", doc: "oracle estimates (true profiles)", cfg: fgmDefault(), oracle: true},
		{name: "fgm-progressive", doc: "option: DRF order refreshed after every allocation", cfg: mk(func(c *fgm.Config) { c.Progressive = true })},
		{name: "fgm-chargemean", doc: "option: DRF charges a task its mean allocation, not its peak", cfg: mk(func(c *fgm.Config) { c.ChargeMean = true })},
	}
}

// newFGMPolicy is the "fgm" of -policies: the paper's method as the fgm
// experiment runs it. It learns from usage samples and adjusts server
// policies on ticks: it asks the simulator for ticks every fgmTick by
// setting the configuration's TickInterval when it is zero (as the dbs
// policy does), so that Algorithm 3 runs and the foreign load is
// estimated in any experiment.
func newFGMPolicy(env Env) (sim.Policy, error) {
	if env.Config != nil && env.Config.TickInterval == 0 {
		env.Config.TickInterval = fgmTick
	}
	return policy.NewFGM(env.Config, policy.FGMConfig{Scheduler: fgmDefault()})
}

// fgmPolicy returns an experiment Policy for v.
func fgmPolicy(v fgmVariant) Policy {
	return Policy{Name: v.name, Doc: v.doc, New: func(env Env) (sim.Policy, error) {
		c := policy.FGMConfig{Name: v.name, Scheduler: v.cfg, OwnPenalty: v.ownPenalty, ForeignQuantile: v.foreign}
		if v.oracle {
			c.Oracle = env.Workload
		}
		return policy.NewFGM(env.Config, c)
	}}
}

// column is the variant as a column, named after it.
func (v fgmVariant) column() Column { return Column{Name: v.name, Policy: fgmPolicy(v)} }

// fgmVariant returns the variant of that name.
func fgmVariantNamed(name string) fgmVariant {
	for _, v := range fgmVariants() {
		if v.name == name {
			return v
		}
	}
	panic("experiment: no fgm variant " + name)
}

// The fgm experiment's sets of variants, as data.
var (
	// fgmOfflineVariants are the offline ablation's rows (all of them).
	fgmOfflineVariants = []string{"fgm", "fgm-nocompress", "fgm-coarse", "fgm-noadjust", "fgm-noqos", "fgm-oracle", "fgm-progressive", "fgm-chargemean"}
	// fgmBoundVariants are the compression-bound experiment's rows.
	fgmBoundVariants = []string{"fgm", "fgm-nocompress", "fgm-coarse", "fgm-noadjust", "fgm-noqos"}
)

func fgmVariantColumns(names []string) ([]fgmVariant, []Column) {
	vars := make([]fgmVariant, len(names))
	cols := make([]Column, len(names))
	for i, n := range names {
		vars[i] = fgmVariantNamed(n)
		cols[i] = vars[i].column()
	}
	return vars, cols
}

// fgmPlan is the fgm experiment as data: its setups and columns, and what
// its tables need to know of them.
type fgmPlan struct {
	p                  Params
	base               []Column
	offline            Setup
	offVars, bndVars   []fgmVariant
	offCols, bndCols   []Column
	bound              Setup
	dedicated, cloud   []Setup
	sens               []fgmSensitivity
	ownCol, foreignCol Column
	lines              []string
}

func runFGM(p Params) (Result, error) {
	pl, err := newFGMPlan(p)
	if err != nil {
		return Result{}, err
	}
	fgmCol := fgmVariantNamed("fgm").column()
	online := append(slices.Clone(pl.base), fgmCol)
	var sens []Setup
	for _, v := range pl.sens {
		sens = append(sens, v.setup)
	}
	cells, err := RunGrids(p, "fgm",
		Grid{Setups: []Setup{pl.offline}, Columns: append(slices.Clone(pl.base), pl.offCols...)},
		Grid{Setups: []Setup{pl.bound}, Columns: append(slices.Clone(pl.base), pl.bndCols...)},
		Grid{Setups: pl.dedicated, Columns: online},
		Grid{Setups: pl.cloud, Columns: slices.Concat(online, []Column{pl.foreignCol})},
		Grid{Setups: sens, Columns: slices.Concat(online, []Column{pl.ownCol})},
	)
	if err != nil {
		return Result{}, err
	}
	return pl.result(cells), nil
}

// newFGMPlan builds the fgm experiment's setups: offline with the
// ablation, the compression-bound mix, the online sweeps (dedicated and
// cloud), the cloud's contention sensitivity and the foreign-memory
// option.
func newFGMPlan(p Params) (*fgmPlan, error) {
	if err := p.normalize(); err != nil {
		return nil, err
	}
	if len(p.Policies) > 0 {
		return nil, paramErr("experiment fgm does not use -policies: it compares fixed policies")
	}
	n, cfg, cl, err := paper004Setup(p)
	if err != nil {
		return nil, err
	}
	cfg.TickInterval = fgmTick
	cfg.RecordTasks = true
	cfg.MetricsInterval = fgmMetricsInterval
	pl := &fgmPlan{p: p}
	if pl.base, err = Named(fgmBaselines...); err != nil {
		return nil, err
	}
	pl.offVars, pl.offCols = fgmVariantColumns(fgmOfflineVariants)
	pl.bndVars, pl.bndCols = fgmVariantColumns(fgmBoundVariants)
	w, err := workload.Paper004Offline(p.Scale, rand.New(rand.NewPCG(p.Seed, 0x004)))
	if err != nil {
		return nil, paramErr("%w", err)
	}
	pl.offline = Setup{Name: "offline", Config: cfg, Workload: &w}
	pl.lines = append(pl.lines, w.Assumptions...)
	pl.lines = append(pl.lines, fmt.Sprintf("offline workload: seed %d, scale %g (400 GB × scale)", p.Seed, p.Scale))

	bw, err := fgmCPUBoundWorkload(p)
	if err != nil {
		return nil, err
	}
	pl.bound = Setup{Name: "cpu-bound", Config: cfg, Workload: &bw}
	pl.lines = append(pl.lines, fmt.Sprintf("compression-bound experiment: %s; seed %d", c2s(FGMCPUBoundApps()), p.Seed))
	pl.lines = append(pl.lines, bw.Assumptions...)

	for _, cloud := range []bool{false, true} {
		ss, _, err := onlineSetups(p, cfg, n, cloud)
		if err != nil {
			return nil, err
		}
		for i := range ss {
			ss[i].Name = fgmEnv(cloud) + ", " + ss[i].Name
		}
		if cloud {
			pl.cloud = ss
		} else {
			pl.dedicated = ss
		}
	}
	if pl.sens, err = fgmSensitivitySetups(p, cfg, n, pl.cloud[len(pl.cloud)-1].Name); err != nil {
		return nil, err
	}
	own := fgmVariantNamed("fgm")
	own.name, own.doc, own.ownPenalty = "fgm-ownpenalty", "option: plans with fgm's own p = 0.05", true
	pl.ownCol = own.column()
	q := fgmVariantNamed("fgm")
	q.name, q.doc, q.foreign = "fgm-foreignq", fmt.Sprintf("option: foreign memory by its %g quantile over %v", fgmForeignQ.Q, fgmForeignQ.Window), fgmForeignQ
	pl.foreignCol = q.column()

	pl.lines = append(pl.lines, cl...)
	pl.lines = append(pl.lines,
		fmt.Sprintf("fgm: policy adjustment every %v; estimates learned online from the simulator's usage samples (every %v, %g%% noise) by estimate.History with its defaults; compressible kinds allocated up to the request, the prediction reserved (fgm.Config.CapAtRequest); every plan step checked against the node's free capacity at assignment (HostChecksSteps)", fgmTick, sim.DefaultUsageSampleInterval, 100*sim.DefaultSampleNoise),
		"paper figures are paper 004 §4 (figs. 7, 9, 11, 13, 14, 18); ours are one seed on our reconstruction of its workloads, not tuned to fgm")
	return pl, nil
}

// fgmEnv names an online environment.
func fgmEnv(cloud bool) string {
	if cloud {
		return "cloud (background load)"
	}
	return "dedicated"
}

// result builds the fgm experiment's tables from its cells.
func (pl *fgmPlan) result(cells *Cells) Result {
	p := pl.p
	res := Result{Experiment: "fgm", Title: fmt.Sprintf("paper 004 §4 on %d workers: fgm against the paper's baselines", len(pl.offline.Config.Nodes)), Cells: cells}
	mainCols := append(slices.Clone(pl.base), pl.offCols[0])
	main := cells.Row(pl.offline.Name, mainCols)
	title := fmt.Sprintf("offline: %g GB, %d jobs at once", 400*p.Scale, len(pl.offline.Workload.Jobs))
	drf := cells.Get(pl.offline.Name, "drf")
	res.Tables = append(res.Tables, fgmMainTable(title, main, p.Timing), fgmMarginTable(title, main))
	res.Tables = append(res.Tables, fgmAblationTable(title, drf, cells.Row(pl.offline.Name, pl.offCols), pl.offVars))
	fc := cells.Get(pl.offline.Name, "fgm")
	fp, _ := fc.Policy.(*policy.FGM)
	res.Tables = append(res.Tables, fgmErrorTable(title+": estimator error (learned fgm, first attempts)", fc.Run, fp))
	res.Runs = append(res.Runs, Runs(main)...)
	res.Tables = append(res.Tables, pl.boundTable(cells))
	fgmCol := pl.offCols[0]
	for _, cloud := range []bool{false, true} {
		ss := pl.dedicated
		if cloud {
			ss = pl.cloud
		}
		res.Tables = append(res.Tables, fgmOnline(cells, ss, append(slices.Clone(pl.base), fgmCol), cloud)...)
	}
	res.Tables = append(res.Tables, pl.sensitivityTables(cells)...)
	res.Tables = append(res.Tables, pl.foreignTable(cells))
	res.Assumptions = pl.lines
	return res
}

// pct is the relative change of x against ref, in percent.
func pct(x, ref time.Duration) string {
	if ref <= 0 {
		return metrics.NA
	}
	return fmt.Sprintf("%+.1f%%", 100*(float64(x)-float64(ref))/float64(ref))
}

func fgmMainTable(title string, cells []*Cell, timing bool) metrics.Table {
	cols := make([]string, len(cells))
	sizes := make([]metrics.SizeCompletion, len(cells))
	for i, c := range cells {
		cols[i] = c.Sum.Policy
		sizes[i] = metrics.CompletionBySize(c.Run, 0, 0)
	}
	t := metrics.Table{Title: title, Columns: cols}
	row := func(name string, f func(i int) string) {
		r := metrics.Row{Name: name}
		for i := range cells {
			r.Cells = append(r.Cells, f(i))
		}
		t.Rows = append(t.Rows, r)
	}
	sum := func(i int) *metrics.Summary { return &cells[i].Sum }
	row("completed jobs", func(i int) string { return fmt.Sprintf("%d/%d", sum(i).Completed, sum(i).Jobs) })
	row("workload completion (makespan)", func(i int) string { return sum(i).Makespan.String() })
	row("mean job completion", func(i int) string { return sum(i).Response.MeanSpan().String() })
	row("  small jobs (≤ 10 tasks)", func(i int) string { return sizes[i].SmallJobs.MeanSpan().String() })
	row("  large jobs", func(i int) string { return sizes[i].LargeJobs.MeanSpan().String() })
	row("mean task completion", func(i int) string { return sizes[i].AllTasks.MeanSpan().String() })
	row("  small tasks (≤ 30 s work)", func(i int) string { return sizes[i].SmallTasks.MeanSpan().String() })
	row("  large tasks", func(i int) string { return sizes[i].LargeTasks.MeanSpan().String() })
	row("Jain, all active jobs (mean)", func(i int) string { return sum(i).Fairness.String() })
	row(fmt.Sprintf("  while ≥ %d jobs active", fgmBusyJobs), func(i int) string { return busyJain(cells[i].Run).String() })
	row(metrics.UnmetFairnessRow, func(i int) string { return sum(i).UnmetFairness.String() })
	row("failed task attempts", func(i int) string { return strconv.Itoa(sum(i).FailedTasks) })
	for k := range sum(0).Utilisation {
		row("utilisation "+sum(0).Utilisation[k].Kind, func(i int) string {
			if k < len(sum(i).Utilisation) {
				return sum(i).Utilisation[k].Mean.String()
			}
			return metrics.NA
		})
	}
	if timing {
		row("decision time per call", func(i int) string {
			if !sum(i).PerDecision.Valid {
				return metrics.NA
			}
			return sum(i).PerDecision.D.String()
		})
	}
	return t
}

// fgmMarginTable is fgm's change against each baseline, beside the
// paper's: cells are the baselines, then fgm.
func fgmMarginTable(title string, cells []*Cell) metrics.Table {
	fc := cells[len(cells)-1]
	f := &fc.Sum
	t := metrics.Table{Title: title + ": fgm against each baseline (ours | paper 004)", Columns: []string{"makespan", "paper", "mean job completion", "paper", "Jain all active", "Jain unmet demand"}}
	mk := mustPaper("offline", fc.Column, "makespan", "each baseline")
	for _, bc := range cells[:len(cells)-1] {
		b := &bc.Sum
		jct := ""
		if pf, ok := paperFigure("offline", fc.Column, "mean job completion", bc.Column); ok {
			jct = pf.Text()
		}
		paperJain := ""
		if pf, ok := paperFigure("offline", fc.Column, "Jain unmet", bc.Column); ok {
			paperJain = " (paper " + pf.Text() + ")"
		}
		t.Rows = append(t.Rows, metrics.Row{Name: "vs " + b.Policy, Cells: []string{
			pct(f.Makespan.D, b.Makespan.D), mk.Text(),
			pct(f.Response.Mean, b.Response.Mean), jct,
			relNumber(f.Fairness, b.Fairness), relNumber(f.UnmetFairness, b.UnmetFairness) + paperJain,
		}})
	}
	t.Notes = append(t.Notes, "Jain all active: over every active job, holding or wanting anything or not; Jain unmet demand: over the jobs with tasks ready and waiting (DRF's domain), the paper's comparison")
	return t
}

// relNumber is the relative change of x against ref, in percent.
func relNumber(x, ref metrics.Number) string {
	if !x.Valid || !ref.Valid || ref.V <= 0 {
		return metrics.NA
	}
	return fmt.Sprintf("%+.2f%%", 100*(x.V-ref.V)/ref.V)
}

// fgmAblationTable: each variant against DRF.
func fgmAblationTable(title string, drfCell *Cell, cells []*Cell, vars []fgmVariant) metrics.Table {
	busy := fmt.Sprintf("Jain ≥ %d jobs", fgmBusyJobs)
	drf := &drfCell.Sum
	t := metrics.Table{Title: title + ": ablation, each against DRF", Columns: []string{"makespan", "vs DRF", "mean job completion", "vs DRF", "failed attempts", "Jain all", busy, "Jain unmet", "vs DRF"}}
	t.Rows = append(t.Rows, metrics.Row{Name: "DRF", Cells: []string{drf.Makespan.String(), "", drf.Response.MeanSpan().String(), "", strconv.Itoa(drf.FailedTasks), drf.Fairness.String(), busyJain(drfCell.Run).String(), drf.UnmetFairness.String(), ""}})
	for i, c := range cells {
		s := &c.Sum
		t.Rows = append(t.Rows, metrics.Row{Name: vars[i].name + " (" + vars[i].doc + ")", Cells: []string{
			s.Makespan.String(), pct(s.Makespan.D, drf.Makespan.D),
			s.Response.MeanSpan().String(), pct(s.Response.Mean, drf.Response.Mean),
			strconv.Itoa(s.FailedTasks), s.Fairness.String(), busyJain(c.Run).String(),
			s.UnmetFairness.String(), relNumber(s.UnmetFairness, drf.UnmetFairness),
		}})
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Jain all: mean over samples every %v of the index over every active job; %s: only samples with at least %d active jobs (the loaded phase); Jain unmet: over the jobs with unmet demand (tasks ready and waiting)", fgmMetricsInterval, busy, fgmBusyJobs))
	return t
}

// fgmErrorTable compares the learned predictions of placed first
// attempts with the attempts' true profiles: relative error of the
// duration (prediction vs the attempt's isolated work) and of the mean
// demand per kind.
func fgmErrorTable(title string, run sim.Run, pol *policy.FGM) metrics.Table {
	t := metrics.Table{Title: title, Columns: []string{"p50", "p95", "mean signed", "attempts"}}
	if pol == nil {
		return t
	}
	type key struct {
		task    string
		attempt int
	}
	recs := map[key]*sim.TaskRecord{}
	for i := range run.Tasks {
		r := &run.Tasks[i]
		recs[key{r.Task, r.Attempt}] = r
	}
	var dur []float64
	dem := make([][]float64, len(run.Kinds))
	for _, pr := range pol.Predictions() {
		r := recs[key{pr.Task, pr.Attempt}]
		if r == nil || pr.Attempt != 1 || r.Work <= 0 || r.Demand == nil {
			continue
		}
		dur = append(dur, (float64(pr.Duration)-float64(r.Work))/float64(r.Work))
		for k := range dem {
			if k < len(pr.Demand) && r.Demand[k] > 0 {
				dem[k] = append(dem[k], (pr.Demand[k]-r.Demand[k])/r.Demand[k])
			}
		}
	}
	add := func(name string, xs []float64) {
		if len(xs) == 0 {
			t.Rows = append(t.Rows, metrics.Row{Name: name, Cells: []string{metrics.NA, metrics.NA, metrics.NA, "0"}})
			return
		}
		abs := make([]float64, len(xs))
		sum := 0.0
		for i, x := range xs {
			abs[i] = math.Abs(x)
			sum += x
		}
		slices.Sort(abs)
		q := func(f float64) float64 { return abs[min(len(abs)-1, int(f*float64(len(abs))))] }
		t.Rows = append(t.Rows, metrics.Row{Name: name, Cells: []string{
			fmt.Sprintf("%.1f%%", 100*q(0.5)), fmt.Sprintf("%.1f%%", 100*q(0.95)),
			fmt.Sprintf("%+.1f%%", 100*sum/float64(len(xs))), strconv.Itoa(len(xs)),
		}})
	}
	add("duration", dur)
	for k, name := range run.Kinds {
		add("mean demand "+name, dem[k])
	}
	t.Notes = append(t.Notes, "relative error |predicted − true| / true of the placed attempt's own true profile; duration against its isolated work, demand as the time-weighted mean over its stages")
	return t
}

// fgmOnline tabulates the online totals (with background load if
// cloud) under the baselines and fgm (cols, fgm last): makespan and mean
// job completion with fgm's change against the best baseline and DRF.
func fgmOnline(cells *Cells, setups []Setup, cols []Column, cloud bool) []metrics.Table {
	env, paper := fgmEnv(cloud), "paper: fgm's gain grows with the input, to about −31%"
	if cloud {
		paper = "paper: −57.48 … −62.4% at the largest inputs"
	}
	names := []string{}
	for _, c := range cells.Row(setups[0].Name, cols) {
		names = append(names, c.Sum.Policy)
	}
	np := len(cols)
	names = append(names, "fgm vs DRF", "fgm vs best")
	mk := metrics.Table{Title: "online, " + env + ": workload completion (makespan)", Columns: names, Notes: []string{paper}}
	jc := metrics.Table{Title: "online, " + env + ": mean job completion", Columns: names}
	fl := metrics.Table{Title: "online, " + env + ": failed task attempts", Columns: names[:np]}
	jn := metrics.Table{Title: "online, " + env + ": Jain's index, all active jobs | jobs with unmet demand", Columns: append(slices.Clone(names[:np]), "fgm vs DRF (unmet)"),
		Notes: []string{"each cell: the mean over samples of the index over every active job | over the jobs with tasks ready and waiting (the paper's comparison: fgm within 0.09% of DRF in the cloud)"}}
	for _, su := range setups {
		row := su.Name[len(env)+2:]
		s := Sums(cells.Row(su.Name, cols))
		r1, r2, r3, r4 := metrics.Row{Name: row}, metrics.Row{Name: row}, metrics.Row{Name: row}, metrics.Row{Name: row}
		for k := range s {
			r1.Cells = append(r1.Cells, s[k].Makespan.String())
			r2.Cells = append(r2.Cells, s[k].Response.MeanSpan().String())
			r3.Cells = append(r3.Cells, strconv.Itoa(s[k].FailedTasks))
			r4.Cells = append(r4.Cells, s[k].Fairness.String()+" | "+s[k].UnmetFairness.String())
		}
		bestM, bestJ := bestBaseline(s[:np-1])
		f, d := &s[np-1], &s[np-2]
		r1.Cells = append(r1.Cells, pct(f.Makespan.D, d.Makespan.D), pct(f.Makespan.D, bestM))
		r2.Cells = append(r2.Cells, pct(f.Response.Mean, d.Response.Mean), pct(f.Response.Mean, bestJ))
		r4.Cells = append(r4.Cells, relNumber(f.UnmetFairness, d.UnmetFairness))
		mk.Rows, jc.Rows, fl.Rows, jn.Rows = append(mk.Rows, r1), append(jc.Rows, r2), append(fl.Rows, r3), append(jn.Rows, r4)
	}
	return []metrics.Table{mk, jc, fl, jn}
}

// bestBaseline returns the shortest makespan and mean job completion of
// the baselines' summaries (math.MaxInt64 where none is defined).
func bestBaseline(base []metrics.Summary) (makespan, jct time.Duration) {
	makespan, jct = time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for k := range base {
		if base[k].Makespan.Valid {
			makespan = min(makespan, base[k].Makespan.D)
		}
		if base[k].Response.N > 0 {
			jct = min(jct, base[k].Response.Mean)
		}
	}
	return makespan, jct
}

// fgmSensitivity is one world of the cloud's contention sensitivity: the
// largest cloud input under one contention model, or with one kind of
// the foreign load removed (a diagnostic).
type fgmSensitivity struct {
	name  string
	setup Setup
}

// fgmSensitivitySetups rerun the cloud setup's largest input (the same
// workload and background as the sweep's last row) under each contention
// model (flat, the default, a steeper one) for every policy alike, and,
// as a diagnostic, with one kind of the foreign load removed, to show
// which part of the world decides fgm's cloud result. The default model
// with the whole load is the sweep's own setup, named def.
func fgmSensitivitySetups(p Params, cfg sim.Config, n int, def string) ([]fgmSensitivity, error) {
	totals := workload.Paper004OnlineTotals()
	i := len(totals) - 1
	w, steps, err := workload.Paper004Cloud(totals[i]*p.Scale, n, rand.New(rand.NewPCG(p.Seed, 0x004_0000+uint64(i))))
	if err != nil {
		return nil, paramErr("%w", err)
	}
	mem, okM := cfg.Space.Index(workload.MemoryGB.Name)
	cpu, okC := cfg.Space.Index(resource.CPU.Name)
	if !okM || !okC {
		return nil, paramErr("fgm: cluster space lacks %s or %s", workload.MemoryGB.Name, resource.CPU.Name)
	}
	flat := sim.Contention{}
	vars := []struct {
		name string
		c    sim.Contention
		drop int // kind of the foreign load removed, or -1
	}{
		{"flat: " + flat.String(), flat, -1},
		{"default: " + Paper004Contention.String(), Paper004Contention, -1},
		{"steeper: " + Paper004SteeperContention.String(), Paper004SteeperContention, -1},
		{"default, foreign memory removed", Paper004Contention, mem},
		{"default, foreign CPU removed", Paper004Contention, cpu},
	}
	var out []fgmSensitivity
	for _, v := range vars {
		c := cfg
		c.Contention = v.c
		c.Background = backgroundSteps(steps, v.drop)
		name := "cloud sensitivity, " + v.name
		if v.c == Paper004Contention && v.drop < 0 {
			name = def // the same simulations as the sweep's
		}
		out = append(out, fgmSensitivity{name: v.name, setup: Setup{Name: name, Config: c, Workload: &w}})
	}
	return out, nil
}

// sensitivityTables tabulate the sensitivity setups: makespan and mean
// job completion with fgm's change against DRF and the best baseline.
func (pl *fgmPlan) sensitivityTables(cells *Cells) []metrics.Table {
	cols := append(append(slices.Clone(pl.base), pl.offCols[0]), pl.ownCol)
	nb := len(pl.base)
	names := []string{}
	for _, c := range cells.Row(pl.sens[0].setup.Name, cols) {
		names = append(names, c.Sum.Policy)
	}
	names = append(names, "fgm vs DRF", "fgm vs best")
	totals := workload.Paper004OnlineTotals()
	total := totalName(totals[len(totals)-1] * pl.p.Scale)
	mk := metrics.Table{Title: fmt.Sprintf("online, cloud, %s: workload completion (makespan) by contention model and foreign load", total), Columns: append(slices.Clone(names), "failed DRF | fgm"),
		Notes: []string{"contention: formula (5)'s p as a function of the node's compression rate rc, applied by the simulator to every policy alike; fgm plans with the world's p at its compression limit (0 in all three: the knee is the limit) unless fgm-ownpenalty",
			"foreign … removed: a diagnostic, that kind of the background load set to 0 (the workload is otherwise the same)"}}
	jc := metrics.Table{Title: fmt.Sprintf("online, cloud, %s: mean job completion by contention model and foreign load", total), Columns: append(slices.Clone(names), "Jain unmet DRF | fgm")}
	for _, v := range pl.sens {
		s := Sums(cells.Row(v.setup.Name, cols))
		r1, r2 := metrics.Row{Name: v.name}, metrics.Row{Name: v.name}
		for k := range s {
			r1.Cells = append(r1.Cells, s[k].Makespan.String())
			r2.Cells = append(r2.Cells, s[k].Response.MeanSpan().String())
		}
		bestM, bestJ := bestBaseline(s[:nb])
		f, d := &s[nb], &s[nb-1]
		r1.Cells = append(r1.Cells, pct(f.Makespan.D, d.Makespan.D), pct(f.Makespan.D, bestM), fmt.Sprintf("%d | %d", d.FailedTasks, f.FailedTasks))
		r2.Cells = append(r2.Cells, pct(f.Response.Mean, d.Response.Mean), pct(f.Response.Mean, bestJ), d.UnmetFairness.String()+" | "+f.UnmetFairness.String())
		mk.Rows, jc.Rows = append(mk.Rows, r1), append(jc.Rows, r2)
	}
	return []metrics.Table{mk, jc}
}
