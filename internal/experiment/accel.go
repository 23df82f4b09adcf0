package experiment

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/binding"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// accel is paper 001's §3 experiment (MAGMA benchmarks on a 4-node YARN
// cluster with 0, 2, 3 or 4 GPUs) with the binding package as the host's
// binding table, its options, and a 1,000-node churn run of the table.
var accel = Experiment{
	Name: "accel",
	Summary: "paper 001 §3: MAGMA LU/QR/Cholesky on Cluster4-0/2/3/4 under accelerator binding and its options, " +
		"plus a 1,000-node binding churn run; -scale < 1 drops the all-cases table and shortens the churn run",
	Run:        runAccel,
	Uses:       UsesNodes,
	SuiteScale: 0.25,
}

// accelApp is one MAGMA benchmark: one task's time on the CPU and on the
// GPU of one node at intensity 1 (paper 001 Table 2, 10,000² matrices).
type accelApp struct {
	name     string
	cpu, gpu time.Duration
}

var accelApps = []accelApp{
	{"LU", 55000 * time.Millisecond, 6200 * time.Millisecond},
	{"QR", 384100 * time.Millisecond, 23200 * time.Millisecond},
	{"Cholesky", 60500 * time.Millisecond, 7600 * time.Millisecond},
}

var (
	// accelIntensities multiply one task's compute time (paper §3.2).
	accelIntensities = []int{1, 2, 4, 8}
	// accelTransfers are the data sizes of one remote task, in MB, read
	// to the ANode and written back each.
	accelTransfers = []int{1, 5, 10, 20, 50}
	// accelWeights is the weight table of the two GPU models: gpu-A is
	// the paper's GPU (Table 2 times), gpu-B a hypothetical one twice as
	// fast.
	accelWeights = binding.WeightTable{"gpu-A": 1, "gpu-B": 2}
)

// The model's constants.
const (
	accelTasks      = 100              // independent tasks per application
	accelContainers = 4                // YARN containers per node
	accelStartup    = 15 * time.Second // application start-up before the first task
	accelLinkMBps   = 125.0            // 1 Gb/s Ethernet, each direction
	accelTableMB    = 10               // transfer size of the main tables
	accelHeartbeat  = 10 * time.Second // NodeManager heartbeat (tasks also start on completions)
)

// accelCluster is one of the paper's 4-node clusters: the GPU model of
// each node ("" for none), all in one rack.
type accelCluster struct {
	name string
	gpus [accelNodes]string
}

const accelNodes = 4

var (
	cluster40  = accelCluster{"Cluster4-0", [accelNodes]string{}}
	cluster42  = accelCluster{"Cluster4-2", [accelNodes]string{"gpu-A", "gpu-A"}}
	cluster43  = accelCluster{"Cluster4-3", [accelNodes]string{"gpu-A", "gpu-A", "gpu-A"}}
	cluster44  = accelCluster{"Cluster4-4", [accelNodes]string{"gpu-A", "gpu-A", "gpu-A", "gpu-A"}}
	cluster42h = accelCluster{"Cluster4-2h", [accelNodes]string{"gpu-A", "gpu-B"}}
	cluster43h = accelCluster{"Cluster4-3h", [accelNodes]string{"gpu-A", "gpu-A", "gpu-B"}}
)

// capacity is the cluster's GPU capacity in gpu-A units.
func (c accelCluster) capacity() float64 {
	w := 0.0
	for _, m := range c.gpus {
		if m != "" {
			w += accelWeights[m]
		}
	}
	return w
}

// accelOption is a binding configuration under test and how tasks reach
// containers.
type accelOption struct {
	name string
	cfg  binding.Config
	pull bool
}

