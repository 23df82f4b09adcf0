package experiment

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/lss"
)

// The lss experiment's wrong-kill analysis: every early kill (lss's
// SpareExhausted) of an LSS column, with lss's figures and the job's
// counters at the kill (policy.LSSKill), judged two ways — the
// simulator's optimistic check at the kill (sim.JobRecord
// CouldHaveMade), and the replay of the same job under LSS soft, which
// kills nothing — and set beside the job's true task times (its spec).

// lssKillView is one LSS column's early kills on one workload, with what
// is needed to judge them.
type lssKillView struct {
	cell     *lssCell
	soft     *lssCell // LSS soft on the same workload, nil if absent
	w        *workload.Workload
	mapSlots int // the cluster's map slots (formula (3)'s S_map)
}

// early returns the column's early kills.
func (v lssKillView) early() []policy.LSSKill {
	var out []policy.LSSKill
	if v.cell.stats == nil {
		return nil
	}
	for _, k := range v.cell.stats.KillRecords {
		if k.Reason == lss.SpareExhausted {
			out = append(out, k)
		}
	}
	return out
}

// could reports whether the simulator judged the killed job could have
// made its deadline.
func (v lssKillView) could(k policy.LSSKill) bool {
	j := &v.cell.Run.Jobs[k.Job]
	return j.CheckedKill && j.CouldHaveMade
}

// softMet reports whether the job met its deadline under LSS soft.
func (v lssKillView) softMet(k policy.LSSKill) (met, ok bool) {
	if v.soft == nil {
		return false, false
	}
	j := &v.soft.Run.Jobs[k.Job]
	return j.Outcome == sim.Completed && j.Deadline > 0 && j.Finish-j.Submit <= j.Deadline, true
}

// phaseMean returns the mean isolated task time of phase p of job i in
// the workload, and its task count.
func (v lssKillView) phaseMean(i, p int) (time.Duration, int) {
	ph := &v.w.Jobs[i].Phases[p]
	n := ph.Len()
	if n == 0 {
		return 0, 0
	}
	var sum time.Duration
	for t := range n {
		sum += ph.Duration(t)
	}
	return sum / time.Duration(n), n
}

// killPattern classifies a kill by the job's state at it: where formula
// (3) went wrong for it.
type killPattern struct {
	lastWave    bool // maps unfinished, all of them fit in one wave on the map slots
	mapsDone    bool // every map finished
	reduceBlind bool // a later phase has unfinished tasks and none finished: priced at the pooled Tavg
}

func (v lssKillView) pattern(k policy.LSSKill) killPattern {
	var pt killPattern
	if len(k.Progress) == 0 {
		return pt
	}
	m := k.Progress[0]
	um := m.Total - m.Finished
	pt.mapsDone = um == 0
	pt.lastWave = um > 0 && um <= v.mapSlots
	for _, pr := range k.Progress[1:] {
		if pr.Total > pr.Finished && pr.Finished == 0 {
			pt.reduceBlind = true
		}
	}
	return pt
}

