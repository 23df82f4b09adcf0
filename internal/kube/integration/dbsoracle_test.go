package integration_test

import (
	"cmp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/resource"
)

// The DeadlineBudget scenarios extend the common scenario language with
// φ, budget and data sizes, and the oracle: schedkit's dbs run directly
// on the scenario the way a Hadoop JobTracker would run it — every job
// submitted, the weight update run at each tick, every node heartbeating
// once with its free slots — with no Kubernetes code and no podjob
// translation in between.

// dbsJob is a job of a DeadlineBudget scenario.
type dbsJob struct {
	jobSpec
	phi        float64
	budget     float64
	sizes      string // schedkit.io/data-sizes
	input, red int64  // what sizes says, for the oracle
	noDeadline bool
	// malformed annotations (override the good ones; "" deletes) and the
	// status PreEnqueue must give: such a job never reaches dbs.
	bad     map[string]string
	wantMsg string
	// refused: dbs refuses it at Submit (its PreEnqueue message contains
	// wantMsg too).
	refused bool
}

type dbsScenario struct {
	name  string
	nodes []nodeSpec
	jobs  []dbsJob
	plain int
}

// scenario renders the DeadlineBudget annotations into the common
// language (jobSpec.bad overrides annotations).
func (ds *dbsScenario) scenario() *scenario {
	sc := &scenario{name: ds.name, nodes: ds.nodes, plain: ds.plain}
	for _, dj := range ds.jobs {
		js := dj.jobSpec
		ann := map[string]string{podjob.AnnotationPhi: strconv.FormatFloat(dj.phi, 'g', -1, 64)}
		if dj.budget > 0 {
			ann[podjob.AnnotationBudget] = strconv.FormatFloat(dj.budget, 'g', -1, 64)
		}
		if dj.sizes != "" {
			ann[podjob.AnnotationDataSizes] = dj.sizes
		}
		if dj.noDeadline {
			ann[podjob.AnnotationRelativeDeadline] = ""
		}
		for k, v := range dj.bad {
			ann[k] = v
		}
		js.bad = ann
		sc.jobs = append(sc.jobs, js)
	}
	return sc
}

// oDBSJob is the oracle's dbs.Job.
type oDBSJob struct {
	oJob
	phi, budget float64
	input, red  int64
	price       float64 // its φ's queue's price (no move before the last tick)
	runs        []taskSpec
	at          *time.Time // the time CostSoFar charges up to
}

func (j *oDBSJob) Budget() float64           { return j.budget }
func (j *oDBSJob) Phi() float64              { return j.phi }
func (j *oDBSJob) DataSizes() (int64, int64) { return j.input, j.red }

// CostSoFar: every finished or running task's slot-seconds at the job's
// queue's price.
func (j *oDBSJob) CostSoFar() float64 {
	c := 0.0
	for _, d := range j.runs {
		start := j.sub.Add(d.start)
		end := start.Add(d.dur)
		if d.dur == 0 {
			end = *j.at
		}
		c += end.Sub(start).Seconds() * j.price
	}
	return c
}

// dbsExpectation is what dbs decides for a scenario.
type dbsExpectation struct {
	// queue is dbs.Queue after the last tick; first the Queue after the
	// first tick.
	queue, first []assignment
	// assigned are the heartbeats' assignments per slot kind, in order.
	assigned [2][]assignment
	// moves are the promotions and demotions of the ticks, by job name.
	moves   map[string]dbs.Decision
	refused []string
}

