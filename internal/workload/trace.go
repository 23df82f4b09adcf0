package workload

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// TraceOptions holds the generation rules readers apply to what a trace
// does not record. The zero value is not usable; start from
// DefaultTraceOptions.
type TraceOptions struct {
	// Model turns bytes into task durations (SWIM; CSV rows without a
	// duration).
	Model TaskModel
	// Shaper lays tasks into a resource Space; nil means
	// NewSlotShaper(SlotSpace()).
	Shaper Shaper
	// Constraints fill in deadlines, budgets and φ the trace lacks.
	Constraints Constraints
	// BlockSize is the HDFS block size: a SWIM job has
	// max(1, ⌈input/BlockSize⌉) maps.
	BlockSize int64
	// ReduceBytes is the shuffle bytes one reduce task handles: a SWIM job
	// has ⌈shuffle/ReduceBytes⌉ reduces (0 for a zero shuffle: map-only).
	ReduceBytes int64
	// MaxReduces caps the reduce count (0: no cap).
	MaxReduces int
	// MaxTasksPerJob rejects a job with more tasks (0:
	// DefaultMaxTasksPerJob), so a corrupt size cannot exhaust memory.
	MaxTasksPerJob int
	// MaxJobs keeps only the first MaxJobs jobs by submission time (0:
	// all). Horizon keeps only jobs submitted before it (0: all). What was
	// cut is stated in Assumptions.
	MaxJobs int
	Horizon time.Duration
	// Share, in (0, 1), then keeps the leading ⌈Share·n⌉ of the n jobs
	// left (schedsim's -scale); 0 or 1 keeps them all. The SWIM reader
	// cuts before it lays out any task, so a cut job costs no memory;
	// every reader draws the same random numbers with or without the cut,
	// so the jobs kept are exactly those of a full read.
	Share float64
	// Compact makes the SWIM reader describe each phase as a TaskBatch
	// (8 bytes per task) instead of one TaskSpec per task: the same
	// tasks, durations and random draws. Read phases through
	// PhaseSpec.Len, Duration and Task.
	Compact bool
	// Logic names the application in task Logic; "" means the format's
	// name ("swim", "swf", "csv").
	Logic string
}

// DefaultTraceOptions returns WordCountModel durations, the slot shaper,
// DefaultTraceConstraints (deadlines k ∈ [1.5, 4] × critical path), 64 MiB
// blocks (Hadoop of 2009), 1 GiB of shuffle per reduce, no caps.
func DefaultTraceOptions() TraceOptions {
	return TraceOptions{
		Model:       WordCountModel(),
		Constraints: DefaultTraceConstraints(),
		BlockSize:   64 * MiB,
		ReduceBytes: GiB,
	}
}

// prepare validates o and the reader's rng and returns o with defaults
// filled in.
func (o TraceOptions) prepare(format string, rng *rand.Rand) (TraceOptions, error) {
	if rng == nil {
		return o, configErr("rng", ErrConfig, "nil *rand.Rand")
	}
	if err := o.Model.Validate(); err != nil {
		return o, err
	}
	if err := o.Constraints.Validate(); err != nil {
		return o, err
	}
	switch {
	case o.BlockSize <= 0:
		return o, configErr("TraceOptions.BlockSize", ErrRange, "%d is not positive", o.BlockSize)
	case o.ReduceBytes <= 0:
		return o, configErr("TraceOptions.ReduceBytes", ErrRange, "%d is not positive", o.ReduceBytes)
	case o.MaxReduces < 0, o.MaxTasksPerJob < 0, o.MaxJobs < 0:
		return o, configErr("TraceOptions.Max*", ErrRange, "negative limit")
	case !(o.Share >= 0 && o.Share <= 1):
		return o, configErr("TraceOptions.Share", ErrRange, "%v is outside [0, 1]", o.Share)
	case o.Horizon < 0:
		return o, configErr("TraceOptions.Horizon", ErrRange, "negative %v", o.Horizon)
	}
	if o.MaxTasksPerJob == 0 {
		o.MaxTasksPerJob = DefaultMaxTasksPerJob
	}
	if o.Logic == "" {
		o.Logic = format
	}
	if o.Shaper == nil {
		s, err := NewSlotShaper(SlotSpace())
		if err != nil {
			return o, err
		}
		o.Shaper = s
	}
	return o, nil
}

// given records which of a job's constraint fields its source set.
type given struct{ deadline, budget, phi bool }

