package workload

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
)

// SWIM field names, as used in ParseError.Field.
var swimFields = [6]string{"job_id", "submit_time_s", "inter_arrival_gap_s", "map_input_bytes", "shuffle_bytes", "reduce_output_bytes"}

// Job classes the SWIM reader assigns by map count, after the job-size
// bins Zaharia et al. report for Facebook (paper 004's reference [4]).
const (
	ClassSmall  = "small"  // fewer than 25 maps
	ClassMedium = "medium" // 25 to 400 maps
	ClassLarge  = "large"  // more than 400 maps
)

func sizeClass(maps int64) string {
	switch {
	case maps < 25:
		return ClassSmall
	case maps <= 400:
		return ClassMedium
	}
	return ClassLarge
}

// ReadSWIM reads a SWIM workload (the FB-2009 trace format): one job per
// line, six tab- (or space-) separated fields, no header:
//
//	job_id  submit_time_s  inter_arrival_gap_s  map_input_bytes  shuffle_bytes  reduce_output_bytes
//
// Blank lines are skipped. All numbers are non-negative integers; job IDs
// are unique; byte counts are at most MaxTraceBytes. submit_time_s is
// authoritative: lines out of submission order are sorted stably, and
// inter_arrival_gap_s, which should equal the difference to the previous
// line's submit_time_s (to 0 on the first line), is only checked — lines
// where it does not (a trace cut, merged or edited by hand) are counted
// in a "warning:" line of the Assumptions, which name the first such line. Each job becomes a map phase of max(1, ⌈input/BlockSize⌉)
// maps and, unless shuffle_bytes is 0, a reduce phase of
// ⌈shuffle/ReduceBytes⌉ reduces (at most MaxReduces); durations come from
// opt.Model, then opt.Constraints and opt.Shaper apply. The job's Class
// is its size bin (ClassSmall, ClassMedium, ClassLarge). name labels
// errors (*ParseError) and the workload.
func ReadSWIM(r io.Reader, name string, opt TraceOptions, rng *rand.Rand) (Workload, error) {
	o, err := opt.prepare("swim", rng)
	if err != nil {
		return Workload{}, err
	}
	lr := newLineReader(r, name)
	b := newTaskBuilder(o.Shaper, o.Model, rng, o.Logic)
	w := Workload{Name: name}
	var gv []given
	seen := make(map[string]int)
	var f [6][]byte
	var gaps swimGaps
	for {
		line, ok, err := lr.next()
		if err != nil {
			return Workload{}, err
		}
		if !ok {
			break
		}
		if len(line) == 0 {
			continue
		}
		n := splitFields(line, f[:])
		if n != len(f) {
			return Workload{}, parseErr(name, lr.line, "", ErrColumns, "%d fields, want 6 (%s)", n, "job_id submit_time_s inter_arrival_gap_s map_input_bytes shuffle_bytes reduce_output_bytes")
		}
		id := string(f[0])
		if prev, dup := seen[id]; dup {
			return Workload{}, parseErr(name, lr.line, swimFields[0], ErrDuplicate, "%q already on line %d", id, prev)
		}
		seen[id] = lr.line
		var v [5]int64
		for i := range v {
			if v[i], err = parseCount(name, lr.line, swimFields[i+1], f[i+1]); err != nil {
				return Workload{}, err
			}
			if i >= 2 {
				if err := checkBytes(name, lr.line, swimFields[i+1], v[i]); err != nil {
					return Workload{}, err
				}
			}
		}
		gaps.check(lr.line, v[0], v[1])
		submit, err := secondsField(name, lr.line, swimFields[1], float64(v[0]))
		if err != nil {
			return Workload{}, err
		}
		input, shuffle, output := v[2], v[3], v[4]
		maps := max(1, ceilDiv(input, o.BlockSize))
		reduces := ceilDiv(shuffle, o.ReduceBytes)
		if o.MaxReduces > 0 {
			reduces = min(reduces, int64(o.MaxReduces))
		}
		if err := checkTasks(maps+reduces, o.MaxTasksPerJob); err != nil {
			return Workload{}, &ParseError{File: name, Line: lr.line, Field: swimFields[3], Err: err}
		}
		phases, err := b.build(mapReducePlans(o.Model, int(maps), int(reduces), input, shuffle, output))
		if err != nil {
			return Workload{}, err
		}
		w.Jobs = append(w.Jobs, JobSpec{ID: id, Class: sizeClass(maps), Submit: submit, Phases: phases})
		gv = append(gv, given{})
	}
	if len(w.Jobs) == 0 {
		return Workload{}, &ParseError{File: name, Err: because(ErrEmpty, "no jobs in input (SWIM)")}
	}
	lines := []string{
		fmt.Sprintf("SWIM: maps = max(1, ⌈input/%d MiB⌉), each ⌈input/maps⌉ bytes", o.BlockSize/MiB),
		reduceRule(o),
		"SWIM: class = size bin by maps: small < 25, medium 25–400, large > 400",
		"SWIM: submit_time_s is the submission offset; inter_arrival_gap_s is only checked against it",
	}
	lines = append(lines, gaps.warnings()...)
	lines = append(lines, o.Model.assumptions(false)...)
	o.finish(&w, gv, rng, lines)
	return w, nil
}

func reduceRule(o TraceOptions) string {
	s := fmt.Sprintf("SWIM: reduces = ⌈shuffle/%g MiB⌉ (0 for a zero shuffle: map-only job, maps write the output)", float64(o.ReduceBytes)/MiB)
	if o.MaxReduces > 0 {
		s += fmt.Sprintf(", at most %d", o.MaxReduces)
	}
	return s + "; each reduce gets ⌈shuffle/reduces⌉ bytes and writes ⌈output/reduces⌉"
}

// splitFields splits line at runs of blanks (space, tab) into dst and
// returns the number of fields found, which may exceed len(dst) (the
// extra ones are not stored).
func splitFields(line []byte, dst [][]byte) int {
	n := 0
	for len(line) > 0 {
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		line = line[i:]
		if len(line) == 0 {
			break
		}
		j := bytes.IndexAny(line, " \t")
		if j < 0 {
			j = len(line)
		}
		if n < len(dst) {
			dst[n] = line[:j]
		}
		n++
		line = line[j:]
	}
	return n
}

// swimGaps checks inter_arrival_gap_s against submit_time_s.
type swimGaps struct {
	prev                  int64 // previous submit_time_s
	lines, bad, backwards int
	firstBad, firstBack   int   // line numbers
	badGap, badDiff       int64 // at firstBad
}

func (g *swimGaps) check(line int, submit, gap int64) {
	g.lines++
	if submit < g.prev {
		if g.backwards == 0 {
			g.firstBack = line
		}
		g.backwards++
	}
	if gap != submit-g.prev {
		if g.bad == 0 {
			g.firstBad, g.badGap, g.badDiff = line, gap, submit-g.prev
		}
		g.bad++
	}
	g.prev = submit
}

func (g *swimGaps) warnings() []string {
	var out []string
	if g.backwards > 0 {
		out = append(out, fmt.Sprintf("warning: SWIM: %d of %d lines submit before the line above (first: line %d); replayed in submit_time_s order", g.backwards, g.lines, g.firstBack))
	}
	if g.bad > 0 {
		out = append(out, fmt.Sprintf("warning: SWIM: %d of %d lines have an inter_arrival_gap_s that contradicts submit_time_s (first: line %d, gap %d s, submit times %d s apart); submit_time_s used", g.bad, g.lines, g.firstBad, g.badGap, g.badDiff))
	}
	return out
}
