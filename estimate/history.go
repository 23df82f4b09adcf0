package estimate

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// History learns, per similarity key, what a task demands over its life
// and predicts it for the next similar task: paper 004 §2.2 (definition 3:
// tasks with the same logic and the same data size behave alike) and the
// "iterative update" of its §1, which the paper states in words only (its
// formula (8) did not survive in the text). What we implement:
//
//   - Observe takes one finished task's usage samples (what a node agent
//     reports: mean usage over consecutive periods, each with the
//     compression rate the task ran under). Samples taken while the task
//     ran compressed are normalised back to uncompressed demand and
//     duration by inverting formula (4): a compressible amount u measured
//     at rate rc was a demand of u/(1 − rc), and the period d it took
//     was d·(1 − rc) of uncompressed work (formula (15) read per sample).
//     Incompressible amounts are taken as measured. We chose
//     normalisation over down-weighting because the host knows the rate
//     it enforced, so the inversion is exact under the paper's own model,
//     and a down-weighted sample still biases the estimate.
//   - The normalised curve is resampled onto Bins equal slices of the
//     task's (normalised) duration, each holding the time-weighted mean
//     (formula (14)) of the usage in it.
//   - Iterative smoothing: the first observation of a key sets its
//     profile; each later one moves it by Smoothing: P ← (1−α)·P + α·obs,
//     slice by slice and kind by kind, and the duration likewise.
//   - Stages: the smoothed curve is cut into stages where demand changes,
//     walking the slices in order and starting a new stage when some kind
//     differs from the running mean of the current stage by more than
//     StageThreshold × that kind's peak over the whole curve. A stage's
//     demand is the largest of its slices (so an incompressible kind is
//     never under-reserved by averaging); its duration the sum of its
//     slices. A one-slice stage (the slice a change falls in, half old
//     and half new demand) joins the neighbour whose demand covers it,
//     else the closer one. More than MaxStages stages are merged
//     pairwise, the two neighbours closest in demand first (ties: the
//     earlier pair). A merged stage takes the larger demand.
//   - Unpredictable: a key with fewer than MinObservations observations
//     (or the zero key) has no prediction; an observation with fewer than
//     MinSamples samples of positive duration is too short to profile
//     and is not learned (Observe reports it).
//
// Memory is bounded: per key the profile takes Bins × kinds floats plus
// at most MaxStages stages, whatever the number or length of the tasks
// observed; at most MaxKeys keys are kept, and adding one more evicts the
// least recently OBSERVED key (the key whose latest learned observation
// is the oldest; an order kept by Observe alone, so eviction is
// deterministic).
//
// Predict is a pure read: it changes neither the recency order nor
// Version nor anything else (stages are cut when an observation is
// learned, not when predicted). A read must not change future
// decisions: a host may call Predict for an explanation or a what-if,
// or from several goroutines under a read lock, and which keys a
// scheduler predicts depends on the order it scans its queue in, so
// eviction by prediction would make what is forgotten depend on the
// scheduling order rather than on the data. Eviction by observation
// keeps the keys whose data is fresh.
//
// A History is not safe for concurrent use with Observe; concurrent
// Predict, Observations, Len, Config and Version calls with no Observe
// in between are safe. The Profile Predict returns is a view valid
// until the next Observe.
type History struct {
	cfg   HistoryConfig
	space *resource.Space
	dims  int
	comp  []bool // compressible kind per element

	entries    map[schedkit.SimilarityKey]*histEntry
	head, tail *histEntry // recency list: head most recently observed
	free       *histEntry // one evicted entry kept for reuse
	version    uint64     // see Version

	obs    []float64 // scratch: one observation's slices, Bins × dims
	norm   []float64 // scratch: one sample's normalised usage
	peaks  []float64 // scratch: peak per kind
	lim    []float64 // scratch: StageThreshold × peak per kind
	mean   []float64 // scratch: running stage sum
	cuts   []stageCut
	demand []float64
}

// stageCut is a stage under construction: its first slice and count.
type stageCut struct{ start, count int }

