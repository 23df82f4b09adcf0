package experiment

import (
	"slices"
	"time"

	"github.com/schedkit/schedkit/internal/workload"
	"github.com/schedkit/schedkit/resource"
)

// A Bound is the best any policy could do on one figure of a setup,
// computed from the setup alone (its workload and cluster), never from a
// run: printed beside a row, it says how far a figure can move at all.
// Adding one is a value here and its name where it is printed.
type Bound struct {
	// Name says what the bound is, for the row it is printed beside.
	Name string
	// Figure is the figure it bounds (a Figures name).
	Figure string
	// Of returns the bound in the figure's unit, or false if it does not
	// apply to the setup.
	Of func(s *Setup) (float64, bool)
}

// criticalPath is a job's run time alone on unlimited slots: the sum over
// its phases of the longest task (workload.CriticalPath).
func criticalPath(j *workload.JobSpec) time.Duration {
	return workload.DeadlineRule{Basis: workload.CriticalPath}.Isolated(j)
}

// The bounds.
var (
	// MakespanBound: no schedule ends before some job's submission plus
	// its critical path, counted from the first submission.
	MakespanBound = Bound{Name: "critical-path bound", Figure: "makespan", Of: func(s *Setup) (float64, bool) {
		jobs := s.Workload.Jobs
		if len(jobs) == 0 {
			return 0, false
		}
		first, end := jobs[0].Submit, time.Duration(0)
		for i := range jobs {
			first = min(first, jobs[i].Submit)
			end = max(end, jobs[i].Submit+criticalPath(&jobs[i]))
		}
		return (end - first).Seconds(), true
	}}
	// MeanCompletionBound: no job completes sooner than its critical path
	// after its submission.
	MeanCompletionBound = Bound{Name: "critical-path bound", Figure: "mean response", Of: func(s *Setup) (float64, bool) {
		jobs := s.Workload.Jobs
		if len(jobs) == 0 {
			return 0, false
		}
		var sum time.Duration
		for i := range jobs {
			sum += criticalPath(&jobs[i])
		}
		return sum.Seconds() / float64(len(jobs)), true
	}}
	// SubmittedTogetherBound is the mean response of jobs submitted
	// together on a slot cluster at best: the k-th job to complete has
	// waited for the maps of k jobs, at least the k smallest map works
	// spread over every map slot, and then for its last reduce, at least
	// the shortest reduce task. For four equal jobs it is the staircase
	// FIFO climbs (paper 003's exp. 1).
	SubmittedTogetherBound = Bound{Name: "bound for jobs submitted together", Figure: "mean response", Of: func(s *Setup) (float64, bool) {
		return togetherBound(s, false)
	}}
	// TwoSideBySideBound is SubmittedTogetherBound for a schedule in
	// which two of the jobs run side by side, so that they complete
	// together (paper 003's fig. 1 has Job3 and Job4 end their maps at
	// about the same time): the first of the two has waited for the maps
	// of both. The least such mean pairs the first two to complete; for
	// four equal jobs it is 2.75 map-waves of a job, against the
	// staircase's 2.5, wherever the pair is.
	TwoSideBySideBound = Bound{Name: "bound with two jobs side by side", Figure: "mean response", Of: func(s *Setup) (float64, bool) {
		return togetherBound(s, true)
	}}
)

// togetherBound is SubmittedTogetherBound, or with pair
// TwoSideBySideBound, of s.
func togetherBound(s *Setup, pair bool) (float64, bool) {
	jobs := s.Workload.Jobs
	mi, ok := s.Config.Space.Index(resource.MapSlot.Name)
	if len(jobs) == 0 || !ok || (pair && len(jobs) < 2) {
		return 0, false
	}
	slots := 0.0
	for _, n := range s.Config.Nodes {
		slots += n.Capacity[mi]
	}
	works := make([]float64, len(jobs))
	shortest := time.Duration(-1)
	for i := range jobs {
		if jobs[i].Submit != jobs[0].Submit || len(jobs[i].Phases) == 0 || slots <= 0 {
			return 0, false
		}
		ph := &jobs[i].Phases[0]
		for t := range ph.Len() {
			works[i] += ph.Duration(t).Seconds()
		}
		if last := len(jobs[i].Phases) - 1; last > 0 {
			r := &jobs[i].Phases[last]
			for t := range r.Len() {
				if d := r.Duration(t); shortest < 0 || d < shortest {
					shortest = d
				}
			}
		}
	}
	slices.Sort(works)
	sum, prefix := 0.0, 0.0
	for _, w := range works {
		prefix += w
		sum += prefix/slots + max(shortest, 0).Seconds()
	}
	if pair {
		// The first to complete waits for the second's maps too: the
		// least increase over the staircase (pairing the k-th and the
		// next adds the next one's maps to the k-th's wait).
		sum += works[1] / slots
	}
	return sum / float64(len(works)), true
}

// bounds names the bounds for BoundNamed.
var bounds = map[string]*Bound{
	"makespan":           &MakespanBound,
	"mean completion":    &MeanCompletionBound,
	"submitted together": &SubmittedTogetherBound,
	"two side by side":   &TwoSideBySideBound,
}

// BoundNamed returns the bound of that name: "makespan", "mean
// completion", "submitted together" or "two side by side".
func BoundNamed(name string) (*Bound, error) {
	if b, ok := bounds[name]; ok {
		return b, nil
	}
	return nil, paramErr("no bound %q", name)
}
