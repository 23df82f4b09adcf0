package experiment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/dbs"
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
	// dbsPaperColumns are the paper experiments' policies: the paper's
	// FIFO (Hadoop's, reduce slow-start 0.05), FIFO given DBS's reduce
	// rule (reduces ready only when the maps end), EDF and DBS.
	dbsPaperColumns = []Column{namedColumn("fifo"), fifoAfterMapsColumn(), namedColumn("edf"), dbsColumn("DBS", policy.DBSOptions{})}
	// dbsBigColumns are the larger workloads' policies, in column order;
	// Capacity with three fixed queues runs on a copy of the workload
	// whose classes are the φ queues.
	dbsBigColumns = []Column{namedColumn("fifo"), namedColumn("fair"),
		{Name: "capacity-3q", Policy: capacity3Policy(), Workload: byPhiQueue},
		namedColumn("edf"), {Name: "lss", Policy: lssPolicy()}, dbsColumn("DBS", policy.DBSOptions{})}
	// dbsTraceColumns are the trace replay's policies: the baselines,
	// Capacity with its classes (the trace's size bins) and with the
	// three priced φ queues, LSS, DBS and the DBS variants the replay
	// tells apart.
	dbsTraceColumns = []Column{namedColumn("fifo"), namedColumn("edf"), namedColumn("capacity"),
		{Name: "capacity-3q", Policy: capacity3Policy(), Workload: byPhiQueue},
		{Name: "lss", Policy: lssPolicy()}, dbsColumn("DBS", policy.DBSOptions{}),
		dbsColumn("DBS lost-by-weight", policy.DBSOptions{Name: "DBS lost-by-weight", Ablations: dbs.Ablations{LostByWeight: true}}),
		dbsColumn("DBS unknown-by-weight", policy.DBSOptions{Name: "DBS unknown-by-weight", Ablations: dbs.Ablations{UnknownByWeight: true}}),
		dbsColumn("DBS no-min", policy.DBSOptions{Name: "DBS no-min", Ablations: dbs.Ablations{NoMinimumSlots: true}}),
		dbsColumn("DBS capacity", policy.DBSOptions{Name: "DBS capacity", Sharing: dbs.CapacitySharing})}
	// dbsVariants are the ablation's rows: DBS, without each part of the
	// paper's algorithm, with each option, and without each rule of
	// ours. Header is the ablation table's row.
	dbsVariants = []dbsVariant{
		{"DBS", policy.DBSOptions{}},
		{"no weight update", policy.DBSOptions{Name: "DBS static", Ablations: dbs.Ablations{StaticWeights: true}}},
		{"no promotion/demotion", policy.DBSOptions{Name: "DBS no-moves", Ablations: dbs.Ablations{NoQueueMoves: true}}},
		{"no minimum slots (strict priorities)", policy.DBSOptions{Name: "DBS no-min", Ablations: dbs.Ablations{NoMinimumSlots: true}}},
		{"reduces at slow-start", policy.DBSOptions{Name: "DBS early-reduces", Ablations: dbs.Ablations{EarlyReduces: true}}},
		{"option: every queue's minimums first", policy.DBSOptions{Name: "DBS min-first", MinimumFirst: true}},
		{"option: a 10% floor for Low", policy.DBSOptions{Name: "DBS low-floor", Queues: dbsLowFloorQueues(0.1)}},
		{"option: capacity shares", policy.DBSOptions{Name: "DBS capacity", Sharing: dbs.CapacitySharing}},
		{"option: capacity shares, minimums first", policy.DBSOptions{Name: "DBS capacity min-first", Sharing: dbs.CapacitySharing, MinimumFirst: true}},
		{"option: φ-aware moves", policy.DBSOptions{Name: "DBS φ-moves", PhiAwareMoves: true}},
		{"ours off: affordability", policy.DBSOptions{Name: "DBS no-afford", Ablations: dbs.Ablations{NoAffordability: true}}},
		{"ours off: better off", policy.DBSOptions{Name: "DBS no-better-off", Ablations: dbs.Ablations{NoBetterOff: true}}},
		{"ours off: hold-down", policy.DBSOptions{Name: "DBS no-hold-down", HoldDown: -1}},
		{"ours off: budget demotion", policy.DBSOptions{Name: "DBS no-budget-demotion", Ablations: dbs.Ablations{NoBudgetDemotion: true}}},
		{"ours off: lost jobs last", policy.DBSOptions{Name: "DBS lost-by-weight", Ablations: dbs.Ablations{LostByWeight: true}}},
		{"ours off: jobs without a task time first", policy.DBSOptions{Name: "DBS unknown-by-weight", Ablations: dbs.Ablations{UnknownByWeight: true}}},
		{"budget view at one slot", policy.DBSOptions{Name: "DBS budget-one-slot", Ablations: dbs.Ablations{BudgetViewOneSlot: true}}},
	}
)

