package experiment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/baseline"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// dbsExp is paper 003's experiment for package dbs: its exp. 1 and 2
// against FIFO beside the paper's figures, the same with reduces started
// at the end of the maps, a larger workload (the paper-000 workflows and
// the FB-2009 day with seeded φ, deadlines and budgets) against FIFO,
// Fair, Capacity with three fixed queues, EDF and LSS, and an ablation.
var dbsExp = Experiment{
	Name: "dbs",
	Summary: "dbs (paper 003): exp. 1 and 2 vs FIFO beside the paper's figures; paper-000 workflows and FB-2009 " +
		"with seeded φ/deadlines/budgets vs FIFO, Fair, Capacity (3 queues), EDF, LSS; ablation",
	Run:        runDBSExp,
	SuiteScale: 0.1,
	Uses:       UsesNodes,
}

// Sizes and rules of the dbs experiment.
const (
	// dbsHorizon is the arrival horizon of the paper-000 workloads at
	// scale 1 (never below the paper000 experiments' 2 h).
	dbsHorizon = 8 * time.Hour
	// dbsFBNodes is the FB-2009 cluster: the trace's 600 workers (-nodes
	// overrides; the lss experiment's scaled-down 100 make deadlines bind
	// harder but overload the baselines into a long backlog).
	dbsFBNodes = fbNodes
)

// dbsPaper holds paper 003's published figures for one experiment.
type dbsPaper struct {
	fifoResp, fifoCost, dbsResp, dbsCost float64
}

var (
	dbsPaperExp1 = dbsPaper{fifoResp: 1175.5, fifoCost: 152.6, dbsResp: 1154.75, dbsCost: 145.29}
	// exp. 2 prints DBS's figures and its margins: FIFO = DBS + 76.5 s, + 21.9.
	dbsPaperExp2 = dbsPaper{fifoResp: 1230 + 76.5, fifoCost: 148.07 + 21.9, dbsResp: 1230, dbsCost: 148.07}
)

// dbsVariant is one DBS configuration of the ablation.
type dbsVariant struct {
	name string
	opt  policy.DBSOptions
}

var dbsVariants = []dbsVariant{
	{"DBS", policy.DBSOptions{}},
	{"no weight update", policy.DBSOptions{Name: "DBS static", Ablations: dbs.Ablations{StaticWeights: true}}},
	{"no promotion/demotion", policy.DBSOptions{Name: "DBS no-moves", Ablations: dbs.Ablations{NoQueueMoves: true}}},
	{"no minimum slots", policy.DBSOptions{Name: "DBS no-min", Ablations: dbs.Ablations{NoMinimumSlots: true}}},
	{"φ-aware moves", policy.DBSOptions{Name: "DBS φ-moves", PhiAwareMoves: true}},
	{"reduces at slow-start", policy.DBSOptions{Name: "DBS early-reduces", Ablations: dbs.Ablations{EarlyReduces: true}}},
	{"no hold-down", policy.DBSOptions{Name: "DBS no-hold-down", HoldDown: -1}},
	{"no affordability", policy.DBSOptions{Name: "DBS no-afford", Ablations: dbs.Ablations{NoAffordability: true}}},
	{"no better-off", policy.DBSOptions{Name: "DBS no-better-off", Ablations: dbs.Ablations{NoBetterOff: true}}},
	{"no budget demotion", policy.DBSOptions{Name: "DBS no-budget-demotion", Ablations: dbs.Ablations{NoBudgetDemotion: true}}},
	{"lost jobs by weight", policy.DBSOptions{Name: "DBS lost-by-weight", Ablations: dbs.Ablations{LostByWeight: true}}},
	{"new jobs by weight", policy.DBSOptions{Name: "DBS unknown-by-weight", Ablations: dbs.Ablations{UnknownByWeight: true}}},
	{"budget view at one slot", policy.DBSOptions{Name: "DBS budget-one-slot", Ablations: dbs.Ablations{BudgetViewOneSlot: true}}},
	{"capacity sharing", policy.DBSOptions{Name: "DBS capacity", Sharing: dbs.CapacitySharing}},
	{"capacity sharing, minimums first", policy.DBSOptions{Name: "DBS capacity min-first", Sharing: dbs.CapacitySharing, MinimumFirst: true}},
}

