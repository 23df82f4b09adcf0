package dbs

import (
	"math"
	"time"

	"github.com/schedkit/schedkit/estimate"
)

// PhaseWork is what model 2 reads about one phase (map or reduce).
type PhaseWork struct {
	// Unfinished is the phase's pending plus running tasks.
	Unfinished int
	// TaskTime is Tm or Tr, the time of one task.
	TaskTime time.Duration
	// Elapsed is Σ elapsed time of the phase's running tasks; the work
	// left is Unfinished × TaskTime − Elapsed.
	Elapsed time.Duration
}

// work returns the phase's remaining slot-seconds.
func (p PhaseWork) work() float64 {
	return p.fixedWork() - p.Elapsed.Seconds()
}

// fixedWork is work's first term, Unfinished × TaskTime in seconds,
// which a weight update keeps while the counters do not change. The
// conversion rounds the product, so no platform fuses it with work's
// subtraction: kept or recomputed, work gives the same bits.
func (p PhaseWork) fixedWork() float64 {
	return float64(float64(p.Unfinished) * p.TaskTime.Seconds())
}

// MinInput is what model 2 reads about one job at one instant.
type MinInput struct {
	// Phi is the time-influence factor φ: the deadline view applies when
	// φ > 0, the budget view when φ < 1.
	Phi float64
	// Map and Reduce are the phases' work left.
	Map, Reduce PhaseWork
	// ReduceCapacity is the reduce capacity available to the job (the
	// same as model 1's), giving the ⌈R/nr⌉ waves of reduce in Sr_max.
	ReduceCapacity estimate.Capacity
	// ReduceStarted reports that a reduce task has run: the shuffle is
	// then under way and its time is no longer charged.
	ReduceStarted bool
	// DeadlineLeft is the deadline minus now (t + D − now).
	DeadlineLeft time.Duration
	// Transfer is f·δ·Td, the shuffle time of the reduce input.
	Transfer time.Duration
	// Allowance is B/c_q, the slot-seconds the remaining budget buys at
	// the queue's price; Held is the slots the job holds (at least 1 is
	// used). The budget view's window is Allowance/Held seconds.
	Allowance float64
	Held      int
	// ClusterSlots are the cluster's map and reduce slots, the most of
	// each kind a job can hold: a view that needs more of a kind cannot
	// be met. Zero means no bound.
	ClusterSlots [2]int
}

// MinResult is model 2's result.
type MinResult struct {
	// Map and Reduce are the minimum slots: the larger of the deadline
	// view's (φ > 0) and the budget view's (φ < 1), each at most the
	// phase's unfinished tasks. A view that cannot be met contributes
	// nothing (its flag is set instead).
	Map, Reduce int
	// Deadline and Budget are the two views' figures.
	Deadline, Budget MinView
	// Unmeetable reports that every view that applies is Unmeetable: no
	// number of slots reaches the job's constraints, so it cannot reach
	// any minimum. Map and Reduce are then 0, and model 3 counts the job
	// short of every slot its tasks could use, never as holding a
	// surplus (Scheduler.Tick).
	Unmeetable bool
}

// MinView is one view (deadline or budget) of model 2.
type MinView struct {
	// Applies reports whether φ selects this view.
	Applies bool
	// Window is the time the view allows from now: DeadlineLeft for the
	// deadline view, Allowance/Held for the budget view.
	Window time.Duration
	// ReduceStartLatest is Sr_max − now = Window − ⌈R/nr⌉·Tr − f·δ·Td.
	ReduceStartLatest time.Duration
	// Map and Reduce are the view's minimum slots (at most the phase's
	// unfinished tasks).
	Map, Reduce int
	// Unmeetable reports that the constraint can no longer be met at any
	// slot count: a non-positive denominator (never divided by), or a
	// phase whose work left needs more slots than it has unfinished
	// tasks (its tasks would have to run faster than one per slot) or
	// than the cluster has of the kind (ClusterSlots).
	Unmeetable bool
}

// MinimumSlots is model 2 (reconstructed after Kc & Anyanwu, see the
// package doc), on what is left of the job at now:
//
//	Sr_max = now + W − ⌈Ur/nr⌉·Tr − f·δ·Td
//	nm_min = ⌈(Um·Tm − ΣRm) / (Sr_max − now)⌉
//	nr_min = ⌈(Ur·Tr − ΣRr) / (now + W − f·δ·Td − Sr)⌉
//
// with W the view's window (deadline: D left; budget: B/c_q slot-seconds
// spread over the slots held), Sr = Sr_max while maps remain, else now,
// and f·δ·Td dropped once a reduce has run. A phase with work left and a
// non-positive denominator, or whose quotient exceeds its unfinished
// tasks or the cluster's slots of its kind, makes the view Unmeetable.
func MinimumSlots(in MinInput) MinResult {
	t := viewTermsOf(&in, reduceWavesOf(&in))
	var r MinResult
	if in.Phi > 0 {
		deadlineView(&r.Deadline, &t, in.DeadlineLeft)
	}
	if in.Phi < 1 {
		budgetView(&r.Budget, &t, in.Allowance, in.Held)
	}
	r.combine()
	return r
}

// reduceWaves is ⌈Ur/nr⌉ for model 2, or !ok when the reduce phase has
// work left and no capacity.
type reduceWaves struct {
	n  int64
	ok bool
}

// reduceWavesOf returns the reduce waves of in (estimate.Waves).
func reduceWavesOf(in *MinInput) reduceWaves {
	if in.Reduce.Unfinished <= 0 {
		return reduceWaves{ok: true}
	}
	n, ok := estimate.Waves(in.Reduce.Unfinished, in.ReduceCapacity)
	return reduceWaves{n: n, ok: ok}
}

