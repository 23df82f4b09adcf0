package workload

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// The 18 fields of a Standard Workload Format line, in order, as used in
// ParseError.Field.
var swfFields = [18]string{
	"job_number", "submit_time", "wait_time", "run_time", "allocated_processors",
	"average_cpu_time", "used_memory", "requested_processors", "requested_time",
	"requested_memory", "status", "user_id", "group_id", "executable_number",
	"queue_number", "partition_number", "preceding_job_number", "think_time",
}

// Indices of the SWF fields the reader uses.
const (
	swfJob       = 0
	swfSubmit    = 1
	swfRunTime   = 3
	swfAllocProc = 4
	swfReqProc   = 7
	swfReqTime   = 8
	swfQueue     = 14
)

// ReadSWF reads a Standard Workload Format file (Parallel Workloads
// Archive): lines starting with ';' are header comments, blank lines are
// skipped, every other line has 18 whitespace-separated numbers, -1
// meaning "unknown". Any other negative value, a non-number, NaN or
// infinity is an error (*ParseError naming the field).
//
// Each SWF job becomes a one-phase job of N compute tasks, each running
// for the job's run time exactly (no jitter): N is the allocated
// processors, or the requested processors when that is -1; the run time
// is run_time, or requested_time when that is -1 (an error if both are
// unknown or N is). A run time below opt.Model.MinDuration is raised to
// it. The job's ID is its job number, its Class "queue-<n>" (or "swf" when
// the queue is unknown). Jobs of every status (including failed and
// cancelled ones) are kept. SWF jobs are rigid (gang-scheduled); the
// simulator runs their tasks independently, which this reader cannot
// express. opt.Constraints then fill deadlines, budgets and φ; BlockSize
// and ReduceBytes are unused.
func ReadSWF(r io.Reader, name string, opt TraceOptions, rng *rand.Rand) (Workload, error) {
	o, err := opt.prepare("swf", rng)
	if err != nil {
		return Workload{}, err
	}
	lr := newLineReader(r, name)
	b := newTaskBuilder(o.Shaper, o.Model, rng, o.Logic)
	w := Workload{Name: name}
	var gv []given
	seen := make(map[string]int)
	var f [18][]byte
	var v [18]float64
	usedReqTime, usedReqProc, raised := 0, 0, 0
	for {
		line, ok, err := lr.next()
		if err != nil {
			return Workload{}, err
		}
		if !ok {
			break
		}
		if len(line) == 0 || line[0] == ';' {
			continue
		}
		if n := splitFields(line, f[:]); n != len(f) {
			return Workload{}, parseErr(name, lr.line, "", ErrColumns, "%d fields, want 18", n)
		}
		for i := range f {
			x, err := strconv.ParseFloat(string(f[i]), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return Workload{}, parseErr(name, lr.line, swfFields[i], ErrSyntax, "%q is not a number", f[i])
			}
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || (x < 0 && x != -1) {
				return Workload{}, parseErr(name, lr.line, swfFields[i], ErrRange, "%q: want a finite value ≥ 0 or -1 (unknown)", f[i])
			}
			v[i] = x
		}
		if v[swfJob] < 0 {
			return Workload{}, parseErr(name, lr.line, swfFields[swfJob], ErrRange, "unknown (-1) job number")
		}
		id := string(f[swfJob])
		if prev, dup := seen[id]; dup {
			return Workload{}, parseErr(name, lr.line, swfFields[swfJob], ErrDuplicate, "%q already on line %d", id, prev)
		}
		seen[id] = lr.line
		if v[swfSubmit] < 0 {
			return Workload{}, parseErr(name, lr.line, swfFields[swfSubmit], ErrRange, "unknown (-1) submit time")
		}
		submit, err := secondsField(name, lr.line, swfFields[swfSubmit], v[swfSubmit])
		if err != nil {
			return Workload{}, err
		}
		run, runField := v[swfRunTime], swfRunTime
		if run < 0 {
			run, runField = v[swfReqTime], swfReqTime
			usedReqTime++
		}
		if run < 0 {
			return Workload{}, parseErr(name, lr.line, swfFields[swfRunTime], ErrRange, "run time and requested time both unknown (-1)")
		}
		d, err := secondsField(name, lr.line, swfFields[runField], run)
		if err != nil {
			return Workload{}, err
		}
		if d < o.Model.MinDuration {
			d = o.Model.MinDuration
			raised++
		}
		procs, procField := v[swfAllocProc], swfAllocProc
		if procs < 0 {
			procs, procField = v[swfReqProc], swfReqProc
			usedReqProc++
		}
		if procs < 1 || procs != math.Trunc(procs) {
			return Workload{}, parseErr(name, lr.line, swfFields[procField], ErrRange, "%v processors: want a whole number ≥ 1", procs)
		}
		if procs > float64(o.MaxTasksPerJob) {
			return Workload{}, &ParseError{File: name, Line: lr.line, Field: swfFields[procField], Err: checkTasks(int64(procs), o.MaxTasksPerJob)}
		}
		phases, err := b.build([]phasePlan{{kind: ComputeTask, n: int(procs), base: d, exact: true}})
		if err != nil {
			return Workload{}, err
		}
		class := "swf"
		if q := v[swfQueue]; q >= 0 {
			class = "queue-" + string(f[swfQueue])
		}
		w.Jobs = append(w.Jobs, JobSpec{ID: id, Class: class, Submit: submit, Phases: phases})
		gv = append(gv, given{})
	}
	if len(w.Jobs) == 0 {
		return Workload{}, &ParseError{File: name, Err: because(ErrEmpty, "no jobs in input (SWF)")}
	}
	lines := []string{
		"SWF: each job = one phase of N compute tasks × run time (N = allocated processors, else requested); no jitter",
		fmt.Sprintf("SWF: %d jobs with unknown run time used requested time; %d with unknown allocation used requested processors", usedReqTime, usedReqProc),
		fmt.Sprintf("SWF: run times below %v raised to it (%d jobs); jobs of every status kept; gang semantics not modelled", o.Model.MinDuration, raised),
	}
	o.finish(&w, gv, rng, lines)
	return w, nil
}
