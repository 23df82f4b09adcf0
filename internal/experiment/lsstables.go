package experiment

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

// The lss experiment's tables: rows built from the cells of its runs.

// dropped reports whether c is a drop-at-deadline baseline.
func (c *lssCell) dropped() bool { return c.stats == nil && strings.HasSuffix(c.sum.Policy, "-drop") }

// lssColumns returns the policies' names as the simulator recorded them.
func lssColumns(cells []lssCell) []string {
	out := make([]string, len(cells))
	for i := range cells {
		out[i] = cells[i].sum.Policy
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
	for i := range c.sum.Classes {
		if c.sum.Classes[i].Class == class {
			return c.sum.Classes[i].Response.MeanSpan().String()
		}
	}
	return metrics.NA
}

func classSuccess(c *lssCell, class string) string {
	for i := range c.sum.Classes {
		if c.sum.Classes[i].Class == class {
			return c.sum.Classes[i].DeadlineSuccess.String()
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
		if j := &c.run.Jobs[i]; j.CheckedKill && j.CouldHaveMade {
			n++
		}
	}
	return n
}

// refusedCouldHaveMade counts refused jobs the simulator judged could
// have made it.
func refusedCouldHaveMade(c *lssCell) int {
	n := 0
	for i := range c.run.Jobs {
		j := &c.run.Jobs[i]
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
		j := &c.run.Jobs[i]
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
	t.Rows = append(t.Rows, lssRow("deadline success", cells, func(c *lssCell) string { return c.sum.DeadlineSuccess.String() }))
	for _, cl := range classes {
		t.Rows = append(t.Rows, lssRow(cl+" success", cells, func(c *lssCell) string { return classSuccess(c, cl) }))
	}
	t.Rows = append(t.Rows, lssRow("response mean", cells, func(c *lssCell) string { return c.sum.Response.MeanSpan().String() }))
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
				return fmt.Sprint(c.sum.Killed)
			case c.stats == nil:
				return metrics.NA
			}
			return fmt.Sprint(c.stats.DeadlinePassed)
		}),
		lssRow("refused at submit (could have)", cells, func(c *lssCell) string {
			if c.stats == nil {
				return metrics.NA
			}
			return fmt.Sprintf("%d (%d)", c.sum.Rejected, refusedCouldHaveMade(c))
		}),
		lssRow("infeasible reports (met anyway)", cells, infeasibleCell),
	}
}

// lssPair is a compact table of one variant at light and heavy load.
func lssPair(title string, light, heavy []lssCell) metrics.Table {
	t := metrics.Table{Title: title, Columns: lssColumns(light)}
	t.Rows = append(t.Rows,
		lssRow("light success", light, func(c *lssCell) string { return c.sum.DeadlineSuccess.String() }),
		lssRow("light W1 response", light, func(c *lssCell) string { return classResponse(c, "W1") }),
		lssRow("heavy success", heavy, func(c *lssCell) string { return c.sum.DeadlineSuccess.String() }),
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
			t.Columns = append(t.Columns, rows[0].cells[i].sum.Policy)
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
				if v := c.sum.DeadlineSuccess.Value(); v.Valid && v.V > best {
					best, bestName = v.V, c.sum.Policy
				}
				continue
			}
			for k, name := range t.Columns {
				if name == c.sum.Policy {
					row.Cells[k] = fmt.Sprintf("%s · %d (%d) / %d", ratio3(c.sum.DeadlineSuccess),
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
