package fgm

// Algorithm 1 line 4: the Fairness order of the jobs (DRF, FIFO).

import (
	"cmp"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// JobState is what a Fairness policy reads of a job with pending tasks.
type JobState struct {
	ID schedkit.JobID
	// Submitted is when the first of the job's tasks was submitted.
	Submitted time.Time
	// Allocated is what the scheduler charges the job now: the sum over
	// its running tasks of their peak reservation (the requested
	// quantity for unpredictable tasks). A view; do not modify or keep.
	Allocated resource.Vector
	// Share is Allocated's dominant share of the capacity of the nodes
	// the scheduler knows (DRF).
	Share float64
	// Running and Pending count the job's tasks the scheduler holds.
	Running, Pending int
}

// Fairness orders jobs for Algorithm 1 line 4: jobs whose Less is true
// come first; jobs neither less than the other keep the order of their
// IDs. Less must be a strict weak order and must not keep a or b.
type Fairness interface {
	Less(a, b *JobState) bool
}

// DRF is dominant resource fairness (Ghodsi et al.), the paper's
// default: the lower dominant share first, then earlier submission.
type DRF struct{}

// Less orders by Share, then Submitted.
func (DRF) Less(a, b *JobState) bool {
	return drfLess(a.Share, a.Submitted, b.Share, b.Submitted)
}

// drfLess is DRF's Less on the fields it reads.
func drfLess(aShare float64, aSub time.Time, bShare float64, bSub time.Time) bool {
	if aShare != bShare {
		return aShare < bShare
	}
	return aSub.Before(bSub)
}

// FIFO orders jobs by submission.
type FIFO struct{}

// Less orders by Submitted.
func (FIFO) Less(a, b *JobState) bool { return a.Submitted.Before(b.Submitted) }

// compareJobs is the order of Algorithm 1 line 4: Fairness, then job
// ID. Fairness is a strict weak order and IDs are unique, so the order
// of the active jobs is unique: any way of sorting them gives it.
func (s *Scheduler) compareJobs(a, b *jobEntry) int {
	if s.drf {
		// DRF{}'s Less, without the dynamic calls.
		switch {
		case drfLess(a.state.Share, a.state.Submitted, b.state.Share, b.state.Submitted):
			return -1
		case drfLess(b.state.Share, b.state.Submitted, a.state.Share, a.state.Submitted):
			return 1
		}
		return cmp.Compare(a.state.ID, b.state.ID)
	}
	switch {
	case s.cfg.Fairness.Less(&a.state, &b.state):
		return -1
	case s.cfg.Fairness.Less(&b.state, &a.state):
		return 1
	}
	return cmp.Compare(a.state.ID, b.state.ID)
}
