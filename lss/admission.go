package lss

import (
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
)

// TaskTimeHinter is implemented by jobs that declare an expected task run
// time before any of their tasks has run: a user's hint, or the host's
// figure from earlier runs of the same job. Admission control reads it.
// A hint of zero or less means none.
type TaskTimeHinter interface {
	schedkit.Job
	TaskTimeHint() time.Duration
}

// PhaseTaskTimeHinter is implemented by jobs that declare an expected
// task run time per phase: the host's figure from earlier runs of the
// same job (a reduce that takes five times a map, say). With
// Config.PhaseTaskTimeHints, formula (3) prices a phase at its hint until
// the phase has finished tasks of its own. ok false, or a zero duration,
// means no hint for the phase; a negative duration or one beyond
// estimate.Horizon makes Submit or Update fail with ErrInvalidJob. Hints
// are read with the counters, at Submit and Update only.
type PhaseTaskTimeHinter interface {
	schedkit.Job
	PhaseTaskTimeHint(p schedkit.Phase) (hint time.Duration, ok bool)
}

// admit applies admission control to a job being submitted, whose
// counters are in s.prog. The job is refused when formula (3) — alone on
// the whole cluster's current capacity, with its running tasks' elapsed
// time — leaves a negative spare time, or cannot finish.
func (s *Scheduler) admit(now time.Time, nowOff int64, j schedkit.Job, id schedkit.JobID, dl, sub int64, n int) error {
	tavg, _ := estimate.PooledTaskTime(s.prog[:n])
	t, source := tavg.Avg, "observed"
	if !tavg.Known {
		t, source = 0, ""
		if h, ok := j.(TaskTimeHinter); ok && h.TaskTimeHint() > 0 {
			t, source = h.TaskTimeHint(), "hint"
		} else if s.cfg.AdmissionTaskTime > 0 {
			t, source = s.cfg.AdmissionTaskTime, "config"
		}
	}
	if source == "" {
		return nil // nothing to judge by
	}
	caps := make([]estimate.Capacity, len(s.lay.phaseKind))
	if err := s.readCapacity("Submit", caps); err != nil {
		return err
	}
	opt := estimate.Options{PerPhase: s.cfg.PerPhaseTaskTime}
	if s.cfg.PhaseTaskTimeHints {
		opt.Priors = s.hint[:n]
	}
	est := estimate.Evaluate(estimate.Counters{
		Phases:      s.prog[:n],
		Capacity:    caps,
		SinceSubmit: time.Duration(nowOff - sub),
		Left:        time.Duration(dl - nowOff),
		Fallback:    t,
	}, opt)
	rem, spare := est.Remaining, est.Spare
	if rem.NoCapacity {
		return nil // no slots of a phase's kind right now: nothing to judge by
	}
	if spare.CannotFinish || spare.Time < 0 {
		return &RefusedError{
			Job: id, Now: now, Deadline: j.Deadline(),
			TaskTime: t, Source: source, Remaining: rem, Spare: spare,
		}
	}
	return nil
}