// dbsPolicy returns a Policy building a DBS adapter with opt, recording
// the instance in *inst for its stats.
func dbsPolicy(opt policy.DBSOptions, inst **policy.DBS) Policy {
	name := opt.Name
	if name == "" {
		name = "DBS"
	}
	return Policy{Name: name, Doc: "paper 003 DBS", New: func(env Env) (sim.Policy, error) {
		p, err := policy.NewDBS(env.Config, opt)
		if inst != nil {
			*inst = p
		}
		return p, err
	}}
}

// dbsBatch collects the cases of the experiment so they run in one
// parallel batch.
type dbsBatch struct {
	cases []Case
	insts []*policy.DBS // per case (nil for non-DBS policies)
}

func (b *dbsBatch) add(label string, cfg sim.Config, w *workload.Workload, pols []Policy, isDBS []bool) int {
	at := len(b.cases)
	for i, pol := range pols {
		b.cases = append(b.cases, Case{Label: label + "/" + pol.Name, Config: cfg, Workload: w, Policy: pol})
		b.insts = append(b.insts, nil)
		if isDBS != nil && isDBS[i] {
			idx := len(b.insts) - 1
			inner := pol.New
			b.cases[idx].Policy.New = func(env Env) (sim.Policy, error) {
				p, err := inner(env)
				if d, ok := p.(*policy.DBS); ok {
					b.insts[idx] = d
				}
				return p, err
			}
		}
	}
	return at
}