// dbsLowFloorQueues are the adapter's queues (prices spread around the
// reference price) with a floor of share for Low.
func dbsLowFloorQueues(share float64) [3]dbs.QueueConfig {
	p := workload.Paper003Price
	return [3]dbs.QueueConfig{
		dbs.Low:  {Share: share, Price: (1 - policy.DBSPriceSpread) * p},
		dbs.Mid:  {Price: p},
		dbs.High: {Price: (1 + policy.DBSPriceSpread) * p},
	}
}

// dbsSlowStart1Columns are cols without the columns that change the
// slow-start (on a setup at 1.0 they would repeat FIFO's run).
func dbsSlowStart1Columns(cols []Column) []Column {
	var out []Column
	for _, c := range cols {
		if c.Config == nil {
			out = append(out, c)
		}
	}
	return out
}

// fifoAfterMapsColumn is FIFO given DBS's reduce rule: its cluster readies
// reduces only when a job's maps have ended (slow-start 1.0), so FIFO
// pays for no reduce slot held idle during the map phase either.
func fifoAfterMapsColumn() Column {
	c := namedColumn("fifo")
	c.Name, c.Label = "fifo-after-maps", "FIFO, reduces after maps"
	c.Config = func(cfg *sim.Config) { cfg.SlowStart = dbsSlowStartAll }
	return c
}

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
	row   string // the ablation's column name
	exp   string // the paper experiment ("exp. 1"), "" for a larger workload
	order string // the completion order the paper reports (paper experiments)
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
	trace, lines, err := dbsTraceWorld(p)
	if err != nil {
		return Result{}, err
	}
	res.Assumptions = append(res.Assumptions, lines...)
	res.Assumptions = append(res.Assumptions, dbsAssumptions(workload.Paper003Price)...)

	var grids []Grid
	all := append(append([]dbsWorld(nil), paper...), bigs...)
	for _, ws := range []struct {
		worlds    []dbsWorld
		cols, ss1 []Column // at the simulator's slow-start, at 1.0
	}{{paper, dbsPaperColumns, dbsSlowStart1Columns(dbsPaperColumns)}, {bigs, dbsBigColumns, dbsBigColumns}} {
		var ss, ss1 []Setup
		for _, w := range ws.worlds {
			ss, ss1 = append(ss, w.setup), append(ss1, slowStartAll(w.setup))
		}
		grids = append(grids, Grid{Setups: ss, Columns: ws.cols}, Grid{Setups: ss1, Columns: ws.ss1})
	}
	grids = append(grids, Grid{Setups: []Setup{trace.setup}, Columns: dbsTraceColumns})
	all = append(all, trace)
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
			cells.Row(s1, dbsSlowStart1Columns(dbsPaperColumns))))
	}
	for _, w := range bigs {
		res.Tables = append(res.Tables, dbsCompareTable(w.title, cells.Row(w.setup.Name, dbsBigColumns)))
	}
	for _, w := range bigs {
		res.Tables = append(res.Tables, dbsCompareTable(w.row+" with reduces ready only when the maps end (slow-start 1.0, every policy)",
			cells.Row(slowStartAll(w.setup).Name, dbsBigColumns)))
	}
	res.Tables = append(res.Tables, dbsCompareTable(trace.title, cells.Row(trace.setup.Name, dbsTraceColumns)))
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
		name  string
		jobs  []workload.Paper003Job
		order string
	}{
		// Exp. 1: Job1 first, Job3 before Job4 (about together), Job2
		// last (fig. 1's text); exp. 2: Job3 before Job1 (fig. 2's).
		{"exp. 1", workload.Paper003Exp1(), "Job1, Job3, Job4, Job2"},
		{"exp. 2", workload.Paper003Exp2(), "Job3 before Job1"},
	} {
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
		out = append(out, dbsWorld{setup: Setup{Name: e.name, Config: cfg, Workload: w}, row: e.name, exp: e.name, order: e.order})
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
		out = append(out, dbsWorld{setup: Setup{Name: wc.Name, Config: cfg, Workload: &w}, row: wc.Name,
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
	out = append(out, dbsWorld{setup: Setup{Name: "FB-2009", Config: cfg, Workload: w}, row: "FB-2009",
		title: fmt.Sprintf("FB-2009 day (%d jobs) on %d workers × (2 map + 2 reduce)", len(w.Jobs), n)})
	lines = append(append(append(lines, tl...), cl...), ruleLines...)
	return out, lines, nil
}

// dbsTraceLoad is the offered load of the trace replay.
const dbsTraceLoad = 0.8

// dbsTraceWorld is the FB-2009 day replayed as a trace replay is by
// default (the trace's generated deadlines, every job φ = 1: deadline
// only), on the fewest workers that keep the busier slot kind's offered
// load at 80%: every job in High, so the queues' reading does not matter,
// model 2 and the order within High do.
func dbsTraceWorld(p Params) (dbsWorld, []string, error) {
	w, lines, err := TraceWorkload(p, bytes.NewReader(fbTrace), FBTraceName, workload.FormatSWIM)
	if err != nil {
		return dbsWorld{}, nil, err
	}
	one, _, err := dbsCluster(1, fbMaps, fbReduces, p.Seed)
	if err != nil {
		return dbsWorld{}, nil, err
	}
	n, err := nodesForLoad(w, one.Space, one.Nodes[0].Capacity, dbsTraceLoad)
	if err != nil {
		return dbsWorld{}, nil, err
	}
	cfg, _, err := dbsCluster(n, fbMaps, fbReduces, p.Seed)
	if err != nil {
		return dbsWorld{}, nil, err
	}
	name := fmt.Sprintf("FB-2009 at %g%% load", 100*dbsTraceLoad)
	lines = append([]string{name + ": the trace replay's own rules (below), not the dbs rules"}, lines...)
	lines = append(lines, fmt.Sprintf("%s: %d workers × (2 map + 2 reduce), the fewest that keep the busier slot kind's offered load at most %g", name, n, dbsTraceLoad))
	return dbsWorld{setup: Setup{Name: name, Config: cfg, Workload: w}, row: name,
		title: fmt.Sprintf("FB-2009 day (%d jobs, the trace's deadlines, every job φ = 1) on %d workers: %g%% offered load", len(w.Jobs), n, 100*dbsTraceLoad)}, lines, nil
}

// dbsAssumptions states the pricing and the rules of the experiment.
func dbsAssumptions(price float64) []string {
	return []string{
		fmt.Sprintf("prices: every baseline pays the reference price %.6g per slot-second (workload.Paper003Price); DBS and Capacity (3 queues) pay their queue's price: Low %.6g, Mid %.6g, High %.6g (reference ±%g%%, ours: the paper prints none)",
			price, (1-policy.DBSPriceSpread)*price, price, (1+policy.DBSPriceSpread)*price, 100*policy.DBSPriceSpread),
		fmt.Sprintf("DBS: queues as priorities, no floors; weight update every %v on simulator ticks; no task time prior (models 1-2 wait for a finished task); with capacity shares (DBS capacity): High %g, Mid %g, Low %g",
			500*time.Millisecond, policy.DBSShares[2], policy.DBSShares[1], policy.DBSShares[0]),
		"Capacity (3 queues): the Capacity baseline with one queue per φ (High/Mid/Low) at DBS's capacity shares and prices, jobs never move",
		"FIFO, reduces after maps: FIFO on a cluster whose reduces are ready only when their job's maps have ended (slow-start 1.0): DBS's reduce rule",
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
