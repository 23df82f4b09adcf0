package estimate

import (
	"math"
	"strconv"
)

// Capacity is how many tasks of a phase the cluster runs at once, the N_Slot
// of formula (3), counted in thousandths of a reference slot so that
// heterogeneous slots (a node twice as fast counts its slots twice) stay in
// exact integer arithmetic. A homogeneous cluster of n slots has capacity
// n × Slot; the zero Capacity means the phase has nowhere to run.
type Capacity int64

// Slot is the capacity of one slot of reference speed (speed factor 1).
const Slot Capacity = 1000

// MaxSlots bounds the slot count SlotCapacity accepts (2⁴⁰, far beyond any
// cluster) so that sums of capacities never overflow.
const MaxSlots = 1 << 40

// MaxSpeed bounds the speed factor SlotCapacity accepts.
const MaxSpeed = 1e6

// SlotCapacity returns the capacity of slots slots that each run speed
// times as fast as a reference slot: round(speed × 1000) × slots, in
// units of Slot/1000. slots must be a whole number in [0, MaxSlots]; speed
// must be finite, in (0, MaxSpeed] and at least 0.0005 (it is rounded to
// the nearest thousandth, which must not be zero).
func SlotCapacity(slots, speed float64) (Capacity, error) {
	const op = "SlotCapacity"
	switch {
	case math.IsNaN(slots) || math.IsInf(slots, 0) || slots < 0 || slots > MaxSlots:
		return 0, invalid(op, -1, "slot count %v outside [0, 2^40]", slots)
	case slots != math.Trunc(slots):
		return 0, invalid(op, -1, "fractional slot count %v", slots)
	}
	m, err := milliSpeed(speed)
	if err != nil {
		return 0, err
	}
	return Capacity(int64(slots) * m), nil
}

// milliSpeed validates a speed factor and returns it in thousandths.
func milliSpeed(speed float64) (int64, error) {
	const op = "SlotCapacity"
	if math.IsNaN(speed) || math.IsInf(speed, 0) || speed <= 0 || speed > MaxSpeed {
		return 0, invalid(op, -1, "speed %v outside (0, 1e6]", speed)
	}
	m := int64(math.Round(speed * float64(Slot)))
	if m < 1 {
		return 0, invalid(op, -1, "speed %v rounds to zero thousandths", speed)
	}
	return m, nil
}

// Slots returns c in reference slots, for display.
func (c Capacity) Slots() float64 { return float64(c) / float64(Slot) }

// String returns c in reference slots, e.g. "2.5 slots".
func (c Capacity) String() string {
	return strconv.FormatFloat(c.Slots(), 'f', -1, 64) + " slots"
}
