package estimate

import (
	"math"

	"github.com/schedkit/schedkit"
)

// HistoryEntry is what a History has learned of one similarity key: what
// a host keeps to restore the History after a restart (Entries,
// Restore).
type HistoryEntry struct {
	Key schedkit.SimilarityKey
	// Observations is how many tasks of the key were learned.
	Observations int
	// Duration is the smoothed normalised duration in ns; Slices the
	// smoothed usage of each of the Bins equal slices of it, Bins × the
	// Space's length, slice after slice.
	Duration float64
	Slices   []float64
}

// Entries returns what h has learned, the least recently observed key
// first: Restore in that order rebuilds the same History (the same
// predictions, the same key evicted next). The slices are copies.
func (h *History) Entries() []HistoryEntry {
	out := make([]HistoryEntry, 0, len(h.entries))
	for e := h.tail; e != nil; e = e.prev {
		out = append(out, HistoryEntry{Key: e.key, Observations: e.n, Duration: e.dur, Slices: append([]float64(nil), e.bins...)})
	}
	return out
}

// Restore learns entries, in order (Entries's, of a History of the same
// configuration), into h, which must be empty. An entry with the zero
// key or a key given twice, no observation, a duration that is not
// positive and finite, or slices of another length than Bins × the
// Space's or that are not finite and non-negative makes it return an
// error wrapping ErrInvalid, leaving h empty. Beyond MaxKeys entries the
// first are evicted, as Observe would.
func (h *History) Restore(entries []HistoryEntry) error {
	const op = "History.Restore"
	if len(h.entries) > 0 {
		return invalid(op, -1, "the History already holds %d keys", len(h.entries))
	}
	seen := make(map[schedkit.SimilarityKey]bool, len(entries))
	for i, en := range entries {
		switch {
		case en.Key.IsZero():
			return invalid(op, -1, "entry %d: zero key", i)
		case seen[en.Key]:
			return invalid(op, -1, "entry %d: key %v given twice", i, en.Key)
		case en.Observations < 1:
			return invalid(op, -1, "entry %d: %d observations", i, en.Observations)
		case !(en.Duration > 0 && en.Duration <= math.MaxFloat64):
			return invalid(op, -1, "entry %d: duration %v ns is not positive and finite", i, en.Duration)
		case len(en.Slices) != h.cfg.Bins*h.dims:
			return invalid(op, -1, "entry %d: %d slice amounts, want %d", i, len(en.Slices), h.cfg.Bins*h.dims)
		}
		for _, x := range en.Slices {
			if !(x >= 0 && x <= math.MaxFloat64) {
				return invalid(op, -1, "entry %d: slice amount %v is not finite and non-negative", i, x)
			}
		}
		seen[en.Key] = true
	}
	for _, en := range entries {
		e := h.insert(en.Key)
		copy(e.bins, en.Slices)
		e.dur, e.n = en.Duration, min(en.Observations, math.MaxInt32)
		if e.n >= h.cfg.MinObservations {
			h.divide(e)
		}
	}
	h.version++
	return nil
}
