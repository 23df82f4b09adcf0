package experiment

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
	"github.com/schedkit/schedkit/internal/metrics"
	"golang.org/x/exp/stats"
)

// fleetConfig is the generated mixed GPU/CPU cluster whose binding the
// accel experiment follows through node joins, failures, returns and GPU
// faults. The binding.Table is driven directly with the seeded event
// sequence (no task simulation); the accelerator task time it reports is
// a fluid estimate from the loads.
type fleetConfig struct {
	racks, perRack int
	extra          int           // nodes that join during the run
	gpuShare       float64       // share of nodes with GPUs
	maxGPUs        int           // GPUs per GPU node: 1..maxGPUs
	joinWindow     time.Duration // initial nodes register within it
	horizon, step  time.Duration // run length, heartbeat and sampling period
	timeout        time.Duration // binding liveness timeout
	nodeMTBF       time.Duration // mean time between a node's failures
	nodeMTTR       time.Duration // mean time until a failed node returns
	permanent      float64       // share of failures after which the node never returns
	gpuMTBF        time.Duration // mean time between one GPU's faults
	gpuMTTR        time.Duration // mean time a faulty GPU stays unhealthy
	containers     int           // containers per node
	taskTime       time.Duration // an accelerator task on a weight-1 GPU, alone
	parallel       int
}

// defaultFleet is 25 racks × 40 nodes for 24 h at scale 1 (the horizon
// scales; Params.Nodes replaces the node count, 40 per rack).
func defaultFleet(p Params) fleetConfig {
	fc := fleetConfig{
		racks: 25, perRack: 40, extra: 40,
		gpuShare: 0.2, maxGPUs: 4,
		joinWindow: 10 * time.Minute,
		horizon:    time.Duration(float64(24*time.Hour) * min(p.Scale, 1)),
		step:       time.Minute, timeout: 3 * time.Minute,
		nodeMTBF: 24 * time.Hour, nodeMTTR: 30 * time.Minute, permanent: 0.1,
		gpuMTBF: 48 * time.Hour, gpuMTTR: time.Hour,
		containers: accelContainers,
		taskTime:   accelApps[0].gpu,
		parallel:   p.Parallel,
	}
	if p.Nodes > 0 {
		fc.racks = max(1, (p.Nodes+fc.perRack-1)/fc.perRack)
		fc.extra = fc.racks * 8 / 5
	}
	fc.horizon = max(fc.horizon, time.Hour)
	return fc
}

type fleetNode struct {
	id   schedkit.NodeID
	rack int
	devs []schedkit.AcceleratorInfo
}

type fleetEventKind uint8

const (
	fleetJoin fleetEventKind = iota // registers (first time or after a failure)
	fleetFail                       // stops heartbeating
	fleetGPUDown
	fleetGPUUp
)

type fleetEvent struct {
	at   time.Duration
	node int32
	dev  int16
	kind fleetEventKind
}

// fleet is the generated cluster and its event sequence, shared read-only
// by the runs of every option.
type fleet struct {
	cfg    fleetConfig
	nodes  []fleetNode
	events []fleetEvent
	racks  []schedkit.RackID
	gpus   [2]int // gpu-A, gpu-B devices
	anodes int
}

func exp(rng *rand.Rand, mean time.Duration) time.Duration {
	return time.Duration(rng.ExpFloat64() * float64(mean))
}

