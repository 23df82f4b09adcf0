package sim

import (
	"fmt"
	"math"
)

// Contention is the contention penalty p of paper 004 formula (5) as a
// function of how far a node is over-committed: p(rc) = Slope ·
// max(0, rc − Knee), rc being the node's compression rate of a kind
// (formula (1): (load − capacity)/load once the load exceeds capacity).
//
// Paper 004 §2.1 describes the shape (fig. 4, whose data it does not
// print): while the demand is below capacity, performance rises with it;
// once the demand exceeds capacity, the tasks' demands are compressed,
// contention intensifies and performance starts to drop sharply; from
// that measured curve it caps compression at 10%. So the penalty is 0 up
// to the knee (the compression limit) and rises linearly, steeply,
// beyond it. The zero value charges no penalty (contention costs only
// proportionally, formula (4)).
type Contention struct {
	// Knee is the compression rate up to which contention costs nothing
	// beyond formula (4); in [0, 1).
	Knee float64
	// Slope is how fast p rises per unit of compression rate beyond the
	// knee; finite, ≥ 0.
	Slope float64
}

// Penalty returns p(rc) = Slope · max(0, rc − Knee).
func (c Contention) Penalty(rc float64) float64 {
	if rc <= c.Knee {
		return 0
	}
	return c.Slope * (rc - c.Knee)
}

// Zero reports whether c charges no penalty at any compression rate.
func (c Contention) Zero() bool { return c.Slope == 0 }

// String describes c, e.g. "p = 3·max(0, rc − 0.1)", or "p = 0".
func (c Contention) String() string {
	if c.Zero() {
		return "p = 0"
	}
	return fmt.Sprintf("p = %g·max(0, rc − %g)", c.Slope, c.Knee)
}

// validate reports what is wrong with c, or "".
func (c Contention) validate() string {
	switch {
	case !(c.Knee >= 0 && c.Knee < 1):
		return fmt.Sprintf("Knee %v is outside [0, 1)", c.Knee)
	case !(c.Slope >= 0) || math.IsInf(c.Slope, 0):
		return fmt.Sprintf("Slope %v is not a finite slope ≥ 0", c.Slope)
	}
	return ""
}
