package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// fbStats accumulates what GenerateFacebookMix reports in Assumptions.
type fbStats struct {
	jobs, maps, reduces int
	input               float64    // bytes
	reqSec, useSec      [4]float64 // Σ requested × duration, Σ true demand × stage time, per kind
	stragglers          int
	maxFactor           float64
}

// phases lays out one job: the map phase, and a reduce phase when the
// shuffle is not empty.
func (c *FBMixConfig) phases(space *resource.Space, app FBApp, maps int, input, pad float64, rng *rand.Rand, st *fbStats) []PhaseSpec {
	perMap := math.Ceil(input / float64(maps))
	shuffle := input * app.ShuffleRatio
	reduces := 0
	if shuffle > 0 {
		reduces = max(1, int(math.Ceil(shuffle/(c.ReduceGB*GiB))))
	}
	st.jobs++
	st.maps += maps
	st.reduces += reduces
	st.input += input
	mb := func(b float64) float64 { return b / MiB }
	mapOut := perMap * app.ShuffleRatio
	mapStages := []fbStage{
		{secs: mb(perMap) / c.ReadMBps, cpu: c.IOCPU, mem: app.MemGB, kind: paper004Disk, bw: c.ReadMBps},
		{secs: mb(perMap) / app.MapMBps, cpu: app.ComputeCPU, mem: app.ComputeMemGB, compute: true},
		{secs: mb(mapOut) / c.WriteMBps, cpu: c.IOCPU, mem: app.MemGB, kind: paper004Disk, bw: c.WriteMBps},
	}
	out := []PhaseSpec{c.phase(space, app.Name+"/map", int64(perMap), maps, mapStages, pad, rng, st)}
	if reduces > 0 {
		perRed := math.Ceil(shuffle / float64(reduces))
		redStages := []fbStage{
			{secs: mb(perRed) / c.ShuffleMBps, cpu: c.IOCPU, mem: app.MemGB, kind: paper004Net, bw: c.ShuffleMBps},
			{secs: mb(perRed) / app.ReduceMBps, cpu: app.ComputeCPU, mem: app.ComputeMemGB, compute: true},
			{secs: mb(perRed*app.OutputRatio) / c.WriteMBps, cpu: c.IOCPU, mem: app.MemGB, kind: paper004Disk, bw: c.WriteMBps},
		}
		out = append(out, c.phase(space, app.Name+"/reduce", int64(perRed), reduces, redStages, pad, rng, st))
	}
	return out
}

// fbStage is one nominal stage before per-task variation.
type fbStage struct {
	secs, cpu, mem float64
	kind           int // paper004Disk or paper004Net for an I/O stage
	bw             float64
	compute        bool
}

// phase lays out n tasks of one phase in three slab allocations. I/O
// stages shorter than 1 ms (no bytes to move) are dropped; the compute
// stage always stays (at least 1 ms).
func (c *FBMixConfig) phase(space *resource.Space, logic string, data int64, n int, nominal []fbStage, pad float64, rng *rand.Rand, st *fbStats) PhaseSpec {
	stages := nominal[:0:0]
	for _, s := range nominal {
		if s.compute || s.secs >= 0.001 {
			stages = append(stages, s)
		}
	}
	dims := space.Len()
	// The declared request: CPU and memory (what a YARN user declares)
	// at the nominal peak × DemandCap × pad; disk and network bandwidth
	// (which YARN does not ask for) at the stage's exact rate.
	req := make(resource.Vector, dims)
	for _, s := range stages {
		req[paper004CPU] = math.Max(req[paper004CPU], s.cpu)
		req[paper004Memory] = math.Max(req[paper004Memory], s.mem)
		if s.bw > 0 {
			req[s.kind] = math.Max(req[s.kind], s.bw)
		}
	}
	f := c.DemandCap * pad
	req[paper004CPU] = math.Ceil(req[paper004CPU]*f - 1e-9)
	req[paper004Memory] = math.Ceil(req[paper004Memory]*f - 1e-9)

	tasks := make([]TaskSpec, n)
	profSlab := make([]Stage, n*len(stages))
	floats := make([]float64, n*(len(stages)+1)*dims)
	for i := range tasks {
		t := &tasks[i]
		t.Logic, t.DataSize = logic, data
		t.Requested = resource.Vector(floats[:dims:dims])
		floats = floats[dims:]
		copy(t.Requested, req)
		t.Profile = profSlab[:len(stages):len(stages)]
		profSlab = profSlab[len(stages):]
		dur := math.Exp(c.Sigma * rng.NormFloat64())
		if c.StragglerP > 0 && rng.Float64() < c.StragglerP {
			dur = math.Min(c.StragglerMax, dur*math.Pow(1-rng.Float64(), -1/c.StragglerAlpha))
			st.stragglers++
		}
		st.maxFactor = math.Max(st.maxFactor, dur)
		lo, hi := 1/c.DemandCap, c.DemandCap
		cpuF := clamp(math.Exp(c.DemandSigma*rng.NormFloat64()), lo, hi)
		memF := clamp(math.Exp(c.DemandSigma*rng.NormFloat64()), lo, hi)
		total := 0.0
		for k, s := range stages {
			d := resource.Vector(floats[:dims:dims])
			floats = floats[dims:]
			d[paper004CPU], d[paper004Memory] = s.cpu, s.mem
			if s.compute {
				d[paper004CPU] *= cpuF
				d[paper004Memory] *= memF
			}
			if s.bw > 0 {
				d[s.kind] = s.bw
			}
			secs := s.secs * dur
			t.Profile[k] = Stage{Duration: max(time.Millisecond, secondsToDuration(secs).Round(time.Millisecond)), Demand: d}
			secs = t.Profile[k].Duration.Seconds()
			total += secs
			for x := range st.useSec {
				st.useSec[x] += d[x] * secs
			}
		}
		for x := range st.reqSec {
			st.reqSec[x] += req[x] * total
		}
	}
	return PhaseSpec{Tasks: tasks}
}

