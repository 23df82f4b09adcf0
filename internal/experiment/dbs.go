package experiment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"time"

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
	// dbsSlowStartAll is the reduce slow-start of the setups where every
	// policy, not only DBS, readies reduces when the maps end.
	dbsSlowStartAll = 1.0
)

// The dbs experiment's columns, as data: adding a variant is a line.
var (
	// dbsPaperColumns are the paper experiments' policies.
	dbsPaperColumns = []Column{namedColumn("fifo"), namedColumn("edf"), dbsColumn("DBS", policy.DBSOptions{})}
	// dbsBigColumns are the larger workloads' policies, in column order;
	// Capacity with three fixed queues runs on a copy of the workload
	// whose classes are the φ queues.
	dbsBigColumns = []Column{namedColumn("fifo"), namedColumn("fair"),
		{Name: "capacity-3q", Policy: capacity3Policy(), Workload: byPhiQueue},
		namedColumn("edf"), {Name: "lss", Policy: lssPolicy()}, dbsColumn("DBS", policy.DBSOptions{})}
	// dbsVariants are the ablation's columns: DBS without each of its
	// parts, and its options. Header is the ablation table's column.
	dbsVariants = []dbsVariant{
		{"DBS", policy.DBSOptions{}},
		{"no weight update", policy.DBSOptions{Name: "DBS static", StaticWeights: true}},
		{"no promotion/demotion", policy.DBSOptions{Name: "DBS no-moves", NoQueueMoves: true}},
		{"no minimum slots", policy.DBSOptions{Name: "DBS no-min", NoMinimumSlots: true}},
		{"minimums before shares", policy.DBSOptions{Name: "DBS min-first", MinimumFirst: true}},
		{"φ-aware moves", policy.DBSOptions{Name: "DBS φ-moves", PhiAwareMoves: true}},
		{"reduces at slow-start", policy.DBSOptions{Name: "DBS early-reduces", EarlyReduces: true}},
		{"queues by priority", policy.DBSOptions{Name: "DBS queue-priority", QueuePriority: true}},
		{"no hold-down", policy.DBSOptions{Name: "DBS no-hold-down", HoldDown: -1}},
	}
)

// dbsVariant is one DBS configuration of the ablation.
type dbsVariant struct {
	header string
	opt    policy.DBSOptions
}

// column is the variant as a column, named after its policy.
func (v dbsVariant) column() Column {
	name := v.opt.Name
	if name == "" {
		name = "DBS"
	}
	return dbsColumn(name, v.opt)
}

func dbsVariantColumns() []Column {
	out := make([]Column, len(dbsVariants))
	for i, v := range dbsVariants {
		out[i] = v.column()
	}
	return out
}

// dbsColumn is a DBS adapter with opt.
func dbsColumn(name string, opt policy.DBSOptions) Column {
	return Column{Name: name, Policy: Policy{Name: name, Doc: "paper 003 DBS", New: func(env Env) (sim.Policy, error) {
		return policy.NewDBS(env.Config, opt)
	}}}
}

// namedColumn is the registered policy of that name as a column.
func namedColumn(name string) Column {
	cols, err := Named(name)
	if err != nil {
		panic(err) // a typo in an experiment's column list
	}
	return cols[0]
}

// lssPolicy is the lss adapter with the paper's options.
func lssPolicy() Policy {
	return Policy{Name: "lss", Doc: "paper 000 LSS", New: func(env Env) (sim.Policy, error) {
		return policy.NewLSS(env.Config, policy.LSSOptions{})
	}}
}

// dbsWorld is one workload of the dbs experiment: its setup (at the
// simulator's slow-start), the table it heads and the ablation row.
type dbsWorld struct {
	setup Setup
	title string // the comparison table's title (larger workloads)
	row   string // the ablation's row name
	exp   string // the paper experiment ("exp. 1"), "" for a larger workload
}

// slowStartAll is s with reduces readied at the end of the maps for
// every policy, so that no baseline pays for reduce slots held idle
// while DBS does not.
func slowStartAll(s Setup) Setup {
	s.Name += ", slow-start 1"
	s.Config.SlowStart = dbsSlowStartAll
	return s
}

func runDBSExp(p Params) (Result, error) {
	if err := p.normalize(); err != nil {
		return Result{}, err
	}
	res := Result{Experiment: "dbs", Title: "dbs (paper 003): deadline- and budget-constrained scheduling in price-tiered queues"}
	paper, lines, err := dbsPaperWorlds(p)
	if err != nil {
		return Result{}, err
	}
	res.Assumptions = append(res.Assumptions, lines...)
	bigs, lines, err := dbsBigWorlds(p)
	if err != nil {
		return Result{}, err
	}
	res.Assumptions = append(res.Assumptions, lines...)
	res.Assumptions = append(res.Assumptions, dbsAssumptions(workload.Paper003Price)...)

	var grids []Grid
	all := append(append([]dbsWorld(nil), paper...), bigs...)
	for _, ws := range []struct {
		worlds []dbsWorld
		cols   []Column
	}{{paper, dbsPaperColumns}, {bigs, dbsBigColumns}} {
		var ss []Setup
		for _, w := range ws.worlds {
			ss = append(ss, w.setup, slowStartAll(w.setup))
		}
		grids = append(grids, Grid{Setups: ss, Columns: ws.cols})
	}
	var abl []Setup
	for _, w := range all {
		abl = append(abl, w.setup)
	}
	grids = append(grids, Grid{Setups: abl, Columns: dbsVariantColumns()})
	cells, err := RunGrids(p, "dbs", grids...)
	if err != nil {
		return Result{}, err
	}
	res.Cells = cells

	for _, w := range paper {
		res.Tables = append(res.Tables, dbsPaperTable(w, cells))
		s1 := slowStartAll(w.setup).Name
		res.Tables = append(res.Tables, dbsCompareTable(fmt.Sprintf("paper 003 %s with reduces ready only when the maps end (slow-start 1.0, every policy)", w.exp),
			cells.Row(s1, dbsPaperColumns)))
	}
	for _, w := range bigs {
		res.Tables = append(res.Tables, dbsCompareTable(w.title, cells.Row(w.setup.Name, dbsBigColumns)))
	}
	for _, w := range bigs {
		res.Tables = append(res.Tables, dbsCompareTable(w.row+" with reduces ready only when the maps end (slow-start 1.0, every policy)",
			cells.Row(slowStartAll(w.setup).Name, dbsBigColumns)))
	}
	res.Tables = append(res.Tables, dbsAblationTable(all, cells))
	for _, w := range paper {
		res.Runs = append(res.Runs, Runs(cells.Row(w.setup.Name, dbsPaperColumns))...)
	}
	for _, w := range bigs {
		res.Runs = append(res.Runs, Runs(cells.Row(w.setup.Name, dbsBigColumns))...)
	}
	return res, nil
}