// newFleet generates the cluster and its events from seed. The nodes
// (racks, GPUs) come from one random stream and the events from another,
// so the cluster does not depend on the horizon.
func newFleet(fc fleetConfig, seed uint64) *fleet {
	rng := rand.New(rand.NewPCG(seed, 0xacce1))
	erng := rand.New(rand.NewPCG(seed, 0xacce2))
	f := &fleet{cfg: fc}
	for r := 0; r < fc.racks; r++ {
		f.racks = append(f.racks, schedkit.RackID(fmt.Sprintf("rack%02d", r)))
	}
	base := fc.racks * fc.perRack
	for i := 0; i < base+fc.extra; i++ {
		fn := fleetNode{id: schedkit.NodeID(fmt.Sprintf("node%04d", i)), rack: i / fc.perRack}
		if i >= base {
			fn.rack = rng.IntN(fc.racks)
		}
		if rng.Float64() < fc.gpuShare {
			model, mi := "gpu-A", 0
			if rng.IntN(2) == 1 {
				model, mi = "gpu-B", 1
			}
			g := 1 + rng.IntN(fc.maxGPUs)
			for d := 0; d < g; d++ {
				fn.devs = append(fn.devs, schedkit.AcceleratorInfo{
					ID: schedkit.AcceleratorID(fmt.Sprintf("gpu%d", d)), Kind: schedkit.AcceleratorGPU,
					Model: model, Weight: accelWeights[model], Healthy: true,
				})
				f.gpus[mi]++
			}
			f.anodes++
		}
		f.nodes = append(f.nodes, fn)
	}
	for i := range f.nodes {
		ni := int32(i)
		join := time.Duration(erng.Int64N(int64(fc.joinWindow)))
		if i >= base {
			join = time.Hour + time.Duration(erng.Int64N(int64(fc.horizon-time.Hour)+1))
		}
		f.events = append(f.events, fleetEvent{at: join, node: ni, dev: -1, kind: fleetJoin})
		for t := join; ; {
			fail := t + exp(erng, fc.nodeMTBF)
			if fail >= fc.horizon {
				break
			}
			f.events = append(f.events, fleetEvent{at: fail, node: ni, dev: -1, kind: fleetFail})
			if erng.Float64() < fc.permanent {
				break
			}
			back := fail + exp(erng, fc.nodeMTTR)
			if back >= fc.horizon {
				break
			}
			f.events = append(f.events, fleetEvent{at: back, node: ni, dev: -1, kind: fleetJoin})
			t = back
		}
		for d := range f.nodes[i].devs {
			for t := time.Duration(0); ; {
				down := t + exp(erng, fc.gpuMTBF)
				if down >= fc.horizon {
					break
				}
				up := down + exp(erng, fc.gpuMTTR)
				f.events = append(f.events,
					fleetEvent{at: down, node: ni, dev: int16(d), kind: fleetGPUDown},
					fleetEvent{at: up, node: ni, dev: int16(d), kind: fleetGPUUp})
				t = up
			}
		}
	}
	slices.SortStableFunc(f.events, func(a, b fleetEvent) int { return cmp.Compare(a.at, b.at) })
	return f
}

// fleetStats is what one option's run measured.
type fleetStats struct {
	changes, moves, rebinds int
	unitContainers          int // containers per bound unit
	spreadSum               float64
	spreadN, spreadOver1    int
	spreadMax               int
	ratios                  []float64 // max load ÷ rack ideal, per rack-sample
	maxLoadSum              float64   // Σ over samples of the cluster's max load
	samples                 int
	waiting, nnode          float64 // container-samples unbound / of NNodes
	taskTimes               []weighted
	idealSum, idealW        float64
}

type weighted struct{ v, w float64 }

