package fgm

// Closed kinds, an acceleration of Algorithm 1's walk: on a server with
// no unit free of an integral kind (a slot, a device), every queue entry
// requesting that kind would be refused, so the walk is not made when
// every pending entry requests a closed kind (in a slot space, a full
// server: the used-up test ignores slots), stops when that becomes so
// after a placement, and passes by the jobs all of whose entries request
// one (see Scheduler.closedKinds).

// closedKinds is the stage; closed holds the kinds closed on the call's
// server.
type closedKinds struct {
	noStage
	s           *Scheduler
	closed      int
	calls, jobs uint64 // calls not walked; jobs passed by
}

func newClosedKinds(s *Scheduler) stage { return &closedKinds{s: s} }

func (c *closedKinds) hooks() hookSet { return onBegin | onJob | onPlaced }

func (c *closedKinds) counts(add func(string, uint64)) {
	add("closedCalls", c.calls)
	add("closedJobs", c.jobs)
}

func (c *closedKinds) begin(w *walk) bool {
	s := c.s
	c.closed = s.closedKinds(w.v, w.v.free.At(w.now))
	if c.closed != 0 && !s.anyOpen(&s.needs, c.closed) {
		c.calls++
		return false
	}
	return true
}

func (c *closedKinds) passJob(_ *walk, j *jobEntry) bool {
	if c.closed != 0 && !c.s.anyOpen(&j.needs, c.closed) {
		c.jobs++
		return true
	}
	return false
}

func (c *closedKinds) placed(w *walk) bool {
	s := c.s
	c.closed = s.closedKinds(w.v, w.v.free.At(w.now))
	return c.closed == 0 || s.anyOpen(&s.needs, c.closed)
}