// HistoryConfig configures a History. Only Space is required; zero
// fields take the defaults named.
type HistoryConfig struct {
	// Space is the resource space of every sample's Used vector.
	Space *resource.Space
	// Bins is the number of equal slices of a task's duration the profile
	// keeps (default 32, at most 4096): the resolution of stage cuts.
	Bins int
	// Smoothing is the weight α of a new observation in the iterative
	// update, in (0, 1] (default 0.3; 1 keeps only the latest task).
	Smoothing float64
	// StageThreshold is the change in demand, as a fraction of a kind's
	// peak, that starts a new stage, in (0, 1] (default 0.1).
	StageThreshold float64
	// MaxStages caps the stages of a prediction (default 8).
	MaxStages int
	// MinObservations is how many similar tasks must have been observed
	// before a key is predictable (default 2).
	MinObservations int
	// MinSamples is the fewest samples (of positive duration) a task must
	// have for its observation to be learned (default 2).
	MinSamples int
	// MaxKeys caps the number of keys kept (default 4096).
	MaxKeys int
}

// Stage is one execution stage of a predicted profile: the task's
// demand, uncompressed, held for Duration.
type Stage struct {
	Duration time.Duration
	Demand   resource.Vector
}

// Profile is a predicted demand profile: consecutive stages from the
// task's start. Its slices are views owned by the History.
type Profile struct {
	Stages []Stage
	// Observations is the number of tasks the prediction is built from.
	Observations int
}

// Duration returns the sum of the stages' durations.
func (p Profile) Duration() time.Duration {
	var d time.Duration
	for _, s := range p.Stages {
		d += s.Duration
	}
	return d
}

// Peak sets dst to the element-wise maximum demand over the stages (zero
// for an empty profile). dst must have the profile's length.
func (p Profile) Peak(dst resource.Vector) {
	clear(dst)
	for _, s := range p.Stages {
		for k, x := range s.Demand {
			if k < len(dst) && x > dst[k] {
				dst[k] = x
			}
		}
	}
}

// UsageSample is one usage report of a running task: its mean usage Used
// over a period of Duration, and the compression rate rc ∈ [0, 1) it ran
// under during the period (formula (1), the largest over its compressible
// kinds; 0 when not compressed). A task's samples are consecutive and
// cover its run from start to end.
type UsageSample struct {
	Duration    time.Duration
	Used        resource.Vector
	Compression float64
}

type histEntry struct {
	key        schedkit.SimilarityKey
	prev, next *histEntry
	n          int
	dur        float64   // smoothed duration, ns
	bins       []float64 // smoothed slices, Bins × dims
	stages     []Stage   // cut when learned, once n ≥ MinObservations
	stageBuf   []float64 // MaxStages × dims (plus scratch while dividing)
}

// ErrTooFewSamples is wrapped by *TooFewSamplesError, which Observe
// returns for a task with fewer than MinSamples samples: nothing is
// learned from it.
var ErrTooFewSamples = errors.New("estimate: too few usage samples to profile")

// TooFewSamplesError reports an observation too short to profile. It
// wraps ErrTooFewSamples.
type TooFewSamplesError struct {
	Got, Want int // samples of positive duration given, and required
}

// Error describes the shortfall.
func (e *TooFewSamplesError) Error() string {
	return fmt.Sprintf("estimate: History.Observe: %d usage samples, need %d", e.Got, e.Want)
}

// Unwrap returns ErrTooFewSamples.
func (e *TooFewSamplesError) Unwrap() error { return ErrTooFewSamples }

