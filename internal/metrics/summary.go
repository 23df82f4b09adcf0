package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/internal/sim"
	"golang.org/x/exp/stats"
)

// Number is a metric value that may be undefined (no jobs, no deadlines,
// no samples...). An invalid Number prints as "n/a"; V is then 0, never
// NaN.
type Number struct {
	V     float64
	Valid bool
}

// String returns V with 4 significant digits, or "n/a".
func (n Number) String() string {
	if !n.Valid {
		return NA
	}
	return strconv.FormatFloat(n.V, 'g', 4, 64)
}

// NA is how an undefined metric prints.
const NA = "n/a"

// Span is a time metric that may be undefined.
type Span struct {
	D     time.Duration
	Valid bool
}

// String returns the duration in seconds with one decimal ("12.5s"), or
// "n/a".
func (s Span) String() string {
	if !s.Valid {
		return NA
	}
	return seconds(s.D)
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// Ratio is Hit successes out of Total cases.
type Ratio struct {
	Hit, Total int
}

// Value returns Hit/Total, invalid when Total is 0.
func (r Ratio) Value() Number {
	if r.Total <= 0 {
		return Number{}
	}
	return Number{V: float64(r.Hit) / float64(r.Total), Valid: true}
}

// String returns "0.750 (3/4)", or "n/a" when Total is 0.
func (r Ratio) String() string {
	v := r.Value()
	if !v.Valid {
		return NA
	}
	return fmt.Sprintf("%.3f (%d/%d)", v.V, r.Hit, r.Total)
}

// CDFPoint is one step of an empirical distribution function: Fraction of
// the values are ≤ At.
type CDFPoint struct {
	At       time.Duration
	Fraction float64
}

// Dist summarises a set of durations. With N = 0 every field is zero and
// Valid reports false. Mean and StdDev (sample standard deviation, 0 for
// one value) come from x/exp/stats.MeanAndStdDev; P50 and P95 from
// stats.Quantiles (Hyndman–Fan R-7: linear interpolation between order
// statistics). CDF has one point per distinct value, ascending, the last
// at Fraction 1.
type Dist struct {
	N                                int
	Mean, StdDev, Min, P50, P95, Max time.Duration
	CDF                              []CDFPoint
}

// Valid reports whether the distribution has any value.
func (d Dist) Valid() bool { return d.N > 0 }

// MeanSpan returns Mean as a Span (invalid when N = 0).
func (d Dist) MeanSpan() Span { return Span{D: d.Mean, Valid: d.N > 0} }

// P50Span returns P50 as a Span.
func (d Dist) P50Span() Span { return Span{D: d.P50, Valid: d.N > 0} }

// P95Span returns P95 as a Span.
func (d Dist) P95Span() Span { return Span{D: d.P95, Valid: d.N > 0} }

// NewDist summarises values (in any order; the slice is not modified).
func NewDist(values []time.Duration) Dist {
	if len(values) == 0 {
		return Dist{}
	}
	xs := make([]float64, len(values))
	for i, v := range values {
		xs[i] = float64(v)
	}
	slices.Sort(xs)
	mean, sd := stats.MeanAndStdDev(xs)
	q := stats.Quantiles(xs, 0.5, 0.95)
	d := Dist{
		N:      len(xs),
		Mean:   toDuration(mean),
		StdDev: toDuration(sd),
		Min:    time.Duration(xs[0]),
		P50:    toDuration(q[0]),
		P95:    toDuration(q[1]),
		Max:    time.Duration(xs[len(xs)-1]),
	}
	n := float64(len(xs))
	for i, x := range xs {
		if i+1 < len(xs) && xs[i+1] == x {
			continue
		}
		d.CDF = append(d.CDF, CDFPoint{At: time.Duration(x), Fraction: float64(i+1) / n})
	}
	return d
}

func toDuration(x float64) time.Duration {
	if math.IsNaN(x) {
		return 0
	}
	return time.Duration(math.Round(x))
}

// ClassSummary holds the metrics of one job class (workflow, pool, queue).
type ClassSummary struct {
	Class           string
	Jobs, Completed int
	// DeadlineSuccess counts jobs of the class that have a deadline.
	DeadlineSuccess Ratio
	// Response is Finish − Submit of the class's completed jobs.
	Response Dist
}

// PhiSummary holds paper 003's success rule for the jobs of one φ value.
type PhiSummary struct {
	Phi     float64
	Success Ratio
	// MeanCost is the mean Cost of these jobs (all outcomes).
	MeanCost Number
}

// KindUtilisation is the mean utilisation of one resource kind.
type KindUtilisation struct {
	Kind string
	Mean Number
}

// Summary is every metric of one sim.Run. Nothing in it is NaN; undefined
// values are invalid Numbers, Spans, Ratios with Total 0, or Dists with
// N = 0, all printing "n/a".
type Summary struct {
	Policy, Workload string

	// Job counts by outcome.
	Jobs, Completed, Killed, Rejected, Unfinished, Failed int

	// DeadlineSuccess: among jobs with a deadline, those that completed
	// with Finish − Submit ≤ Deadline. Killed, rejected and unfinished jobs
	// count as misses.
	DeadlineSuccess Ratio
	// Classes, sorted by class name.
	Classes []ClassSummary

	// Response is Finish − Submit over completed jobs: paper 000's
	// response time, and paper 004's job completion time (its CDF is
	// paper 004's fig. 10).
	Response Dist
	// Wait is Start − Submit over completed jobs (time to first task).
	Wait Dist
	// Run is Finish − Start over completed jobs.
	Run Dist
	// Makespan is the last end (Finish of any completed, killed or
	// rejected job) minus the first Submit: paper 004's workload
	// completion time. Invalid with no jobs or any unfinished job.
	Makespan Span

	// TotalCost sums Cost over all jobs; MeanCost averages it.
	TotalCost float64
	MeanCost  Number
	// BudgetSuccess: among jobs with a budget, those that completed with
	// Cost ≤ Budget.
	BudgetSuccess Ratio
	// PhiSuccess applies paper 003's rule to every job: φ = 1 succeeds if
	// its deadline is met, φ = 0 if it stays within budget, any other φ
	// if either holds; a job lacking the constraint its φ asks for
	// succeeds if it completed. Phi breaks it down by φ value, ascending.
	PhiSuccess Ratio
	Phi        []PhiSummary

	// Fairness is the mean over samples of Jain's index of the sampled
	// shares (samples where it is undefined are skipped); FairnessSamples
	// counts the samples used.
	Fairness        Number
	FairnessSamples int
	// UnmetFairness is the mean over samples of Jain's index over the
	// jobs with unmet demand only (sim.Sample.Unmet: the jobs a DRF allocator
	// is still filling, the population paper 004 samples); samples with
	// no such job, or all their shares 0, are skipped. UnmetSamples
	// counts the samples used.
	UnmetFairness Number
	UnmetSamples  int
	// Utilisation is the mean over samples, per kind in sim.Run.Kinds order.
	Utilisation []KindUtilisation

	// Task failures by incompressible over-commit, and retries.
	FailedTasks, RetriedTasks int

	// DecisionTime is the policy's total wall-clock deciding time;
	// PerDecision the mean per call (invalid with no calls).
	DecisionTime time.Duration
	Decisions    int
	PerDecision  Span

	// KillsCouldHaveMade: among killed or rejected jobs the simulator
	// checked, those that would have met their deadline had they been left
	// to run.
	KillsCouldHaveMade Ratio

	// Events is the number of simulator events; End the virtual end time.
	Events int
	End    time.Duration

	// Warnings lists input problems Summarize worked around (invalid
	// records or samples skipped), one line each; empty for a valid sim.Run.
	Warnings []string
}

// Summarize computes every metric of run. It never panics and never
// returns NaN: records that sim.Run.Validate would reject are left out of the
// metrics they would corrupt and reported in Summary.Warnings.
func Summarize(run sim.Run) Summary {
	s := Summary{
		Policy:       run.Policy,
		Workload:     run.Workload,
		Jobs:         len(run.Jobs),
		FailedTasks:  run.FailedTasks,
		RetriedTasks: run.RetriedTasks,
		DecisionTime: run.DecisionTime,
		Decisions:    run.Decisions,
		Events:       run.Events,
		End:          run.End,
	}
	if run.Decisions > 0 && run.DecisionTime >= 0 {
		s.PerDecision = Span{D: run.DecisionTime / time.Duration(run.Decisions), Valid: true}
	}
	var (
		response, wait, runT []time.Duration
		costs                []float64
		badJobs              int
		first                = time.Duration(math.MaxInt64)
		last                 time.Duration
		classes              = map[string]*classAcc{}
		phis                 = map[float64]*phiAcc{}
	)
	for i := range run.Jobs {
		j := &run.Jobs[i]
		if j.Validate() != nil {
			badJobs++
			continue
		}
		first = min(first, j.Submit)
		ca := classes[j.Class]
		if ca == nil {
			ca = &classAcc{}
			classes[j.Class] = ca
		}
		ca.jobs++
		switch j.Outcome {
		case sim.Completed:
			s.Completed++
			ca.completed++
			r := j.Finish - j.Submit
			response = append(response, r)
			ca.response = append(ca.response, r)
			wait = append(wait, j.Start-j.Submit)
			runT = append(runT, j.Finish-j.Start)
		case sim.Killed:
			s.Killed++
		case sim.Rejected:
			s.Rejected++
		case sim.Unfinished:
			s.Unfinished++
		case sim.Failed:
			s.Failed++
		}
		if j.Outcome != sim.Unfinished {
			last = max(last, j.Finish)
		}
		met := deadlineMet(j)
		if j.Deadline > 0 {
			s.DeadlineSuccess.Total++
			ca.deadline.Total++
			if met {
				s.DeadlineSuccess.Hit++
				ca.deadline.Hit++
			}
		}
		within := budgetMet(j)
		if j.Budget > 0 {
			s.BudgetSuccess.Total++
			if within {
				s.BudgetSuccess.Hit++
			}
		}
		costs = append(costs, j.Cost)
		s.TotalCost += j.Cost
		pa := phis[j.Phi]
		if pa == nil {
			pa = &phiAcc{}
			phis[j.Phi] = pa
		}
		ok := phiSuccess(j, met, within)
		pa.success.Total++
		s.PhiSuccess.Total++
		if ok {
			pa.success.Hit++
			s.PhiSuccess.Hit++
		}
		pa.costs = append(pa.costs, j.Cost)
		if (j.Outcome == sim.Killed || j.Outcome == sim.Rejected) && j.CheckedKill {
			s.KillsCouldHaveMade.Total++
			if j.CouldHaveMade {
				s.KillsCouldHaveMade.Hit++
			}
		}
	}
	if badJobs > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d job records invalid (see Run.Validate) and left out", badJobs))
	}
	s.Response, s.Wait, s.Run = NewDist(response), NewDist(wait), NewDist(runT)
	if len(costs) > 0 {
		s.MeanCost = Number{V: stats.Mean(costs), Valid: true}
	}
	if len(run.Jobs) > badJobs && s.Unfinished == 0 {
		s.Makespan = Span{D: last - first, Valid: true}
	}
	for _, name := range sortedKeys(classes) {
		ca := classes[name]
		s.Classes = append(s.Classes, ClassSummary{
			Class: name, Jobs: ca.jobs, Completed: ca.completed,
			DeadlineSuccess: ca.deadline, Response: NewDist(ca.response),
		})
	}
	for _, phi := range sortedKeys(phis) {
		pa := phis[phi]
		s.Phi = append(s.Phi, PhiSummary{Phi: phi, Success: pa.success, MeanCost: Number{V: stats.Mean(pa.costs), Valid: true}})
	}
	s.summarizeSamples(&run)
	return s
}

type classAcc struct {
	jobs, completed int
	deadline        Ratio
	response        []time.Duration
}

type phiAcc struct {
	success Ratio
	costs   []float64
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// summarizeSamples computes fairness and utilisation.
func (s *Summary) summarizeSamples(run *sim.Run) {
	var jain, unmet []float64
	util := make([][]float64, len(run.Kinds))
	badLen, badUtil, badShares := 0, 0, 0
	for i := range run.Samples {
		sm := &run.Samples[i]
		if x, ok, bad := sm.Fairness(); ok {
			jain = append(jain, x)
		} else if bad {
			badShares++
		}
		if x, ok := sm.UnmetFairness(); ok {
			unmet = append(unmet, x)
		}
		if len(sm.Utilisation) != len(run.Kinds) {
			badLen++
			continue
		}
		for k, u := range sm.Utilisation {
			if !(u >= 0) || math.IsInf(u, 0) {
				badUtil++
				continue
			}
			util[k] = append(util[k], u)
		}
	}
	s.FairnessSamples = len(jain)
	if len(jain) > 0 {
		s.Fairness = Number{V: stats.Mean(jain), Valid: true}
	}
	s.UnmetSamples = len(unmet)
	if len(unmet) > 0 {
		s.UnmetFairness = Number{V: stats.Mean(unmet), Valid: true}
	}
	for k, name := range run.Kinds {
		ku := KindUtilisation{Kind: name}
		if len(util[k]) > 0 {
			ku.Mean = Number{V: stats.Mean(util[k]), Valid: true}
		}
		s.Utilisation = append(s.Utilisation, ku)
	}
	if badLen > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d samples have a utilisation vector not matching Kinds and were left out of utilisation", badLen))
	}
	if badUtil > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d utilisation values negative, NaN or infinite and left out", badUtil))
	}
	if badShares > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d samples have a negative, NaN or infinite share and were left out of fairness", badShares))
	}
}

// deadlineMet reports whether a job with a deadline completed within it.
func deadlineMet(j *sim.JobRecord) bool {
	return j.Deadline > 0 && j.Outcome == sim.Completed && j.Finish-j.Submit <= j.Deadline
}

// budgetMet reports whether a job with a budget completed within it.
func budgetMet(j *sim.JobRecord) bool {
	return j.Budget > 0 && j.Outcome == sim.Completed && j.Cost <= j.Budget
}

// phiSuccess is paper 003's per-job success rule (see Summary.PhiSuccess).
func phiSuccess(j *sim.JobRecord, met, within bool) bool {
	if j.Outcome != sim.Completed {
		return false
	}
	hasD, hasB := j.Deadline > 0, j.Budget > 0
	switch {
	case j.Phi == 1:
		return !hasD || met
	case j.Phi == 0:
		return !hasB || within
	case !hasD && !hasB:
		return true
	}
	return met || within
}
