package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
)

// Default size thresholds of CompletionBySize.
const (
	// DefaultSmallTaskWork: a task whose isolated work is at most 30 s is
	// small (a short map over one 64–128 MB split; paper 004 does not
	// state its cut, only that small tasks are short).
	DefaultSmallTaskWork = 30 * time.Second
	// DefaultSmallJobTasks: a job of at most 10 tasks is small (the first
	// three bins of the Facebook job-size mix of Zaharia et al.,
	// EuroSys 2010, table 3: 1, 2 and 10 maps).
	DefaultSmallJobTasks = 10
)

// SizeCompletion is mean completion time split by size: paper 004's
// figs. 12 and 15 (small, large and all tasks), and the same for jobs.
type SizeCompletion struct {
	// TaskWork and JobTasks are the thresholds: a task is small if its
	// sim.TaskRecord.Work ≤ TaskWork, a job if its sim.JobRecord.Tasks ≤ JobTasks.
	TaskWork time.Duration
	JobTasks int
	// Task completion time is End − Start of a succeeded attempt (the
	// attempts that ended otherwise are not completions).
	SmallTasks, LargeTasks, AllTasks Dist
	// Job completion time is Finish − Submit of a completed job.
	SmallJobs, LargeJobs, AllJobs Dist
}

// CompletionBySize splits run's task and job completion times by size
// (thresholds ≤ 0 mean the defaults). Tasks come from sim.Run.Tasks: a run
// recorded without task records has no task figures.
func CompletionBySize(run sim.Run, taskWork time.Duration, jobTasks int) SizeCompletion {
	if taskWork <= 0 {
		taskWork = DefaultSmallTaskWork
	}
	if jobTasks <= 0 {
		jobTasks = DefaultSmallJobTasks
	}
	var small, large, all []time.Duration
	for i := range run.Tasks {
		r := &run.Tasks[i]
		if r.Outcome != sim.TaskSucceeded || r.End < r.Start {
			continue
		}
		d := r.End - r.Start
		all = append(all, d)
		if r.Work <= taskWork {
			small = append(small, d)
		} else {
			large = append(large, d)
		}
	}
	c := SizeCompletion{TaskWork: taskWork, JobTasks: jobTasks}
	c.SmallTasks, c.LargeTasks, c.AllTasks = NewDist(small), NewDist(large), NewDist(all)
	small, large, all = small[:0], large[:0], all[:0]
	for i := range run.Jobs {
		j := &run.Jobs[i]
		if j.Outcome != sim.Completed || j.Finish < j.Submit {
			continue
		}
		d := j.Finish - j.Submit
		all = append(all, d)
		if j.Tasks <= jobTasks {
			small = append(small, d)
		} else {
			large = append(large, d)
		}
	}
	c.SmallJobs, c.LargeJobs, c.AllJobs = NewDist(small), NewDist(large), NewDist(all)
	return c
}

// SizeTable lays out size splits side by side: one column per name (a
// policy), rows of mean completion time with their counts ("18.4s
// (2584)"); the rows' Values are the means in seconds.
func SizeTable(title string, names []string, cs []SizeCompletion) Table {
	t := Table{Title: title, Columns: names}
	row := func(name string, f func(*SizeCompletion) Dist) {
		r := Row{Name: name, Cells: make([]string, len(cs)), Unit: UnitSeconds, Values: make([]Number, len(cs))}
		for i := range cs {
			d := f(&cs[i])
			r.Cells[i] = d.MeanSpan().String() + " (" + strconv.Itoa(d.N) + ")"
			r.Values[i] = Number{V: d.Mean.Seconds(), Valid: d.N > 0}
		}
		t.Rows = append(t.Rows, r)
	}
	row("small tasks mean", func(c *SizeCompletion) Dist { return c.SmallTasks })
	row("large tasks mean", func(c *SizeCompletion) Dist { return c.LargeTasks })
	row("all tasks mean", func(c *SizeCompletion) Dist { return c.AllTasks })
	row("small jobs mean", func(c *SizeCompletion) Dist { return c.SmallJobs })
	row("large jobs mean", func(c *SizeCompletion) Dist { return c.LargeJobs })
	row("all jobs mean", func(c *SizeCompletion) Dist { return c.AllJobs })
	if len(cs) > 0 {
		t.Notes = append(t.Notes, "small task: isolated work ≤ "+seconds(cs[0].TaskWork)+
			"; small job: ≤ "+strconv.Itoa(cs[0].JobTasks)+" tasks; mean (count)")
	}
	return t
}

