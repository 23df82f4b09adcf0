package experiment

import (
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/internal/workload"
)

// dayShape is the shape of a synthetic SWIM-format trace day, after the
// Facebook day issue 9 describes: jobs submitted uniformly over 24 h;
// Huge jobs with map counts from a bounded Pareto (α = 1) on
// (HugeMin, HugeMax], the largest exactly HugeMax; the rest from a
// bounded Pareto (α = 0.4) on [1, HugeMin] (most jobs a few maps, a long
// tail). About 60% of the jobs have a shuffle (a uniform share of 1–50%
// of the input), so a reduce phase.
type dayShape struct {
	Jobs, Huge       int
	HugeMin, HugeMax int64
}

// fullDay is the day: ≈25,000 jobs, ≈16 million maps, 385 jobs
// over 10,000 maps, the largest 175,000.
var fullDay = dayShape{Jobs: 25000, Huge: 385, HugeMin: 10000, HugeMax: 175000}

// scaled returns the shape with job counts divided by f (at least one
// huge job, largest capped at ten times HugeMin so a small day stays
// small).
func (d dayShape) scaled(f int) dayShape {
	d.Jobs /= f
	d.Huge = max(1, d.Huge/f)
	d.HugeMax = min(d.HugeMax, 10*d.HugeMin)
	return d
}

// boundedPareto draws from a Pareto(α) distribution truncated to [lo, hi].
func boundedPareto(rng *rand.Rand, alpha, lo, hi float64) float64 {
	u := rng.Float64()
	la, ha := math.Pow(lo, alpha), math.Pow(hi, alpha)
	return math.Pow(-(u*ha-u*la-ha)/(ha*la), -1/alpha)
}

// writeSWIMDay writes a SWIM-format day of the given shape (64 MiB
// blocks, so maps = ⌈input/64 MiB⌉) and returns the total map count.
func writeSWIMDay(w io.Writer, d dayShape, seed uint64) (int64, error) {
	rng := rand.New(rand.NewPCG(seed, 0xda7))
	maps := make([]int64, d.Jobs)
	for i := range maps {
		if i < d.Huge {
			maps[i] = int64(boundedPareto(rng, 1, float64(d.HugeMin)+1, float64(d.HugeMax)))
		} else {
			maps[i] = min(d.HugeMin, int64(boundedPareto(rng, 0.4, 1, float64(d.HugeMin))))
		}
	}
	maps[0] = d.HugeMax
	rng.Shuffle(len(maps), func(i, j int) { maps[i], maps[j] = maps[j], maps[i] })
	submit := make([]int64, d.Jobs)
	for i := range submit {
		submit[i] = rng.Int64N(86400)
	}
	slices.Sort(submit)
	const block = 64 * workload.MiB
	var total int64
	buf := make([]byte, 0, 128)
	for i, m := range maps {
		total += m
		input := (m-1)*block + 1 + rng.Int64N(block)
		var shuffle, output int64
		if rng.Float64() < 0.6 {
			shuffle = int64(float64(input) * (0.01 + 0.49*rng.Float64()))
			output = shuffle / 4
		} else {
			output = input / 10
		}
		gap := int64(0)
		if i > 0 {
			gap = submit[i] - submit[i-1]
		}
		buf = buf[:0]
		buf = append(buf, "job"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		for _, v := range []int64{submit[i], gap, input, shuffle, output} {
			buf = append(buf, '\t')
			buf = strconv.AppendInt(buf, v, 10)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return 0, err
		}
	}
	return total, nil
}
