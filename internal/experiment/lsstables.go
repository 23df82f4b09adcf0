package experiment

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// The lss experiment's tables: rows built from the cells of its runs.

// dropped reports whether c is a drop-at-deadline baseline.
func (c *lssCell) dropped() bool { return c.stats == nil && strings.HasSuffix(c.Sum.Policy, "-drop") }

// lssColumns returns the policies' names as the simulator recorded them.
func lssColumns(cells []lssCell) []string {
	out := make([]string, len(cells))
	for i := range cells {
		out[i] = cells[i].Sum.Policy
	}
	return out
}

// lssRow builds one row; a nil cell function leaves the cells empty.
func lssRow(name string, cells []lssCell, f func(*lssCell) string) metrics.Row {
	r := metrics.Row{Name: name, Cells: make([]string, len(cells))}
	if f != nil {
		for i := range cells {
			r.Cells[i] = f(&cells[i])
		}
	}
	return r
}

func ratio3(r metrics.Ratio) string {
	v := r.Value()
	if !v.Valid {
		return metrics.NA
	}
	return fmt.Sprintf("%.3f", v.V)
}

func classResponse(c *lssCell, class string) string {
	for i := range c.Sum.Classes {
		if c.Sum.Classes[i].Class == class {
			return c.Sum.Classes[i].Response.MeanSpan().String()
		}
	}
	return metrics.NA
}

func classSuccess(c *lssCell, class string) string {
	for i := range c.Sum.Classes {
		if c.Sum.Classes[i].Class == class {
			return c.Sum.Classes[i].DeadlineSuccess.String()
		}
	}
	return metrics.NA
}

// earlyKillCell is "early kills (of those could have made it)" for an
// LSS column, n/a otherwise.
func earlyKillCell(c *lssCell) string {
	if c.stats == nil {
		return metrics.NA
	}
	return fmt.Sprintf("%d (%d)", c.stats.SpareExhausted, couldHaveMade(c))
}

// couldHaveMade counts an LSS column's early-killed jobs the simulator
// judged could have made their deadline.
func couldHaveMade(c *lssCell) int {
	n := 0
	for _, i := range c.stats.EarlyKilledJobs {
		if j := &c.Run.Jobs[i]; j.CheckedKill && j.CouldHaveMade {
			n++
		}
	}
	return n
}

// refusedCouldHaveMade counts refused jobs the simulator judged could
// have made it.
func refusedCouldHaveMade(c *lssCell) int {
	n := 0
	for i := range c.Run.Jobs {
		j := &c.Run.Jobs[i]
		if j.Outcome == sim.Rejected && j.CheckedKill && j.CouldHaveMade {
			n++
		}
	}
	return n
}

// infeasibleCell is "reports (of those met their deadline)" for a soft
// LSS column, n/a otherwise.
func infeasibleCell(c *lssCell) string {
	if c.stats == nil {
		return metrics.NA
	}
	met := 0
	for _, i := range c.stats.InfeasibleJobs {
		j := &c.Run.Jobs[i]
		if j.Outcome == sim.Completed && j.Deadline > 0 && j.Finish-j.Submit <= j.Deadline {
			met++
		}
	}
	return fmt.Sprintf("%d (%d)", c.stats.Infeasible, met)
}

// lssDetail is a per-workflow table: success and mean response per
// class, kills and what became of them.
func lssDetail(title string, cells []lssCell, classes []string) metrics.Table {
	t := metrics.Table{Title: title, Columns: lssColumns(cells)}
	t.Rows = append(t.Rows, lssRow("deadline success", cells, func(c *lssCell) string { return c.Sum.DeadlineSuccess.String() }))
	for _, cl := range classes {
		t.Rows = append(t.Rows, lssRow(cl+" success", cells, func(c *lssCell) string { return classSuccess(c, cl) }))
	}
	t.Rows = append(t.Rows, lssRow("response mean", cells, func(c *lssCell) string { return c.Sum.Response.MeanSpan().String() }))
	for _, cl := range classes {
		t.Rows = append(t.Rows, lssRow(cl+" response mean", cells, func(c *lssCell) string { return classResponse(c, cl) }))
	}
	t.Rows = append(t.Rows, lssTail(cells)...)
	return t
}