var (
	optPaper      = accelOption{name: "paper"}
	optRebalance  = accelOption{name: "rebalance", cfg: binding.Config{Rebalance: true}}
	optWeighted   = accelOption{name: "weighted", cfg: binding.Config{Weighted: true, Weights: accelWeights}}
	optContainers = accelOption{name: "containers", cfg: binding.Config{Containers: true}}
	optWC         = accelOption{name: "weighted+containers", cfg: binding.Config{Weighted: true, Weights: accelWeights, Containers: true}}
	optPull       = accelOption{name: "paper, tasks pulled", pull: true}
	accelOptions  = []accelOption{optPaper, optRebalance, optWeighted, optContainers, optWC, optPull}
)

// accelKey names one simulation: application, intensity, transfer size
// (0 where nothing is transferred), cluster and option.
type accelKey struct {
	app, intensity, mb int
	cluster            string
	option             string
}

// String names the case's setup: "LU/Cluster4-3/x1/10MB".
func (k accelKey) String() string {
	return fmt.Sprintf("%s/%s/x%d/%dMB", accelApps[k.app].name, k.cluster, k.intensity, k.mb)
}

// accelCase is one simulation to run.
type accelCase struct {
	key     accelKey
	cluster accelCluster
	option  accelOption
}

// accelModel holds the resource space and the true task profiles of one
// simulation. It is immutable once built, so Config.Profile may read it
// from any goroutine.
type accelModel struct {
	// kind indices
	container, cpu, gpu, nicTx, nicRx, accRx, accTx int
	accel                                           bool
	cpuProfile                                      []workload.Stage
	local, remote                                   map[float64][]workload.Stage
}

// accelSpace is the simulated resource space: YARN containers
// (incompressible), the node's CPU and GPU time-shared by processor
// sharing, the node's NIC each way, and the ANode's NIC each way as its
// bound nodes see it (offloaded like the GPU).
func accelSpace() (*resource.Space, error) {
	return resource.NewSpace(
		resource.Kind{Name: "container", Unit: "containers", Integral: true},
		resource.Kind{Name: "cpu", Unit: "node", Compressible: true},
		resource.Kind{Name: "gpu", Unit: "devices", Compressible: true},
		resource.Kind{Name: "nic-tx", Unit: "1 Gb/s", Compressible: true},
		resource.Kind{Name: "nic-rx", Unit: "1 Gb/s", Compressible: true},
		resource.Kind{Name: "acc-rx", Unit: "1 Gb/s", Compressible: true},
		resource.Kind{Name: "acc-tx", Unit: "1 Gb/s", Compressible: true},
	)
}

func newAccelModel(space *resource.Space, app accelApp, intensity, mb int, accel bool) *accelModel {
	m := &accelModel{accel: accel, local: map[float64][]workload.Stage{}, remote: map[float64][]workload.Stage{}}
	m.container, _ = space.Index("container")
	m.cpu, _ = space.Index("cpu")
	m.gpu, _ = space.Index("gpu")
	m.nicTx, _ = space.Index("nic-tx")
	m.nicRx, _ = space.Index("nic-rx")
	m.accRx, _ = space.Index("acc-rx")
	m.accTx, _ = space.Index("acc-tx")
	vec := func(kinds ...int) resource.Vector {
		v := space.Zero()
		v[m.container] = 1
		for _, k := range kinds {
			v[k] = 1
		}
		return v
	}
	k := time.Duration(intensity)
	m.cpuProfile = []workload.Stage{{Duration: k * app.cpu, Demand: vec(m.cpu)}}
	xfer := time.Duration(float64(mb) / accelLinkMBps * float64(time.Second))
	for _, w := range accelWeights {
		gpu := time.Duration(float64(k*app.gpu) / w)
		m.local[w] = []workload.Stage{{Duration: gpu, Demand: vec(m.gpu)}}
		m.remote[w] = []workload.Stage{
			{Duration: xfer, Demand: vec(m.nicTx, m.accRx)},
			{Duration: gpu, Demand: vec(m.gpu)},
			{Duration: xfer, Demand: vec(m.accTx, m.nicRx)},
		}
	}
	return m
}

