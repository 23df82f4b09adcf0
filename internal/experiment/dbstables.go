package experiment

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
)

// The dbs experiment's tables, read from its cells by name.

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

// dbsCompareTable compares cells side by side, with DBS's queue moves.
func dbsCompareTable(title string, cells []*Cell) metrics.Table {
	sums := Sums(cells)
	t := metrics.Compare(title, sums, dbsRows(sums))
	t.Rows = append(t.Rows, dbsMoveRows(cells)...)
	return t
}

// dbsOf returns the DBS adapter that ran c, or nil.
func dbsOf(c *Cell) *policy.DBS {
	d, _ := c.Policy.(*policy.DBS)
	return d
}

// dbsMoveRows are the queue-move rows of a table whose columns are cells:
// promotions / demotions, moves (queue_moves_count), moves that put a
// job back in the queue it had left within policy.DBSReversalWindow
// (queue_moves_reversed_count), and the median and largest number of
// moves per job. None if no column is DBS.
func dbsMoveRows(cells []*Cell) []metrics.Row {
	hasDBS := false
	for _, c := range cells {
		hasDBS = hasDBS || dbsOf(c) != nil
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
	for _, c := range cells {
		d := dbsOf(c)
		if d == nil {
			for r := range rows {
				rows[r].Cells = append(rows[r].Cells, "-")
				rows[r].Values = append(rows[r].Values, metrics.Number{})
			}
			continue
		}
		st := d.Stats()
		per := st.MovesPerJob()
		all := make([]int, len(c.Run.Jobs)-len(per), len(c.Run.Jobs))
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

// dbsPaperTable sets one paper experiment's FIFO (and FIFO given DBS's
// reduce rule), EDF and DBS cells beside the paper's figures, with the
// least mean response any order reaches and the completion orders.
func dbsPaperTable(w dbsWorld, cells *Cells) metrics.Table {
	fc, ac := cells.Get(w.setup.Name, "fifo"), cells.Get(w.setup.Name, "fifo-after-maps")
	ec, sc := cells.Get(w.setup.Name, "edf"), cells.Get(w.setup.Name, "DBS")
	f, a, e, s := &fc.Sum, &ac.Sum, &ec.Sum, &sc.Sum
	paper := func(col, fig string) float64 { return mustPaper(w.exp, col, fig, "").Value }
	pfResp, pfCost := paper("fifo", "mean response"), paper("fifo", "mean cost")
	pdResp, pdCost := paper("DBS", "mean response"), paper("DBS", "mean cost")
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	sec := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "s" }
	t := metrics.Table{
		Title:   "paper 003 " + w.exp + ": paper vs ours (5 workers × (2 map + 2 reduce), reduce slow-start 0.05)",
		Columns: []string{"FIFO paper", "FIFO ours", "FIFO, reduces after maps", "DBS paper", "DBS ours", "EDF ours"},
	}
	row := func(n string, cells ...string) { t.Rows = append(t.Rows, metrics.Row{Name: n, Cells: cells}) }
	resp := func(x *metrics.Summary) string { return sec(x.Response.Mean.Seconds()) }
	row("mean response", sec(pfResp), resp(f), resp(a), sec(pdResp), resp(s), resp(e))
	for _, b := range []*Bound{&SubmittedTogetherBound, &TwoSideBySideBound} {
		if v, ok := b.Of(&w.setup); ok {
			row("mean response: "+b.Name, "", "", "", "", sec(v), "")
		}
	}
	row("mean cost", num(pfCost), num(f.MeanCost.V), num(a.MeanCost.V), num(pdCost), num(s.MeanCost.V), num(e.MeanCost.V))
	row("DBS − FIFO response", "", "", "", sec(pdResp-pfResp), sec(s.Response.Mean.Seconds()-f.Response.Mean.Seconds()), "")
	row("DBS − FIFO cost", "", "", "", num(pdCost-pfCost), num(s.MeanCost.V-f.MeanCost.V), "")
	row("φ success (paper 003)", "", f.PhiSuccess.String(), a.PhiSuccess.String(), "", s.PhiSuccess.String(), e.PhiSuccess.String())
	for _, phi := range []float64{0, 0.5, 1} {
		find := func(x *metrics.Summary) string {
			for _, ps := range x.Phi {
				if ps.Phi == phi {
					return ps.Success.String()
				}
			}
			return metrics.NA
		}
		row(fmt.Sprintf("φ=%g success", phi), "", find(f), find(a), "", find(s), find(e))
	}
	for _, j := range w.setup.Workload.Jobs {
		cells := []string{"", "", "", "", "", ""}
		for i, c := range []*Cell{fc, ac, sc, ec} {
			for _, rec := range c.Run.Jobs {
				if rec.ID == j.ID && rec.Outcome == sim.Completed {
					cells[[]int{1, 2, 4, 5}[i]] = fmt.Sprintf("%.0fs · %.2f", (rec.Finish - rec.Submit).Seconds(), rec.Cost)
				}
			}
		}
		row(fmt.Sprintf("%s (φ %g) response · cost", j.ID, j.Phi), cells...)
	}
	row("completion order", "", completionOrder(fc), completionOrder(ac), w.order, completionOrder(sc), completionOrder(ec))
	for _, r := range dbsMoveRows([]*Cell{sc}) {
		r.Name = "DBS " + r.Name
		r.Cells = []string{"", "", "", "", r.Cells[0], ""}
		r.Values = []metrics.Number{{}, {}, {}, {}, r.Values[0], {}}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// completionOrder lists c's completed jobs by completion, earliest first
// (ties by ID).
func completionOrder(c *Cell) string {
	var done []sim.JobRecord
	for _, rec := range c.Run.Jobs {
		if rec.Outcome == sim.Completed {
			done = append(done, rec)
		}
	}
	slices.SortFunc(done, func(a, b sim.JobRecord) int {
		if a.Finish != b.Finish {
			return cmp.Compare(a.Finish, b.Finish)
		}
		return strings.Compare(a.ID, b.ID)
	})
	ids := make([]string, len(done))
	for i, rec := range done {
		ids[i] = rec.ID
	}
	return strings.Join(ids, ", ")
}

// dbsAblationTable is DBS, without each part of the paper's algorithm,
// with each option and without each rule of ours (rows), on every
// workload (columns): φ success · mean response · mean cost · moves.
func dbsAblationTable(worlds []dbsWorld, cells *Cells) metrics.Table {
	abl := metrics.Table{Title: fmt.Sprintf("ablation: DBS without each of its parts, its options and without each rule of ours, φ success · mean response · mean cost · moves (reversed within %v)", policy.DBSReversalWindow)}
	for _, w := range worlds {
		abl.Columns = append(abl.Columns, w.row)
	}
	for _, v := range dbsVariants {
		r := metrics.Row{Name: v.header}
		for _, w := range worlds {
			c := cells.Get(w.setup.Name, v.column().Name)
			s := &c.Sum
			moves := "-"
			if d := dbsOf(c); d != nil {
				st := d.Stats()
				moves = fmt.Sprintf("%d↑ %d↓ (%d)", st.Promotions, st.Demotions, st.Reversed(policy.DBSReversalWindow))
			}
			r.Cells = append(r.Cells, fmt.Sprintf("%.3f · %s · %.2f · %s", s.PhiSuccess.Value().V, s.Response.MeanSpan(), s.MeanCost.V, moves))
		}
		abl.Rows = append(abl.Rows, r)
	}
	return abl
}