// dbsOracle runs dbs on the scenario: submit every well-formed job at
// now in the plugin's order (by ID), tick at each of ticks (the first is
// now), then — with the extra node added, if any — read Queue and let
// every node with free slots heartbeat once (only the extra node, if
// given: the others are full by construction).
func dbsOracle(t *testing.T, ds *dbsScenario, ticks []time.Time, extra *nodeSpec) dbsExpectation {
	t.Helper()
	space, err := resource.NewSpace(resource.MapSlot, resource.ReduceSlot)
	if err != nil {
		t.Fatal(err)
	}
	cl := &oCluster{space: space, cap: space.Zero()}
	byName := map[string]*oNode{}
	addNode := func(n nodeSpec) {
		nd := &oNode{id: schedkit.NodeID(n.name), cap: resource.Vector{float64(n.maps), float64(n.reduces)}}
		nd.avail = nd.cap.Clone()
		cl.nodes = append(cl.nodes, nd)
		byName[n.name] = nd
		cl.cap[0] += nd.cap[0]
		cl.cap[1] += nd.cap[1]
	}
	for _, n := range ds.nodes {
		if !n.cordoned {
			addNode(n)
		}
	}
	sched, err := dbs.New(dbs.Config{Cluster: cl, Interval: 500 * time.Millisecond, DefaultTaskTime: 20 * sec, TransferRate: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	at := now
	exp := dbsExpectation{moves: map[string]dbs.Decision{}}
	names := map[schedkit.JobID]string{}
	specs := slices.Clone(ds.jobs)
	slices.SortFunc(specs, func(a, b dbsJob) int { return cmp.Compare(jobID(a.jobSpec), jobID(b.jobSpec)) })
	for _, dj := range specs {
		if dj.bad != nil {
			continue // malformed: never reaches dbs
		}
		js := dj.jobSpec
		var pr [2]schedkit.PhaseProgress
		for _, d := range js.done {
			p := &pr[b2i(d.reduce)]
			p.Total++
			if d.dur > 0 {
				p.Finished++
				p.FinishedDurationSum += d.dur
			} else {
				p.Running++
				p.RunningStartSum += d.start
				if n := byName[d.node]; n != nil {
					n.avail[b2i(d.reduce)]--
				}
			}
		}
		pr[0].Total += js.maps
		pr[0].Ready += js.maps
		pr[1].Total += js.reduces
		pr[1].Ready += js.reduces - js.gated
		if js.declared != nil {
			pr[0].Total, pr[1].Total = js.declared[0], js.declared[1]
		}
		q, _ := dbs.QueueFor(dj.phi)
		j := &oDBSJob{oJob: oJob{id: jobID(js), sub: now.Add(-js.submitted), progress: pr[:1]},
			phi: dj.phi, budget: dj.budget, input: dj.input, red: dj.red, price: dbs.DefaultQueues[q].Price, runs: js.done, at: &at}
		if !dj.noDeadline {
			j.dl = j.sub.Add(js.deadline)
		}
		if pr[1].Total > 0 {
			j.progress = pr[:]
		}
		names[j.id] = js.name
		if err := sched.Submit(now, j); err != nil {
			exp.refused = append(exp.refused, js.name)
		}
	}
	for i, tk := range ticks {
		at = tk
		ds, err := sched.Tick(tk, nil)
		if err != nil {
			t.Fatalf("oracle tick: %v", err)
		}
		for _, d := range ds {
			exp.moves[names[d.Job]] = d
		}
		if i == 0 {
			exp.first = oracleQueue(t, sched, tk, names)
		}
	}
	if extra != nil {
		for _, n := range cl.nodes {
			n.avail = space.Zero() // full by construction
		}
		addNode(*extra)
	}
	exp.queue = oracleQueue(t, sched, at, names)
	for _, n := range cl.nodes {
		decs, err := sched.Heartbeat(at, n, nil)
		if err != nil {
			t.Fatalf("oracle heartbeat of %s: %v", n.id, err)
		}
		for _, d := range decs {
			for range d.Count {
				exp.assigned[d.Phase] = append(exp.assigned[d.Phase], assignment{names[d.Job], int(d.Phase)})
			}
		}
	}
	return exp
}

// oracleQueue is dbs.Queue at now, slot by slot.
func oracleQueue(t *testing.T, sched *dbs.Scheduler, at time.Time, names map[schedkit.JobID]string) []assignment {
	t.Helper()
	picks, err := sched.Queue(at, nil)
	if err != nil {
		t.Fatalf("oracle queue: %v", err)
	}
	var out []assignment
	for _, p := range picks {
		for range p.Count {
			out = append(out, assignment{names[p.Job], int(p.Phase)})
		}
	}
	return out
}

// podNames maps assignments to the scenario's ready pods, each job's in
// rank order.
func podNames(sc *scenario, as []assignment) []string {
	next := map[string]*[2]int{}
	var out []string
	for _, a := range as {
		at := next[a.job]
		if at == nil {
			at = new([2]int)
			next[a.job] = at
		}
		out = append(out, sc.ready[a.job][a.phase][at[a.phase]])
		at[a.phase]++
	}
	return out
}
