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
func busyJain(run metrics.Run) metrics.Number {
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
// paper's method with fgm's defaults, its allocation mode included
// (each step's predicted demand, raised to fgm's allocation floor, on a
// host that enforces allocations as limits); fgm-cap is the
// CapAtRequest option.
func fgmDefault() fgm.Config { return fgm.Config{} }

func fgmVariants() []fgmVariant {
	mk := func(f func(*fgm.Config)) fgm.Config { c := fgmDefault(); f(&c); return c }
	return []fgmVariant{
		{name: "fgm", doc: "the paper's method, fgm's defaults (learned estimates)", cfg: fgmDefault()},
		{name: "fgm-nocompress", doc: "without compression", cfg: mk(func(c *fgm.Config) { c.Ablations.NoCompression = true })},
		{name: "fgm-coarse", doc: "coarse-grained only", cfg: mk(func(c *fgm.Config) { c.Ablations.CoarseOnly = true })},
		{name: "fgm-noadjust", doc: "without policy adjustment (Algorithm 3)", cfg: mk(func(c *fgm.Config) { c.Ablations.NoPolicyAdjustment = true })},
		{name: "fgm-noqos", doc: "without checkQoS", cfg: mk(func(c *fgm.Config) { c.Ablations.NoCheckQoS = true })},
		{name: "fgm-oracle", doc: "oracle estimates (true profiles)", cfg: fgmDefault(), oracle: true},
		{name: "fgm-progressive", doc: "option: DRF order refreshed after every allocation", cfg: mk(func(c *fgm.Config) { c.Progressive = true })},
		{name: "fgm-chargemean", doc: "option: DRF charges a task its mean allocation, not its peak", cfg: mk(func(c *fgm.Config) { c.ChargeMean = true })},
		{name: "fgm-cap", doc: "option: compressible kinds allocated the whole request (CapAtRequest)", cfg: mk(func(c *fgm.Config) { c.CapAtRequest = true })},
	}
}

// newFGMPolicy is the "fgm" of -policies: the paper's method as the fgm
// experiment runs it. It learns from usage samples and adjusts server
// policies on ticks: it asks the simulator for ticks every fgmTick by
// setting the configuration's TickInterval when it is zero (as the dbs
// policy does), so that Algorithm 3 runs and the foreign load is
// estimated in any experiment.
func newFGMPolicy(env Env) (sim.Policy, error) {
	return newTickedFGM(env, policy.FGMConfig{Scheduler: fgmDefault()})
}

// newFGMCapPolicy is the "fgm-cap" of -policies: newFGMPolicy with the
// CapAtRequest option.
func newFGMCapPolicy(env Env) (sim.Policy, error) {
	c := fgmDefault()
	c.CapAtRequest = true
	return newTickedFGM(env, policy.FGMConfig{Name: "fgm-cap", Scheduler: c})
}

// newTickedFGM is the fgm policy of c, with ticks every fgmTick unless
// the configuration sets its TickInterval.
func newTickedFGM(env Env, c policy.FGMConfig) (sim.Policy, error) {
	if env.Config != nil && env.Config.TickInterval == 0 {
		env.Config.TickInterval = fgmTick
	}
	return policy.NewFGM(env.Config, c)
}

// fgmPolicy returns an experiment Policy for v that stores the policy it
// builds in *slot (for the estimator error).
func fgmPolicy(v fgmVariant, slot **policy.FGM) Policy {
	return Policy{Name: v.name, Doc: v.doc, New: func(env Env) (sim.Policy, error) {
		c := policy.FGMConfig{Name: v.name, Scheduler: v.cfg, OwnPenalty: v.ownPenalty, ForeignQuantile: v.foreign}
		if v.oracle {
			c.Oracle = env.Workload
		}
		p, err := policy.NewFGM(env.Config, c)
		if err != nil {
			return nil, err
		}
		if slot != nil {
			*slot = p
		}
		return p, nil
	}}
}

func runFGM(p Params) (Result, error) {
	if err := p.normalize(); err != nil {
		return Result{}, err
	}
	if len(p.Policies) > 0 {
		return Result{}, paramErr("experiment fgm does not use -policies: it compares fixed policies")
	}
	n, cfg, cl, err := paper004Setup(p)
	if err != nil {
		return Result{}, err
	}
	cfg.TickInterval = fgmTick
	cfg.RecordTasks = true
	cfg.MetricsInterval = fgmMetricsInterval
	base, err := LookupPolicies(fgmBaselines)
	if err != nil {
		return Result{}, err
	}
	res := Result{Experiment: "fgm", Title: fmt.Sprintf("paper 004 §4 on %d workers: fgm against the paper's baselines", n)}

	// Offline, with the ablation.
	w, err := workload.Paper004Offline(p.Scale, rand.New(rand.NewPCG(p.Seed, 0x004)))
	if err != nil {
		return Result{}, paramErr("%w", err)
	}
	vars := fgmVariants()
	slots := make([]*policy.FGM, len(vars))
	var cases []Case
	for _, b := range base {
		cases = append(cases, Case{Label: "fgm/offline/" + b.Name, Config: cfg, Workload: &w, Policy: b})
	}
	for i, v := range vars {
		cases = append(cases, Case{Label: "fgm/offline/" + v.name, Config: cfg, Workload: &w, Policy: fgmPolicy(v, &slots[i])})
	}
	runs, err := RunCases(p, cases)
	if err != nil {
		return Result{}, err
	}
	sums := Summaries(runs)
	nb := len(base)
	main := append(slices.Clone(sums[:nb]), sums[nb])
	mainRuns := append(slices.Clone(runs[:nb]), runs[nb])
	title := fmt.Sprintf("offline: %g GB, %d jobs at once", 400*p.Scale, len(w.Jobs))
	res.Tables = append(res.Tables, fgmMainTable(title, main, mainRuns, p.Timing), fgmMarginTable(title, main))
	res.Tables = append(res.Tables, fgmAblationTable(title, sums[nb-1], sums[nb:], runs[nb-1], runs[nb:], vars))
	res.Tables = append(res.Tables, fgmErrorTable(title+": estimator error (learned fgm, first attempts)", runs[nb], slots[0]))
	res.Runs = append(res.Runs, mainRuns...)
	res.Assumptions = append(res.Assumptions, w.Assumptions...)
	res.Assumptions = append(res.Assumptions, fmt.Sprintf("offline workload: seed %d, scale %g (400 GB × scale)", p.Seed, p.Scale))

	// Where compression binds.
	ct, cl2, err := fgmCompressionBound(p, cfg)
	if err != nil {
		return Result{}, err
	}
	res.Tables = append(res.Tables, ct)
	res.Assumptions = append(res.Assumptions, cl2...)

	// Online, dedicated and cloud.
	for _, cloud := range []bool{false, true} {
		t, err := fgmOnline(p, cfg, n, base, cloud)
		if err != nil {
			return Result{}, err
		}
		res.Tables = append(res.Tables, t...)
	}
	t, err := fgmCloudSensitivity(p, cfg, n, base)
	if err != nil {
		return Result{}, err
	}
	res.Tables = append(res.Tables, t...)
	ft, err := fgmForeignOption(p, cfg, n)
	if err != nil {
		return Result{}, err
	}
	res.Tables = append(res.Tables, ft)
	res.Assumptions = append(res.Assumptions, cl...)
	res.Assumptions = append(res.Assumptions,
		fmt.Sprintf("fgm: policy adjustment every %v; estimates learned online from the simulator's usage samples (every %v, %g%% noise) by estimate.History with its defaults; each plan step allocates its predicted demand, compressible kinds at least %g of the request (fgm's allocation floor, 1 − its compression limit; the whole request in fgm-cap, fgm.Config.CapAtRequest), the prediction reserved; every plan step checked against the node's free capacity at assignment (HostChecksSteps)", fgmTick, sim.DefaultUsageSampleInterval, 100*sim.DefaultSampleNoise, 1-resource.DefaultCompressionLimit),
		"paper figures are paper 004 §4 (figs. 7, 9, 11, 13, 14, 18); ours are one seed on our reconstruction of its workloads, not tuned to fgm")
	return res, nil
}

// pct is the relative change of x against ref, in percent.
func pct(x, ref time.Duration) string {
	if ref <= 0 {
		return metrics.NA
	}
	return fmt.Sprintf("%+.1f%%", 100*(float64(x)-float64(ref))/float64(ref))
}

func fgmMainTable(title string, sums []metrics.Summary, runs []metrics.Run, timing bool) metrics.Table {
	cols := make([]string, len(sums))
	sizes := make([]metrics.SizeCompletion, len(sums))
	for i := range sums {
		cols[i] = sums[i].Policy
		sizes[i] = metrics.CompletionBySize(runs[i], 0, 0)
	}
	t := metrics.Table{Title: title, Columns: cols}
	row := func(name string, f func(i int) string) {
		r := metrics.Row{Name: name}
		for i := range sums {
			r.Cells = append(r.Cells, f(i))
		}
		t.Rows = append(t.Rows, r)
	}
	row("completed jobs", func(i int) string { return fmt.Sprintf("%d/%d", sums[i].Completed, sums[i].Jobs) })
	row("workload completion (makespan)", func(i int) string { return sums[i].Makespan.String() })
	row("mean job completion", func(i int) string { return sums[i].Response.MeanSpan().String() })
	row("  small jobs (≤ 10 tasks)", func(i int) string { return sizes[i].SmallJobs.MeanSpan().String() })
	row("  large jobs", func(i int) string { return sizes[i].LargeJobs.MeanSpan().String() })
	row("mean task completion", func(i int) string { return sizes[i].AllTasks.MeanSpan().String() })
	row("  small tasks (≤ 30 s work)", func(i int) string { return sizes[i].SmallTasks.MeanSpan().String() })
	row("  large tasks", func(i int) string { return sizes[i].LargeTasks.MeanSpan().String() })
	row("Jain, all active jobs (mean)", func(i int) string { return sums[i].Fairness.String() })
	row(fmt.Sprintf("  while ≥ %d jobs active", fgmBusyJobs), func(i int) string { return busyJain(runs[i]).String() })
	row(metrics.UnmetFairnessRow, func(i int) string { return sums[i].UnmetFairness.String() })
	row("failed task attempts", func(i int) string { return strconv.Itoa(sums[i].FailedTasks) })
	for k := range sums[0].Utilisation {
		row("utilisation "+sums[0].Utilisation[k].Kind, func(i int) string {
			if k < len(sums[i].Utilisation) {
				return sums[i].Utilisation[k].Mean.String()
			}
			return metrics.NA
		})
	}
	if timing {
		row("decision time per call", func(i int) string {
			if !sums[i].PerDecision.Valid {
				return metrics.NA
			}
			return sums[i].PerDecision.D.String()
		})
	}
	return t
}

// fgmMarginTable is fgm's change against each baseline, beside the
// paper's.
func fgmMarginTable(title string, sums []metrics.Summary) metrics.Table {
	f := &sums[len(sums)-1]
	paperJCT := map[string]string{"FIFO": "−30.92%", "Capacity": "−34.49%", "Fair": "−52.09%", "DRF": "−19.97%"}
	t := metrics.Table{Title: title + ": fgm against each baseline (ours | paper 004)", Columns: []string{"makespan", "paper", "mean job completion", "paper", "Jain all active", "Jain unmet demand"}}
	for i := range sums[:len(sums)-1] {
		b := &sums[i]
		paperJain := ""
		if b.Policy == "DRF" {
			paperJain = " (paper −0.31%)"
		}
		t.Rows = append(t.Rows, metrics.Row{Name: "vs " + b.Policy, Cells: []string{
			pct(f.Makespan.D, b.Makespan.D), "−19.47 … −27.94%",
			pct(f.Response.Mean, b.Response.Mean), paperJCT[b.Policy],
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
func fgmAblationTable(title string, drf metrics.Summary, sums []metrics.Summary, drfRun metrics.Run, runs []metrics.Run, vars []fgmVariant) metrics.Table {
	busy := fmt.Sprintf("Jain ≥ %d jobs", fgmBusyJobs)
	t := metrics.Table{Title: title + ": ablation, each against DRF", Columns: []string{"makespan", "vs DRF", "mean job completion", "vs DRF", "failed attempts", "Jain all", busy, "Jain unmet", "vs DRF"}}
	t.Rows = append(t.Rows, metrics.Row{Name: "DRF", Cells: []string{drf.Makespan.String(), "", drf.Response.MeanSpan().String(), "", strconv.Itoa(drf.FailedTasks), drf.Fairness.String(), busyJain(drfRun).String(), drf.UnmetFairness.String(), ""}})
	for i, s := range sums {
		t.Rows = append(t.Rows, metrics.Row{Name: vars[i].name + " (" + vars[i].doc + ")", Cells: []string{
			s.Makespan.String(), pct(s.Makespan.D, drf.Makespan.D),
			s.Response.MeanSpan().String(), pct(s.Response.Mean, drf.Response.Mean),
			strconv.Itoa(s.FailedTasks), s.Fairness.String(), busyJain(runs[i]).String(),
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
func fgmErrorTable(title string, run metrics.Run, pol *policy.FGM) metrics.Table {
	t := metrics.Table{Title: title, Columns: []string{"p50", "p95", "mean signed", "attempts"}}
	if pol == nil {
		return t
	}
	type key struct {
		task    string
		attempt int
	}
	recs := map[key]*metrics.TaskRecord{}
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

// fgmOnline runs the online totals (with background load if cloud) under
// the baselines and fgm, and tabulates makespan and mean job completion
// with fgm's change against the best baseline and DRF.
func fgmOnline(p Params, cfg sim.Config, n int, base []Policy, cloud bool) ([]metrics.Table, error) {
	env, paper := "dedicated", "paper: fgm's gain grows with the input, to about −31%"
	if cloud {
		env, paper = "cloud (background load)", "paper: −57.48 … −62.4% at the largest inputs"
	}
	pols := append(slices.Clone(base), fgmPolicy(fgmVariants()[0], nil))
	totals := workload.Paper004OnlineTotals()
	var cases []Case
	for i, gb := range totals {
		gb *= p.Scale
		rng := rand.New(rand.NewPCG(p.Seed, 0x004_0000+uint64(i)))
		c := cfg
		var w workload.Workload
		var err error
		if cloud {
			var steps []workload.BackgroundStep
			w, steps, err = workload.Paper004Cloud(gb, n, rng)
			c.Background = make([]sim.BackgroundStep, len(steps))
			for k, s := range steps {
				c.Background[k] = sim.BackgroundStep{At: s.At, Node: s.Node, Demand: s.Demand}
			}
		} else {
			w, err = workload.Paper004Online(gb, rng)
		}
		if err != nil {
			return nil, paramErr("%w", err)
		}
		for _, pol := range pols {
			cases = append(cases, Case{Label: fmt.Sprintf("fgm/%s/%gGB/%s", env, gb, pol.Name), Config: c, Workload: &w, Policy: pol})
		}
	}
	runs, err := RunCases(p, cases)
	if err != nil {
		return nil, err
	}
	sums := Summaries(runs)
	cols := []string{}
	for i := range pols {
		cols = append(cols, sums[i].Policy)
	}
	cols = append(cols, "fgm vs DRF", "fgm vs best")
	mk := metrics.Table{Title: "online, " + env + ": workload completion (makespan)", Columns: cols, Notes: []string{paper}}
	jc := metrics.Table{Title: "online, " + env + ": mean job completion", Columns: cols}
	fl := metrics.Table{Title: "online, " + env + ": failed task attempts", Columns: cols[:len(pols)]}
	jn := metrics.Table{Title: "online, " + env + ": Jain's index, all active jobs | jobs with unmet demand", Columns: append(slices.Clone(cols[:len(pols)]), "fgm vs DRF (unmet)"),
		Notes: []string{"each cell: the mean over samples of the index over every active job | over the jobs with tasks ready and waiting (the paper's comparison: fgm within 0.09% of DRF in the cloud)"}}
	np := len(pols)
	for i, gb := range totals {
		row := fmt.Sprintf("%g GB", gb*p.Scale)
		s := sums[i*np : (i+1)*np]
		r1, r2, r3, r4 := metrics.Row{Name: row}, metrics.Row{Name: row}, metrics.Row{Name: row}, metrics.Row{Name: row}
		bestM, bestJ := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		for k := range s {
			r1.Cells = append(r1.Cells, s[k].Makespan.String())
			r2.Cells = append(r2.Cells, s[k].Response.MeanSpan().String())
			r3.Cells = append(r3.Cells, strconv.Itoa(s[k].FailedTasks))
			r4.Cells = append(r4.Cells, s[k].Fairness.String()+" | "+s[k].UnmetFairness.String())
			if k < np-1 {
				if s[k].Makespan.Valid {
					bestM = min(bestM, s[k].Makespan.D)
				}
				if s[k].Response.N > 0 {
					bestJ = min(bestJ, s[k].Response.Mean)
				}
			}
		}
		f, d := &s[np-1], &s[np-2]
		r1.Cells = append(r1.Cells, pct(f.Makespan.D, d.Makespan.D), pct(f.Makespan.D, bestM))
		r2.Cells = append(r2.Cells, pct(f.Response.Mean, d.Response.Mean), pct(f.Response.Mean, bestJ))
		r4.Cells = append(r4.Cells, relNumber(f.UnmetFairness, d.UnmetFairness))
		mk.Rows, jc.Rows, fl.Rows, jn.Rows = append(mk.Rows, r1), append(jc.Rows, r2), append(fl.Rows, r3), append(jn.Rows, r4)
	}
	return []metrics.Table{mk, jc, fl, jn}, nil
}

// fgmCloudSensitivity reruns the cloud setup's largest input (the same
// workload and background as the sweep's last row) under each contention
// model (flat, the default, a steeper one) for every policy alike, fgm
// with its own planning penalty (option), and, as a diagnostic, with one
// kind of the foreign load removed, to show which part of the world
// decides fgm's cloud result.
func fgmCloudSensitivity(p Params, cfg sim.Config, n int, base []Policy) ([]metrics.Table, error) {
	own := fgmVariants()[0]
	own.name, own.doc, own.ownPenalty = "fgm-ownpenalty", "option: plans with fgm's own p = 0.05", true
	pols := append(slices.Clone(base), fgmPolicy(fgmVariants()[0], nil), fgmPolicy(own, nil))
	totals := workload.Paper004OnlineTotals()
	i := len(totals) - 1
	gb := totals[i] * p.Scale
	w, steps, err := workload.Paper004Cloud(gb, n, rand.New(rand.NewPCG(p.Seed, 0x004_0000+uint64(i))))
	if err != nil {
		return nil, paramErr("%w", err)
	}
	type variant struct {
		name string
		c    sim.Contention
		drop int // kind of the foreign load removed, or -1
	}
	mem, okM := cfg.Space.Index(workload.MemoryGB.Name)
	cpu, okC := cfg.Space.Index(resource.CPU.Name)
	if !okM || !okC {
		return nil, paramErr("fgm: cluster space lacks %s or %s", workload.MemoryGB.Name, resource.CPU.Name)
	}
	flat := sim.Contention{}
	vars := []variant{
		{"flat: " + flat.String(), flat, -1},
		{"default: " + Paper004Contention.String(), Paper004Contention, -1},
		{"steeper: " + Paper004SteeperContention.String(), Paper004SteeperContention, -1},
		{"default, foreign memory removed", Paper004Contention, mem},
		{"default, foreign CPU removed", Paper004Contention, cpu},
	}
	var cases []Case
	for _, v := range vars {
		c := cfg
		c.Contention = v.c
		c.Background = make([]sim.BackgroundStep, len(steps))
		for k, s := range steps {
			d := s.Demand.Clone()
			if v.drop >= 0 {
				d[v.drop] = 0
			}
			c.Background[k] = sim.BackgroundStep{At: s.At, Node: s.Node, Demand: d}
		}
		for _, pol := range pols {
			cases = append(cases, Case{Label: fmt.Sprintf("fgm/cloud-sensitivity/%s/%s", v.name, pol.Name), Config: c, Workload: &w, Policy: pol})
		}
	}
	runs, err := RunCases(p, cases)
	if err != nil {
		return nil, err
	}
	sums := Summaries(runs)
	np := len(pols)
	nb := len(base)
	cols := []string{}
	for k := range pols {
		cols = append(cols, sums[k].Policy)
	}
	cols = append(cols, "fgm vs DRF", "fgm vs best")
	mk := metrics.Table{Title: fmt.Sprintf("online, cloud, %g GB: workload completion (makespan) by contention model and foreign load", gb), Columns: append(slices.Clone(cols), "failed DRF | fgm"),
		Notes: []string{"contention: formula (5)'s p as a function of the node's compression rate rc, applied by the simulator to every policy alike; fgm plans with the world's p at its compression limit (0 in all three: the knee is the limit) unless fgm-ownpenalty",
			"foreign … removed: a diagnostic, that kind of the background load set to 0 (the workload is otherwise the same)"}}
	jc := metrics.Table{Title: fmt.Sprintf("online, cloud, %g GB: mean job completion by contention model and foreign load", gb), Columns: append(slices.Clone(cols), "Jain unmet DRF | fgm")}
	for j, v := range vars {
		s := sums[j*np : (j+1)*np]
		r1, r2 := metrics.Row{Name: v.name}, metrics.Row{Name: v.name}
		bestM, bestJ := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		for k := range s {
			r1.Cells = append(r1.Cells, s[k].Makespan.String())
			r2.Cells = append(r2.Cells, s[k].Response.MeanSpan().String())
			if k < nb {
				if s[k].Makespan.Valid {
					bestM = min(bestM, s[k].Makespan.D)
				}
				if s[k].Response.N > 0 {
					bestJ = min(bestJ, s[k].Response.Mean)
				}
			}
		}
		f, d := &s[nb], &s[nb-1]
		r1.Cells = append(r1.Cells, pct(f.Makespan.D, d.Makespan.D), pct(f.Makespan.D, bestM), fmt.Sprintf("%d | %d", d.FailedTasks, f.FailedTasks))
		r2.Cells = append(r2.Cells, pct(f.Response.Mean, d.Response.Mean), pct(f.Response.Mean, bestJ), d.UnmetFairness.String()+" | "+f.UnmetFairness.String())
		mk.Rows, jc.Rows = append(mk.Rows, r1), append(jc.Rows, r2)
	}
	return []metrics.Table{mk, jc}, nil
}
