package dbs_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/schedkittest"
)

// world is a tiny host: it runs the tasks dbs assigns for a fixed
// per-job task time, charges every running slot-second at the job's
// current queue price, and checks invariants after every operation.
type world struct {
	t        *testing.T
	rng      *rand.Rand
	c        *hCluster
	s        *dbs.Scheduler
	queues   [3]dbs.QueueConfig
	now      time.Time
	jobs     map[schedkit.JobID]*wJob
	order    []schedkit.JobID
	tasks    []wTask
	done     int
	noMin    bool
	minFirst bool
	early    bool // Config.EarlyReduces
	priority bool // Config.Sharing == PrioritySharing
	unknown  bool // jobs without a task time first among those below minimum (not UnknownByWeight)
	lostLast bool // jobs that cannot reach any minimum last (not LostByWeight)
	phiMoves bool
	afford   bool   // promotions affordable (not NoAffordability)
	moves    [2]int // promotions, demotions
}

type wJob struct {
	*hJob
	taskTime time.Duration
	queue    dbs.Queue
	ended    bool
}

type wTask struct {
	job   *wJob
	phase int
	node  *hNode
	start time.Time
	end   time.Time
}

func newWorld(t *testing.T, seed uint64, cfg dbs.Config) *world {
	rng := rand.New(rand.NewPCG(seed, 11))
	c := newCluster(2+rng.IntN(5), 2, 1)
	cfg.Cluster = c
	s, err := dbs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	priority := cfg.Sharing == dbs.PrioritySharing
	return &world{t: t, rng: rng, c: c, s: s, queues: s.Queues(), now: t0, jobs: map[schedkit.JobID]*wJob{}, noMin: cfg.Ablations.NoMinimumSlots,
		minFirst: cfg.MinimumFirst && !cfg.Ablations.NoMinimumSlots, phiMoves: cfg.PhiAwareMoves,
		early: cfg.Ablations.EarlyReduces, priority: priority, unknown: !cfg.Ablations.UnknownByWeight, lostLast: !cfg.Ablations.LostByWeight, afford: !cfg.Ablations.NoAffordability}
}

func (w *world) submit() {
	r := w.rng
	phi := []float64{0, 0.5, 1}[r.IntN(3)]
	id := schedkit.JobID(fmt.Sprintf("j%03d", len(w.order)))
	maps, reds := 1+r.IntN(12), r.IntN(4)
	tasks := []int{maps}
	if reds > 0 {
		tasks = append(tasks, reds)
	}
	tt := time.Duration(1+r.IntN(20)) * time.Second
	work := float64(maps+reds) * tt.Seconds()
	dl := w.now.Add(time.Duration(float64(maps+reds)*tt.Seconds()*(0.2+r.Float64())) * time.Second)
	j := &wJob{hJob: &hJob{
		Job:         schedkittest.NewJob(id, w.now, dl, tasks...),
		PhiValue:    phi,
		Money:       work * w.queues[dbs.Mid].Price * (0.5 + r.Float64()),
		ReduceInput: int64(r.IntN(1 << 20)),
	}, taskTime: tt}
	if phi == 1 && r.IntN(2) == 0 {
		j.Money = 0
	}
	if r.IntN(3) == 0 {
		j.Hint = tt
	}
	q, _ := dbs.QueueFor(phi)
	j.queue = q
	if err := w.s.Submit(w.now, j); err != nil {
		w.t.Fatalf("Submit %s: %v", id, err)
	}
	w.jobs[id] = j
	w.order = append(w.order, id)
}

// advance moves the clock by d, charging running slot-seconds and ending
// the tasks due.
func (w *world) advance(d time.Duration) {
	next := w.now.Add(d)
	slices.SortFunc(w.tasks, func(a, b wTask) int { return a.end.Compare(b.end) })
	kept := w.tasks[:0]
	for _, tk := range w.tasks {
		j := tk.job
		end := tk.end
		if end.After(next) {
			j.Paid += d.Seconds() * w.queues[j.queue].Price
			kept = append(kept, tk)
			continue
		}
		j.Paid += end.Sub(w.now).Seconds() * w.queues[j.queue].Price
		p := &j.Counters[tk.phase]
		p.Running--
		p.RunningStartSum -= tk.start.Sub(j.SubmittedAt)
		p.Finished++
		p.FinishedDurationSum += tk.end.Sub(tk.start)
		// Reduces become ready at a slow-start: once a third of the maps
		// finished (dbs, unless EarlyReduces, still waits for the last).
		if tk.phase == 0 && j.Phases() == 2 && 3*j.Counters[0].Finished >= j.Counters[0].Total {
			j.Counters[1].Ready = j.Counters[1].Total - j.Counters[1].Running - j.Counters[1].Finished
		}
		tk.node.Free[tk.phase]++
		w.endIfDone(j)
	}
	w.tasks = kept
	w.now = next
}