// profile is Config.Profile: the CPU profile without accelerators; a
// remote read, GPU and remote write on the ANode serving the task (its
// GPU's weight scaling the GPU stage); the GPU stage alone for a task on
// an ANode.
func (m *accelModel) profile(t *sim.Task, n *sim.Node) []workload.Stage {
	if !m.accel {
		return m.cpuProfile
	}
	if h := t.Host(); h != nil && len(h.Accelerators()) > 0 {
		return m.remote[accelWeights.Weight(h.Accelerators()[0])]
	}
	if a := n.Accelerators(); len(a) > 0 {
		return m.local[accelWeights.Weight(a[0])]
	}
	return m.cpuProfile
}

// accelSimCase builds the simulation of one case: a grid of its one
// setup (named after the case) and its option's column.
func accelSimCase(space *resource.Space, c accelCase, seed uint64) Grid {
	app := accelApps[c.key.app]
	accel := c.cluster.capacity() > 0
	m := newAccelModel(space, app, c.key.intensity, c.key.mb, accel)
	nodes := make([]sim.NodeSpec, accelNodes)
	events := make([]sim.NodeEvent, accelNodes)
	for i, model := range c.cluster.gpus {
		capv := space.Zero()
		capv[m.container], capv[m.cpu], capv[m.nicTx], capv[m.nicRx] = accelContainers, 1, 1, 1
		var devs []schedkit.AcceleratorInfo
		if model != "" {
			capv[m.gpu], capv[m.accRx], capv[m.accTx] = 1, 1, 1
			devs = []schedkit.AcceleratorInfo{{ID: "gpu0", Kind: schedkit.AcceleratorGPU, Model: model, Weight: accelWeights[model], Healthy: true}}
		}
		// Nodes register at the end of the application's start-up, in
		// node order, so that every container starts its first task then.
		nodes[i] = sim.NodeSpec{ID: schedkit.NodeID(fmt.Sprintf("node%d", i)), Rack: "rack0", Capacity: capv, Accelerators: devs, Down: true}
		events[i] = sim.NodeEvent{At: accelStartup, Node: i, Up: true}
	}
	cfg := sim.DefaultConfig(space, nodes)
	cfg.HeartbeatInterval = accelHeartbeat
	cfg.Seed = seed
	cfg.OffloadKinds = []string{"gpu", "acc-rx", "acc-tx"}
	// A container holds a slot, not quotas: its tasks share the node's
	// CPU, NICs and the bound GPU by contention (paper 001), so the host
	// is work-conserving.
	cfg.Enforcement = sim.Shares
	cfg.NodeEvents = events
	cfg.Profile = m.profile
	job := workload.JobSpec{ID: fmt.Sprintf("%s-x%d", app.name, c.key.intensity), Class: app.name}
	tasks := make([]workload.TaskSpec, accelTasks)
	req := space.Zero()
	req[m.container] = 1
	for i := range tasks {
		tasks[i] = workload.TaskSpec{Logic: app.name, DataSize: int64(c.key.mb) << 20, Requested: req,
			Profile: m.cpuProfile, Locations: []int{i % accelNodes}}
	}
	job.Phases = []workload.PhaseSpec{{Tasks: tasks}}
	w := &workload.Workload{Name: fmt.Sprintf("%s %s", c.cluster.name, job.ID), Jobs: []workload.JobSpec{job}}
	pc := policy.AccelConfig{Name: c.option.name, Binding: c.option.cfg, Accel: accel, Pull: c.option.pull, Containers: accelContainers}
	pol := Policy{Name: c.option.name, New: func(Env) (sim.Policy, error) { return policy.NewAccel(pc, accelNodes) }}
	return Grid{Setups: []Setup{{Name: c.key.String(), Config: cfg, Workload: w}}, Columns: []Column{{Name: c.option.name, Policy: pol}}}
}

// accelPlan collects the cases the tables need, without repeats.
type accelPlan struct {
	cases []accelCase
	index map[accelKey]int
}

