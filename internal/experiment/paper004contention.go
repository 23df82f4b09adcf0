package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// paper004ContentionExp calibrates the paper-004 contention model on the
// baselines and shows what fgm's cloud result owes to the model's shape:
// for each candidate model, the baselines' cloud ÷ dedicated slowdown
// (the calibration target, Paper004CloudSlowdown) and fgm's change
// against DRF in the cloud, over the loaded online totals and seeds 1–3.
var paper004ContentionExp = Experiment{
	Name:    paper004ContentionName,
	Summary: "paper 004's contention model: the baselines' cloud ÷ dedicated slowdown it is calibrated to, and fgm's change against DRF in the cloud, under each candidate model (online totals 250–400 GB, seeds 1–3)",
	Run:     runPaper004Contention,
}

// paper004ContentionName names the experiment.
const paper004ContentionName = "paper004-contention"

// contentionSeeds and contentionTotals are the runs the calibration
// averages over: seeds 1–3, and the loaded online totals (the last four
// of workload.Paper004OnlineTotals, 250–400 GB).
var (
	contentionSeeds  = []uint64{1, 2, 3}
	contentionTotals = 4
)

// contentionModel is one candidate contention model.
type contentionModel struct {
	name string
	c    sim.Contention
}

// contentionModels are the models the experiment compares: no penalty,
// the default, the default's calibration with the knee at 0, and the
// sensitivity table's steeper world.
func contentionModels() []contentionModel {
	return []contentionModel{
		{"flat", sim.Contention{}},
		{"default", Paper004Contention},
		{"knee 0", Paper004KneeZeroContention},
		{"steeper", Paper004SteeperContention},
	}
}

// contentionPlan is the experiment's setups: per seed and loaded total,
// the dedicated workload once and the cloud workload under each model.
type contentionPlan struct {
	models     []contentionModel
	dedicated  []Setup   // seed × total
	cloud      [][]Setup // model, then seed × total
	base, cols []Column  // the baselines; the baselines and fgm
	lines      []string  // assumptions
}

// newContentionPlan returns the plan of models, the cloud running fgm
// beside the baselines if withFGM.
func newContentionPlan(p Params, models []contentionModel, withFGM bool) (*contentionPlan, error) {
	if err := p.normalize(); err != nil {
		return nil, err
	}
	pl := &contentionPlan{models: models}
	var err error
	if pl.base, err = Named(fgmBaselines...); err != nil {
		return nil, err
	}
	pl.cols = pl.base
	if withFGM {
		if pl.cols, err = Named(append(append([]string(nil), fgmBaselines...), "fgm")...); err != nil {
			return nil, err
		}
	}
	pl.cloud = make([][]Setup, len(pl.models))
	totals := workload.Paper004OnlineTotals()
	for _, seed := range contentionSeeds {
		n, cfg, _, err := paper004Setup(Params{Scale: p.Scale, Seed: seed})
		if err != nil {
			return nil, err
		}
		for i := len(totals) - contentionTotals; i < len(totals); i++ {
			gb := totals[i] * p.Scale
			stream := func() *rand.Rand { return rand.New(rand.NewPCG(seed, 0x004_0000+uint64(i))) }
			wd, err := workload.Paper004Online(gb, stream())
			if err != nil {
				return nil, paramErr("%w", err)
			}
			wc, steps, err := workload.Paper004Cloud(gb, n, stream())
			if err != nil {
				return nil, paramErr("%w", err)
			}
			at := fmt.Sprintf("seed %d, %s", seed, totalName(gb))
			pl.dedicated = append(pl.dedicated, Setup{Name: at + ", dedicated", Config: cfg, Workload: &wd})
			for m, mod := range pl.models {
				c := cfg
				c.Contention = mod.c
				c.Background = backgroundSteps(steps, -1)
				pl.cloud[m] = append(pl.cloud[m], Setup{Name: at + ", cloud, " + mod.name, Config: c, Workload: &wc})
			}
		}
	}
	pl.lines = []string{
		fmt.Sprintf("the online workloads of %g to %g GB (× scale %g) on seeds %v, dedicated and with the cloud's background load, the same jobs in both; dedicated runs under the default model (the baselines' requests never over-commit a node there)", totals[len(totals)-contentionTotals], totals[len(totals)-1], p.Scale, contentionSeeds),
		"each figure a geometric mean over the baselines (slowdown only), the totals and the seeds",
	}
	return pl, nil
}