func runDBSExp(p Params) (Result, error) {
	if err := p.normalize(); err != nil {
		return Result{}, err
	}
	res := Result{Experiment: "dbs", Title: "dbs (paper 003): deadline- and budget-constrained scheduling in price-tiered queues"}
	var b dbsBatch
	space := workload.SlotSpace()
	price := workload.Paper003Price

	// 1. Paper 003 exp. 1 and 2, 5 workers × (2 map + 2 reduce), with the
	// simulator's default reduce slow-start (0.05) and with reduces ready
	// only when the maps end (slow-start 1, every policy).
	type paperCase struct {
		name  string
		jobs  []workload.Paper003Job
		paper dbsPaper
		w     *workload.Workload
		at    [2]int // per slow-start setting
		abl   int
	}
	paperCases := []paperCase{
		{name: "exp. 1", jobs: workload.Paper003Exp1(), paper: dbsPaperExp1},
		{name: "exp. 2", jobs: workload.Paper003Exp2(), paper: dbsPaperExp2},
	}
	var cl []string
	for i := range paperCases {
		pc := &paperCases[i]
		w, lines, err := Paper003Workload("paper003-"+pc.name, pc.jobs, p)
		if err != nil {
			return Result{}, err
		}
		pc.w = w
		res.Assumptions = append(res.Assumptions, lines...)
		for s, slow := range []float64{sim.DefaultSlowStart, 1} {
			cfg, lines, err := SlotCluster(space, workload.Paper003Workers, workload.Paper003Maps, workload.Paper003Reduces, p.Seed)
			if err != nil {
				return Result{}, err
			}
			cfg.SlowStart = slow
			cfg.Prices = resource.Vector{price, price}
			if i == 0 && s == 0 {
				cl = lines
			}
			pols := []Policy{mustPolicy("fifo"), mustPolicy("edf"), dbsPolicy(policy.DBSOptions{}, nil)}
			pc.at[s] = b.add(fmt.Sprintf("dbs/%s/slowstart=%g", pc.name, slow), cfg, w, pols, []bool{false, false, true})
		}
		cfg, _, _ := SlotCluster(space, workload.Paper003Workers, workload.Paper003Maps, workload.Paper003Reduces, p.Seed)
		cfg.Prices = resource.Vector{price, price}
		pc.abl = b.add("dbs/"+pc.name+"/ablation", cfg, w, dbsVariantPolicies(), dbsAll(len(dbsVariants)))
	}
	res.Assumptions = append(res.Assumptions, cl...)

	// 2. The larger workloads.
	type bigCase struct {
		label string
		title string
		w, wq *workload.Workload
		at    int
		at1   int // the same with slow-start 1.0 for every policy
		abl   int
	}
	var bigs []bigCase
	rules := workload.DefaultDBSRules(price)
	var ruleLines []string // what ApplyDBSRules states (the same for every workload; taken from FB-2009's)
	for _, wc := range []workload.PoissonConfig{workload.Paper000Light(), workload.Paper000Heavy()} {
		wc.Horizon = max(time.Duration(float64(dbsHorizon)*p.Scale), wc.Horizon)
		w, err := workload.GeneratePoisson(wc, rand.New(rand.NewPCG(p.Seed, 0x000)))
		if err != nil {
			return Result{}, paramErr("%w", err)
		}
		if err := workload.ApplyDBSRules(&w, rules, rand.New(rand.NewPCG(p.Seed, 0x003))); err != nil {
			return Result{}, paramErr("%w", err)
		}
		cfg, lines, err := SlotCluster(space, 5, 2, 1, p.Seed)
		if err != nil {
			return Result{}, err
		}
		cfg.Prices = resource.Vector{price, price}
		bc := bigCase{label: wc.Name + " workflows", title: fmt.Sprintf("%s workflows (%d jobs, %v of arrivals) on 5 workers × (2 map + 1 reduce)", wc.Name, len(w.Jobs), wc.Horizon), w: &w}
		bc.wq = byPhiQueue(&w)
		bc.at, bc.at1, bc.abl = addBig(&b, wc.Name, cfg, bc.w, bc.wq)
		res.Assumptions = append(res.Assumptions, fmt.Sprintf("%s: %d jobs over %v; %s", wc.Name, len(w.Jobs), wc.Horizon, lines[0]))
		bigs = append(bigs, bc)
	}
	{
		fp := p
		w, lines, err := TraceWorkload(fp, bytes.NewReader(fbTrace), FBTraceName, workload.FormatSWIM)
		if err != nil {
			return Result{}, err
		}
		before := len(w.Assumptions)
		if err := workload.ApplyDBSRules(w, rules, rand.New(rand.NewPCG(p.Seed, 0x003fb))); err != nil {
			return Result{}, paramErr("%w", err)
		}
		lines = append(lines, "FB-2009: the trace's budgets and φ above are then replaced by the dbs rules below (deadlines kept)")
		ruleLines = w.Assumptions[before:]
		n := dbsFBNodes
		if p.Nodes > 0 {
			n = p.Nodes
		}
		cfg, cl, err := SlotCluster(space, n, fbMaps, fbReduces, p.Seed)
		if err != nil {
			return Result{}, err
		}
		cfg.Prices = resource.Vector{price, price}
		bc := bigCase{label: "FB-2009 day", title: fmt.Sprintf("FB-2009 day (%d jobs) on %d workers × (2 map + 2 reduce)", len(w.Jobs), n), w: w}
		bc.wq = byPhiQueue(w)
		bc.at, bc.at1, bc.abl = addBig(&b, "fb2009", cfg, bc.w, bc.wq)
		res.Assumptions = append(res.Assumptions, lines...)
		res.Assumptions = append(res.Assumptions, cl...)
		bigs = append(bigs, bc)
	}
	res.Assumptions = append(res.Assumptions, ruleLines...)
	res.Assumptions = append(res.Assumptions, dbsAssumptions(price)...)

	runs, err := RunCases(p, b.cases)
	if err != nil {
		return Result{}, err
	}

	// Tables.
	for _, pc := range paperCases {
		res.Tables = append(res.Tables, dbsPaperTable(pc.name, pc.paper, pc.w, runs[pc.at[0]:pc.at[0]+3], b.insts[pc.at[0]+2]))
		res.Tables = append(res.Tables, dbsCompareTable(fmt.Sprintf("paper 003 %s with reduces ready only when the maps end (slow-start 1.0, every policy)", pc.name),
			runs[pc.at[1]:pc.at[1]+3], b.insts[pc.at[1]:pc.at[1]+3]))
	}
	for _, bc := range bigs {
		res.Tables = append(res.Tables, dbsCompareTable(bc.title, runs[bc.at:bc.at+len(dbsBigPolicies())], b.insts[bc.at:bc.at+len(dbsBigPolicies())]))
	}
	for _, bc := range bigs {
		res.Tables = append(res.Tables, dbsCompareTable(bc.label+" with reduces ready only when the maps end (slow-start 1.0, every policy)",
			runs[bc.at1:bc.at1+len(dbsBigPolicies())], b.insts[bc.at1:bc.at1+len(dbsBigPolicies())]))
	}
	abl := metrics.Table{Title: fmt.Sprintf("ablation: DBS without each of its parts, and its options, φ success · mean response · mean cost · moves (reversed within %v)", policy.DBSReversalWindow)}
	for _, v := range dbsVariants {
		abl.Columns = append(abl.Columns, v.name)
	}
	ablRow := func(name string, at int) {
		r := metrics.Row{Name: name}
		for i := range dbsVariants {
			s := metrics.Summarize(runs[at+i])
			moves := "-"
			if d := b.insts[at+i]; d != nil {
				st := d.Stats()
				moves = fmt.Sprintf("%d↑ %d↓ (%d)", st.Promotions, st.Demotions, st.Reversed(policy.DBSReversalWindow))
			}
			r.Cells = append(r.Cells, fmt.Sprintf("%.3f · %s · %.2f · %s", s.PhiSuccess.Value().V, s.Response.MeanSpan(), s.MeanCost.V, moves))
		}
		abl.Rows = append(abl.Rows, r)
	}
	for _, pc := range paperCases {
		ablRow("paper 003 "+pc.name, pc.abl)
	}
	for _, bc := range bigs {
		ablRow(bc.label, bc.abl)
	}
	res.Tables = append(res.Tables, abl)
	for _, pc := range paperCases {
		res.Runs = append(res.Runs, runs[pc.at[0]:pc.at[0]+3]...)
	}
	for _, bc := range bigs {
		res.Runs = append(res.Runs, runs[bc.at:bc.at+len(dbsBigPolicies())]...)
	}
	return res, nil
}