func (p *accelPlan) need(app, intensity, mb int, cl accelCluster, opt accelOption) accelKey {
	if cl.capacity() == 0 || cl == cluster44 {
		mb, opt = 0, optPaper // nothing is transferred or bound
	}
	k := accelKey{app: app, intensity: intensity, mb: mb, cluster: cl.name, option: opt.name}
	if _, ok := p.index[k]; !ok {
		p.index[k] = len(p.cases)
		p.cases = append(p.cases, accelCase{key: k, cluster: cl, option: opt})
	}
	return k
}

// accelResults are the makespans of the cases, by key.
type accelResults map[accelKey]time.Duration

func (r accelResults) speedup(app, intensity, mb int, cl accelCluster, opt accelOption) string {
	if cl.capacity() == 0 || cl == cluster44 {
		mb, opt = 0, optPaper
	}
	base := r[accelKey{app: app, intensity: intensity, cluster: cluster40.name, option: optPaper.name}]
	got := r[accelKey{app: app, intensity: intensity, mb: mb, cluster: cl.name, option: opt.name}]
	if got <= 0 {
		return metrics.NA
	}
	return fmt.Sprintf("%.2f", base.Seconds()/got.Seconds())
}

// idealSpeedup is the speedup if the GPU work spread in proportion to
// GPU capacity and transfers cost nothing.
func idealSpeedup(app, intensity int, cl accelCluster) string {
	a := accelApps[app]
	k := float64(intensity)
	cpu := accelStartup.Seconds() + k*a.cpu.Seconds()*accelTasks/accelNodes
	gpu := accelStartup.Seconds() + k*a.gpu.Seconds()*accelTasks/cl.capacity()
	return fmt.Sprintf("%.2f", cpu/gpu)
}

func runAccel(p Params) (Result, error) {
	if err := p.normalize(); err != nil {
		return Result{}, err
	}
	space, err := accelSpace()
	if err != nil {
		return Result{}, paramErr("%w", err)
	}
	full := p.Scale >= 1
	plan := &accelPlan{index: map[accelKey]int{}}
	for a := range accelApps {
		for _, k := range accelIntensities {
			plan.need(a, k, 0, cluster40, optPaper)
			plan.need(a, k, 0, cluster44, optPaper)
			plan.need(a, k, accelTableMB, cluster42, optPaper)
			plan.need(a, k, accelTableMB, cluster43, optPaper)
		}
		for _, mb := range accelTransfers {
			plan.need(a, 1, mb, cluster42, optPaper)
			plan.need(a, 1, mb, cluster43, optPaper)
		}
	}
	for _, cl := range optionClusters {
		for _, o := range accelOptions {
			plan.need(0, 1, accelTableMB, cl, o)
		}
	}
	if full {
		for a := range accelApps {
			for _, k := range accelIntensities {
				for _, mb := range accelTransfers {
					for _, col := range allCasesColumns {
						plan.need(a, k, mb, col.cluster, col.option)
					}
				}
			}
		}
	}
	grids := make([]Grid, len(plan.cases))
	for i, c := range plan.cases {
		grids[i] = accelSimCase(space, c, p.Seed)
	}
	cells, err := RunGrids(p, "accel", grids...)
	if err != nil {
		return Result{}, err
	}
	res := accelResults{}
	for _, c := range plan.cases {
		j := cells.Get(c.key.String(), c.option.name).Run.Jobs[0]
		if j.Outcome != sim.Completed {
			return Result{}, runErr("accel/"+c.key.String(), fmt.Errorf("job %v", j.Outcome))
		}
		res[c.key] = j.Finish - j.Submit
	}
	out := Result{Experiment: "accel", Title: "paper 001 §3: accelerator binding on 4-node clusters, and a 1,000-node churn run"}
	out.Tables = append(out.Tables, paperTable(res), transferTable(res), optionsTable(res))
	if full {
		out.Tables = append(out.Tables, allCasesTable(res))
	}
	fc := defaultFleet(p)
	ft, flines, err := fleetTable(fc, p.Seed)
	if err != nil {
		return Result{}, err
	}
	out.Tables = append(out.Tables, ft)
	out.Assumptions = append(accelAssumptions(len(plan.cases), p.Seed), flines...)
	out.Cells = cells
	return out, nil
}

