package experiment

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

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
