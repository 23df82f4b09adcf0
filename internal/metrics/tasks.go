package metrics

import (
	"cmp"
	"slices"
	"strconv"
	"time"
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
	// TaskRecord.Work ≤ TaskWork, a job if its JobRecord.Tasks ≤ JobTasks.
	TaskWork time.Duration
	JobTasks int
	// Task completion time is End − Start of a succeeded attempt (the
	// attempts that ended otherwise are not completions).
	SmallTasks, LargeTasks, AllTasks Dist
	// Job completion time is Finish − Submit of a completed job.
	SmallJobs, LargeJobs, AllJobs Dist
}

// CompletionBySize splits run's task and job completion times by size
// (thresholds ≤ 0 mean the defaults). Tasks come from Run.Tasks: a run
// recorded without task records has no task figures.
func CompletionBySize(run Run, taskWork time.Duration, jobTasks int) SizeCompletion {
	if taskWork <= 0 {
		taskWork = DefaultSmallTaskWork
	}
	if jobTasks <= 0 {
		jobTasks = DefaultSmallJobTasks
	}
	var small, large, all []time.Duration
	for i := range run.Tasks {
		r := &run.Tasks[i]
		if r.Outcome != TaskSucceeded || r.End < r.Start {
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
		if j.Outcome != Completed || j.Finish < j.Submit {
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
// policy), rows of mean completion time with their counts.
func SizeTable(title string, names []string, cs []SizeCompletion) Table {
	t := Table{Title: title, Columns: names}
	row := func(name string, f func(*SizeCompletion) Dist) {
		r := Row{Name: name, Cells: make([]string, len(cs))}
		for i := range cs {
			d := f(&cs[i])
			r.Cells[i] = d.MeanSpan().String() + " (" + strconv.Itoa(d.N) + ")"
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

// HeldOverTime is paper 000's fig. 2 as a table: how much each job class
// (workflow) holds at every step from 0 to Run.End. Columns are the
// classes in name order; row i is time i·step; a cell is the sum over the
// class's attempts running at that instant (Start ≤ t < End) of their
// mean allocation of the kinds listed (indices in Run.Kinds), or their
// number if kinds is empty: in a slot space, where each task holds one
// slot, the slots held. It needs task records (sim.Config.RecordTasks);
// step ≤ 0 gives an empty table.
func HeldOverTime(title string, run Run, step time.Duration, kinds []int) Table {
	t := Table{Title: title}
	if step <= 0 {
		return t
	}
	class := make(map[string]string, len(run.Jobs))
	for i := range run.Jobs {
		class[run.Jobs[i].ID] = run.Jobs[i].Class
	}
	type change struct {
		at  time.Duration
		col int
		d   float64
	}
	cols := map[string]int{}
	var changes []change
	for i := range run.Tasks {
		r := &run.Tasks[i]
		if r.End <= r.Start {
			continue
		}
		c := class[r.Job]
		if _, ok := cols[c]; !ok {
			cols[c] = len(t.Columns)
			t.Columns = append(t.Columns, c)
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
		changes = append(changes, change{r.Start, cols[c], amount}, change{r.End, cols[c], -amount})
	}
	// Columns in name order.
	order := slices.Clone(t.Columns)
	slices.Sort(order)
	remap := make([]int, len(order))
	for i, c := range order {
		remap[cols[c]] = i
	}
	t.Columns = order
	slices.SortStableFunc(changes, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	held := make([]float64, len(order))
	next := 0
	for at := time.Duration(0); at <= run.End; at += step {
		for next < len(changes) && changes[next].at <= at {
			held[remap[changes[next].col]] += changes[next].d
			next++
		}
		r := Row{Name: seconds(at), Cells: make([]string, len(held))}
		for i, h := range held {
			if h < 1e-9 && h > -1e-9 {
				h = 0
			}
			r.Cells[i] = strconv.FormatFloat(h, 'g', 4, 64)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}