// viewTerms is what model 2's two views read of a job besides their
// window, in seconds, computed once for both (and kept by a weight
// update while they do not change).
type viewTerms struct {
	um, ur      int  // unfinished map and reduce tasks
	noReduceCap bool // reduce work left and no reduce capacity
	waveSecs    float64
	transfer    float64 // f·δ·Td, 0 once a reduce ran
	mapWork     float64 // slot-seconds left (PhaseWork.work)
	redWork     float64
	redTT       float64 // Tr in seconds: waveSecs is ⌈Ur/nr⌉ × redTT
	slots       [2]int  // MinInput.ClusterSlots
}

// viewTermsOf returns in's view terms with its reduce waves wv. With
// no reduce capacity for reduce work left (noReduceCap) both views are
// unmeetable whatever the other terms, which are set all the same (a
// frozen job's Status recomputes the waves at another capacity:
// Scheduler.frozenDeadline).
func viewTermsOf(in *MinInput, wv reduceWaves) viewTerms {
	t := viewTerms{um: in.Map.Unfinished, ur: in.Reduce.Unfinished, slots: in.ClusterSlots}
	var wavesR int64
	if t.ur > 0 {
		if wv.ok {
			wavesR = wv.n
		} else {
			t.noReduceCap = true
		}
	}
	transfer := in.Transfer
	if in.ReduceStarted {
		transfer = 0
	}
	t.redTT = in.Reduce.TaskTime.Seconds()
	t.waveSecs = float64(wavesR) * t.redTT
	t.transfer = transfer.Seconds()
	t.mapWork, t.redWork = in.Map.work(), in.Reduce.work()
	return t
}

// deadlineView sets v to model 2's deadline view (φ > 0): the window is
// D left.
func deadlineView(v *MinView, t *viewTerms, deadlineLeft time.Duration) {
	minView(v, t, deadlineLeft)
	v.Applies = true
}

// budgetView sets v to model 2's budget view (φ < 1): the window is the
// allowance B/c_q spread over the slots held.
func budgetView(v *MinView, t *viewTerms, allowance float64, held int) {
	w := time.Duration(0)
	if allowance > 0 {
		secs := allowance / float64(max(held, 1))
		w = durationOf(secs)
	}
	minView(v, t, w)
	v.Applies = true
}

// combine sets r.Map and r.Reduce from the views that apply and can be
// met.
func (r *MinResult) combine() {
	r.Map, r.Reduce = 0, 0
	applies, met := false, false
	for _, v := range [2]*MinView{&r.Deadline, &r.Budget} {
		applies = applies || v.Applies
		if v.Applies && !v.Unmeetable {
			met = true
			r.Map = max(r.Map, v.Map)
			r.Reduce = max(r.Reduce, v.Reduce)
		}
	}
	r.Unmeetable = applies && !met
}

// durationOf converts seconds to a Duration, saturating at the estimate
// package's Horizon.
func durationOf(secs float64) time.Duration {
	if !(secs < estimate.Horizon.Seconds()) {
		return estimate.Horizon
	}
	if secs <= 0 {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}

// minView sets v to model 2 for one window, with the job's terms t
// (written in place: a weight update evaluates it for every job, and a
// MinView returned by value was copied twice on its way).
func minView(v *MinView, t *viewTerms, window time.Duration) {
	*v = MinView{Window: window}
	if t.noReduceCap {
		v.Unmeetable = true
		return
	}
	ws := window.Seconds()
	srMax := ws - t.waveSecs - t.transfer
	// The builtin min and max: math.Min and math.Max with the same
	// results (NaN, ±0 and infinities alike), but inlined.
	v.ReduceStartLatest = time.Duration(max(min(srMax, estimate.Horizon.Seconds()), -estimate.Horizon.Seconds()) * float64(time.Second))
	if t.um > 0 {
		if srMax <= 0 {
			v.Unmeetable = true
			return
		}
		x := t.mapWork / srMax
		if beyond(x, t.um, t.slots[0]) {
			v.Unmeetable = true
			return
		}
		v.Map = ceilSlots(x, t.um)
	}
	if t.ur > 0 {
		// now + W − f·δ·Td − Sr: with maps left Sr = Sr_max, so the
		// denominator is ⌈Ur/nr⌉·Tr, taken as it is rather than as the
		// difference of two long windows (rounding).
		den := ws - t.transfer
		if t.um > 0 {
			den = t.waveSecs
		}
		if den <= 0 {
			v.Unmeetable = true
			return
		}
		x := t.redWork / den
		if beyond(x, t.ur, t.slots[1]) {
			v.Unmeetable = true
			return
		}
		v.Reduce = ceilSlots(x, t.ur)
	}
}

// beyond reports whether x slots, the quotient of a phase with tasks
// unfinished tasks, are more than it can use (one per task) or, with
// slots > 0, more than the cluster has of the kind, by more than the
// rounding of the quotient (a relative beyondTolerance: the reduce
// quotient while maps remain is R·Tr/(⌈R/nr⌉·Tr), at most R but for
// rounding).
func beyond(x float64, tasks, slots int) bool {
	limit := float64(tasks)
	if slots > 0 {
		limit = min(limit, float64(slots))
	}
	return x > limit*(1+beyondTolerance)
}

// beyondTolerance is the relative rounding beyond allows.
const beyondTolerance = 1e-9

// ceilSlots returns ⌈x⌉ clamped to [1, limit] (a phase with work left
// needs at least one slot, and can use no more than its tasks).
func ceilSlots(x float64, limit int) int {
	if !(x < float64(limit)) {
		return limit
	}
	if x <= 1 {
		return 1
	}
	return int(math.Ceil(x))
}