// run replays the events against a table with option cfg.
func (f *fleet) run(cfg binding.Config) (fleetStats, error) {
	fc := f.cfg
	cfg.Timeout = fc.timeout
	tab, err := binding.New(cfg)
	if err != nil {
		return fleetStats{}, paramErr("%w", err)
	}
	st := fleetStats{unitContainers: fc.containers}
	if cfg.Containers {
		st.unitContainers = 1
	}
	n := len(f.nodes)
	alive, in, dirty := make([]bool, n), make([]bool, n), make([]bool, n)
	devs := make([][]schedkit.AcceleratorInfo, n)
	index := make(map[schedkit.NodeID]int, n)
	for i := range f.nodes {
		devs[i] = slices.Clone(f.nodes[i].devs)
		index[f.nodes[i].id] = i
	}
	// reported is each node's GPU capacity as it last reported it: what a
	// node that died unnoticed still stands for in the table.
	reported := make([]float64, n)
	status := func(i int) binding.NodeStatus {
		reported[i] = capacityOf(devs[i])
		return binding.NodeStatus{ID: f.nodes[i].id, Rack: f.racks[f.nodes[i].rack], Accelerators: devs[i], Containers: fc.containers}
	}
	count := func(moves []binding.Move) {
		st.moves += len(moves)
		for _, m := range moves {
			if m.From != "" && m.To != "" {
				st.rebinds++
			}
		}
	}
	var loads []binding.Load
	var wait []binding.Unit
	ev := 0
	for now := fc.step; now <= fc.horizon; now += fc.step {
		at := sim0.Add(now)
		for ; ev < len(f.events) && f.events[ev].at < now; ev++ {
			e := f.events[ev]
			i := int(e.node)
			switch e.kind {
			case fleetJoin:
				alive[i] = true
				if !in[i] {
					moves, err := tab.Add(at, status(i))
					if err != nil {
						return st, runErr("fleet", err)
					}
					in[i], dirty[i] = true, false
					st.changes++
					count(moves)
				}
			case fleetFail:
				alive[i] = false
			case fleetGPUDown, fleetGPUUp:
				devs[i][e.dev].Healthy = e.kind == fleetGPUUp
				dirty[i] = true
			}
		}
		for i := range f.nodes {
			if !alive[i] || !in[i] {
				continue
			}
			moves, err := tab.Heartbeat(at, status(i))
			if err != nil {
				return st, runErr("fleet", err)
			}
			if dirty[i] {
				dirty[i] = false
				st.changes++
			}
			count(moves)
		}
		dead, moves := tab.Expire(at)
		for _, id := range dead {
			in[index[id]] = false
		}
		st.changes += len(dead)
		count(moves)
		loads, wait = f.sample(tab, &st, reported, index, loads, wait)
	}
	return st, nil
}

// sim0 is the fleet run's time origin.
var sim0 = time.Date(2015, time.September, 22, 0, 0, 0, 0, time.UTC)

// sample records the balance of every rack at one instant.
func (f *fleet) sample(tab *binding.Table, st *fleetStats, capacity []float64, index map[schedkit.NodeID]int,
	loads []binding.Load, wait []binding.Unit) ([]binding.Load, []binding.Unit) {
	fc := f.cfg
	uc := float64(st.unitContainers)
	maxLoad := 0.0
	for _, rack := range f.racks {
		loads = tab.Loads(rack, loads[:0])
		wait = tab.Waiting(rack, wait[:0])
		st.waiting += float64(len(wait)) * uc
		st.nnode += float64(len(wait)) * uc
		if len(loads) == 0 {
			continue
		}
		lo, hi := math.MaxInt, 0
		work, capa := 0.0, 0.0
		for _, l := range loads {
			lo, hi = min(lo, l.Bound), max(hi, l.Bound)
			st.nnode += float64(l.Bound) * uc
			w := float64(fc.containers) + float64(l.Bound)*uc
			c := capacity[index[l.ANode]]
			work += w
			capa += c
		}
		st.spreadSum += float64(hi - lo)
		st.spreadN++
		st.spreadMax = max(st.spreadMax, hi-lo)
		if hi-lo > 1 {
			st.spreadOver1++
		}
		ideal := work / capa
		worst := 0.0
		for _, l := range loads {
			w := float64(fc.containers) + float64(l.Bound)*uc
			load := w / capacity[index[l.ANode]]
			worst = max(worst, load)
			st.taskTimes = append(st.taskTimes, weighted{fc.taskTime.Seconds() * load, w})
		}
		st.ratios = append(st.ratios, worst/ideal)
		st.idealSum += fc.taskTime.Seconds() * ideal * work
		st.idealW += work
		maxLoad = max(maxLoad, worst)
	}
	st.maxLoadSum += maxLoad
	st.samples++
	return loads, wait
}