// mustPolicy returns the registered policy of that name.
func mustPolicy(name string) Policy {
	ps, err := LookupPolicies([]string{name})
	if err != nil {
		panic(err) // a typo in this file
	}
	return ps[0]
}

func dbsVariantPolicies() []Policy {
	out := make([]Policy, len(dbsVariants))
	for i, v := range dbsVariants {
		out[i] = dbsPolicy(v.opt, nil)
	}
	return out
}

func dbsAll(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// dbsBigPolicies are the policies of the larger workloads, in column
// order; the Capacity column runs on the copy of the workload whose
// classes are the φ queues.
func dbsBigPolicies() []Policy {
	return []Policy{mustPolicy("fifo"), mustPolicy("fair"), capacity3Policy(), mustPolicy("edf"), lssPolicy(), dbsPolicy(policy.DBSOptions{}, nil)}
}

// addBig adds the larger-workload cases (with cfg's slow-start and with
// slow-start 1.0 for every policy, so no baseline pays for reduce slots
// held idle while DBS does not) and their ablation; it returns where
// each starts.
func addBig(b *dbsBatch, label string, cfg sim.Config, w, wq *workload.Workload) (at, at1, abl int) {
	pols := dbsBigPolicies()
	cfg1 := cfg
	cfg1.SlowStart = 1
	for s, c := range []sim.Config{cfg, cfg1} {
		start := len(b.cases)
		for i, pol := range pols {
			wl := w
			if i == 2 {
				wl = wq // Capacity with three fixed queues: classes are the φ queues
			}
			isDBS := []bool{i == len(pols)-1}
			b.add(fmt.Sprintf("dbs/%s/slowstart=%g", label, c.SlowStart), c, wl, []Policy{pol}, isDBS)
		}
		if s == 0 {
			at = start
		} else {
			at1 = start
		}
	}
	abl = b.add("dbs/"+label+"/ablation", cfg, w, dbsVariantPolicies(), dbsAll(len(dbsVariants)))
	return at, at1, abl
}

// lssPolicy is the lss adapter with the paper's options.
func lssPolicy() Policy {
	return Policy{Name: "lss", Doc: "paper 000 LSS", New: func(env Env) (sim.Policy, error) {
		return policy.NewLSS(env.Config, policy.LSSOptions{})
	}}
}

// dbsAssumptions states the pricing and the rules of the experiment.
func dbsAssumptions(price float64) []string {
	return []string{
		fmt.Sprintf("prices: every baseline pays the reference price %.6g per slot-second (workload.Paper003Price); DBS and Capacity (3 queues) pay their queue's price: Low %.6g, Mid %.6g, High %.6g (reference ±%g%%, ours: the paper prints none)",
			price, (1-policy.DBSPriceSpread)*price, price, (1+policy.DBSPriceSpread)*price, 100*policy.DBSPriceSpread),
		fmt.Sprintf("DBS queue shares (ours): High %g, Mid %g, Low %g; weight update every %v on simulator ticks; no task time prior (models 1-2 wait for a finished task)",
			policy.DBSShares[2], policy.DBSShares[1], policy.DBSShares[0], 500*time.Millisecond),
		"Capacity (3 queues): the Capacity baseline with one queue per φ (High/Mid/Low) at DBS's shares and prices, jobs never move",
		"larger workloads: workload.DefaultDBSRules at the reference price, seeded (seed, 0x003) for the paper-000 workflows and (seed, 0x003fb) for FB-2009; the paper-000 workflows keep their D",
		"LSS: paper 000 defaults (kills jobs that can no longer make their deadline); its φ and budget are ignored",
		"success (paper 003): φ = 1 meets its deadline, φ = 0 stays within budget, φ = 0.5 either",
	}
}

// byPhiQueue returns a copy of w whose job classes are the φ queues
// ("high", "mid", "low"), for the Capacity baseline with three queues.
func byPhiQueue(w *workload.Workload) *workload.Workload {
	c := *w
	c.Jobs = append([]workload.JobSpec(nil), w.Jobs...)
	for i := range c.Jobs {
		switch c.Jobs[i].Phi {
		case 1:
			c.Jobs[i].Class = "high"
		case 0.5:
			c.Jobs[i].Class = "mid"
		default:
			c.Jobs[i].Class = "low"
		}
	}
	return &c
}

// dbsRows are the rows of a dbs comparison.
func dbsRows(sums []metrics.Summary) []metrics.Metric {
	keep := []string{"jobs", "completed", metrics.NotCompletedRow, "deadline success", "response mean", "response p95",
		"makespan", "total cost", "killed"}
	var out []metrics.Metric
	for _, m := range metrics.StandardMetrics(sums) {
		for _, k := range keep {
			if m.Name == k || strings.HasPrefix(m.Name, k+" (") {
				out = append(out, m)
				break
			}
		}
	}
	return append(out, metrics.CostMetrics(sums)...)
}

// dbsCompareTable compares runs side by side, with DBS's queue moves.
func dbsCompareTable(title string, runs []sim.Run, insts []*policy.DBS) metrics.Table {
	sums := Summaries(runs)
	t := metrics.Compare(title, sums, dbsRows(sums))
	t.Rows = append(t.Rows, dbsMoveRows(runs, insts)...)
	return t
}

// dbsMoveRows are the queue-move rows of a table whose columns are runs
// (insts[i] the DBS instance of column i, nil for other policies):
// promotions / demotions, moves (queue_moves_count), moves that put a
// job back in the queue it had left within policy.DBSReversalWindow
// (queue_moves_reversed_count), and the median and largest number of
// moves per job. None if no column is DBS.
func dbsMoveRows(runs []sim.Run, insts []*policy.DBS) []metrics.Row {
	hasDBS := false
	for _, d := range insts {
		hasDBS = hasDBS || d != nil
	}
	if !hasDBS {
		return nil
	}
	rows := []metrics.Row{
		{Name: "promotions / demotions"},
		{Name: "queue moves", Key: "queue_moves_count", Unit: metrics.UnitCount},
		{Name: fmt.Sprintf("queue moves reversed within %v", policy.DBSReversalWindow), Key: "queue_moves_reversed_count", Unit: metrics.UnitCount},
		{Name: "queue moves per job p50 · max", Key: "queue_moves_per_job_p50_count", Unit: metrics.UnitCount},
	}
	for i, d := range insts {
		if d == nil {
			for r := range rows {
				rows[r].Cells = append(rows[r].Cells, "-")
				rows[r].Values = append(rows[r].Values, metrics.Number{})
			}
			continue
		}
		st := d.Stats()
		per := st.MovesPerJob()
		all := make([]int, len(runs[i].Jobs)-len(per), len(runs[i].Jobs))
		all = append(all, per...) // every job: the ones that never moved first
		p50, most := 0, 0
		if len(all) > 0 {
			p50, most = all[(len(all)-1)/2], all[len(all)-1]
		}
		rev := st.Reversed(policy.DBSReversalWindow)
		n := len(st.Moves)
		rows[0].Cells = append(rows[0].Cells, fmt.Sprintf("%d / %d", st.Promotions, st.Demotions))
		rows[0].Values = append(rows[0].Values, metrics.Number{})
		rows[1].Cells = append(rows[1].Cells, strconv.Itoa(n))
		rows[1].Values = append(rows[1].Values, metrics.Number{V: float64(n), Valid: true})
		rows[2].Cells = append(rows[2].Cells, strconv.Itoa(rev))
		rows[2].Values = append(rows[2].Values, metrics.Number{V: float64(rev), Valid: true})
		rows[3].Cells = append(rows[3].Cells, fmt.Sprintf("%d · %d", p50, most))
		rows[3].Values = append(rows[3].Values, metrics.Number{V: float64(p50), Valid: true})
	}
	return rows
}

// dbsPaperTable sets one paper experiment's FIFO, EDF and DBS runs beside
// the paper's figures.
func dbsPaperTable(name string, paper dbsPaper, w *workload.Workload, runs []sim.Run, d *policy.DBS) metrics.Table {
	sums := Summaries(runs)
	f, e, s := &sums[0], &sums[1], &sums[2]
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	sec := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "s" }
	t := metrics.Table{
		Title:   "paper 003 " + name + ": paper vs ours (5 workers × (2 map + 2 reduce), reduce slow-start 0.05)",
		Columns: []string{"FIFO paper", "FIFO ours", "DBS paper", "DBS ours", "EDF ours"},
	}
	row := func(n string, cells ...string) { t.Rows = append(t.Rows, metrics.Row{Name: n, Cells: cells}) }
	row("mean response", sec(paper.fifoResp), sec(f.Response.Mean.Seconds()), sec(paper.dbsResp), sec(s.Response.Mean.Seconds()), sec(e.Response.Mean.Seconds()))
	row("mean cost", num(paper.fifoCost), num(f.MeanCost.V), num(paper.dbsCost), num(s.MeanCost.V), num(e.MeanCost.V))
	row("DBS − FIFO response", "", "", sec(paper.dbsResp-paper.fifoResp), sec(s.Response.Mean.Seconds()-f.Response.Mean.Seconds()), "")
	row("DBS − FIFO cost", "", "", num(paper.dbsCost-paper.fifoCost), num(s.MeanCost.V-f.MeanCost.V), "")
	row("φ success (paper 003)", "", f.PhiSuccess.String(), "", s.PhiSuccess.String(), e.PhiSuccess.String())
	for _, phi := range []float64{0, 0.5, 1} {
		find := func(x *metrics.Summary) string {
			for _, ps := range x.Phi {
				if ps.Phi == phi {
					return ps.Success.String()
				}
			}
			return metrics.NA
		}
		row(fmt.Sprintf("φ=%g success", phi), "", find(f), "", find(s), find(e))
	}
	for _, j := range w.Jobs {
		cells := []string{"", "", "", "", ""}
		for i, c := range []int{1, 3, 4} {
			for _, rec := range runs[[]int{0, 2, 1}[i]].Jobs {
				if rec.ID == j.ID && rec.Outcome == sim.Completed {
					cells[c] = fmt.Sprintf("%.0fs · %.2f", (rec.Finish - rec.Submit).Seconds(), rec.Cost)
				}
			}
		}
		row(fmt.Sprintf("%s (φ %g) response · cost", j.ID, j.Phi), cells...)
	}
	if d != nil {
		for _, r := range dbsMoveRows(runs[2:3], []*policy.DBS{d}) {
			r.Name = "DBS " + r.Name
			r.Cells = []string{"", "", "", r.Cells[0], ""}
			r.Values = []metrics.Number{{}, {}, {}, r.Values[0], {}}
			t.Rows = append(t.Rows, r)
		}
	}
	return t
}

// capacity3Policy is the Capacity baseline with three fixed queues, one
// per φ (the workload's classes must be the queue names, see
// byPhiQueue), at DBS's shares, each job charged its queue's price.
func capacity3Policy() Policy {
	return Policy{Name: "capacity-3q", Doc: "Capacity with the three DBS queues, their shares and prices", New: func(env Env) (sim.Policy, error) {
		return baseline.NewCapacity3(env.Config.Prices, policy.DBSShares, policy.DBSPriceSpread)
	}}
}