var optionClusters = []accelCluster{cluster42, cluster43, cluster42h, cluster43h}

func appLabel(a, k int) string { return fmt.Sprintf("%s ×%d", accelApps[a].name, k) }

func paperTable(r accelResults) metrics.Table {
	t := metrics.Table{
		Title:   fmt.Sprintf("paper 001 §3: speedup over Cluster4-0 (paper binding, tasks dealt to each node's %d containers, %d MB each way)", accelContainers, accelTableMB),
		Columns: []string{"Cluster4-0 time", "Cluster4-2", "Cluster4-3", "Cluster4-4", "4-3 ÷ 4-2"},
		Notes: []string{
			"paper (Fig. 5; its values are not in the text): Cluster4-2 and 4-4 speed up in proportion to their GPUs, Cluster4-3's curve lies on Cluster4-2's; one node's GPU speedup is 8.9 (LU), 16.6 (QR), 8.0 (Cholesky)",
		},
	}
	for a := range accelApps {
		for _, k := range accelIntensities {
			base := r[accelKey{app: a, intensity: k, cluster: cluster40.name, option: optPaper.name}]
			s2 := r[accelKey{app: a, intensity: k, mb: accelTableMB, cluster: cluster42.name, option: optPaper.name}]
			s3 := r[accelKey{app: a, intensity: k, mb: accelTableMB, cluster: cluster43.name, option: optPaper.name}]
			t.Rows = append(t.Rows, metrics.Row{Name: appLabel(a, k), Cells: []string{
				fmt.Sprintf("%.0fs", base.Seconds()),
				r.speedup(a, k, accelTableMB, cluster42, optPaper),
				r.speedup(a, k, accelTableMB, cluster43, optPaper),
				r.speedup(a, k, 0, cluster44, optPaper),
				fmt.Sprintf("%.3f", s2.Seconds()/s3.Seconds()),
			}})
		}
	}
	return t
}

