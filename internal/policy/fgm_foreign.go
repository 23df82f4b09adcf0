package policy

import (
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// ForeignQuantile is an option of the fgm policy
// (FGMConfig.ForeignQuantile): estimate a node's foreign load of the
// incompressible kinds by a high quantile of its recent samples rather
// than by formula (14)'s time-weighted mean over a Tick, so that tasks
// packed against a node's memory leave room for the foreign load's
// recent peaks, not its average.
//
// fgm computes its foreign-load estimate itself, from the node and task
// samples, as (14) prints it, and offers no option for another
// statistic. The policy therefore applies the quantile to what it
// reports: for each incompressible kind, a node's sample is raised to
// its tasks' measured usage plus the quantile (when the quantile exceeds
// the foreign load measured now), so that fgm's mean over a Tick is the
// quantile. fgm's measured idle amount of the kind (the latest sample)
// is lowered alike. Compressible kinds are reported as measured.
type ForeignQuantile struct {
	// Q is the quantile in (0, 1], e.g. 0.95; 0 turns the option off.
	Q float64
	// Window is how far back the samples of a node reach; 0 means
	// DefaultForeignWindow.
	Window time.Duration
}

// DefaultForeignWindow is ForeignQuantile's default window.
const DefaultForeignWindow = 15 * time.Minute

// on reports whether the option is set.
func (f ForeignQuantile) on() bool { return f.Q > 0 }

// valid reports whether f is a usable option.
func (f ForeignQuantile) valid() bool {
	return f.Q == 0 || (f.Q > 0 && f.Q <= 1 && f.Window >= 0)
}

// foreignTracker keeps what ForeignQuantile needs: the usage of the
// tasks of the node being sampled (the simulator samples a node's tasks
// just before the node) and each node's recent foreign-load samples of
// the incompressible kinds.
type foreignTracker struct {
	opt    ForeignQuantile
	kinds  []int           // incompressible kinds
	tasks  resource.Vector // Σ task samples since the last node sample
	hist   map[schedkit.NodeID]*foreignHist
	report resource.Vector // the raised node sample
	sorted []float64
}

// foreignHist is one node's recent samples: times and, per kind of
// foreignTracker.kinds, the measured foreign load.
type foreignHist struct {
	at   []time.Time
	load [][]float64 // [kind index][sample]
}

func newForeignTracker(opt ForeignQuantile, space *resource.Space) *foreignTracker {
	if opt.Window == 0 {
		opt.Window = DefaultForeignWindow
	}
	f := &foreignTracker{opt: opt, tasks: space.Zero(), report: space.Zero(), hist: map[schedkit.NodeID]*foreignHist{}}
	for k := range space.Len() {
		if !space.Compressible(k) {
			f.kinds = append(f.kinds, k)
		}
	}
	return f
}

// task adds a task's sample to the node being sampled.
func (f *foreignTracker) task(used resource.Vector) {
	for _, k := range f.kinds {
		if k < len(used) {
			f.tasks[k] += used[k]
		}
	}
}

// node returns the sample to report for node id at now in place of
// used (measured), capped at capacity; used itself is not changed.
func (f *foreignTracker) node(now time.Time, id schedkit.NodeID, used, capacity resource.Vector) resource.Vector {
	h := f.hist[id]
	if h == nil {
		h = &foreignHist{load: make([][]float64, len(f.kinds))}
		f.hist[id] = h
	}
	cut := 0
	for cut < len(h.at) && now.Sub(h.at[cut]) > f.opt.Window {
		cut++
	}
	if cut > 0 {
		h.at = slices.Delete(h.at, 0, cut)
		for i := range h.load {
			h.load[i] = slices.Delete(h.load[i], 0, cut)
		}
	}
	h.at = append(h.at, now)
	copy(f.report, used)
	for i, k := range f.kinds {
		if k >= len(used) {
			continue
		}
		fo := math.Max(0, used[k]-f.tasks[k])
		h.load[i] = append(h.load[i], fo)
		f.sorted = append(f.sorted[:0], h.load[i]...)
		slices.Sort(f.sorted)
		q := f.sorted[min(len(f.sorted)-1, int(math.Ceil(f.opt.Q*float64(len(f.sorted))))-1)]
		if q > fo {
			r := used[k] + q - fo
			if k < len(capacity) && capacity[k] > 0 {
				r = math.Min(r, math.Max(used[k], capacity[k]))
			}
			f.report[k] = r
		}
	}
	clear(f.tasks)
	return f.report
}
