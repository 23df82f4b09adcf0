package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// FBBin is one job-size bin of the Facebook 2009 Hadoop workload: jobs of
// MinMaps to MaxMaps map tasks (inclusive) are Fraction of all jobs.
type FBBin struct {
	MinMaps, MaxMaps int
	Fraction         float64
}

// FacebookBins returns the job-size bins Zaharia et al. published for
// Facebook's 600-node Hadoop cluster (the "Job Sizes at Facebook" table of
// "Job Scheduling for MapReduce", the RAD Lab talk of the technical report
// UCB/EECS-2009-55 that paper 004 cites as [4]; copies at
// https://docplayer.net/amp/19452532-Job-scheduling-for-mapreduce.html and
// https://paperzz.com/doc/8996171/job-scheduling-for-mapreduce):
//
//	maps        < 25   25–100   100–400   400–1600   1600–6400   > 6400
//	% of jobs    58%     18%      14%        7%         3%        0.26%
//
// The published boundaries overlap; they are read as half-open ([25, 100)
// and so on). The open last bin is closed at 25,600 maps, four times its
// lower bound like every other bin (our choice). The fractions sum to
// 100.26% as printed; generators normalise them.
func FacebookBins() []FBBin {
	return []FBBin{
		{1, 24, 0.58},
		{25, 99, 0.18},
		{100, 399, 0.14},
		{400, 1599, 0.07},
		{1600, 6399, 0.03},
		{6400, 25600, 0.0026},
	}
}

// FBApp is one application of the MapReduce/Spark mix: how fast its tasks
// work through bytes and what they demand in each stage. Rates are per
// task, uncontended. Memory is in GB, bandwidths in MB/s (the units of
// Paper004Space).
type FBApp struct {
	// Name is "<framework>/<application>", e.g. "mapreduce/wordcount";
	// task Logic is Name + "/map" or "/reduce".
	Name string
	// Weight is the application's share of jobs (normalised over the mix).
	Weight float64
	// MapMBps is the input MB a map (or first-stage Spark task) computes
	// through per second; ReduceMBps the shuffled MB a reduce computes
	// through per second.
	MapMBps, ReduceMBps float64
	// ComputeCPU is the cores a compute stage uses.
	ComputeCPU float64
	// MemGB is the memory held through I/O stages; ComputeMemGB during
	// compute stages.
	MemGB, ComputeMemGB float64
	// ShuffleRatio is map output (shuffle) bytes per input byte;
	// OutputRatio final output bytes per shuffled byte.
	ShuffleRatio, OutputRatio float64
}

// FacebookApps returns the default application mix: three MapReduce
// applications and two Spark ones, equally likely. The paper names only
// "MapReduce and Spark applications" on Wikipedia text and random data;
// the applications and their rates are ours, chosen to span CPU-bound
// (wordcount, kmeans), I/O-bound (sort, grep) and memory-heavy (Spark)
// behaviour on a 2012 2.6 GHz core.
func FacebookApps() []FBApp {
	return []FBApp{
		{Name: "mapreduce/wordcount", Weight: 1, MapMBps: 8, ReduceMBps: 20, ComputeCPU: 1, MemGB: 1, ComputeMemGB: 1.5, ShuffleRatio: 0.05, OutputRatio: 0.5},
		{Name: "mapreduce/sort", Weight: 1, MapMBps: 40, ReduceMBps: 30, ComputeCPU: 1, MemGB: 1, ComputeMemGB: 1.5, ShuffleRatio: 1, OutputRatio: 1},
		{Name: "mapreduce/grep", Weight: 1, MapMBps: 50, ReduceMBps: 50, ComputeCPU: 0.8, MemGB: 0.75, ComputeMemGB: 1, ShuffleRatio: 0.001, OutputRatio: 1},
		{Name: "spark/kmeans", Weight: 1, MapMBps: 6, ReduceMBps: 20, ComputeCPU: 1, MemGB: 2, ComputeMemGB: 3.5, ShuffleRatio: 0.01, OutputRatio: 0.1},
		{Name: "spark/pagerank", Weight: 1, MapMBps: 12, ReduceMBps: 15, ComputeCPU: 1, MemGB: 2, ComputeMemGB: 3, ShuffleRatio: 0.5, OutputRatio: 0.2},
	}
}

