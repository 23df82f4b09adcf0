package experiment

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
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

func TestSWIMDayShape(t *testing.T) {
	var b bytes.Buffer
	total, err := writeSWIMDay(&b, fullDay, 1)
	if err != nil {
		t.Fatal(err)
	}
	// ≈16 million maps (64 MiB each, so the reader's count is the
	// generator's); exactly Huge jobs over HugeMin maps, the largest
	// HugeMax.
	if total < 14e6 || total > 18e6 {
		t.Errorf("total maps %d, want ≈16 million", total)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != fullDay.Jobs {
		t.Fatalf("%d lines, want %d", len(lines), fullDay.Jobs)
	}
	huge, largest := 0, int64(0)
	for _, l := range lines {
		f := strings.Fields(l)
		in, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		m := (in-1)/(64*workload.MiB) + 1
		if m > fullDay.HugeMin {
			huge++
		}
		largest = max(largest, m)
	}
	if huge != fullDay.Huge || largest != fullDay.HugeMax {
		t.Errorf("%d jobs over %d maps, largest %d; want %d, %d", huge, fullDay.HugeMin, largest, fullDay.Huge, fullDay.HugeMax)
	}
}

// replayDay reads a synthetic day of shape d and replays it under pol on
// nodes workers × (2 map + 2 reduce), returning the run and the
// simulator's counters.
func replayDay(tb testing.TB, d dayShape, nodes int, pol Policy) (sim.Run, sim.Stats) {
	var b bytes.Buffer
	if _, err := writeSWIMDay(&b, d, 1); err != nil {
		tb.Fatal(err)
	}
	p := Defaults()
	w, _, err := TraceWorkload(p, &b, "day.tsv", workload.FormatSWIM)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, _, err := SlotCluster(workload.SlotSpace(), nodes, fbMaps, fbReduces, p.Seed)
	if err != nil {
		tb.Fatal(err)
	}
	tracePrices(&cfg)
	cfg.TimingSample = UntimedSample // as schedsim -trace without -timing
	if v := os.Getenv("SCHEDKIT_SAMPLEINTERVAL"); v != "" {
		// How much of a learning policy's time its usage samples take:
		// a longer period delivers fewer (and changes what it learns).
		iv, err := time.ParseDuration(v)
		if err != nil || iv <= 0 {
			tb.Fatalf("SCHEDKIT_SAMPLEINTERVAL=%q: want a positive duration such as 15s", v)
		}
		cfg.SampleInterval = iv
	}
	sp, err := pol.New(Env{Config: &cfg, Workload: w})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := sim.New(cfg, w, sp)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := s.Run()
	if err != nil {
		tb.Fatalf("%s: %v", pol.Name, err)
	}
	return r, s.Stats()
}

// TestTraceDaySmall is the CI-sized replay of the synthetic day: 1/500 of
// the jobs on 1/500 of the workers (one huge job, of 12,000 maps), every
// policy schedsim knows; every job must end.
func TestTraceDaySmall(t *testing.T) {
	if raceEnabled {
		t.Skip("one simulation per policy on one goroutine: run without -race")
	}
	d := fullDay.scaled(500)
	d.HugeMax = 12000
	for _, pol := range Policies() {
		r, _ := replayDay(t, d, 600/500+1, pol)
		for _, j := range r.Jobs {
			if j.Outcome == sim.Unfinished {
				t.Fatalf("%s: job %s unfinished", pol.Name, j.ID)
			}
		}
	}
}

// traceDayOptions are policy options measured on the trace day besides
// the policies schedsim knows (none now: fgm-skipidle, an approximation,
// was retired once fgm answered a full node's call from its counts).
var traceDayOptions []Policy

// BenchmarkTraceDay replays the full synthetic day (≈25,000 jobs, ≈16
// million maps) on 600 workers, one policy per sub-benchmark. It runs
// only when SCHEDKIT_TRACEDAY is set (it takes minutes); run one policy
// per process so that peak-RSS-MB (getrusage's maxrss of the process:
// generation, reading and the replay) is that policy's:
//
//	go test -c -o /tmp/exp.test ./internal/experiment
//	SCHEDKIT_TRACEDAY=1 /tmp/exp.test -test.run '^$' -test.bench 'TraceDay/policy=fifo$' -test.benchtime 1x
//
// SCHEDKIT_TRACEDAY=N (N > 1) divides the day by N (jobs and workers).
func BenchmarkTraceDay(b *testing.B) {
	env := os.Getenv("SCHEDKIT_TRACEDAY")
	if env == "" {
		b.Skip("set SCHEDKIT_TRACEDAY=1 to replay the 25,000-job day")
	}
	f, err := strconv.Atoi(env)
	if err != nil || f < 1 {
		b.Fatalf("SCHEDKIT_TRACEDAY=%q: want a positive integer", env)
	}
	d, nodes := fullDay, 600
	if f > 1 {
		d, nodes = fullDay.scaled(f), max(1, 600/f)
	}
	for _, pol := range append(Policies(), traceDayOptions...) {
		b.Run("policy="+pol.Name, func(b *testing.B) {
			var st sim.Stats
			var wall time.Duration
			for b.Loop() {
				t0 := time.Now()
				_, st = replayDay(b, d, nodes, pol)
				wall += time.Since(t0)
			}
			b.ReportMetric(float64(st.Events), "events")
			b.ReportMetric(float64(st.Heartbeats), "heartbeats")
			b.ReportMetric(float64(st.QuietHeartbeats), "quiet-heartbeats")
			b.ReportMetric(float64(st.TaskSamples), "task-samples")
			b.ReportMetric(float64(st.Events)/(wall.Seconds()/float64(b.N)), "events/s")
			b.ReportMetric(float64(maxRSS())/(1<<20), "peak-RSS-MB")
		})
	}
}

// BenchmarkTraceDayShape replays a synthetic day of any shape, for
// scaling measurements of one policy (BenchmarkTraceDay's scaled days
// keep the largest job at 100,000 maps, so they do not shrink evenly):
//
//	SCHEDKIT_DAYSHAPE=jobs,huge,hugemin,hugemax,nodes,policy
//
// e.g. "400,4,2000,8000,16,fgm". SCHEDKIT_SAMPLEINTERVAL (a duration,
// e.g. 15s) replaces the simulator's usage sampling period of 3 s in
// both trace-day benchmarks. Besides the counters it reports a
// fingerprint of the run's job records (FNV-32a of their printed form
// with the failed and retried task counts): two versions that decide
// alike print the same one.
func BenchmarkTraceDayShape(b *testing.B) {
	env := os.Getenv("SCHEDKIT_DAYSHAPE")
	if env == "" {
		b.Skip("set SCHEDKIT_DAYSHAPE=jobs,huge,hugemin,hugemax,nodes,policy")
	}
	f := strings.Split(env, ",")
	if len(f) != 6 {
		b.Fatalf("SCHEDKIT_DAYSHAPE=%q: want six comma-separated fields", env)
	}
	var n [5]int
	for i := range n {
		x, err := strconv.Atoi(f[i])
		if err != nil || x < 1 {
			b.Fatalf("SCHEDKIT_DAYSHAPE field %d %q: want a positive integer", i+1, f[i])
		}
		n[i] = x
	}
	d := dayShape{Jobs: n[0], Huge: n[1], HugeMin: int64(n[2]), HugeMax: int64(n[3])}
	var pol Policy
	for _, p := range append(Policies(), traceDayOptions...) {
		if p.Name == f[5] {
			pol = p
		}
	}
	if pol.New == nil {
		b.Fatalf("SCHEDKIT_DAYSHAPE: unknown policy %q", f[5])
	}
	for b.Loop() {
		r, st := replayDay(b, d, n[4], pol)
		h := fnv.New32a()
		fmt.Fprintf(h, "%v %v %v", r.Jobs, r.FailedTasks, r.RetriedTasks)
		b.ReportMetric(float64(st.Events), "events")
		b.ReportMetric(float64(st.Heartbeats), "heartbeats")
		b.ReportMetric(float64(st.TaskSamples), "task-samples")
		b.ReportMetric(r.End.Hours(), "end-h")
		b.ReportMetric(float64(h.Sum32()), "fingerprint")
		b.ReportMetric(float64(maxRSS())/(1<<20), "peak-RSS-MB")
	}
}
