// Package drf holds the one home of the dominant-share formula (Ghodsi et
// al., "Dominant Resource Fairness"), max_i v[i]/total[i]: package
// resource's DominantShare validates its input and then calls Share, and
// the simulator, which keeps its vectors valid itself, calls Share
// directly on its hot path. It is internal so that the exported API
// offers only the checked form.
package drf

// Share is the dominant share of v in total, max_i v[i]/total[i], over
// the kinds whose total is positive, 0 when there are none. It never
// fails and never returns NaN (+Inf only if a ratio overflows, which
// resource.DominantShare reports as ErrOverflow): kinds whose total is not
// positive are skipped, an element that is not positive (rounding drift
// below zero included) or NaN never raises the share, and elements beyond
// the shorter slice are ignored. It does not allocate.
func Share(v, total []float64) float64 {
	share := 0.0
	for i := range min(len(v), len(total)) {
		if t, x := total[i], v[i]; t > 0 && x > 0 {
			if s := x / t; s > share {
				share = s
			}
		}
	}
	return share
}