// capacityOf is the summed weight of a node's healthy GPUs (its true
// capacity, whatever the binding option reads of it).
func capacityOf(devs []schedkit.AcceleratorInfo) float64 {
	c := 0.0
	for _, d := range devs {
		if d.Healthy {
			c += accelWeights.Weight(d)
		}
	}
	return c
}

// fleetSummary is one option's row values (NaN where there was nothing
// to measure).
type fleetSummary struct {
	changes, moves, rebinds, repointed float64
	spread, over1, spreadMax           float64
	ratioMean, ratioP95, maxLoad       float64
	unbound                            float64
	taskMean, taskP95, taskIdeal       float64
}

func (s *fleetStats) summarize() fleetSummary {
	per := func(x int) float64 { return float64(x) / float64(s.changes) }
	out := fleetSummary{
		changes:   float64(s.changes),
		moves:     per(s.moves),
		rebinds:   per(s.rebinds),
		repointed: per(s.rebinds * s.unitContainers),
		spread:    s.spreadSum / float64(s.spreadN),
		over1:     100 * float64(s.spreadOver1) / float64(s.spreadN),
		spreadMax: float64(s.spreadMax),
		ratioMean: meanOf(s.ratios),
		ratioP95:  p95(s.ratios),
		maxLoad:   s.maxLoadSum / float64(s.samples),
		unbound:   100 * s.waiting / s.nnode,
		taskIdeal: s.idealSum / s.idealW,
	}
	out.taskMean, out.taskP95 = weightedStats(s.taskTimes, 0.95)
	return out
}

var fleetOptions = []accelOption{
	optPaper, optRebalance, optWeighted, optContainers,
	{name: "rebalance+containers", cfg: binding.Config{Rebalance: true, Containers: true}},
	{name: "all three", cfg: binding.Config{Rebalance: true, Weighted: true, Weights: accelWeights, Containers: true}},
}

// p95 is the 95th percentile of xs by stats.Quantiles (Hyndman–Fan R-7,
// as metrics.Dist), NaN for no values.
func p95(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Quantiles(xs, 0.95)[0]
}

// meanOf is stats.Mean, NaN for no values.
func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Mean(xs)
}

