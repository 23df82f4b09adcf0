// Package clock holds the one time rule every schedkit scheduler follows
// (lss, dbs, fgm, binding): times are measured as offsets from an epoch,
// the first time a state-changing call succeeded with; a time more than
// Limit from the epoch is out of range; a state-changing call dated before
// the latest such call is stale; a read-only call checks range only and
// never moves the clock.
//
// Each scheduler maps the Fault to its own sentinels (ErrTimeRange,
// ErrStaleTime) and error type, so the rule has one home and the errors
// keep naming the package that returned them.
package clock

import (
	"fmt"
	"time"
)

// Limit bounds offsets from the epoch: 2⁶⁰ ns, about 36.5 years, the
// range within which schedkit's exact integer arithmetic on times and
// durations (estimate.Horizon) cannot overflow.
const Limit = int64(1) << 60

// Fault is what is wrong with a time, if anything.
type Fault uint8

// Faults.
const (
	OK    Fault = iota // the time is usable
	Range              // more than Limit from the epoch
	Stale              // before the latest committed time
)

// Clock is a scheduler's time state. The zero value has no epoch: the
// first Check or Peek reads times relative to the now it is given.
type Clock struct {
	epoch  time.Time
	set    bool
	latest int64 // offset of the latest committed now
	// latestAt is the latest committed now as given: Check answers a
	// call at that same time without taking its offset again (hosts
	// give one now to many calls: every sample of a poll, every node's
	// heartbeat of a round). repeats counts those answers.
	latestAt time.Time
	repeats  uint64
}

// Reading is one call's view of the clock: the epoch its offsets are
// taken from and its own now's offset. A state-changing call checks its
// now with Check, converts its other times with Offset, and commits the
// Reading only once it has succeeded.
type Reading struct {
	epoch time.Time
	at    time.Time // now as given
	Now   int64     // now's offset from the epoch, within ±Limit
}

// Offset returns t's offset from the reading's epoch and whether it is
// within ±Limit.
func (r Reading) Offset(t time.Time) (int64, bool) {
	d := int64(t.Sub(r.epoch)) // saturates at ±MaxInt64, out of range either way
	return d, d >= -Limit && d <= Limit
}

// Time returns the instant at offset off from the reading's epoch.
func (r Reading) Time(off int64) time.Time { return r.epoch.Add(time.Duration(off)) }

// OutOfRange describes a time the call was given besides now (what: "submission",
// "deadline") that Offset found more than Limit from the reading's
// epoch, in the words Reason uses for now: "deadline 2099-… is more than
// 2^60 ns (about 36 years) from 2026-…, the first time given". Every
// scheduler refuses such a time with its ErrTimeRange.
func (r Reading) OutOfRange(what string, t time.Time) string {
	return fmt.Sprintf("%s %v is more than 2^60 ns (about 36 years) from %v, the first time given", what, t, r.epoch)
}

// Check reads now for a state-changing call: Range if now is more than
// Limit from the epoch, Stale if it is before the latest committed time.
// It changes nothing but a counter (Repeats).
//
// A now equal to the latest committed one (==: the same wall and
// monotonic readings and location, a conservative test) is answered
// with that commit's reading, checked then.
func (c *Clock) Check(now time.Time) (Reading, Fault) {
	if c.set && now == c.latestAt {
		c.repeats++
		return Reading{epoch: c.epoch, at: now, Now: c.latest}, OK
	}
	r, f := c.Peek(now)
	if f == OK && r.Now < c.latest {
		f = Stale
	}
	return r, f
}

// Peek reads now for a read-only call: Range only. A read-only call may
// ask about a time before the latest committed one. It changes nothing.
func (c *Clock) Peek(now time.Time) (Reading, Fault) {
	r := Reading{epoch: now, at: now}
	if c.set {
		r.epoch = c.epoch
	}
	off, ok := r.Offset(now)
	r.Now = off
	if !ok {
		return r, Range
	}
	return r, OK
}

// Commit records a successful state-changing call's reading: it fixes
// the epoch if it was not set and moves the latest time to r.Now.
func (c *Clock) Commit(r Reading) {
	if !c.set {
		c.epoch, c.set = r.epoch, true
	}
	c.latest, c.latestAt = r.Now, r.at
}

// Repeats returns how many Checks were answered without taking an
// offset (their now was the latest committed one).
func (c *Clock) Repeats() uint64 { return c.repeats }

// Started reports whether a call has been committed (the epoch is set).
func (c *Clock) Started() bool { return c.set }

// Epoch returns the epoch (the zero time before the first commit).
func (c *Clock) Epoch() time.Time { return c.epoch }

// Latest returns the latest committed offset (0 before the first commit).
func (c *Clock) Latest() int64 { return c.latest }

// LatestTime returns the latest committed time (the zero time before the
// first commit).
func (c *Clock) LatestTime() time.Time {
	if !c.set {
		return time.Time{}
	}
	return c.epoch.Add(time.Duration(c.latest))
}

// Reason describes fault f of now in the words every package's *Error
// uses for it, e.g. "now 2026-01-01 00:00:00 +0000 UTC is before
// 2026-01-01 00:00:05 +0000 UTC, given earlier".
func (c *Clock) Reason(f Fault, now time.Time) string {
	switch f {
	case Stale:
		return fmt.Sprintf("now %v is before %v, given earlier", now, c.LatestTime())
	case Range:
		return fmt.Sprintf("%v is more than 2^60 ns (about 36 years) from %v, the first time given", now, c.epoch)
	}
	return ""
}