// Held is what each job class (workflow) held over a run, window by
// window: paper 000's fig. 2 as numbers.
type Held struct {
	// Classes are the job classes that ran a task, in name order.
	Classes []string
	// Step is the window width: window i is [i·Step, (i+1)·Step).
	Step time.Duration
	// Amount[i][c] is the mean over window i of what class c's attempts
	// held (Start ≤ t < End): the sum of their mean allocation of the
	// kinds asked for, or their number if none was (in a slot space, where
	// each task holds one slot, the slots held).
	Amount [][]float64
}

// HeldSeries computes Held for run with windows of width step covering
// 0 to run.End (one window starting at every multiple of step up to
// End). It needs task records (sim.Config.RecordTasks); kinds are
// indices in run.Kinds (out of range ones add nothing); step ≤ 0 gives
// no windows.
func HeldSeries(run sim.Run, step time.Duration, kinds []int) Held {
	h := Held{Step: step}
	if step <= 0 || run.End < 0 {
		return h
	}
	class := make(map[string]string, len(run.Jobs))
	for i := range run.Jobs {
		class[run.Jobs[i].ID] = run.Jobs[i].Class
	}
	seen := map[string]bool{}
	for i := range run.Tasks {
		if r := &run.Tasks[i]; r.End > r.Start {
			if c := class[r.Job]; !seen[c] {
				seen[c] = true
				h.Classes = append(h.Classes, c)
			}
		}
	}
	slices.Sort(h.Classes)
	col := make(map[string]int, len(h.Classes))
	for i, c := range h.Classes {
		col[c] = i
	}
	n := int(run.End/step) + 1
	h.Amount = make([][]float64, n)
	for i := range h.Amount {
		h.Amount[i] = make([]float64, len(h.Classes))
	}
	w := float64(step)
	for i := range run.Tasks {
		r := &run.Tasks[i]
		if r.End <= r.Start {
			continue
		}
		amount := 1.0
		if len(kinds) > 0 {
			amount = 0
			for _, k := range kinds {
				if k >= 0 && k < len(r.Alloc) {
					amount += r.Alloc[k]
				}
			}
		}
		c := col[class[r.Job]]
		for k := max(0, int(r.Start/step)); k < n && time.Duration(k)*step < r.End; k++ {
			lo, hi := max(r.Start, time.Duration(k)*step), min(r.End, time.Duration(k+1)*step)
			if hi > lo {
				h.Amount[k][c] += amount * float64(hi-lo) / w
			}
		}
	}
	return h
}

// HeldOverTime is paper 000's fig. 2 as a table (HeldSeries laid out):
// columns are the classes in name order; row i, named by its start
// i·step, holds each class's mean amount held over [i·step, (i+1)·step).
// It needs task records (sim.Config.RecordTasks); step ≤ 0 gives an
// empty table.
func HeldOverTime(title string, run sim.Run, step time.Duration, kinds []int) Table {
	h := HeldSeries(run, step, kinds)
	t := Table{Title: title, Columns: h.Classes}
	for i, a := range h.Amount {
		r := Row{Name: seconds(time.Duration(i) * step), Cells: make([]string, len(a))}
		for c, v := range a {
			r.Cells[c] = heldCell(v)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// HeldTable compares what each class held over time across runs (one
// column per run, named by names): row i is window [i·step, (i+1)·step)
// up to the longest run's end, a cell lists the classes' mean amounts in
// the order of classes, joined by "/" ("2/5/3"). Classes a run did not
// run hold 0 there. The cells are composite, so machine-readable output
// carries them as display text only (no Values); HeldOverTime and
// HeldSeries give one number per class.
func HeldTable(title string, names []string, runs []sim.Run, classes []string, step time.Duration, kinds []int) Table {
	t := Table{Title: title, Columns: names}
	if step <= 0 {
		return t
	}
	hs := make([]Held, len(runs))
	n := 0
	for i := range runs {
		hs[i] = HeldSeries(runs[i], step, kinds)
		n = max(n, len(hs[i].Amount))
	}
	for w := 0; w < n; w++ {
		r := Row{Name: seconds(time.Duration(w) * step), Cells: make([]string, len(runs))}
		for i := range hs {
			parts := make([]string, len(classes))
			for c, name := range classes {
				v := 0.0
				if k := slices.Index(hs[i].Classes, name); k >= 0 && w < len(hs[i].Amount) {
					v = hs[i].Amount[w][k]
				}
				parts[c] = heldCell(v)
			}
			r.Cells[i] = strings.Join(parts, "/")
		}
		t.Rows = append(t.Rows, r)
	}
	t.Notes = append(t.Notes, "mean held over each "+seconds(step)+" window from the row's time, per class: "+strings.Join(classes, "/"))
	return t
}

// heldCell prints an amount held to two decimals at most ("2", "1.25").
func heldCell(v float64) string {
	if v < 1e-9 && v > -1e-9 {
		v = 0
	}
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