func clamp(x, lo, hi float64) float64 { return math.Min(hi, math.Max(lo, x)) }

// assumptions lists the mix's rules and what this draw produced.
func (c *FBMixConfig) assumptions(st *fbStats) []string {
	lines := []string{"job sizes: Facebook 2009 bins (Zaharia et al., \"Job Scheduling for MapReduce\", UCB/EECS-2009-55 talk; paper 004 ref. [4]), maps log-uniform within a bin:"}
	var bins string
	for _, b := range c.bins() {
		bins += fmt.Sprintf(" %d–%d maps %.4g%%;", b.MinMaps, b.MaxMaps, 100*b.Fraction)
	}
	lines = append(lines, "  "+bins[1:len(bins)-1])
	share := c.MaxJobShare
	if share == 0 {
		share = 1
	}
	lines = append(lines,
		fmt.Sprintf("job input = (maps − 1 + U(0,1]) × %g MiB splits; jobs over %g of the %g GB total redrawn, the last cut to what is left", c.SplitMB, share, c.TotalInputGB),
		fmt.Sprintf("reduces = ⌈input × shuffle ratio / %g GiB⌉, at least 1 (none for an empty shuffle)", c.ReduceGB))
	var apps string
	for _, a := range c.apps() {
		apps += fmt.Sprintf(" %s (weight %g: map %g MB/s, reduce %g MB/s, %g cores, %g/%g GB, shuffle ×%g, output ×%g);",
			a.Name, a.Weight, a.MapMBps, a.ReduceMBps, a.ComputeCPU, a.MemGB, a.ComputeMemGB, a.ShuffleRatio, a.OutputRatio)
	}
	lines = append(lines, "applications (ours; the paper names only MapReduce and Spark):"+apps[:len(apps)-1],
		fmt.Sprintf("stages: map = read (disk %g MB/s, %g cores) → compute → spill (disk %g MB/s); reduce = shuffle (net %g MB/s) → compute → write (disk %g MB/s); I/O stages hold the I/O memory, compute stages the compute memory",
			c.ReadMBps, c.IOCPU, c.WriteMBps, c.ShuffleMBps, c.WriteMBps),
		fmt.Sprintf("per-task variation: every stage × lognormal(σ=%g); %g%% stragglers × a further Pareto(α=%g) factor, a straggler's total factor at most %g (this draw: %d stragglers, largest factor %.2f); compute CPU and memory × lognormal(σ=%g) clipped to [%.2f, %g]",
			c.Sigma, 100*c.StragglerP, c.StragglerAlpha, c.StragglerMax, st.stragglers, st.maxFactor, c.DemandSigma, 1/c.DemandCap, c.DemandCap),
		fmt.Sprintf("requests: per job and phase, CPU and memory = nominal peak × %g (demand cap) × u, u ~ U[%g, %g], CPU up to whole cores, memory up to whole GB (YARN's increments); disk and network (not part of a YARN request) = the peak stage rate, unpadded; requests always cover the true peak", c.DemandCap, c.PadMin, c.PadMax),
		fmt.Sprintf("requests vs use in this draw (Σ request × task time / Σ demand × stage time): cpu %.2f×, memory %.2f×, disk %.2f×, network %.2f× — public traces show similar gaps: a Twitter cluster reserved up to 80%% of its CPU and used under 20%%, a campus cluster requested 7,975 cores and used 4,415 (Rattihalli et al., \"Two stage cluster for resource optimization with Apache Mesos\", citing Delimitrou & Kozyrakis, Quasar, ASPLOS 2014)",
			ratio(st.reqSec[0], st.useSec[0]), ratio(st.reqSec[1], st.useSec[1]), ratio(st.reqSec[2], st.useSec[2]), ratio(st.reqSec[3], st.useSec[3])),
		fmt.Sprintf("similarity key (paper 004 def. 3): Logic = application + phase, DataSize = bytes per task; all tasks of a job's phase share it; drawn: %d jobs, %d maps, %d reduces, %.1f GB input", st.jobs, st.maps, st.reduces, st.input/GiB))
	if c.Window > 0 {
		lines = append(lines, fmt.Sprintf("arrivals: Poisson of rate jobs/%v (exponential gaps of mean %v/jobs), first job at 0, rounded to 1ms: the same window for every total, so a larger total is a higher load", c.Window, c.Window))
	} else {
		lines = append(lines, "arrivals: every job submitted at 0 (offline), in ID order")
	}
	return append(lines, c.Constraints.assumptions()...)
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