func transferTable(r accelResults) metrics.Table {
	t := metrics.Table{Title: "transfer size per task (each way, 1 Gb/s): speedup over Cluster4-0 at intensity ×1, paper binding"}
	for a := range accelApps {
		t.Columns = append(t.Columns, accelApps[a].name+" 4-2", accelApps[a].name+" 4-3")
	}
	for _, mb := range accelTransfers {
		row := metrics.Row{Name: fmt.Sprintf("%d MB", mb)}
		for a := range accelApps {
			row.Cells = append(row.Cells, r.speedup(a, 1, mb, cluster42, optPaper), r.speedup(a, 1, mb, cluster43, optPaper))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func optionsTable(r accelResults) metrics.Table {
	t := metrics.Table{
		Title: fmt.Sprintf("binding options: speedup over Cluster4-0, LU ×1, %d MB (h: node1's GPU in 4-2h, node2's in 4-3h is gpu-B, 2× faster, weight 2)", accelTableMB),
		Notes: []string{
			"tasks pulled: a free container takes the application's next task (dynamic dispatch) instead of the tasks dealt to it",
			"ideal: GPU work in proportion to GPU capacity, transfers free",
		},
	}
	for _, cl := range optionClusters {
		t.Columns = append(t.Columns, cl.name)
	}
	for _, o := range accelOptions {
		row := metrics.Row{Name: o.name}
		for _, cl := range optionClusters {
			row.Cells = append(row.Cells, r.speedup(0, 1, accelTableMB, cl, o))
		}
		t.Rows = append(t.Rows, row)
	}
	row := metrics.Row{Name: "ideal"}
	for _, cl := range optionClusters {
		row.Cells = append(row.Cells, idealSpeedup(0, 1, cl))
	}
	t.Rows = append(t.Rows, row)
	return t
}

// allCasesColumns are the columns of the all-cases table.
var allCasesColumns = []struct {
	name    string
	cluster accelCluster
	option  accelOption
}{
	{"4-2", cluster42, optPaper},
	{"4-3", cluster43, optPaper},
	{"4-4", cluster44, optPaper},
	{"4-3 containers", cluster43, optContainers},
	{"4-3 pulled", cluster43, optPull},
	{"4-2h", cluster42h, optPaper},
	{"4-2h weighted", cluster42h, optWeighted},
	{"4-2h w+c", cluster42h, optWC},
	{"4-3h", cluster43h, optPaper},
	{"4-3h weighted", cluster43h, optWeighted},
	{"4-3h w+c", cluster43h, optWC},
}

func allCasesTable(r accelResults) metrics.Table {
	t := metrics.Table{
		Title:   "all cases: speedup over Cluster4-0 (w+c: weighted+containers; pulled: paper binding, dynamic dispatch)",
		Columns: []string{"Cluster4-0 time"},
	}
	for _, c := range allCasesColumns {
		t.Columns = append(t.Columns, c.name)
	}
	for a := range accelApps {
		for _, k := range accelIntensities {
			base := r[accelKey{app: a, intensity: k, cluster: cluster40.name, option: optPaper.name}]
			for _, mb := range accelTransfers {
				row := metrics.Row{Name: fmt.Sprintf("%s %d MB", appLabel(a, k), mb), Cells: []string{fmt.Sprintf("%.0fs", base.Seconds())}}
				for _, c := range allCasesColumns {
					row.Cells = append(row.Cells, r.speedup(a, k, mb, c.cluster, c.option))
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

func accelAssumptions(cases int, seed uint64) []string {
	return []string{
		fmt.Sprintf("paper 001 §3: %d nodes in one rack, %d YARN containers each; an application is %d independent tasks, dealt in order to the nodes in turn and on each node to its containers in turn (task i: node i mod 4, container ⌊i/4⌋ mod 4); each container runs its tasks one after the other",
			accelNodes, accelContainers, accelTasks),
		"one task (paper Table 2, 10,000² matrices): LU 55.0 s CPU / 6.2 s GPU, QR 384.1 / 23.2, Cholesky 60.5 / 7.6; intensity ×k multiplies both times (the paper's \"single-task intensity\")",
		fmt.Sprintf("application start-up (ApplicationMaster and container launch): %v before the first task, in every cluster (the paper's \"cluster start-up time\")", accelStartup),
		"Cluster4-0 runs every task on its own node's CPU, time-shared by the node's running tasks (processor sharing: the CPU time above is one node's); with GPUs every task is an accelerator task",
		"an ANode's own tasks use its GPU directly; an NNode's task reads its data to the ANode its node (or, with containers, its container) is bound to, runs on that GPU and writes the result back (the AcCt's remote read → process → remote write)",
		fmt.Sprintf("network: 1 Gb/s Ethernet, %g MB/s each way per NIC; a read uses the NNode's NIC out and the ANode's NIC in, a write the reverse; each NIC direction and each GPU is shared by processor sharing among the tasks using it, so one task's transfer overlaps others' GPU work (the pipeline's overlap in fluid form)", accelLinkMBps),
		"GPU models: gpu-A has the paper's times (weight 1), gpu-B is twice as fast (weight 2, its GPU stage takes half); Weighted reads these weights from a binding.WeightTable; a task's GPU speed is fixed by its ANode when it starts",
		"binding: a binding.Table per run, fed by node registration (in node order, at the end of start-up) and heartbeats; node-level moves are carried out as sim Bind decisions, container-level bindings pin each task to its container's ANode when it starts",
		"not modelled: the paper's speculative execution of long CPU tasks (its reason for above-single-node speedups at ×8), data staging, and the picture-clustering application",
		fmt.Sprintf("%d simulations; Cluster4-0 and 4-4 transfer nothing and are run once per application and intensity; seed %d (the runs are deterministic; the seed only permutes heartbeat order)", cases, seed),
	}
}
