package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// TaskKind says what a task does, which decides how a Shaper turns it into
// resource demands.
type TaskKind uint8

// Task kinds.
const (
	// MapTask reads its input split and processes it.
	MapTask TaskKind = iota
	// ReduceTask fetches (shuffles) map output, processes and writes it.
	ReduceTask
	// ComputeTask is one processor of a rigid parallel job (SWF): it
	// computes for its duration with no modelled I/O.
	ComputeTask
)

var taskKindNames = [...]string{"map", "reduce", "compute"}

// String returns "map", "reduce" or "compute".
func (k TaskKind) String() string {
	if int(k) < len(taskKindNames) {
		return taskKindNames[k]
	}
	return fmt.Sprintf("TaskKind(%d)", uint8(k))
}

// ParseTaskKind is the inverse of TaskKind.String.
func ParseTaskKind(s string) (TaskKind, bool) {
	for i, n := range taskKindNames {
		if s == n {
			return TaskKind(i), true
		}
	}
	return 0, false
}

// MiB is 2^20 bytes.
const MiB = 1 << 20

// TaskModel is the WordCount-like rule that turns bytes into task
// durations when a source gives sizes but no times (the paper-000
// generator, the SWIM trace, the paper-004 mixes):
//
//	map    = MapOverhead    + input/MapRate       + written/WriteRate
//	reduce = ReduceOverhead + shuffled/ReduceRate + written/WriteRate
//
// each multiplied by a jitter factor drawn uniformly from [1−Jitter,
// 1+Jitter], then raised to MinDuration and rounded to the millisecond.
// A map writes output only in a map-only job (no reduce phase). Rates are
// per task (one slot); lowering MapRate and ReduceRate raises the offered
// load, which is how an experiment sweeps from light load to overload (see
// PoissonConfig.OfferedLoad).
type TaskModel struct {
	// MapOverhead is the fixed cost of a map task (JVM start, setup).
	MapOverhead time.Duration
	// MapRate is the bytes of input one map task processes per second.
	MapRate float64
	// ReduceOverhead is the fixed cost of a reduce task.
	ReduceOverhead time.Duration
	// ReduceRate is the bytes of shuffled map output one reduce task
	// fetches, sorts and reduces per second.
	ReduceRate float64
	// WriteRate is the bytes per second a task writes its final output at
	// (replicated HDFS write). 0 means writing costs no time.
	WriteRate float64
	// ShuffleRatio is map output (shuffle) bytes per input byte, used by
	// generators that know only the input size (a trace records it).
	ShuffleRatio float64
	// OutputRatio is final output bytes per shuffled byte (per input byte
	// for a map-only job), used by generators.
	OutputRatio float64
	// Jitter is the half-width of the uniform multiplicative noise, in
	// [0, 1). 0 makes durations exact.
	Jitter float64
	// MinDuration is the shortest task duration produced (> 0).
	MinDuration time.Duration
}

// WordCountModel returns the default TaskModel, sized after Hadoop-1
// WordCount on the paper-000 cluster (one 2013 Xeon slot processes about
// 3 MiB/s of text; a ~32 MB split takes ~12 s): MapOverhead 2 s, MapRate
// 3 MiB/s, ReduceOverhead 2 s, ReduceRate 5 MiB/s, WriteRate 32 MiB/s,
// ShuffleRatio 0.1 (after the combiner), OutputRatio 0.2, Jitter 0.1,
// MinDuration 1 s. With these the paper-000 workflows load the paper's
// 10 map slots to about 55% (PoissonConfig.OfferedLoad).
func WordCountModel() TaskModel {
	return TaskModel{
		MapOverhead:    2 * time.Second,
		MapRate:        3 * MiB,
		ReduceOverhead: 2 * time.Second,
		ReduceRate:     5 * MiB,
		WriteRate:      32 * MiB,
		ShuffleRatio:   0.1,
		OutputRatio:    0.2,
		Jitter:         0.1,
		MinDuration:    time.Second,
	}
}

