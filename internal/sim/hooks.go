package sim

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// hooks is the policy under test with the optional interfaces it
// implements.
type hooks struct {
	eng *engine // for the time of an error
	p   Policy
	tw  TaskWatcher
	jw  JobWatcher
	nw  NodeWatcher
	tk  Ticker // nil when Config.TickInterval is 0
	uw  UsageWatcher
	// quiet: heartbeats of idle nodes are not delivered (FullNodeSkipper).
	quiet bool
}

// newHooks finds what p implements under cfg, and whether it assigns
// only tasks of computing phases (ComputingPhaseAssigner).
func newHooks(p Policy, cfg *Config, eng *engine) (h hooks, computingOnly bool) {
	h.eng, h.p = eng, p
	h.tw, _ = p.(TaskWatcher)
	h.jw, _ = p.(JobWatcher)
	h.nw, _ = p.(NodeWatcher)
	h.tk, _ = p.(Ticker)
	h.uw, _ = p.(UsageWatcher)
	if cfg.TickInterval == 0 {
		h.tk = nil
	}
	if fs, ok := p.(FullNodeSkipper); ok && !cfg.DeliverFullHeartbeats {
		h.quiet = fs.SkipFullNodes()
	}
	if ca, ok := p.(ComputingPhaseAssigner); ok {
		computingOnly = ca.AssignsComputingPhasesOnly()
	}
	return h, computingOnly
}

// errorf wraps err, which the policy returned from its call named by
// the format, in ErrPolicy, naming the policy, the call and the virtual
// time: errors.Is finds both ErrPolicy and err.
func (h *hooks) errorf(err error, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s at %v: %w", ErrPolicy, h.p.Name(), fmt.Sprintf(format, args...), time.Duration(h.eng.now), err)
}

// taskEnded tells a TaskWatcher that t's attempt ended.
func (h *hooks) taskEnded(t *Task, state schedkit.TaskState) error {
	if h.tw == nil {
		return nil
	}
	if err := h.tw.TaskEnded(h.eng.Now(), t, state); err != nil {
		return h.errorf(err, "TaskEnded of %s", t.ID())
	}
	return nil
}

// jobEnded tells a JobWatcher that j ended.
func (h *hooks) jobEnded(j *Job, outcome Outcome) error {
	if h.jw == nil {
		return nil
	}
	if err := h.jw.JobEnded(h.eng.Now(), j, outcome); err != nil {
		return h.errorf(err, "JobEnded of %s", j.id)
	}
	return nil
}

// taskSampled and nodeSampled pass a usage sample to the UsageWatcher.
func (h *hooks) taskSampled(now time.Time, t *Task, used resource.Vector) error {
	if err := h.uw.TaskSampled(now, t, used); err != nil {
		return h.errorf(err, "TaskSampled of %s", t.ID())
	}
	return nil
}

func (h *hooks) nodeSampled(now time.Time, n *Node, used resource.Vector) error {
	if err := h.uw.NodeSampled(now, n, used); err != nil {
		return h.errorf(err, "NodeSampled of %s", n.id)
	}
	return nil
}