func runPaper004Contention(p Params) (Result, error) {
	pl, err := newContentionPlan(p, contentionModels(), true)
	if err != nil {
		return Result{}, err
	}
	cells, err := pl.run(p)
	if err != nil {
		return Result{}, err
	}
	title := fmt.Sprintf("paper 004 contention model: calibration on the baselines and fgm in the cloud (online %s–%s, seeds 1–3, geometric means)",
		totalName(workload.Paper004OnlineTotals()[len(workload.Paper004OnlineTotals())-contentionTotals]*p.Scale), totalName(workload.Paper004OnlineTotals()[len(workload.Paper004OnlineTotals())-1]*p.Scale))
	t := metrics.Table{Title: title, Columns: []string{"baselines cloud ÷ dedicated", "fgm vs DRF makespan", "fgm vs best makespan", "fgm vs DRF mean job completion"}}
	for m, mod := range pl.models {
		t.Rows = append(t.Rows, metrics.Row{Name: mod.name + ": " + mod.c.String(), Cells: []string{
			fmt.Sprintf("%.2f", pl.slowdown(cells, m)),
			pctRatio(pl.fgmRatio(cells, m, "makespan", false)),
			pctRatio(pl.fgmRatio(cells, m, "makespan", true)),
			pctRatio(pl.fgmRatio(cells, m, "mean job completion", false)),
		}})
	}
	mk := mustPaper("online, cloud", "fgm", "makespan", "best baseline")
	jc := mustPaper("online, cloud", "fgm", "mean job completion", "each baseline")
	t.Rows = append(t.Rows, metrics.Row{Name: "paper 004 (figs. 13, 16, 18)", Cells: []string{fmt.Sprintf("≥ %.2f", Paper004CloudSlowdown), "", mk.Text(), jc.Text() + " (each baseline)"}})
	t.Notes = append(t.Notes,
		fmt.Sprintf("calibration: a model's slope is the whole number whose baselines' slowdown is nearest the paper's ≥ %.2f ((1 − 0.31) ÷ (1 − 0.5748), see Paper004CloudSlowdown); the default and knee 0 are both calibrated so, on the baselines alone", Paper004CloudSlowdown),
		"fgm plans with the world's penalty at its compression limit (policy.WorldPenalty): 0 where the knee is the limit, 0.4 with the knee at 0")
	return Result{Experiment: paper004ContentionName, Title: title, Tables: []metrics.Table{t}, Cells: cells, Assumptions: pl.lines}, nil
}

// run runs the plan's setups.
func (pl *contentionPlan) run(p Params) (*Cells, error) {
	grids := []Grid{{Setups: pl.dedicated, Columns: pl.base}}
	for m := range pl.models {
		grids = append(grids, Grid{Setups: pl.cloud[m], Columns: pl.cols})
	}
	return RunGrids(p, paper004ContentionName, grids...)
}

// slowdown is the baselines' cloud ÷ dedicated makespan under model m: the
// geometric mean over the baselines, totals and seeds.
func (pl *contentionPlan) slowdown(cells *Cells, m int) float64 {
	var logs []float64
	for i, d := range pl.dedicated {
		for _, b := range pl.base {
			dd, cc := cells.Get(d.Name, b.Name), cells.Get(pl.cloud[m][i].Name, b.Name)
			logs = append(logs, math.Log(cc.Sum.Makespan.D.Seconds()/dd.Sum.Makespan.D.Seconds()))
		}
	}
	return geoMean(logs)
}

// fgmRatio is fgm's figure over DRF's (over the best baseline's if best)
// in the cloud under model m: the geometric mean over totals and seeds.
func (pl *contentionPlan) fgmRatio(cells *Cells, m int, figure string, best bool) float64 {
	f, _ := FigureNamed(figure)
	var logs []float64
	for _, su := range pl.cloud[m] {
		ref := f.Of(cells.Get(su.Name, "drf")).V
		if best {
			for _, b := range pl.base {
				ref = min(ref, f.Of(cells.Get(su.Name, b.Name)).V)
			}
		}
		logs = append(logs, math.Log(f.Of(cells.Get(su.Name, "fgm")).V/ref))
	}
	return geoMean(logs)
}

// geoMean is exp of the mean of logs.
func geoMean(logs []float64) float64 {
	s := 0.0
	for _, x := range logs {
		s += x
	}
	return math.Exp(s / float64(len(logs)))
}

// pctRatio prints a ratio as a relative change with a true minus sign.
func pctRatio(r float64) string {
	f := Figure{Unit: metrics.UnitSeconds}
	return f.FormatChange(100*(r-1), true)
}