func (w *world) endIfDone(j *wJob) {
	for p := range j.Phases() {
		if j.Counters[p].Finished < j.Counters[p].Total {
			if err := w.s.Update(j.Key); err != nil {
				w.t.Fatalf("Update %s: %v", j.Key, err)
			}
			return
		}
	}
	j.ended = true
	w.done++
	if err := w.s.Remove(j.Key); err != nil {
		w.t.Fatalf("Remove %s: %v", j.Key, err)
	}
}

func (w *world) tick() {
	ds, err := w.s.Tick(w.now, nil)
	if err != nil {
		w.t.Fatalf("Tick: %v", err)
	}
	for _, d := range ds {
		j := w.jobs[d.Job]
		switch d.Action {
		case dbs.Promote:
			w.moves[0]++
			if w.phiMoves && j.PhiValue == 0 {
				w.t.Fatalf("PhiAwareMoves promoted a φ=0 job: %v", d)
			}
			if d.To != d.From+1 || d.From != j.queue {
				w.t.Fatalf("promotion %v of a job in %v", d, j.queue)
			}
			// Affordable: what is left at the new price fits the budget.
			if w.afford && j.Money > 0 && d.Figures.CostAtTo > j.Money-j.Paid+1e-9 {
				w.t.Fatalf("unaffordable promotion %v: cost at new price %v, budget left %v", d, d.Figures.CostAtTo, j.Money-j.Paid)
			}
			if d.Figures.Held >= d.Figures.Needed || (d.Reason != dbs.ReasonShort && d.Reason != dbs.ReasonUnmeetable) {
				w.t.Fatalf("promotion of a job not short of slots: %v (%v)", d, d.Reason)
			}
		case dbs.Demote:
			w.moves[1]++
			if w.phiMoves && j.PhiValue == 1 {
				w.t.Fatalf("PhiAwareMoves demoted a φ=1 job: %v", d)
			}
			if d.To+1 != d.From || d.From != j.queue {
				w.t.Fatalf("demotion %v of a job in %v", d, j.queue)
			}
			switch d.Reason {
			case dbs.ReasonSurplus:
				if d.Figures.Held <= d.Figures.Needed {
					w.t.Fatalf("demotion of a job without surplus: %v", d)
				}
			case dbs.ReasonBudget:
				// A job with φ < 1 that cannot reach any minimum,
				// short of what it could use.
				if st, _ := w.s.Status(d.Job); j.PhiValue == 1 || !st.Min.Unmeetable || d.Figures.Held >= d.Figures.Needed {
					w.t.Fatalf("budget demotion %v of a job with φ %v, unmeetable %v", d, j.PhiValue, st.Min.Unmeetable)
				}
			default:
				w.t.Fatalf("demotion %v with reason %v", d, d.Reason)
			}
		default:
			w.t.Fatalf("Tick returned %v", d)
		}
		if d.Price != w.queues[d.To].Price {
			w.t.Fatalf("move %v with price %v", d, d.Price)
		}
		j.queue = d.To
		if st, _ := w.s.Status(d.Job); st.Queue != d.To {
			w.t.Fatalf("status queue %v after %v", st.Queue, d)
		}
	}
}