func weightedStats(xs []weighted, q float64) (mean, quant float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	s := slices.Clone(xs)
	slices.SortFunc(s, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
	total, sum := 0.0, 0.0
	for _, x := range s {
		total += x.w
		sum += x.v * x.w
	}
	acc := 0.0
	quant = math.NaN()
	for _, x := range s {
		acc += x.w
		if acc >= q*total {
			quant = x.v
			break
		}
	}
	return sum / total, quant
}

// fleetTable runs every fleet option on the same generated cluster and
// event sequence and tabulates them.
func fleetTable(fc fleetConfig, seed uint64) (metrics.Table, []string, error) {
	f := newFleet(fc, seed)
	stats := make([]fleetStats, len(fleetOptions))
	err := forEach(fc.parallel, len(fleetOptions), func(i int) error {
		var err error
		stats[i], err = f.run(fleetOptions[i].cfg)
		return err
	})
	if err != nil {
		return metrics.Table{}, nil, err
	}
	nodes := len(f.nodes)
	t := metrics.Table{
		Title: fmt.Sprintf("binding a %d-node cluster (%d racks × %d + %d joining later; %d GPU nodes) over %v with nodes joining, failing, returning and GPU faults",
			nodes, fc.racks, fc.perRack, fc.extra, f.anodes, fc.horizon),
		Notes: []string{
			"a change is a node added, a node expired or a GPU health change reported; a unit is a node, or a container with containers; a rebind moves a live unit from one ANode to another",
			"stack max−min counts units; weighted options balance load per GPU weight instead, so their stacks differ in size on purpose",
			"load of an ANode: containers it serves (its own and its bound units') ÷ summed weight of its healthy GPUs; ideal: the rack's containers ÷ the rack's GPU weight",
			fmt.Sprintf("accelerator task time is a fluid estimate: every container keeps one %v (weight-1 GPU) task in flight, GPUs shared by processor sharing: %v × load", fc.taskTime, fc.taskTime),
		},
	}
	for _, o := range fleetOptions {
		t.Columns = append(t.Columns, o.name)
	}
	sums := make([]fleetSummary, len(stats))
	for i := range stats {
		sums[i] = stats[i].summarize()
	}
	rows := []struct {
		name   string
		format string
		value  func(s *fleetSummary) float64
	}{
		{"changes", "%.0f", func(s *fleetSummary) float64 { return s.changes }},
		{"moves per change (units)", "%.2f", func(s *fleetSummary) float64 { return s.moves }},
		{"rebinds per change (units)", "%.2f", func(s *fleetSummary) float64 { return s.rebinds }},
		{"containers re-pointed per change", "%.2f", func(s *fleetSummary) float64 { return s.repointed }},
		{"stack max−min per rack, mean (units)", "%.2f", func(s *fleetSummary) float64 { return s.spread }},
		{"rack-minutes with max−min > 1", "%.1f%%", func(s *fleetSummary) float64 { return s.over1 }},
		{"worst max−min (units)", "%.0f", func(s *fleetSummary) float64 { return s.spreadMax }},
		{"max load ÷ rack ideal, mean", "%.2f", func(s *fleetSummary) float64 { return s.ratioMean }},
		{"max load ÷ rack ideal, p95", "%.2f", func(s *fleetSummary) float64 { return s.ratioP95 }},
		{"max load per GPU weight, mean", "%.1f", func(s *fleetSummary) float64 { return s.maxLoad }},
		{"unbound NNode time", "%.2f%%", func(s *fleetSummary) float64 { return s.unbound }},
		{"accel task time, mean", "%.1fs", func(s *fleetSummary) float64 { return s.taskMean }},
		{"accel task time, p95", "%.1fs", func(s *fleetSummary) float64 { return s.taskP95 }},
		{"accel task time if ideal, mean", "%.1fs", func(s *fleetSummary) float64 { return s.taskIdeal }},
	}
	for _, r := range rows {
		row := metrics.Row{Name: r.name}
		for i := range sums {
			v := r.value(&sums[i])
			c := metrics.NA // no sample: no rack ever had an ANode
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				c = fmt.Sprintf(r.format, v)
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	lines := []string{
		fmt.Sprintf("churn run: binding.Table driven directly by a seeded event sequence (seed %d), no task simulation; %d racks × %d nodes plus %d nodes joining at uniform times after the first hour, into uniform racks; initial nodes register at uniform times in the first %v",
			seed, fc.racks, fc.perRack, fc.extra, fc.joinWindow),
		fmt.Sprintf("GPU mix: each node has GPUs with probability %g, 1–%d of them (uniform), all of one model, gpu-A (weight 1) or gpu-B (weight 2) with equal odds: %d GPU nodes, %d gpu-A and %d gpu-B devices; %d containers per node",
			fc.gpuShare, fc.maxGPUs, f.anodes, f.gpus[0], f.gpus[1], fc.containers),
		fmt.Sprintf("churn: a node fails after an exponential time (mean %v), never returns with probability %g, else re-registers after an exponential time (mean %v); each GPU turns unhealthy after an exponential time (mean %v) for an exponential time (mean %v)",
			fc.nodeMTBF, fc.permanent, fc.nodeMTTR, fc.gpuMTBF, fc.gpuMTTR),
		fmt.Sprintf("every %v: events due are applied (a returning node that the table still holds just resumes heartbeats), every live node heartbeats its GPU status, Expire runs with a %v timeout, then each rack is sampled",
			fc.step, fc.timeout),
	}
	return t, lines, nil
}