// NewHistory returns an empty History, or an error wrapping ErrInvalid.
func NewHistory(cfg HistoryConfig) (*History, error) {
	const op = "NewHistory"
	if cfg.Space == nil {
		return nil, invalid(op, -1, "nil Space")
	}
	def := func(v *int, d, hi int, name string) error {
		if *v == 0 {
			*v = d
		}
		if *v < 1 || *v > hi {
			return invalid(op, -1, "%s %d outside [1, %d]", name, *v, hi)
		}
		return nil
	}
	for _, f := range []struct {
		v     *int
		d, hi int
		name  string
	}{
		{&cfg.Bins, 32, 4096, "Bins"},
		{&cfg.MaxStages, 8, 4096, "MaxStages"},
		{&cfg.MinObservations, 2, 1 << 20, "MinObservations"},
		{&cfg.MinSamples, 2, 1 << 20, "MinSamples"},
		{&cfg.MaxKeys, 4096, 1 << 30, "MaxKeys"},
	} {
		if err := def(f.v, f.d, f.hi, f.name); err != nil {
			return nil, err
		}
	}
	if cfg.Smoothing == 0 {
		cfg.Smoothing = 0.3
	}
	if !(cfg.Smoothing > 0 && cfg.Smoothing <= 1) {
		return nil, invalid(op, -1, "Smoothing %v outside (0, 1]", cfg.Smoothing)
	}
	if cfg.StageThreshold == 0 {
		cfg.StageThreshold = 0.1
	}
	if !(cfg.StageThreshold > 0 && cfg.StageThreshold <= 1) {
		return nil, invalid(op, -1, "StageThreshold %v outside (0, 1]", cfg.StageThreshold)
	}
	dims := cfg.Space.Len()
	h := &History{
		cfg:     cfg,
		space:   cfg.Space,
		dims:    dims,
		comp:    make([]bool, dims),
		entries: make(map[schedkit.SimilarityKey]*histEntry),
		obs:     make([]float64, cfg.Bins*dims),
		norm:    make([]float64, dims),
		peaks:   make([]float64, dims),
		lim:     make([]float64, dims),
		mean:    make([]float64, dims),
	}
	for k := range dims {
		h.comp[k] = cfg.Space.Compressible(k)
	}
	return h, nil
}

// Version returns a counter that changes whenever the History changes in
// a way a later Predict can see: an observation learned, a key added or
// evicted, or a change of the recency order that decides evictions (an
// Observe of a key that was not the most recently observed). Predict
// never changes it. A caller may keep what it derived from predictions
// while it is the same.
func (h *History) Version() uint64 { return h.version }

// Config returns the configuration with defaults filled in.
func (h *History) Config() HistoryConfig { return h.cfg }

// Len returns the number of keys held.
func (h *History) Len() int { return len(h.entries) }

// Observations returns how many tasks of key have been learned (0 if the
// key is not held).
func (h *History) Observations(key schedkit.SimilarityKey) int {
	if e := h.entries[key]; e != nil {
		return e.n
	}
	return 0
}

// Observe learns from one finished task of similarity key: its usage
// samples, in order, covering its run. It reports whether the task was
// learned. The zero key carries no similarity information: nothing is
// learned and Observe returns false, nil. Invalid samples (a Used vector
// of the wrong length, NaN, infinite or negative amounts, a negative
// duration, a compression rate outside [0, 1)) return an error wrapping
// ErrInvalid; fewer than MinSamples samples of positive duration return
// one wrapping ErrTooFewSamples. Either way the History is unchanged.
func (h *History) Observe(key schedkit.SimilarityKey, samples []UsageSample) (bool, error) {
	const op = "History.Observe"
	if key.IsZero() {
		return false, nil
	}
	n := 0
	var total float64 // normalised duration, ns
	for i, s := range samples {
		if len(s.Used) != h.dims {
			return false, invalid(op, -1, "sample %d: %d amounts, want %d", i, len(s.Used), h.dims)
		}
		for _, x := range s.Used {
			if !(x >= 0 && x <= math.MaxFloat64) { // NaN, infinite or negative: Validate says which
				return false, because(op, -1, s.Used.Validate(), "sample %d", i)
			}
		}
		if s.Duration < 0 {
			return false, invalid(op, -1, "sample %d: negative duration %v", i, s.Duration)
		}
		if !(s.Compression >= 0 && s.Compression < 1) {
			return false, invalid(op, -1, "sample %d: compression rate %v outside [0, 1)", i, s.Compression)
		}
		if s.Duration > 0 {
			n++
			total += float64(s.Duration) * (1 - s.Compression)
		}
	}
	if n < h.cfg.MinSamples {
		return false, &TooFewSamplesError{Got: n, Want: h.cfg.MinSamples}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return false, invalid(op, -1, "normalised duration %v ns is not positive and finite", total)
	}
	h.resample(samples, total)
	for _, x := range h.obs {
		if !(x >= -math.MaxFloat64 && x <= math.MaxFloat64) { // infinite or NaN
			return false, invalid(op, -1, "normalised usage overflows")
		}
	}

	e := h.entries[key]
	if e == nil {
		e = h.insert(key)
	} else {
		h.touch(e)
	}
	if e.n == 0 {
		copy(e.bins, h.obs)
		e.dur = total
	} else {
		a := h.cfg.Smoothing
		for i, x := range h.obs {
			e.bins[i] += a * (x - e.bins[i])
		}
		e.dur += a * (total - e.dur)
	}
	if e.n < math.MaxInt32 {
		e.n++
	}
	if e.n >= h.cfg.MinObservations {
		h.divide(e) // here, so that Predict only reads
	}
	h.version++
	return true, nil
}

