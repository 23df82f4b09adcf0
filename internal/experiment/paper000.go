package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit/internal/workload"
)

// paper000Light and paper000Heavy are paper 000's §4 setting with the
// baselines: 5 workers × (2 map + 1 reduce) slots, the workflows of its
// Table 2 arriving as Poisson streams, WordCount-like tasks.
var (
	paper000Light = Experiment{
		Name:    "paper000-light",
		Summary: "paper 000 §4 light load: workflows W1–W3 (D = 1/λ) on 5 workers × (2 map + 1 reduce)",
		Run: func(p Params) (Result, error) {
			return runPaper000(p, "paper000-light", workload.Paper000Light(), "paper 000 light load (W1–W3), 5 workers")
		},
		Uses: UsesPolicies | UsesTiming,
	}
	paper000Heavy = Experiment{
		Name:    "paper000-heavy",
		Summary: "paper 000 §4 heavy load: workflows W4–W6 (D < 1/λ) on 5 workers × (2 map + 1 reduce)",
		Run: func(p Params) (Result, error) {
			return runPaper000(p, "paper000-heavy", workload.Paper000Heavy(), "paper 000 heavy load (W4–W6), 5 workers")
		},
		Uses: UsesPolicies | UsesTiming,
	}
)

// paper000Policies is what the paper-000 experiments compare by default:
// the baselines and the paper's own algorithm, lss.
var paper000Policies = append(slices.Clone(baselines), "lss")

// Paper000Workload generates a paper-000 workload at the given scale
// (arrival horizon × scale) and seed, with its slot cluster: 5 workers ×
// (2 map + 1 reduce). Other experiments (lss) reuse it.
func Paper000Workload(wc workload.PoissonConfig, p Params) (*workload.Workload, []string, error) {
	if err := p.normalize(); err != nil {
		return nil, nil, err
	}
	wc.Horizon = time.Duration(float64(wc.Horizon) * p.Scale)
	rng := rand.New(rand.NewPCG(p.Seed, 0x000))
	w, err := workload.GeneratePoisson(wc, rng)
	if err != nil {
		return nil, nil, paramErr("%w", err)
	}
	lines := append([]string(nil), w.Assumptions...)
	if m, r, ok := wc.OfferedLoad(10, 5); ok {
		lines = append(lines, fmt.Sprintf("offered load (jitter-free durations): %.0f%% of the 10 map slots, %.0f%% of the 5 reduce slots", 100*m, 100*r))
	}
	lines = append(lines, fmt.Sprintf("workload seed %d: %d jobs", p.Seed, len(w.Jobs)))
	return &w, lines, nil
}

func runPaper000(p Params, name string, wc workload.PoissonConfig, title string) (Result, error) {
	w, lines, err := Paper000Workload(wc, p)
	if err != nil {
		return Result{}, err
	}
	cfg, cl, err := SlotCluster(workload.SlotSpace(), 5, 2, 1, p.Seed)
	if err != nil {
		return Result{}, err
	}
	cols, err := choose(p, paper000Policies)
	if err != nil {
		return Result{}, err
	}
	cfg.RecordTasks = true // for the slots held per workflow (paper 000 fig. 2)
	res, err := Compare(p, name, title, Setup{Name: name, Config: cfg, Workload: w}, cols)
	if err == nil {
		res.Tables = append(res.Tables, heldTable("slots held per workflow over time (paper 000 fig. 2)", res.Runs))
	}
	res.Assumptions = append(lines, cl...)
	return res, err
}