// finish sorts jobs by submission (stably), applies MaxJobs and Horizon,
// then the constraints, job by job, and writes the Assumptions. It does
// not allocate per task.
func (o *TraceOptions) finish(w *Workload, gv []given, rng *rand.Rand, lines []string) {
	n := len(w.Jobs)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sorted := slices.IsSortedFunc(w.Jobs, func(a, b JobSpec) int { return cmp.Compare(a.Submit, b.Submit) })
	if !sorted {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(w.Jobs[a].Submit, w.Jobs[b].Submit) })
		jobs := make([]JobSpec, n)
		g2 := make([]given, n)
		for i, k := range idx {
			jobs[i], g2[i] = w.Jobs[k], gv[k]
		}
		w.Jobs, gv = jobs, g2
		lines = append(lines, "jobs were out of submission order in the input: sorted stably by submit time")
	}
	keep := n
	if o.Horizon > 0 {
		keep, _ = slices.BinarySearchFunc(w.Jobs, o.Horizon, func(j JobSpec, h time.Duration) int { return cmp.Compare(j.Submit, h) })
	}
	if o.MaxJobs > 0 && keep > o.MaxJobs {
		keep = o.MaxJobs
	}
	if keep < n {
		lines = append(lines, fmt.Sprintf("kept the first %d of %d jobs (MaxJobs %d, Horizon %v)", keep, n, o.MaxJobs, o.Horizon))
	}
	if k := o.shareOf(keep); k < keep {
		lines = append(lines, fmt.Sprintf("scale %g: kept the first %d of %d jobs", o.Share, k, keep))
		keep = k
	}
	if keep < n {
		w.Jobs = w.Jobs[:keep:keep]
	}
	for i := range w.Jobs {
		g := gv[i]
		j := &w.Jobs[i]
		c := o.Constraints
		if g.deadline {
			c.Deadline = DeadlineRule{}
		}
		if g.budget {
			c.Budget = BudgetRule{}
		}
		c.apply(j, g.phi, rng)
	}
	lines = append(lines, o.Constraints.assumptions()...)
	lines = append(lines, o.Shaper.Assumptions()...)
	w.Assumptions = lines
}

// shareOf is how many of n jobs Share keeps.
func (o *TraceOptions) shareOf(n int) int {
	if o.Share <= 0 || o.Share >= 1 {
		return n
	}
	return int(math.Ceil(o.Share * float64(n)))
}

// kept returns, for jobs with the given submission times in input order,
// whether finish will keep each (the same stable sort and cuts).
func (o *TraceOptions) kept(submits []time.Duration) []bool {
	n := len(submits)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(submits[a], submits[b]) })
	keep := n
	if o.Horizon > 0 {
		keep, _ = slices.BinarySearchFunc(idx, o.Horizon, func(i int, h time.Duration) int { return cmp.Compare(submits[i], h) })
	}
	if o.MaxJobs > 0 && keep > o.MaxJobs {
		keep = o.MaxJobs
	}
	keep = o.shareOf(keep)
	out := make([]bool, n)
	for _, i := range idx[:keep] {
		out[i] = true
	}
	return out
}

// lineReader yields the lines of an input with their 1-based numbers,
// rejecting lines over maxLine bytes.
type lineReader struct {
	sc   *bufio.Scanner
	name string
	line int
}

const maxLine = 1 << 20

func newLineReader(r io.Reader, name string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &lineReader{sc: sc, name: name}
}

// next returns the next line with surrounding space trimmed, or ok = false
// at the end; err is a *ParseError for an unreadable input.
func (l *lineReader) next() (line []byte, ok bool, err error) {
	if !l.sc.Scan() {
		if e := l.sc.Err(); e != nil {
			if errors.Is(e, bufio.ErrTooLong) {
				return nil, false, parseErr(l.name, l.line+1, "", ErrSyntax, "line longer than %d bytes", maxLine)
			}
			return nil, false, &ParseError{File: l.name, Line: l.line + 1, Err: e}
		}
		return nil, false, nil
	}
	l.line++
	return bytes.TrimSpace(l.sc.Bytes()), true, nil
}

// parseCount parses a non-negative decimal integer field.
func parseCount(file string, line int, field string, s []byte) (int64, error) {
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, parseErr(file, line, field, ErrRange, "%q does not fit in 64 bits", s)
		}
		return 0, parseErr(file, line, field, ErrSyntax, "%q is not an integer", s)
	}
	if v < 0 {
		return 0, parseErr(file, line, field, ErrRange, "negative value %d", v)
	}
	return v, nil
}

// maxSeconds is the largest time in seconds a trace may state.
var maxSeconds = maxDuration.Seconds()

// secondsField converts a parsed, non-negative seconds value to a Duration
// or reports it too large.
func secondsField(file string, line int, field string, s float64) (time.Duration, error) {
	if !(s >= 0 && s <= maxSeconds) {
		return 0, parseErr(file, line, field, ErrRange, "%v seconds is outside [0, %v]", s, maxSeconds)
	}
	return secondsToDuration(s), nil
}