// resample spreads the normalised samples over h.obs: slice j holds the
// time-weighted mean usage over [j, j+1)·total/Bins.
func (h *History) resample(samples []UsageSample, total float64) {
	clear(h.obs)
	bins, dims := h.cfg.Bins, h.dims
	width := total / float64(bins)
	var at float64
	for _, s := range samples {
		if s.Duration <= 0 {
			continue
		}
		keep := 1 - s.Compression
		a := at
		b := at + float64(s.Duration)*keep
		at = b
		// The sample's usage normalised once, not once per slice it
		// spans: the same quotients (x/1 is x, so uncompressed samples
		// are used as given).
		u := s.Used
		if keep != 1 {
			u = h.norm
			copy(u, s.Used)
			for k, c := range h.comp {
				if c {
					u[k] /= keep
				}
			}
		}
		j := int(a / width)
		lo := float64(j) * width
		for ; j < bins; j++ {
			hi := float64(j+1) * width
			if j == bins-1 {
				hi = math.Inf(1)
			}
			ov := min(b, hi) - max(a, lo)
			if ov > 0 {
				w := ov / width
				row := h.obs[j*dims : (j+1)*dims : (j+1)*dims]
				for k, x := range u[:len(row)] {
					row[k] += w * x
				}
			}
			if hi >= b {
				break
			}
			lo = hi
		}
	}
}

// Predict returns the predicted profile of a task of key, and false if
// the task is unpredictable: the zero key, a key never observed (or
// evicted), or one with fewer than MinObservations observations. It is a
// pure read (see History): it changes nothing, not even which key is
// evicted next. The Profile is a view into the History, valid until its
// next Observe; copy what must be kept.
func (h *History) Predict(key schedkit.SimilarityKey) (Profile, bool) {
	if key.IsZero() {
		return Profile{}, false
	}
	e := h.entries[key]
	if e == nil || e.n < h.cfg.MinObservations {
		return Profile{}, false
	}
	return Profile{Stages: e.stages, Observations: e.n}, true
}

// divide cuts e's smoothed slices into stages (see History).
func (h *History) divide(e *histEntry) {
	bins, dims := h.cfg.Bins, h.dims
	th := h.cfg.StageThreshold
	// Each kind's peak: the bins are finite (Observe checks what it
	// learns), so the comparison is max without its NaN handling.
	peaks, lim, mean := h.peaks[:dims], h.lim[:dims], h.mean[:dims]
	for k := range peaks {
		pk := 0.0
		for j := k; j < len(e.bins); j += dims {
			if x := e.bins[j]; x > pk {
				pk = x
			}
		}
		peaks[k] = pk
		lim[k] = th * pk
	}
	cuts, demand := h.cuts[:0], h.demand[:0]
	cnt := 0
	for j := range bins {
		row := e.bins[j*dims : (j+1)*dims : (j+1)*dims]
		if cnt > 0 {
			fc := float64(cnt)
			for k, x := range row {
				// |d| > lim as two comparisons (negation is exact, and a
				// NaN fails both, as it fails math.Abs's): no round trip
				// of d through an integer register.
				if l := lim[k]; peaks[k] > 0 {
					if d := x - mean[k]/fc; d > l || d < -l {
						cnt = 0 // a new stage
						break
					}
				}
			}
		}
		if cnt == 0 {
			cuts = append(cuts, stageCut{start: j})
			demand = append(demand, row...)
			copy(mean, row)
		} else {
			d := demand[len(demand)-dims:]
			d = d[:len(row)]
			for k, x := range row {
				mean[k] += x
				d[k] = max(d[k], x)
			}
		}
		cnt++
		cuts[len(cuts)-1].count = cnt
	}
	// A one-slice stage is the slice a change falls in, part old and part
	// new demand: merge it into the neighbour closer in demand. Then merge
	// the closest neighbours until at most MaxStages remain.
	for i := 0; i < len(cuts) && len(cuts) > 1; {
		if cuts[i].count > 1 {
			i++
			continue
		}
		left := i > 0
		if left && i+1 < len(cuts) {
			// Prefer the neighbour whose demand covers the slice (merging
			// leaves its demand unchanged), then the closer one.
			cl, cr := h.covers(demand, i-1, i), h.covers(demand, i+1, i)
			if cl == cr {
				left = h.diff(demand, i-1, i) <= h.diff(demand, i, i+1)
			} else {
				left = cl
			}
		}
		if left {
			cuts, demand = h.merge(cuts, demand, i-1)
			i--
		} else {
			cuts, demand = h.merge(cuts, demand, i)
		}
	}
	for len(cuts) > h.cfg.MaxStages {
		best, bestDiff := 0, math.Inf(1)
		for i := 0; i+1 < len(cuts); i++ {
			if d := h.diff(demand, i, i+1); d < bestDiff {
				best, bestDiff = i, d
			}
		}
		cuts, demand = h.merge(cuts, demand, best)
	}
	h.cuts, h.demand = cuts, demand
	e.stageBuf = append(e.stageBuf[:0], demand...)
	e.stages = e.stages[:0]
	var done time.Duration
	for i, c := range cuts {
		end := time.Duration(math.Round(e.dur * float64(c.start+c.count) / float64(bins)))
		if i == len(cuts)-1 && end < 1 {
			end = 1 // a prediction lasts: at least 1 ns in all
		}
		e.stages = append(e.stages, Stage{
			Duration: end - done,
			Demand:   resource.Vector(e.stageBuf[i*dims : (i+1)*dims : (i+1)*dims]),
		})
		done = end
	}
}