// FBMixConfig configures GenerateFacebookMix.
type FBMixConfig struct {
	// Name becomes Workload.Name.
	Name string
	// TotalInputGB is the sum of the jobs' input (GB = 2^30 bytes): jobs
	// are drawn until it is reached.
	TotalInputGB float64
	// MaxJobShare caps one job's input at this share of TotalInputGB
	// (jobs drawn larger are redrawn); 0 means 1.
	MaxJobShare float64
	// Bins and Apps: FacebookBins and FacebookApps when nil.
	Bins []FBBin
	Apps []FBApp
	// SplitMB is the input split per map (HDFS block), MiB.
	SplitMB float64
	// ReduceGB is the shuffle bytes per reduce task (GiB): a job has
	// ⌈shuffle/ReduceGB⌉ reduces, at least 1.
	ReduceGB float64
	// ReadMBps, WriteMBps and ShuffleMBps are a task's uncontended disk
	// read, disk write and network (shuffle fetch) rates; IOCPU the cores
	// its I/O stages use.
	ReadMBps, WriteMBps, ShuffleMBps, IOCPU float64
	// Sigma is the σ of the lognormal per-task duration factor;
	// StragglerP the probability a task is a straggler, whose factor is
	// further multiplied by a Pareto(1, StragglerAlpha) draw, the product
	// capped at StragglerMax.
	Sigma, StragglerP, StragglerAlpha, StragglerMax float64
	// DemandSigma is the σ of the lognormal per-task factor on compute
	// CPU and memory, clipped to [1/DemandCap, DemandCap].
	DemandSigma, DemandCap float64
	// PadMin and PadMax bound the per-job padding u ~ U[PadMin, PadMax]:
	// Requested CPU and memory = nominal peak × DemandCap × u, CPU
	// rounded up to whole cores and memory to whole GB (YARN's
	// increments). Disk and network bandwidth, which a YARN user does not
	// declare, are requested at the peak stage rate, unpadded (a task
	// given none would make no progress on a host that limits them).
	PadMin, PadMax float64
	// Window sets the arrival rate: submissions are a Poisson stream of
	// rate n/Window for the n jobs drawn (exponential gaps of mean
	// Window/n, the first job at 0), so that the expected submission
	// window is Window whatever the total input: a larger total is a
	// higher load, as in paper 004's online sweep. 0 submits every job
	// at time 0 (offline).
	Window time.Duration
	// Constraints fill in deadlines, budgets and φ (zero value: none).
	Constraints Constraints
}

// DefaultFBMix returns the mix behind paper 004's setups: 128 MiB splits
// (Hadoop 2's default block), 1 GiB of shuffle per reduce, tasks reading
// at 25 MB/s, writing at 25 MB/s, fetching shuffle data at 20 MB/s (a
// sixth of a 1 Gb/s link) with 0.2 cores, lognormal σ = 0.3 duration
// variation with 5% stragglers (× Pareto α = 2, at most ×5 in all), ±25% demand variation (σ = 0.15), CPU and memory requests
// padded by U[1, 1.6] on top of the 1.25 demand cap, at most a quarter of
// the input in one job.
func DefaultFBMix(totalGB float64) FBMixConfig {
	return FBMixConfig{
		Name:         fmt.Sprintf("facebook-mix-%gGB", totalGB),
		TotalInputGB: totalGB,
		MaxJobShare:  0.25,
		SplitMB:      128,
		ReduceGB:     1,
		ReadMBps:     25, WriteMBps: 25, ShuffleMBps: 20, IOCPU: 0.2,
		Sigma: 0.3, StragglerP: 0.05, StragglerAlpha: 2, StragglerMax: 5,
		DemandSigma: 0.15, DemandCap: 1.25,
		PadMin: 1, PadMax: 1.6,
	}
}

// Validate checks the configuration.
func (c *FBMixConfig) Validate() error {
	type check struct {
		field string
		ok    bool
		v     any
	}
	checks := []check{
		{"TotalInputGB", positive(c.TotalInputGB), c.TotalInputGB},
		{"MaxJobShare", c.MaxJobShare >= 0 && c.MaxJobShare <= 1, c.MaxJobShare},
		{"SplitMB", positive(c.SplitMB), c.SplitMB},
		{"ReduceGB", positive(c.ReduceGB), c.ReduceGB},
		{"ReadMBps", positive(c.ReadMBps), c.ReadMBps},
		{"WriteMBps", positive(c.WriteMBps), c.WriteMBps},
		{"ShuffleMBps", positive(c.ShuffleMBps), c.ShuffleMBps},
		{"IOCPU", nonNegative(c.IOCPU), c.IOCPU},
		{"Sigma", nonNegative(c.Sigma) && c.Sigma <= 3, c.Sigma},
		{"StragglerP", c.StragglerP >= 0 && c.StragglerP <= 1, c.StragglerP},
		{"StragglerAlpha", c.StragglerP == 0 || positive(c.StragglerAlpha), c.StragglerAlpha},
		{"StragglerMax", c.StragglerP == 0 || (c.StragglerMax >= 1 && !math.IsInf(c.StragglerMax, 0)), c.StragglerMax},
		{"DemandSigma", nonNegative(c.DemandSigma) && c.DemandSigma <= 3, c.DemandSigma},
		{"DemandCap", c.DemandCap >= 1 && !math.IsInf(c.DemandCap, 0), c.DemandCap},
		{"PadMin", c.PadMin >= 1 && !math.IsInf(c.PadMin, 0), c.PadMin},
		{"PadMax", c.PadMax >= c.PadMin && !math.IsInf(c.PadMax, 0), c.PadMax},
		{"Window", c.Window >= 0 && c.Window < maxDuration, c.Window},
	}
	for _, k := range checks {
		if !k.ok {
			return configErr("FBMixConfig."+k.field, ErrRange, "%v is out of range", k.v)
		}
	}
	if c.TotalInputGB > 1<<20 {
		return configErr("FBMixConfig.TotalInputGB", ErrRange, "%v GB is more than the 1 PB limit", c.TotalInputGB)
	}
	sum := 0.0
	for i, b := range c.bins() {
		if b.MinMaps < 1 || b.MaxMaps < b.MinMaps || b.MaxMaps > DefaultMaxTasksPerJob || !nonNegative(b.Fraction) {
			return configErr(fmt.Sprintf("FBMixConfig.Bins[%d]", i), ErrRange, "%+v: need 1 ≤ MinMaps ≤ MaxMaps ≤ %d, Fraction ≥ 0", b, DefaultMaxTasksPerJob)
		}
		sum += b.Fraction
	}
	if !positive(sum) {
		return configErr("FBMixConfig.Bins", ErrRange, "fractions sum to %v", sum)
	}
	sum = 0
	for i, a := range c.apps() {
		ok := a.Name != "" && nonNegative(a.Weight) && positive(a.MapMBps) && positive(a.ReduceMBps) &&
			positive(a.ComputeCPU) && positive(a.MemGB) && a.ComputeMemGB >= a.MemGB && !math.IsInf(a.ComputeMemGB, 0) &&
			nonNegative(a.ShuffleRatio) && a.ShuffleRatio <= 10 && nonNegative(a.OutputRatio) && a.OutputRatio <= 10
		if !ok {
			return configErr(fmt.Sprintf("FBMixConfig.Apps[%d]", i), ErrRange, "%+v: need a name, positive rates, CPU and memory (compute ≥ I/O memory), ratios in [0, 10]", a)
		}
		sum += a.Weight
	}
	if !positive(sum) {
		return configErr("FBMixConfig.Apps", ErrRange, "weights sum to %v", sum)
	}
	return c.Constraints.Validate()
}

func (c *FBMixConfig) bins() []FBBin {
	if c.Bins == nil {
		return FacebookBins()
	}
	return c.Bins
}

func (c *FBMixConfig) apps() []FBApp {
	if c.Apps == nil {
		return FacebookApps()
	}
	return c.Apps
}

// GenerateFacebookMix draws MapReduce and Spark jobs whose sizes follow the
// Facebook bins until their input reaches TotalInputGB, in Paper004Space.
// Per job, in order: the bin (by Fraction), the map count (log-uniform in
// the bin), the input ((maps − 1 + U(0, 1]) × SplitMB, redrawn if over
// MaxJobShare of the total, cut to what is left for the last job), the
// application (by Weight), the padding u; then each task's variation,
// and the job's constraints. Jobs are "fb-<n>" from 1, class =
// application name; submissions are all 0 (Window 0) or, drawn after
// every job, a Poisson stream from 0 (see Window).
//
// Task stages (true profile; demands in cores, GB, MB/s):
//
//	map:    read (IOCPU, MemGB, disk ReadMBps)  → compute (ComputeCPU, ComputeMemGB)
//	        → spill (IOCPU, MemGB, disk WriteMBps; map output, omitted when empty)
//	reduce: shuffle (IOCPU, MemGB, net ShuffleMBps) → compute (ComputeCPU, ComputeMemGB)
//	        → write (IOCPU, MemGB, disk WriteMBps; omitted when empty)
//
// Stage time = bytes / rate, every stage of a task × its duration factor
// (lognormal σ, stragglers); compute CPU and memory × a clipped lognormal
// demand factor. All maps of a job read the same bytes, as do all its
// reduces, so they share a similarity key (Logic, DataSize). Requested
// (one per phase of a job, as a YARN user declares one container size) is
// the phase's nominal CPU and memory peak × DemandCap × u and its peak
// bandwidths, so it always covers the true peak.
func GenerateFacebookMix(c FBMixConfig, rng *rand.Rand) (Workload, error) {
	if err := c.Validate(); err != nil {
		return Workload{}, err
	}
	if rng == nil {
		return Workload{}, configErr("rng", ErrConfig, "nil *rand.Rand")
	}
	space := Paper004Space()
	bins, apps := c.bins(), c.apps()
	binSum, appSum := 0.0, 0.0
	for _, b := range bins {
		binSum += b.Fraction
	}
	for _, a := range apps {
		appSum += a.Weight
	}
	split := c.SplitMB * MiB
	total := c.TotalInputGB * GiB
	limit := total
	if c.MaxJobShare > 0 {
		limit = c.MaxJobShare * total
	}
	w := Workload{Name: c.Name}
	var t float64 // seconds, submission clock
	st := &fbStats{}
	for left := total; left > 0.5; {
		var maps int
		var input float64
		for try := 0; ; try++ {
			b := bins[pick(rng, binSum, len(bins), func(i int) float64 { return bins[i].Fraction })]
			lo, hi := math.Log(float64(b.MinMaps)), math.Log(float64(b.MaxMaps)+1)
			maps = min(b.MaxMaps, int(math.Exp(lo+(hi-lo)*rng.Float64())))
			input = (float64(maps-1) + 1 - rng.Float64()) * split
			if input <= limit || try == 1000 {
				break
			}
		}
		if input > left {
			input = left
			maps = max(1, int(math.Ceil(input/split)))
		}
		left -= input
		app := apps[pick(rng, appSum, len(apps), func(i int) float64 { return apps[i].Weight })]
		pad := c.PadMin + (c.PadMax-c.PadMin)*rng.Float64()
		j := JobSpec{ID: fmt.Sprintf("fb-%d", len(w.Jobs)+1), Class: app.Name}
		j.Phases = c.phases(space, app, maps, input, pad, rng, st)
		c.Constraints.apply(&j, false, rng)
		w.Jobs = append(w.Jobs, j)
	}
	if c.Window > 0 {
		gap := c.Window.Seconds() / float64(len(w.Jobs))
		for i := 1; i < len(w.Jobs); i++ {
			t += rng.ExpFloat64() * gap
			w.Jobs[i].Submit = secondsToDuration(t).Round(time.Millisecond)
		}
	}
	w.Assumptions = c.assumptions(st)
	return w, nil
}

// pick returns an index drawn with probability weight(i)/sum.
func pick(rng *rand.Rand, sum float64, n int, weight func(int) float64) int {
	x := rng.Float64() * sum
	for i := 0; i < n; i++ {
		if x -= weight(i); x < 0 {
			return i
		}
	}
	return n - 1
}
