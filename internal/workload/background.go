package workload

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// BackgroundStep sets node Node's background demand (load no scheduling
// policy controls) to Demand from time At on. It has the shape of
// sim.BackgroundStep, which an experiment copies it into (this package
// does not depend on the simulator).
type BackgroundStep struct {
	At     time.Duration
	Node   int
	Demand resource.Vector
}

// BackgroundConfig describes the foreign load of paper 004's "cloud"
// environment, where "real scientific computing applications share the
// computing resources" (§4.1) with YARN. The paper gives no figures; the
// model is ours: every node independently alternates idle and busy
// periods with exponential lengths; a busy period runs one foreign
// application whose demand is drawn uniformly per kind from [lo, hi].
type BackgroundConfig struct {
	// Nodes is the number of nodes; Horizon the time steps are drawn
	// for (the last busy period is cut at Horizon).
	Nodes   int
	Horizon time.Duration
	// MeanBusy and MeanIdle are the mean period lengths.
	MeanBusy, MeanIdle time.Duration
	// Lo and Hi bound the per-kind demand of a busy period, in
	// Paper004Space (cores, GB, MB/s, MB/s).
	Lo, Hi resource.Vector
}

// DefaultBackground returns the cloud setup's foreign load on n nodes up
// to horizon: busy periods of mean 10 minutes, idle periods of mean 5
// minutes (each node busy two thirds of the time), a busy node's foreign
// application demanding U[8, 24] cores (runnable threads, up to 1.5× the
// 16 physical cores: an MPI-style code runs one process per hardware
// thread, and these servers have 32), U[4, 12] GB, U[50, 250] MB/s of
// disk and U[20, 100] MB/s of network (checkpoint I/O, communication).
// The paper reports that the foreign load raised completion times
// "generally and greatly" (fig. 18 against fig. 13); a load that the
// baselines' reservations leave room for would not, so the foreign code
// demands half a node's CPU or more.
func DefaultBackground(n int, horizon time.Duration) BackgroundConfig {
	return BackgroundConfig{
		Nodes: n, Horizon: horizon,
		MeanBusy: 10 * time.Minute, MeanIdle: 5 * time.Minute,
		Lo: resource.Vector{8, 4, 50, 20},
		Hi: resource.Vector{24, 12, 250, 100},
	}
}

// Validate checks the configuration against Paper004Space.
func (c *BackgroundConfig) Validate() error {
	space := Paper004Space()
	switch {
	case c.Nodes <= 0 || c.Nodes > 1<<20:
		return configErr("BackgroundConfig.Nodes", ErrRange, "%d is outside [1, %d]", c.Nodes, 1<<20)
	case c.Horizon <= 0 || c.Horizon >= maxDuration:
		return configErr("BackgroundConfig.Horizon", ErrRange, "%v is outside (0, %v)", c.Horizon, maxDuration)
	case c.MeanBusy <= 0 || c.MeanIdle <= 0:
		return configErr("BackgroundConfig.MeanBusy", ErrRange, "busy %v and idle %v must be positive", c.MeanBusy, c.MeanIdle)
	case c.Horizon/c.MeanBusy > 1<<16 || c.Horizon/c.MeanIdle > 1<<16:
		return configErr("BackgroundConfig.Horizon", ErrRange, "more than %d periods per node", 1<<16)
	}
	if err := space.Validate(c.Lo); err != nil {
		return configErr("BackgroundConfig.Lo", ErrRange, "%v", err)
	}
	if err := space.Validate(c.Hi); err != nil {
		return configErr("BackgroundConfig.Hi", ErrRange, "%v", err)
	}
	for i := range c.Lo {
		if c.Lo[i] > c.Hi[i] {
			return configErr("BackgroundConfig.Lo", ErrRange, "kind %d: lo %v > hi %v", i, c.Lo[i], c.Hi[i])
		}
	}
	return nil
}

// GenerateBackground draws the steps, node by node: the node starts busy
// with probability MeanBusy/(MeanBusy+MeanIdle), then alternates; a busy
// period sets the drawn demand, its end sets zero. Steps are returned in
// time order (ties by node), all at times in [0, Horizon).
func GenerateBackground(c BackgroundConfig, rng *rand.Rand) ([]BackgroundStep, []string, error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if rng == nil {
		return nil, nil, configErr("rng", ErrConfig, "nil *rand.Rand")
	}
	dims := len(c.Lo)
	pBusy := c.MeanBusy.Seconds() / (c.MeanBusy.Seconds() + c.MeanIdle.Seconds())
	var steps []BackgroundStep
	for n := 0; n < c.Nodes; n++ {
		busy := rng.Float64() < pBusy
		var t time.Duration
		for t < c.Horizon {
			mean := c.MeanIdle
			if busy {
				mean = c.MeanBusy
				d := make(resource.Vector, dims)
				for k := range d {
					d[k] = c.Lo[k] + (c.Hi[k]-c.Lo[k])*rng.Float64()
				}
				steps = append(steps, BackgroundStep{At: t, Node: n, Demand: d})
			} else if t > 0 {
				steps = append(steps, BackgroundStep{At: t, Node: n, Demand: make(resource.Vector, dims)})
			}
			t += max(time.Millisecond, secondsToDuration(rng.ExpFloat64()*mean.Seconds()).Round(time.Millisecond))
			busy = !busy
		}
	}
	slices.SortStableFunc(steps, func(a, b BackgroundStep) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Node, b.Node))
	})
	lines := []string{
		fmt.Sprintf("cloud background (ours; the paper gives no figures): each of %d nodes alternates idle (mean %v) and busy (mean %v) periods, exponential, until %v; %d steps",
			c.Nodes, c.MeanIdle, c.MeanBusy, c.Horizon, len(steps)),
		fmt.Sprintf("a busy period's foreign demand per kind ~ U[lo, hi]: lo %v, hi %v (cores, GB, MB/s, MB/s); no policy controls it", []float64(c.Lo), []float64(c.Hi)),
	}
	return steps, lines, nil
}

// Paper004Cloud returns one workload of the cloud setup (the online
// workload of totalGB) and the foreign background load on n workers from
// time 0 to the last submission plus two hours.
func Paper004Cloud(totalGB float64, n int, rng *rand.Rand) (Workload, []BackgroundStep, error) {
	w, err := Paper004Online(totalGB, rng)
	if err != nil {
		return Workload{}, nil, err
	}
	w.Name = fmt.Sprintf("paper004-cloud-%gGB", totalGB)
	last := w.Jobs[len(w.Jobs)-1].Submit
	steps, lines, err := GenerateBackground(DefaultBackground(n, last+2*time.Hour), rng)
	if err != nil {
		return Workload{}, nil, err
	}
	w.Assumptions = append(w.Assumptions, lines...)
	return w, steps, nil
}