// lssTail are the kill rows every lss table ends with.
func lssTail(cells []lssCell) []metrics.Row {
	return []metrics.Row{
		lssRow("killed early (could have made it)", cells, earlyKillCell),
		lssRow("killed at deadline", cells, func(c *lssCell) string {
			switch {
			case c.dropped():
				return fmt.Sprint(c.Sum.Killed)
			case c.stats == nil:
				return metrics.NA
			}
			return fmt.Sprint(c.stats.DeadlinePassed)
		}),
		lssRow("refused at submit (could have)", cells, func(c *lssCell) string {
			if c.stats == nil {
				return metrics.NA
			}
			return fmt.Sprintf("%d (%d)", c.Sum.Rejected, refusedCouldHaveMade(c))
		}),
		lssRow("infeasible reports (met anyway)", cells, infeasibleCell),
	}
}

// lssPair is a compact table of one variant at light and heavy load.
func lssPair(title string, light, heavy []lssCell) metrics.Table {
	t := metrics.Table{Title: title, Columns: lssColumns(light)}
	t.Rows = append(t.Rows,
		lssRow("light success", light, func(c *lssCell) string { return c.Sum.DeadlineSuccess.String() }),
		lssRow("light W1 response", light, func(c *lssCell) string { return classResponse(c, "W1") }),
		lssRow("heavy success", heavy, func(c *lssCell) string { return c.Sum.DeadlineSuccess.String() }),
		lssRow("heavy W4 response", heavy, func(c *lssCell) string { return classResponse(c, "W4") }),
	)
	for _, r := range lssTail(heavy) {
		r.Name = "heavy " + r.Name
		t.Rows = append(t.Rows, r)
	}
	return t
}

// lssOptionsRow is one workload of the options table.
type lssOptionsRow struct {
	name  string
	cells []lssCell
}