// lssKillTable is the wrong-kill analysis of one workload: per LSS
// column, its early kills, how many of them were wrong by either
// judge, where the wrong ones stood, and the figures behind them.
func lssKillTable(title string, views []lssKillView) metrics.Table {
	t := metrics.Table{Title: title}
	for _, v := range views {
		t.Columns = append(t.Columns, v.cell.Sum.Policy)
	}
	row := func(name string, f func(v lssKillView) string) {
		r := metrics.Row{Name: name, Cells: make([]string, len(views))}
		for i, v := range views {
			r.Cells[i] = f(v)
		}
		t.Rows = append(t.Rows, r)
	}
	wrong := func(v lssKillView) []policy.LSSKill {
		var out []policy.LSSKill
		for _, k := range v.early() {
			if v.could(k) {
				out = append(out, k)
			}
		}
		return out
	}
	row("killed early", func(v lssKillView) string { return fmt.Sprint(len(v.early())) })
	row("… could have made it (simulator's check)", func(v lssKillView) string { return fmt.Sprint(len(wrong(v))) })
	row("… met the deadline under LSS soft (replay)", func(v lssKillView) string {
		n, ok := 0, false
		for _, k := range v.early() {
			met, has := v.softMet(k)
			ok = ok || has
			if met {
				n++
			}
		}
		if !ok && len(v.early()) > 0 {
			return metrics.NA
		}
		return fmt.Sprint(n)
	})
	row("killed at deadline", func(v lssKillView) string { return fmt.Sprint(v.cell.stats.DeadlinePassed) })
	row("kills that could have made it (of all kills)", func(v lssKillView) string {
		return metrics.Ratio{Hit: len(wrong(v)), Total: v.cell.stats.Kills}.String()
	})
	count := func(f func(killPattern) bool) func(v lssKillView) string {
		return func(v lssKillView) string {
			n := 0
			for _, k := range wrong(v) {
				if f(v.pattern(k)) {
					n++
				}
			}
			return fmt.Sprint(n)
		}
	}
	row("wrong kills: maps in their last wave", count(func(p killPattern) bool { return p.lastWave }))
	row("wrong kills: every map finished", count(func(p killPattern) bool { return p.mapsDone }))
	row("wrong kills: reduce with no finished task (priced at Tavg)", count(func(p killPattern) bool { return p.reduceBlind }))
	mean := func(f func(v lssKillView, k policy.LSSKill) time.Duration) func(v lssKillView) string {
		return func(v lssKillView) string {
			ks := wrong(v)
			if len(ks) == 0 {
				return metrics.NA
			}
			var sum time.Duration
			for _, k := range ks {
				sum += f(v, k)
			}
			return (sum / time.Duration(len(ks))).Round(100 * time.Millisecond).String()
		}
	}
	row("wrong kills, mean: deadline left", mean(func(_ lssKillView, k policy.LSSKill) time.Duration {
		return k.Figures.Deadline.Sub(k.Figures.Now)
	}))
	row("… remaining time lss estimated", mean(func(_ lssKillView, k policy.LSSKill) time.Duration { return k.Figures.Remaining.Time }))
	row("… Tavg (pooled, = a map's)", mean(func(_ lssKillView, k policy.LSSKill) time.Duration { return k.Figures.TaskTime.Avg }))
	row("… the job's true map time", mean(func(v lssKillView, k policy.LSSKill) time.Duration { d, _ := v.phaseMean(k.Job, 0); return d }))
	row("… the job's true reduce time", mean(func(v lssKillView, k policy.LSSKill) time.Duration {
		if len(v.w.Jobs[k.Job].Phases) < 2 {
			return 0
		}
		d, _ := v.phaseMean(k.Job, 1)
		return d
	}))
	return t
}

// lssKillRecords lists one column's early kills, one row each: the
// per-kill records behind lssKillTable.
func lssKillRecords(title string, v lssKillView, limit int) metrics.Table {
	t := metrics.Table{Title: title, Columns: []string{"class", "maps left/running/total", "reduces left/running",
		"Tavg", "deadline left", "remaining (lss)", "spare+Tavg", "true map / reduce", "could (sim)", "met (soft)"}}
	ks := v.early()
	for i, k := range ks {
		if i == limit {
			t.Notes = append(t.Notes, fmt.Sprintf("%d more not shown", len(ks)-limit))
			break
		}
		f := k.Figures
		m := schedkit.PhaseProgress{}
		if len(k.Progress) > 0 {
			m = k.Progress[0]
		}
		red := metrics.NA
		trueRed := metrics.NA
		if len(k.Progress) > 1 {
			r := k.Progress[1]
			red = fmt.Sprintf("%d/%d", r.Total-r.Finished, r.Running)
			d, _ := v.phaseMean(k.Job, 1)
			trueRed = d.Round(100 * time.Millisecond).String()
		}
		dm, _ := v.phaseMean(k.Job, 0)
		softCell := metrics.NA
		if met, ok := v.softMet(k); ok {
			softCell = fmt.Sprint(met)
		}
		spareTavg := metrics.NA
		if !f.Spare.CannotFinish {
			spareTavg = (f.Spare.Time + f.TaskTime.Avg).Round(time.Millisecond).String()
		}
		t.Rows = append(t.Rows, metrics.Row{
			Name: v.w.Jobs[k.Job].ID,
			Cells: []string{
				v.w.Jobs[k.Job].Class,
				fmt.Sprintf("%d/%d/%d", m.Total-m.Finished, m.Running, m.Total),
				red,
				f.TaskTime.Avg.Round(100 * time.Millisecond).String(),
				f.Deadline.Sub(f.Now).Round(100 * time.Millisecond).String(),
				f.Remaining.Time.Round(100 * time.Millisecond).String(),
				spareTavg,
				dm.Round(100*time.Millisecond).String() + " / " + trueRed,
				fmt.Sprint(v.could(k)),
				softCell,
			},
		})
	}
	if len(ks) == 0 {
		row := metrics.Row{Name: "no early kill", Cells: make([]string, len(t.Columns))}
		for i := range row.Cells {
			row.Cells[i] = metrics.NA
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
