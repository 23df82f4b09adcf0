package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// paper003Policies is what the paper-003 experiments compare by default:
// the paper's FIFO, the other baselines and the paper's own algorithm,
// dbs.
var paper003Policies = []string{"fifo", "fair", "capacity", "drf", "edf", "dbs"}

// paper003 experiments: §4 of paper 003 on 5 workers × (2 map + 2 reduce)
// slots with the reconstructed job tables (workload.Paper003Exp1/2), cost
// at workload.Paper003Price per slot-second.
var (
	paper003Exp1 = Experiment{
		Name:    "paper003-exp1",
		Uses:    UsesPolicies | UsesTiming,
		Summary: "paper 003 exp. 1: four same-size jobs with different φ on 5 workers × (2 map + 2 reduce); paper: FIFO mean response 1175.5 s, mean cost 152.6",
		Run: func(p Params) (Result, error) {
			return runPaper003(p, "paper003-exp1", workload.Paper003Exp1(), "paper 003 exp. 1 (same size, different φ)", "FIFO 1175.5 s / 152.6; DBS 1154.75 s / 145.29")
		},
	}
	paper003Exp2 = Experiment{
		Name:    "paper003-exp2",
		Uses:    UsesPolicies | UsesTiming,
		Summary: "paper 003 exp. 2: four jobs of different sizes on 5 workers × (2 map + 2 reduce); paper: DBS mean response 1230 s, mean cost 148.07 (FIFO +76.5 s, +21.9)",
		Run: func(p Params) (Result, error) {
			return runPaper003(p, "paper003-exp2", workload.Paper003Exp2(), "paper 003 exp. 2 (different sizes)", "FIFO 1306.5 s / 169.97; DBS 1230 s / 148.07")
		},
	}
)

// Paper003Workload returns the workload of one paper-003 experiment and
// its cluster with prices: 5 workers × (2 map + 2 reduce) slots, every
// slot-second charged workload.Paper003Price. -scale and -nodes do not
// apply (the paper's four jobs and five workers are the experiment).
func Paper003Workload(name string, jobs []workload.Paper003Job, p Params) (*workload.Workload, []string, error) {
	if err := p.normalize(); err != nil {
		return nil, nil, err
	}
	w, err := workload.Paper003Workload(name, jobs, rand.New(rand.NewPCG(p.Seed, 0x003)))
	if err != nil {
		return nil, nil, paramErr("%w", err)
	}
	return &w, append(w.Assumptions, fmt.Sprintf("workload seed %d", p.Seed)), nil
}

func runPaper003(p Params, name string, jobs []workload.Paper003Job, title, paper string) (Result, error) {
	if p.Scale != 0 && p.Scale != 1 {
		return Result{}, paramErr("%s is the paper's four jobs on five workers: -scale does not apply", name)
	}
	w, lines, err := Paper003Workload(name, jobs, p)
	if err != nil {
		return Result{}, err
	}
	space := workload.SlotSpace()
	cfg, cl, err := SlotCluster(space, workload.Paper003Workers, workload.Paper003Maps, workload.Paper003Reduces, p.Seed)
	if err != nil {
		return Result{}, err
	}
	cfg.Prices = resource.Vector{workload.Paper003Price, workload.Paper003Price}
	cols, err := choose(p, paper003Policies)
	if err != nil {
		return Result{}, err
	}
	setup := Setup{Name: name, Config: cfg, Workload: w}
	res, err := Compare(p, name, title, setup, cols)
	if err != nil {
		return res, err
	}
	// Paper 003 reports mean cost, success by its φ rule and per-job
	// response: the cost rows (metrics.CostMetrics: mean cost, success
	// and mean cost per φ) follow the standard ones, then one row per job.
	sums := Sums(res.Cells.Row(name, cols))
	ms := Rows(sums, p.Timing)
	for _, m := range metrics.CostMetrics(sums) {
		if !slices.ContainsFunc(ms, func(x metrics.Metric) bool { return x.Name == m.Name }) {
			ms = append(ms, m)
		}
	}
	res.Tables[0] = metrics.Compare(title, sums, ms)
	t := &res.Tables[0]
	for _, j := range w.Jobs {
		r := metrics.Row{Name: j.ID + " response · cost"}
		for i := range res.Runs {
			cell := "n/a"
			for _, rec := range res.Runs[i].Jobs {
				if rec.ID == j.ID && rec.Outcome == sim.Completed {
					cell = fmt.Sprintf("%.0fs · %s", (rec.Finish - rec.Submit).Seconds(), strconv.FormatFloat(rec.Cost, 'f', 2, 64))
				}
			}
			r.Cells = append(r.Cells, cell)
		}
		t.Rows = append(t.Rows, r)
	}
	t.Rows = append(t.Rows, dbsMoveRows(res.Cells.Row(name, cols))...)
	t.Notes = append(t.Notes, "paper's figures: "+paper)
	res.Assumptions = append(lines, cl...)
	res.Assumptions = append(res.Assumptions, fmt.Sprintf("prices: %g per map-slot-second and per reduce-slot-second", workload.Paper003Price))
	return res, nil
}