// lssOptionsTable sets the LSS columns side by side, one row per
// workload: "success · early (could have made it) / at deadline", and
// the best baseline's success.
func lssOptionsTable(title string, rows []lssOptionsRow) metrics.Table {
	t := metrics.Table{Title: title}
	if len(rows) == 0 {
		return t
	}
	for i := range rows[0].cells {
		if rows[0].cells[i].stats != nil {
			t.Columns = append(t.Columns, rows[0].cells[i].Sum.Policy)
		}
	}
	t.Columns = append(t.Columns, "best baseline")
	for _, r := range rows {
		row := metrics.Row{Name: r.name, Cells: make([]string, len(t.Columns))}
		best, bestName := -1.0, ""
		for i := range row.Cells {
			row.Cells[i] = metrics.NA
		}
		for i := range r.cells {
			c := &r.cells[i]
			if c.stats == nil {
				if v := c.Sum.DeadlineSuccess.Value(); v.Valid && v.V > best {
					best, bestName = v.V, c.Sum.Policy
				}
				continue
			}
			for k, name := range t.Columns {
				if name == c.Sum.Policy {
					row.Cells[k] = fmt.Sprintf("%s · %d (%d) / %d", ratio3(c.Sum.DeadlineSuccess),
						c.stats.SpareExhausted, couldHaveMade(c), c.stats.DeadlinePassed)
				}
			}
		}
		if bestName != "" {
			row.Cells[len(row.Cells)-1] = fmt.Sprintf("%.3f %s", best, bestName)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// result builds the lss experiment's tables from its cells.
func (pl *lssPlan) result(cells *Cells) Result {
	res := Result{Experiment: "lss", Title: "lss (paper 000): least spare time vs FIFO, EDF, Fair", Cells: cells}
	pct := func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }
	dp := pl.points[pl.paper]
	lightCells := lssCells(cells.Row(dp.light.Name, pl.main))
	heavyCells := lssCells(cells.Row(dp.heavy.Name, pl.main))
	res.Tables = append(res.Tables,
		lssDetail(fmt.Sprintf("paper 000 light load W1–W3 (D = 1/λ), 5 workers, offered map load %s (WordCount model as is)", pct(dp.load)),
			lightCells, []string{"W1", "W2", "W3"}),
		lssDetail(fmt.Sprintf("paper 000 heavy load W4–W6 (D < 1/λ), 5 workers, offered map load %s", pct(dp.load)),
			heavyCells, []string{"W4", "W5", "W6"}),
	)
	success, loose, optRows := pl.sweepTables(cells, lssColumns(lightCells))
	res.Tables = append(res.Tables, success, loose)
	var killTables []metrics.Table
	for k, fc := range pl.fbs {
		fcells := lssCells(cells.Row(fc.setup.Name, pl.fb))
		optRows = append(optRows, lssOptionsRow{fmt.Sprintf("FB-2009, %d workers", fc.nodes), fcells})
		var views []lssKillView
		for i := range fcells {
			if fcells[i].stats != nil && i != 1 { // LSS soft (1) kills nothing
				views = append(views, lssKillView{cell: &fcells[i], soft: &fcells[1], w: fc.setup.Workload, mapSlots: fc.nodes * fbMaps})
			}
		}
		killTables = append(killTables, lssKillTable(
			fmt.Sprintf("wrong kills on the FB-2009 day, %d workers: early kills judged by the simulator's check and by the replay under LSS soft, where the wrong ones stood", fc.nodes), views))
		if k == 0 {
			killTables = append(killTables, lssKillRecords(
				fmt.Sprintf("per-kill records: LSS's early kills on the FB-2009 day, %d workers (figures at the kill; true times from the job's spec)", fc.nodes), views[0], 20))
		}
	}
	res.Tables = append(res.Tables, lssPair(
		fmt.Sprintf("heterogeneous cluster (speeds %v), offered map load %s", lssSpeeds, pct(dp.load)),
		lssCells(cells.Row(pl.hetLight.Name, pl.hetero)), lssCells(cells.Row(pl.hetHeavy.Name, pl.hetero))))
	res.Tables = append(res.Tables, lssPair(
		fmt.Sprintf("three-phase jobs (maps → %d reduces → 1 merge), offered map load %s", lssStageReduces, pct(dp.load)),
		lssCells(cells.Row(pl.threeLight.Name, pl.three)), lssCells(cells.Row(pl.threeHeavy.Name, pl.three))))
	for _, fc := range pl.fbs {
		w := fc.setup.Workload
		res.Tables = append(res.Tables, lssDetail(
			fmt.Sprintf("FB-2009 day, %d jobs on %d workers × (2 map + 2 reduce), offered map-slot load %s, deadlines k × isolated time, k ~ U[%g, %g]",
				len(w.Jobs), fc.nodes, pct(mapSlotLoad(w, fc.nodes*fbMaps)), lssFBKMin, lssFBKMax),
			lssCells(cells.Row(fc.setup.Name, pl.fb)), []string{workload.ClassSmall, workload.ClassMedium, workload.ClassLarge}))
	}
	res.Tables = append(res.Tables, lssOptionsTable("LSS and its options by load: deadline success · early kills (could have made it) / kills at the deadline; best baseline beside", optRows))
	res.Tables = append(res.Tables, killTables...)
	lightRuns, heavyRuns := Runs(cells.Row(dp.light.Name, pl.main)), Runs(cells.Row(dp.heavy.Name, pl.main))
	res.Tables = append(res.Tables,
		heldTable("slots held per workflow over time (paper 000 fig. 2), light load W1–W3", lightRuns),
		heldTable("slots held per workflow over time (paper 000 fig. 2), heavy load W4–W6", heavyRuns))
	// Runs for plots: the paper-default load and the FB replays.
	res.Runs = append(append(res.Runs, lightRuns...), heavyRuns...)
	for _, fc := range pl.fbs {
		res.Runs = append(res.Runs, Runs(cells.Row(fc.setup.Name, pl.fb))...)
	}
	res.Assumptions = append(pl.lines, lssColumnLines...)
	return res
}

// sweepTables are the load sweep's tables (deadline success; the
// loosest workflow's response and the kills) and its rows of the
// options table.
func (pl *lssPlan) sweepTables(cells *Cells, columns []string) (success, loose metrics.Table, optRows []lssOptionsRow) {
	success = metrics.Table{Title: "deadline success by offered map-slot load (same jobs, light = W1–W3, heavy = W4–W6)", Columns: columns}
	loose = metrics.Table{Title: "loosest workflow's mean response (W1 light, W4 heavy) and kills by LSS and the -drop baselines (light + heavy), by load", Columns: columns}
	for _, pt := range pl.points {
		lc := lssCells(cells.Row(pt.light.Name, pl.main))
		hc := lssCells(cells.Row(pt.heavy.Name, pl.main))
		tag := pt.tag()
		optRows = append(optRows, lssOptionsRow{tag + " light", lc}, lssOptionsRow{tag + " heavy", hc})
		success.Rows = append(success.Rows,
			lssRow(tag+" light", lc, func(c *lssCell) string { return ratio3(c.Sum.DeadlineSuccess) }),
			lssRow(tag+" heavy", hc, func(c *lssCell) string { return ratio3(c.Sum.DeadlineSuccess) }),
		)
		loose.Rows = append(loose.Rows,
			lssRow(tag+" W1 response", lc, func(c *lssCell) string { return classResponse(c, "W1") }),
			lssRow(tag+" W4 response", hc, func(c *lssCell) string { return classResponse(c, "W4") }),
		)
		kills := metrics.Row{Name: tag + " kills (LSS, -drop): early (could) / at deadline", Cells: make([]string, len(lc))}
		for i := range kills.Cells {
			kills.Cells[i] = metrics.NA
			if l, h := lc[i].stats, hc[i].stats; l != nil {
				kills.Cells[i] = fmt.Sprintf("%d (%d) / %d", l.SpareExhausted+h.SpareExhausted,
					couldHaveMade(&lc[i])+couldHaveMade(&hc[i]), l.DeadlinePassed+h.DeadlinePassed)
			} else if lc[i].dropped() {
				kills.Cells[i] = fmt.Sprintf("0 (0) / %d", lc[i].Sum.Killed+hc[i].Sum.Killed)
			}
		}
		loose.Rows = append(loose.Rows, kills)
	}
	return success, loose, optRows
}

// lssColumnLines state what the lss experiment's columns are.
var lssColumnLines = []string{
	"LSS columns: lss.Scheduler through the simulator adapter (policy.LSS); soft = SoftDeadlines, per-phase = PerPhaseTaskTime, " +
		"admission = Admission with each job's task time hinted by the mean finished task time of earlier jobs of its workflow, " +
		"priors = PhaseTaskTimeHints with each phase's task time hinted by the mean finished task time of that phase in earlier jobs of its workflow, " +
		"a task of a later phase timed from the later of its start and the end of the previous phase (so an early reduce's shuffle wait is not counted)",
	"-drop columns: the baseline wrapped in policy.DropAtDeadline, which ends a job at the first heartbeat past its deadline (freeing its slots) but never earlier; " +
		"LSS soft never ends a job: together they split LSS's lead into what its order gains (LSS soft vs FIFO, EDF) and what ending hopeless jobs gains (FIFO-drop, EDF-drop vs FIFO, EDF)",
	"waves = WaveRemaining, optimistic = OptimisticKill, no-first-pass = NoFirstMapPass, " + lssRecommendedName + " = lss.Recommended(): OptimisticKill and NoFirstMapPass (schedsim -policies " + lssRecommendedName + ")",
	"kills that could have made it: the simulator's optimistic check at the kill (running tasks finish uncontended, pending ones run in waves on every slot); " +
		"met under LSS soft: the killed job met its deadline in the LSS soft run of the same workload (same order, nothing killed)",
}