// oracle computes, the naive way, the assignments for node's free slots:
// per slot, the queue least used against its guarantee, then the job
// below its minimum, by weight, submission, ID.
func (w *world) oracle(node *hNode) []dbs.Decision {
	type cand struct {
		st    dbs.JobStatus
		sub   time.Time
		avail [2]int
		held  [2]int
	}
	var cs []*cand
	var used [3][2]int
	for _, id := range w.order {
		j := w.jobs[id]
		if j.ended {
			continue
		}
		st, err := w.s.Status(id)
		if err != nil {
			w.t.Fatal(err)
		}
		c := &cand{st: st, sub: j.SubmittedAt, held: st.Held}
		for p := range j.Phases() {
			c.avail[p] = j.Counters[p].Ready
		}
		if !w.early && j.Counters[0].Finished < j.Counters[0].Total {
			c.avail[1] = 0 // reduces wait for the last map
		}
		used[st.Queue][0] += st.Held[0]
		used[st.Queue][1] += st.Held[1]
		cs = append(cs, c)
	}
	capv := w.c.Cap
	var out []dbs.Decision
	free := [2]int{int(node.Free[0]), int(node.Free[1])}
	for k := range 2 {
		for ; free[k] > 0; free[k]-- {
			best := -1
			var bestRatio *big.Rat
			if w.minFirst {
				// The highest queue with a job below its minimum.
				for q := 2; q >= 0 && best < 0; q-- {
					for _, c := range cs {
						m := c.st.Min.Map
						if k == 1 {
							m = c.st.Min.Reduce
						}
						if int(c.st.Queue) == q && c.avail[k] > 0 && c.held[k] < m {
							best = q
							break
						}
					}
				}
			}
			if w.priority && best < 0 {
				// The highest queue below its guarantee, else the highest
				// with work.
				first := -1
				for q := 2; q >= 0 && best < 0; q-- {
					has := false
					for _, c := range cs {
						has = has || (int(c.st.Queue) == q && c.avail[k] > 0)
					}
					if !has {
						continue
					}
					if first < 0 {
						first = q
					}
					share := int64(math.Round(w.queues[q].Share * 1e6))
					if big.NewRat(int64(used[q][k]), int64(capv[k])).Cmp(big.NewRat(share, 1e6)) < 0 {
						best = q
					}
				}
				if best < 0 {
					best = first
				}
				if best < 0 {
					break
				}
			}
			for q := 2; q >= 0 && !w.priority && (best < 0 || bestRatio != nil); q-- {
				has := false
				for _, c := range cs {
					has = has || (int(c.st.Queue) == q && c.avail[k] > 0)
				}
				if !has {
					continue
				}
				// used / (share × capacity), shares in millionths; a zero
				// share is an infinite ratio, ordered by use among zeros.
				share := int64(math.Round(w.queues[q].Share * 1e6))
				var r *big.Rat
				if share == 0 {
					r = new(big.Rat).SetInt64(1<<40 + int64(used[q][k]))
				} else {
					r = big.NewRat(int64(used[q][k])*1e6, share*int64(capv[k]))
				}
				if best < 0 || r.Cmp(bestRatio) < 0 {
					best, bestRatio = q, r
				}
			}
			if best < 0 {
				break
			}
			var pick *cand
			minOf := func(c *cand) int {
				if k == 0 {
					return c.st.Min.Map
				}
				return c.st.Min.Reduce
			}
			for _, c := range cs {
				if int(c.st.Queue) != best || c.avail[k] == 0 {
					continue
				}
				if pick == nil {
					pick = c
					continue
				}
				cb, pb := c.held[k] < minOf(c) && !w.noMin, pick.held[k] < minOf(pick) && !w.noMin
				if oracleAhead(oracleCand{c.st, c.sub, cb}, oracleCand{pick.st, pick.sub, pb}, w.unknown, w.lostLast) {
					pick = c
				}
			}
			below := pick.held[k] < minOf(pick) && !w.noMin
			pick.avail[k]--
			pick.held[k]++
			used[best][k]++
			if n := len(out); n > 0 && out[n-1].Job == pick.st.Job && int(out[n-1].Phase) == k && out[n-1].BelowMinimum == below {
				out[n-1].Count++
				continue
			}
			out = append(out, dbs.Decision{Action: dbs.Assign, Job: pick.st.Job, Phase: schedkit.Phase(k), Count: 1, BelowMinimum: below, From: pick.st.Queue})
		}
	}
	return out
}