// dbsCluster is a priced slot cluster of the dbs experiment.
func dbsCluster(n, maps, reduces int, seed uint64) (sim.Config, []string, error) {
	cfg, lines, err := SlotCluster(workload.SlotSpace(), n, maps, reduces, seed)
	price := workload.Paper003Price
	cfg.Prices = resource.Vector{price, price}
	return cfg, lines, err
}

// dbsPaperWorlds are paper 003's exp. 1 and 2 on 5 workers × (2 map + 2
// reduce), with the assumptions they state.
func dbsPaperWorlds(p Params) ([]dbsWorld, []string, error) {
	var out []dbsWorld
	var lines, cl []string
	for i, e := range []struct {
		name string
		jobs []workload.Paper003Job
	}{{"exp. 1", workload.Paper003Exp1()}, {"exp. 2", workload.Paper003Exp2()}} {
		w, wl, err := Paper003Workload("paper003-"+e.name, e.jobs, p)
		if err != nil {
			return nil, nil, err
		}
		lines = append(lines, wl...)
		cfg, c, err := dbsCluster(workload.Paper003Workers, workload.Paper003Maps, workload.Paper003Reduces, p.Seed)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			cl = c
		}
		out = append(out, dbsWorld{setup: Setup{Name: e.name, Config: cfg, Workload: w}, row: "paper 003 " + e.name, exp: e.name})
	}
	return out, append(lines, cl...), nil
}

// dbsBigWorlds are the larger workloads: the paper-000 workflows and the
// FB-2009 day with seeded φ, budgets and missing deadlines.
func dbsBigWorlds(p Params) ([]dbsWorld, []string, error) {
	price := workload.Paper003Price
	rules := workload.DefaultDBSRules(price)
	var out []dbsWorld
	var lines []string
	for _, wc := range []workload.PoissonConfig{workload.Paper000Light(), workload.Paper000Heavy()} {
		wc.Horizon = max(time.Duration(float64(dbsHorizon)*p.Scale), wc.Horizon)
		w, err := workload.GeneratePoisson(wc, rand.New(rand.NewPCG(p.Seed, 0x000)))
		if err != nil {
			return nil, nil, paramErr("%w", err)
		}
		if err := workload.ApplyDBSRules(&w, rules, rand.New(rand.NewPCG(p.Seed, 0x003))); err != nil {
			return nil, nil, paramErr("%w", err)
		}
		cfg, cl, err := dbsCluster(5, 2, 1, p.Seed)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, dbsWorld{setup: Setup{Name: wc.Name, Config: cfg, Workload: &w}, row: wc.Name + " workflows",
			title: fmt.Sprintf("%s workflows (%d jobs, %v of arrivals) on 5 workers × (2 map + 1 reduce)", wc.Name, len(w.Jobs), wc.Horizon)})
		lines = append(lines, fmt.Sprintf("%s: %d jobs over %v; %s", wc.Name, len(w.Jobs), wc.Horizon, cl[0]))
	}
	w, tl, err := TraceWorkload(p, bytes.NewReader(fbTrace), FBTraceName, workload.FormatSWIM)
	if err != nil {
		return nil, nil, err
	}
	before := len(w.Assumptions)
	if err := workload.ApplyDBSRules(w, rules, rand.New(rand.NewPCG(p.Seed, 0x003fb))); err != nil {
		return nil, nil, paramErr("%w", err)
	}
	tl = append(tl, "FB-2009: the trace's budgets and φ above are then replaced by the dbs rules below (deadlines kept)")
	ruleLines := w.Assumptions[before:] // what ApplyDBSRules states (the same for every workload)
	n := dbsFBNodes
	if p.Nodes > 0 {
		n = p.Nodes
	}
	cfg, cl, err := dbsCluster(n, fbMaps, fbReduces, p.Seed)
	if err != nil {
		return nil, nil, err
	}
	out = append(out, dbsWorld{setup: Setup{Name: "FB-2009", Config: cfg, Workload: w}, row: "FB-2009 day",
		title: fmt.Sprintf("FB-2009 day (%d jobs) on %d workers × (2 map + 2 reduce)", len(w.Jobs), n)})
	lines = append(append(append(lines, tl...), cl...), ruleLines...)
	return out, lines, nil
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