// diff returns the largest difference between the demands of stages i
// and j, as a fraction of each kind's peak.
func (h *History) diff(demand []float64, i, j int) float64 {
	dims := h.dims
	a, b := demand[i*dims:(i+1)*dims], demand[j*dims:(j+1)*dims]
	d := 0.0
	for k := range a {
		if h.peaks[k] > 0 {
			d = max(d, math.Abs(a[k]-b[k])/h.peaks[k])
		}
	}
	return d
}

// covers reports whether stage i's demand is at least stage j's in every
// kind.
func (h *History) covers(demand []float64, i, j int) bool {
	dims := h.dims
	a, b := demand[i*dims:(i+1)*dims], demand[j*dims:(j+1)*dims]
	for k := range a {
		if a[k] < b[k] {
			return false
		}
	}
	return true
}

// merge joins stages i and i+1: the larger demand, the summed slices.
func (h *History) merge(cuts []stageCut, demand []float64, i int) ([]stageCut, []float64) {
	dims := h.dims
	a, b := demand[i*dims:(i+1)*dims], demand[(i+1)*dims:(i+2)*dims]
	for k := range a {
		a[k] = max(a[k], b[k])
	}
	cuts[i].count += cuts[i+1].count
	cuts = append(cuts[:i+1], cuts[i+2:]...)
	demand = append(demand[:(i+1)*dims], demand[(i+2)*dims:]...)
	return cuts, demand
}

// insert adds an empty entry for key at the head, evicting the least
// recently observed entry first if the History is full.
func (h *History) insert(key schedkit.SimilarityKey) *histEntry {
	if len(h.entries) >= h.cfg.MaxKeys {
		old := h.tail
		h.unlink(old)
		delete(h.entries, old.key)
		h.free = old
	}
	e := h.free
	h.free = nil
	if e == nil {
		e = &histEntry{bins: make([]float64, h.cfg.Bins*h.dims)}
	}
	*e = histEntry{key: key, bins: e.bins, stages: e.stages[:0], stageBuf: e.stageBuf[:0]}
	h.entries[key] = e
	h.pushFront(e)
	h.version++
	return e
}

func (h *History) touch(e *histEntry) {
	if h.head == e {
		return
	}
	h.unlink(e)
	h.pushFront(e)
	h.version++
}

func (h *History) unlink(e *histEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		h.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		h.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

func (h *History) pushFront(e *histEntry) {
	e.next = h.head
	if h.head != nil {
		h.head.prev = e
	}
	h.head = e
	if h.tail == nil {
		h.tail = e
	}
}