// heartbeat runs one heartbeat of node, checks it against the naive
// oracle, applies it and returns its decisions.
func (w *world) heartbeat(node *hNode) []dbs.Decision {
	want := w.oracle(node)
	ds, err := w.s.Heartbeat(w.now, node, nil)
	if err != nil {
		w.t.Fatalf("Heartbeat: %v", err)
	}
	got := make([]dbs.Decision, len(ds))
	for i, d := range ds {
		got[i] = dbs.Decision{Action: d.Action, Job: d.Job, Phase: d.Phase, Count: d.Count, BelowMinimum: d.BelowMinimum, From: d.From}
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		w.t.Fatalf("at %v on %s: decisions differ from the naive oracle (-oracle +dbs):\n%s", w.now.Sub(t0), node.Key, diff)
	}
	touched := map[schedkit.JobID]bool{}
	for _, d := range ds {
		j := w.jobs[d.Job]
		p := &j.Counters[d.Phase]
		if d.Count > p.Ready {
			w.t.Fatalf("%v: more tasks than ready (%d)", d, p.Ready)
		}
		if d.Phase == 1 && !w.early && j.Counters[0].Finished < j.Counters[0].Total {
			w.t.Fatalf("%v: reduces assigned with %d of %d maps finished", d, j.Counters[0].Finished, j.Counters[0].Total)
		}
		if float64(d.Count) > node.Free[d.Phase] {
			w.t.Fatalf("%v: more tasks than free slots (%v)", d, node.Free)
		}
		p.Ready -= d.Count
		p.Running += d.Count
		p.RunningStartSum += time.Duration(d.Count) * w.now.Sub(j.SubmittedAt)
		node.Free[d.Phase] -= float64(d.Count)
		for range d.Count {
			w.tasks = append(w.tasks, wTask{job: j, phase: int(d.Phase), node: node, start: w.now, end: w.now.Add(j.taskTime)})
		}
		touched[d.Job] = true
	}
	for id := range touched {
		if err := w.s.Update(id); err != nil {
			w.t.Fatalf("Update %s: %v", id, err)
		}
	}
	return ds
}

func TestPropertyAgainstOracle(t *testing.T) {
	configs := map[string]dbs.Config{
		"paper":         {},
		"no-min":        {Ablations: dbs.Ablations{NoMinimumSlots: true}},
		"phi-moves":     {PhiAwareMoves: true},
		"no-moves":      {Ablations: dbs.Ablations{NoQueueMoves: true}},
		"early":         {Ablations: dbs.Ablations{EarlyReduces: true}},
		"floors":        {Queues: dbs.DefaultCapacityQueues, Ablations: dbs.Ablations{EarlyReduces: true}},
		"min-first":     {MinimumFirst: true},
		"floors+min":    {Queues: dbs.DefaultCapacityQueues, MinimumFirst: true},
		"static":        {Ablations: dbs.Ablations{StaticWeights: true}},
		"prior+net":     {DefaultTaskTime: 5 * time.Second, TransferRate: 1 << 18},
		"ours-off":      {Ablations: dbs.Ablations{NoAffordability: true, NoBetterOff: true, NoBudgetDemotion: true, LostByWeight: true, UnknownByWeight: true, BudgetViewOneSlot: true}},
		"capacity":      {Sharing: dbs.CapacitySharing},
		"cap+min-first": {Sharing: dbs.CapacitySharing, MinimumFirst: true},
		"cap+no-min":    {Sharing: dbs.CapacitySharing, Ablations: dbs.Ablations{NoMinimumSlots: true}},
		"cap+zero-low": {Sharing: dbs.CapacitySharing, Queues: [3]dbs.QueueConfig{
			dbs.Low: {Share: 0, Price: 0.01}, dbs.Mid: {Share: 0.4, Price: 0.02}, dbs.High: {Share: 0.6, Price: 0.04}}},
	}
	for name, cfg := range configs {
		var total [2]int
		seeds := uint64(8)
		if raceEnabled {
			seeds = 2
		}
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", name, seed), func(t *testing.T) {
				w := newWorld(t, seed, cfg)
				for step := 0; step < 400 && (step < 200 || w.done < len(w.order)); step++ {
					if step < 200 && w.rng.IntN(4) == 0 {
						w.submit()
					}
					w.advance(time.Duration(100+w.rng.IntN(1500)) * time.Millisecond)
					w.tick()
					for _, n := range w.c.NodeList {
						if w.rng.IntN(3) > 0 {
							w.heartbeat(n)
						}
					}
				}
				live := 0
				for _, id := range w.order {
					if !w.jobs[id].ended {
						live++
					}
				}
				if live != w.s.Len() {
					t.Fatalf("%d jobs live, %d queued", live, w.s.Len())
				}
				total[0] += w.moves[0]
				total[1] += w.moves[1]
			})
		}
		t.Logf("%s: %d promotions, %d demotions", name, total[0], total[1])
		if moves := !cfg.Ablations.NoQueueMoves && !cfg.Ablations.StaticWeights; moves != (total[0]+total[1] > 0) {
			t.Errorf("%s: %d promotions, %d demotions", name, total[0], total[1])
		}
	}
}

