package experiment

import (
	"bytes"
	"fmt"

	"github.com/schedkit/schedkit/internal/metrics"
)

// fgmTraceExp is fgm's regression table on slot clusters: trace replays
// at 80% offered load, as "-trace FILE -load 0.8" runs them, of the
// FB-2009 day and of a synthetic day (1/20 of the 25,000-job Facebook
// day the trace-scale benchmark replays), fgm beside the slot
// baselines. A change to fgm that costs it deadlines on a trace shows
// here in review.
var fgmTraceExp = Experiment{
	Name:    "fgm-trace",
	Summary: "fgm's regression table: the FB-2009 day and a synthetic day (1/20 of the 25,000-job day) as trace replays at 80% load, fgm beside FIFO, Fair, Capacity and EDF",
	Run:     runFGMTrace,
}

// fgmTraceLoad is the offered load of the replays; fgmTraceDayFactor
// divides the synthetic day (jobs and, through the load, workers).
const (
	fgmTraceLoad      = 0.8
	fgmTraceDayFactor = 20
)

// fgmTraceColumns are the replays' policies.
var fgmTraceColumns = []Column{namedColumn("fifo"), namedColumn("fair"), namedColumn("capacity"), namedColumn("edf"), namedColumn("fgm")}

func runFGMTrace(p Params) (Result, error) {
	if err := p.normalize(); err != nil {
		return Result{}, err
	}
	if len(p.Policies) > 0 {
		return Result{}, paramErr("experiment fgm-trace does not use -policies: it compares fixed policies")
	}
	fb, lines, fbTitle, err := fbAtLoad(p, fgmTraceLoad)
	if err != nil {
		return Result{}, err
	}
	var day bytes.Buffer
	shape := fullDay.scaled(fgmTraceDayFactor)
	if _, err := writeSWIMDay(&day, shape, 1); err != nil {
		return Result{}, err
	}
	label := fmt.Sprintf("synthetic 1/%d day", fgmTraceDayFactor)
	sd, dl, sdTitle, err := traceAtLoad(p, &day, "synthetic-day.tsv", label, fgmTraceLoad)
	if err != nil {
		return Result{}, err
	}
	lines = append(lines, dl...)
	lines = append(lines, fmt.Sprintf("%s: %d jobs over 24 h (1/%d of the %d-job day), %d over %d maps (the largest %d), the rest a bounded Pareto (α = 0.4) on [1, %d] maps; 60%% with a shuffle (seed 1)",
		label, shape.Jobs, fgmTraceDayFactor, fullDay.Jobs, shape.Huge, shape.HugeMin, shape.HugeMax, shape.HugeMin))
	cells, err := RunGrids(p, "fgm-trace", Grid{Setups: []Setup{fb, sd}, Columns: fgmTraceColumns})
	if err != nil {
		return Result{}, err
	}
	res := Result{Experiment: "fgm-trace", Title: "fgm on trace replays at 80% load", Cells: cells, Assumptions: lines}
	for _, s := range []struct {
		setup Setup
		title string
	}{{fb, fbTitle}, {sd, sdTitle}} {
		row := cells.Row(s.setup.Name, fgmTraceColumns)
		sums := Sums(row)
		res.Tables = append(res.Tables, metrics.Compare(s.title, sums, Rows(sums, p.Timing)))
		res.Runs = append(res.Runs, Runs(row)...)
	}
	return res, nil
}