// Validate checks every field: rates finite and positive (WriteRate may be
// 0), overheads and ratios non-negative, Jitter in [0, 1), MinDuration > 0.
func (m TaskModel) Validate() error {
	switch {
	case m.MapOverhead < 0:
		return configErr("TaskModel.MapOverhead", ErrRange, "negative %v", m.MapOverhead)
	case m.ReduceOverhead < 0:
		return configErr("TaskModel.ReduceOverhead", ErrRange, "negative %v", m.ReduceOverhead)
	case !positive(m.MapRate):
		return configErr("TaskModel.MapRate", ErrRange, "%v is not a positive finite rate", m.MapRate)
	case !positive(m.ReduceRate):
		return configErr("TaskModel.ReduceRate", ErrRange, "%v is not a positive finite rate", m.ReduceRate)
	case !nonNegative(m.WriteRate):
		return configErr("TaskModel.WriteRate", ErrRange, "%v is not a finite rate ≥ 0", m.WriteRate)
	case !nonNegative(m.ShuffleRatio):
		return configErr("TaskModel.ShuffleRatio", ErrRange, "%v is not a finite ratio ≥ 0", m.ShuffleRatio)
	case !nonNegative(m.OutputRatio):
		return configErr("TaskModel.OutputRatio", ErrRange, "%v is not a finite ratio ≥ 0", m.OutputRatio)
	case !(m.Jitter >= 0 && m.Jitter < 1):
		return configErr("TaskModel.Jitter", ErrRange, "%v is outside [0, 1)", m.Jitter)
	case m.MinDuration <= 0:
		return configErr("TaskModel.MinDuration", ErrRange, "%v is not positive", m.MinDuration)
	}
	return nil
}

// MapBase returns a map task's duration before jitter for the given input
// and output bytes (output 0 unless the job is map-only).
func (m TaskModel) MapBase(input, output int64) time.Duration {
	return m.MapOverhead + m.bytesTime(input, m.MapRate) + m.bytesTime(output, m.WriteRate)
}

// ReduceBase returns a reduce task's duration before jitter for the given
// shuffled and output bytes.
func (m TaskModel) ReduceBase(shuffle, output int64) time.Duration {
	return m.ReduceOverhead + m.bytesTime(shuffle, m.ReduceRate) + m.bytesTime(output, m.WriteRate)
}

// bytesTime is b/rate seconds as a Duration, 0 for a zero rate, saturating
// at maxDuration.
func (m TaskModel) bytesTime(b int64, rate float64) time.Duration {
	if b <= 0 || rate <= 0 {
		return 0
	}
	return secondsToDuration(float64(b) / rate)
}

// maxDuration (2^53 ns, about 104 days) caps every generated time; sums
// over many tasks are taken in float64 seconds, never in Durations.
const maxDuration = time.Duration(1) << 53

// secondsToDuration converts seconds to a Duration, saturating at
// maxDuration; s must not be NaN.
func secondsToDuration(s float64) time.Duration {
	ns := s * float64(time.Second)
	if !(ns < float64(maxDuration)) {
		return maxDuration
	}
	if ns < 0 {
		return 0
	}
	return time.Duration(ns)
}

// Apply returns base × jitter, raised to MinDuration and rounded to the
// millisecond. It draws one float from rng when Jitter > 0.
func (m TaskModel) Apply(base time.Duration, rng *rand.Rand) time.Duration {
	f := 1.0
	if m.Jitter > 0 {
		f = 1 - m.Jitter + 2*m.Jitter*rng.Float64()
	}
	d := secondsToDuration(base.Seconds() * f).Round(time.Millisecond)
	if d < m.MinDuration {
		d = m.MinDuration
	}
	return d
}

// assumptions returns the model as Assumptions lines.
func (m TaskModel) assumptions(generated bool) []string {
	lines := []string{
		fmt.Sprintf("map duration = %v + input/%s + output/%s (output only for map-only jobs)", m.MapOverhead, rateString(m.MapRate), rateString(m.WriteRate)),
		fmt.Sprintf("reduce duration = %v + shuffled/%s + output/%s", m.ReduceOverhead, rateString(m.ReduceRate), rateString(m.WriteRate)),
		fmt.Sprintf("every task duration × U[%g, %g] jitter, at least %v, rounded to 1ms", 1-m.Jitter, 1+m.Jitter, m.MinDuration),
	}
	if generated {
		lines = append(lines, fmt.Sprintf("shuffle bytes = %g × input; output bytes = %g × shuffle (× input if map-only)", m.ShuffleRatio, m.OutputRatio))
	}
	return lines
}

func rateString(r float64) string {
	if r <= 0 {
		return "∞"
	}
	return fmt.Sprintf("(%g MiB/s)", r/MiB)
}

func positive(x float64) bool    { return x > 0 && !math.IsInf(x, 0) }
func nonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }
