package workload

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// GiB is 2^30 bytes.
const GiB = 1 << 30

// Workflow is one workflow W = (λ, D, S, M, R) of paper 000 §4.2: a
// stream of identical jobs arriving as a Poisson process.
type Workflow struct {
	// Name is the job class, e.g. "W1".
	Name string
	// Rate is λ, jobs per second (inter-arrival gaps are exponential with
	// mean 1/λ).
	Rate float64
	// Deadline is D, relative to each job's submission; 0: none.
	Deadline time.Duration
	// InputBytes is S, the input size of each job.
	InputBytes int64
	// Maps and Reduces are M and R. Maps ≥ 1; Reduces may be 0.
	Maps, Reduces int
}

// PoissonConfig configures GeneratePoisson.
type PoissonConfig struct {
	// Name becomes Workload.Name.
	Name string
	// Workflows to superpose; each has its own Poisson stream.
	Workflows []Workflow
	// Horizon: arrivals fall in (0, Horizon). 0 means no time bound (then
	// JobsPerWorkflow must be set).
	Horizon time.Duration
	// JobsPerWorkflow, if > 0, stops each workflow after that many jobs.
	JobsPerWorkflow int
	// Model turns bytes into task durations.
	Model TaskModel
	// Logic names the application; task Logic is Logic + "/map" or
	// "/reduce" (the similarity key of paper 004 with DataSize).
	Logic string
	// Shaper lays tasks into a resource Space; nil means
	// NewSlotShaper(SlotSpace()).
	Shaper Shaper
	// Constraints fill in what a workflow leaves open: deadlines for
	// workflows with D = 0, budgets, φ. Zero value: none, φ by default.
	Constraints Constraints
}

// paper000 returns the three workflows of Table 2 with the given
// deadlines. Sizes are binary (GiB, MiB): with 32 MiB splits they give
// exactly the paper's map counts 108, 39 and 20.
func paper000(name string, d1, d2, d3 time.Duration) PoissonConfig {
	return PoissonConfig{
		Name: name,
		Workflows: []Workflow{
			{Name: "W1", Rate: 1.0 / 500, Deadline: d1, InputBytes: gibibytes(3.35), Maps: 108, Reduces: 1},
			{Name: "W2", Rate: 1.0 / 300, Deadline: d2, InputBytes: gibibytes(1.21), Maps: 39, Reduces: 1},
			{Name: "W3", Rate: 1.0 / 200, Deadline: d3, InputBytes: 623 * MiB, Maps: 20, Reduces: 1},
		},
		Horizon: 2 * time.Hour,
		Model:   WordCountModel(),
		Logic:   "wordcount",
	}
}

// Paper000Light returns experiment 1 of paper 000 (Table 2): W1 = (1/500,
// 500 s, 3.35 GB, 108, 1), W2 = (1/300, 300 s, 1.21 GB, 39, 1), W3 =
// (1/200, 200 s, 623 MB, 20, 1), D = 1/λ. The paper gives no experiment
// length; we use a 2-hour horizon (about 74 jobs expected). The jobs are
// WordCount: Model is WordCountModel().
func Paper000Light() PoissonConfig {
	return paper000("paper000-light", 500*time.Second, 300*time.Second, 200*time.Second)
}

// Paper000Heavy returns experiment 2 of paper 000 (Table 2): W4–W6, the
// same workflows with tighter deadlines D = 400, 240 and 160 s (D < 1/λ).
func Paper000Heavy() PoissonConfig {
	c := paper000("paper000-heavy", 400*time.Second, 240*time.Second, 160*time.Second)
	for i := range c.Workflows {
		c.Workflows[i].Name = fmt.Sprintf("W%d", i+4)
	}
	return c
}

// Validate checks the configuration.
func (c *PoissonConfig) Validate() error {
	if len(c.Workflows) == 0 {
		return configErr("PoissonConfig.Workflows", ErrConfig, "none")
	}
	if c.Horizon < 0 {
		return configErr("PoissonConfig.Horizon", ErrRange, "negative %v", c.Horizon)
	}
	if c.JobsPerWorkflow < 0 {
		return configErr("PoissonConfig.JobsPerWorkflow", ErrRange, "negative %d", c.JobsPerWorkflow)
	}
	if c.Horizon == 0 && c.JobsPerWorkflow == 0 {
		return configErr("PoissonConfig.Horizon", ErrConfig, "need a Horizon or JobsPerWorkflow")
	}
	names := make(map[string]bool, len(c.Workflows))
	for i, w := range c.Workflows {
		f := fmt.Sprintf("PoissonConfig.Workflows[%d]", i)
		switch {
		case w.Name == "" || names[w.Name]:
			return configErr(f+".Name", ErrConfig, "empty or repeated name %q", w.Name)
		case !positive(w.Rate):
			return configErr(f+".Rate", ErrRange, "%v is not a positive finite rate", w.Rate)
		case w.Deadline < 0:
			return configErr(f+".Deadline", ErrRange, "negative %v", w.Deadline)
		case w.InputBytes < 0:
			return configErr(f+".InputBytes", ErrRange, "negative %d", w.InputBytes)
		case w.Maps < 1 || w.Maps > DefaultMaxTasksPerJob:
			return configErr(f+".Maps", ErrRange, "%d is outside [1, %d]", w.Maps, DefaultMaxTasksPerJob)
		case w.Reduces < 0 || w.Reduces > DefaultMaxTasksPerJob:
			return configErr(f+".Reduces", ErrRange, "%d is outside [0, %d]", w.Reduces, DefaultMaxTasksPerJob)
		}
		names[w.Name] = true
	}
	if err := c.Model.Validate(); err != nil {
		return err
	}
	return c.Constraints.Validate()
}

// OfferedLoad returns the expected busy fraction of the given map and
// reduce slots: Σ λ·M·E[map time] / mapSlots and Σ λ·R·E[reduce time] /
// reduceSlots, with E[·] the jitter-free durations of Model. A value at or
// above 1 is overload. It returns ok = false for an invalid configuration
// or non-positive slot counts.
func (c *PoissonConfig) OfferedLoad(mapSlots, reduceSlots int) (mapLoad, reduceLoad float64, ok bool) {
	if c.Validate() != nil || mapSlots <= 0 || reduceSlots <= 0 {
		return 0, 0, false
	}
	m := c.Model
	for _, w := range c.Workflows {
		shuffle, output := c.bytes(w)
		plans := mapReducePlans(m, w.Maps, w.Reduces, w.InputBytes, shuffle, output)
		mapLoad += w.Rate * float64(w.Maps) * max(plans[0].base, m.MinDuration).Seconds()
		if len(plans) > 1 {
			reduceLoad += w.Rate * float64(w.Reduces) * max(plans[1].base, m.MinDuration).Seconds()
		}
	}
	return mapLoad / float64(mapSlots), reduceLoad / float64(reduceSlots), true
}

// bytes returns the shuffle and output bytes the model assigns a job of w.
func (c *PoissonConfig) bytes(w Workflow) (shuffle, output int64) {
	if w.Reduces == 0 {
		return 0, clampBytes(float64(w.InputBytes) * c.Model.OutputRatio)
	}
	shuffle = clampBytes(float64(w.InputBytes) * c.Model.ShuffleRatio)
	return shuffle, clampBytes(float64(shuffle) * c.Model.OutputRatio)
}

// gibibytes returns x GiB in bytes, rounded.
func gibibytes(x float64) int64 { return int64(math.Round(x * GiB)) }

func clampBytes(x float64) int64 {
	if !(x < math.MaxInt64/2) {
		return math.MaxInt64 / 2
	}
	return int64(x)
}

// GeneratePoisson draws a workload from the configuration. Each workflow,
// in order, draws its arrival times: exponential gaps of mean 1/λ, the
// first arrival one gap after 0 (never at t = 0), rounded to the
// millisecond (at least 1 ms), until Horizon or JobsPerWorkflow. Jobs are
// then merged by submission time (ties: workflow order), named
// "<workflow>-<n>" (n from 1), and their tasks drawn in that order.
func GeneratePoisson(c PoissonConfig, rng *rand.Rand) (Workload, error) {
	if err := c.Validate(); err != nil {
		return Workload{}, err
	}
	if rng == nil {
		return Workload{}, configErr("rng", ErrConfig, "nil *rand.Rand")
	}
	shaper := c.Shaper
	if shaper == nil {
		s, err := NewSlotShaper(SlotSpace())
		if err != nil {
			return Workload{}, err
		}
		shaper = s
	}
	type arrival struct {
		at time.Duration
		wf int
		n  int
	}
	var arrivals []arrival
	for wi, w := range c.Workflows {
		t := 0.0 // seconds
		for n := 1; c.JobsPerWorkflow == 0 || n <= c.JobsPerWorkflow; n++ {
			t += rng.ExpFloat64() / w.Rate
			at := max(secondsToDuration(t).Round(time.Millisecond), time.Millisecond)
			if c.Horizon > 0 && at >= c.Horizon {
				break
			}
			if at >= maxDuration {
				return Workload{}, configErr("PoissonConfig.Horizon", ErrRange, "arrivals beyond %v: set a Horizon", maxDuration)
			}
			arrivals = append(arrivals, arrival{at: at, wf: wi, n: n})
		}
	}
	slices.SortStableFunc(arrivals, func(a, b arrival) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.wf, b.wf))
	})
	b := newTaskBuilder(shaper, c.Model, rng, c.Logic)
	w := Workload{Name: c.Name, Jobs: make([]JobSpec, 0, len(arrivals))}
	for _, a := range arrivals {
		wf := c.Workflows[a.wf]
		shuffle, output := c.bytes(wf)
		phases, err := b.build(mapReducePlans(c.Model, wf.Maps, wf.Reduces, wf.InputBytes, shuffle, output))
		if err != nil {
			return Workload{}, err
		}
		j := JobSpec{
			ID:       fmt.Sprintf("%s-%d", wf.Name, a.n),
			Class:    wf.Name,
			Submit:   a.at,
			Deadline: wf.Deadline,
			Phases:   phases,
		}
		c.Constraints.apply(&j, false, rng)
		w.Jobs = append(w.Jobs, j)
	}
	w.Assumptions = c.assumptions(shaper)
	return w, nil
}

func (c *PoissonConfig) assumptions(shaper Shaper) []string {
	horizon := "no horizon"
	if c.Horizon > 0 {
		horizon = fmt.Sprintf("arrivals in (0, %v)", c.Horizon)
	}
	if c.JobsPerWorkflow > 0 {
		horizon += fmt.Sprintf(", at most %d jobs per workflow", c.JobsPerWorkflow)
	}
	lines := []string{fmt.Sprintf("arrivals: Poisson per workflow, exponential gaps of mean 1/λ, first one gap after 0 (none at t=0), rounded to 1ms; %s", horizon)}
	for _, w := range c.Workflows {
		lines = append(lines, fmt.Sprintf("workflow %s = (λ=1/%gs, D=%v, S=%d bytes, M=%d, R=%d)", w.Name, 1/w.Rate, w.Deadline, w.InputBytes, w.Maps, w.Reduces))
	}
	lines = append(lines, "maps split the input evenly (⌈S/M⌉ bytes each); reduces split the shuffle evenly")
	lines = append(lines, c.Model.assumptions(true)...)
	lines = append(lines, shaper.Assumptions()...)
	return append(lines, c.Constraints.assumptions()...)
}