// TestShareWithinOneRound: a queue with pending work gets at least its
// guaranteed share (CapacitySharing) or floor (PrioritySharing) of each
// kind within one heartbeat round once slots free up, even though
// another queue had taken them all.
func TestShareWithinOneRound(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		nodes := 3 + rng.IntN(8)
		c := newCluster(nodes, 2, 1)
		// Reduces ready before the maps end are the host's to offer
		// (EarlyReduces); the share of each kind is what is tested here.
		// Capacity shares, or the same figures as PrioritySharing's
		// floors (without minimums, which come before floors).
		cfg := dbs.Config{Cluster: c, DefaultTaskTime: 10 * sec, Ablations: dbs.Ablations{EarlyReduces: true}, Sharing: dbs.CapacitySharing}
		if seed%2 == 1 {
			cfg.Sharing, cfg.Queues = dbs.PrioritySharing, dbs.DefaultCapacityQueues
			cfg.Ablations.NoMinimumSlots = true
		}
		s, err := dbs.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		// A High job borrows every slot.
		hog := mrJob("hog", 1, 10*nodes, 0, 3600*sec, 0)
		hog.Counters = hog.Counters[:1]
		if err := s.Submit(now, hog); err != nil {
			t.Fatal(err)
		}
		for _, n := range c.NodeList {
			ds, _ := s.Heartbeat(now, n, nil)
			for _, d := range ds {
				hog.Counters[0].Ready -= d.Count
				hog.Counters[0].Running += d.Count
				n.Free[0] -= float64(d.Count)
			}
		}
		hog.Counters[0].RunningStartSum = 0
		_ = s.Update("hog")
		// Low and Mid jobs arrive with plenty of work.
		for i, phi := range []float64{0, 0.5} {
			j := mrJob(fmt.Sprintf("q%d", i), phi, 10*nodes, 3*nodes, 3600*sec, 1e6)
			j.Counters[1].Ready = j.Counters[1].Total
			if err := s.Submit(now, j); err != nil {
				t.Fatal(err)
			}
		}
		// Every hog task ends; one heartbeat round.
		now = now.Add(10 * sec)
		hog.Counters[0].Finished, hog.Counters[0].Running = hog.Counters[0].Running, 0
		hog.Counters[0].FinishedDurationSum = time.Duration(hog.Counters[0].Finished) * 10 * sec
		_ = s.Update("hog")
		held := map[schedkit.JobID][2]int{}
		for _, n := range c.NodeList {
			n.Free = resource.Vector{2, 1}
			ds, err := s.Heartbeat(now, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				h := held[d.Job]
				h[d.Phase] += d.Count
				held[d.Job] = h
			}
		}
		for k, capk := range []float64{float64(2 * nodes), float64(nodes)} {
			for q, id := range []schedkit.JobID{"q0", "q1"} {
				share := int(s.Queues()[q].Share * capk)
				if held[id][k] < share {
					t.Errorf("seed %d: queue %v holds %d of kind %d after one round, share %d (held %v)", seed, dbs.Queue(q), held[id][k], k, share, held)
				}
			}
		}
	}
}

// oracleCand is a job as the tests' references order it: its Status,
// submission and whether it is below its minimum of the slot's kind.
type oracleCand struct {
	st    dbs.JobStatus
	sub   time.Time
	below bool
}

// oracleAhead is the queue order the references apply within a queue
// (entry.ahead with the heap's precedence, from Status): below its
// minimum first, among those without a task time first (unknownFirst);
// able to reach a minimum before not (lostLast); weight descending,
// submission, ID.
func oracleAhead(a, b oracleCand, unknownFirst, lostLast bool) bool {
	au, bu := a.below && unknownFirst && a.st.TaskTimeUnknown, b.below && unknownFirst && b.st.TaskTimeUnknown
	al, bl := lostLast && a.st.Min.Unmeetable, lostLast && b.st.Min.Unmeetable
	switch {
	case a.below != b.below:
		return a.below
	case au != bu:
		return au
	case al != bl:
		return bl
	case a.st.Weight != b.st.Weight:
		return a.st.Weight > b.st.Weight
	case !a.sub.Equal(b.sub):
		return a.sub.Before(b.sub)
	}
	return a.st.Job < b.st.Job
}
