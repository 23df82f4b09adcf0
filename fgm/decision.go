package fgm

import (
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/resource"
)

// Action is what a Decision asks of the host.
type Action uint8

// Actions.
const (
	// Allocate: start Task on Node with the allocation Plan.
	Allocate Action = iota + 1
	// Reclaim: stop the running Task on Node and give its resources back
	// (Algorithm 3 on a degrading server under stop-allocation). The
	// scheduler has already released it; Submit it again if it should
	// run later.
	Reclaim
)

// String returns "allocate" or "reclaim".
func (a Action) String() string {
	switch a {
	case Allocate:
		return "allocate"
	case Reclaim:
		return "reclaim"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Mode says how an allocation was matched (Algorithm 1 lines 8–16).
type Mode uint8

// Modes.
const (
	// Requested: the task was unpredictable and got its requested
	// quantity for as long as it runs.
	Requested Mode = iota + 1
	// FineGrained: Algorithm 2 matched its stages one by one.
	FineGrained
	// CoarseGrained: its peak demand fitted the least free over its
	// predicted duration.
	CoarseGrained
)

var modeNames = [...]string{"invalid", "requested", "fine-grained", "coarse-grained"}

// String returns the mode's name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// PlanStep is one step of an allocation plan: Alloc held for Duration of
// the task's uncompressed work (a host whose plans follow progress ends
// the step when the task has done that much work; one following the wall
// clock stretches it by 1/(1 − rc), formula (4)). The last step holds
// until the task ends. Reserved is what the scheduler reserved on the
// server's timeline for the step (the predicted demand); Alloc is
// Reserved with each compressible kind raised to the allocation floor,
// 1 − CompressionLimit of the task's request (the whole request with
// CapAtRequest), so that a host enforcing Alloc as a limit cannot starve
// the task (see the package doc). Compression is the rate per kind the
// scheduler expects the server to impose on the step (0 where
// uncompressed).
type PlanStep struct {
	Duration    time.Duration
	Alloc       resource.Vector
	Reserved    resource.Vector
	Compression resource.Vector
}

// Decision is one action for the host. Plan and its vectors are owned by
// the Scheduler and stay valid until the task is released; copy them to
// keep them longer.
type Decision struct {
	Action Action
	Task   schedkit.TaskID
	Job    schedkit.JobID
	Node   schedkit.NodeID
	// Allocate only.
	Mode Mode
	Plan []PlanStep
	// Reason says why: for an Allocate of Mode Requested, why the task got
	// its request (Unpredictable or EstimateFitsNoServer; zero for the
	// other modes); for a Reclaim, ServerDegrading, with the figures in
	// Conformity and Threshold.
	Reason Reason
	// Reclaim only: the server's mean conformity (16) over the window and
	// the threshold ThSA it exceeded.
	Conformity, Threshold float64
}

// Reason says why a decision was taken as it was.
type Reason uint8

// Reasons.
const (
	// Unpredictable: the task had no prediction (an unknown key, too few
	// observations, or an Estimator that declined), so it got its request.
	Unpredictable Reason = iota + 1
	// EstimateFitsNoServer: the task's prediction demands more of some
	// kind, at its peak, than any registered server has, so it got its
	// request instead (and its completion teaches the History).
	EstimateFitsNoServer
	// ServerDegrading: Algorithm 3 reclaims the newest task of a server
	// under stop-allocation on which a task runs late.
	ServerDegrading
)

var reasonNames = [...]string{"", "unpredictable", "estimate fits no server", "server degrading"}

// String returns the reason's text ("" for the zero Reason).
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// String renders d on one line, e.g.
// "allocate t1 of j1 on n1 fine-grained: 10s×[4 2e+09] 20s×[1 6e+09]",
// "allocate t2 of j1 on n1 requested (unpredictable): 0s×[1 2e+09]" or
// "reclaim t3 of j2 on n1: server degrading: conformity 0.06 > 0.04".
func (d Decision) String() string {
	if d.Action == Reclaim {
		return fmt.Sprintf("reclaim %s of %s on %s: %s: conformity %.3g > %.3g", d.Task, d.Job, d.Node, d.Reason, d.Conformity, d.Threshold)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s of %s on %s %s", d.Action, d.Task, d.Job, d.Node, d.Mode)
	if d.Reason != 0 {
		fmt.Fprintf(&b, " (%s)", d.Reason)
	}
	b.WriteByte(':')
	for _, s := range d.Plan {
		fmt.Fprintf(&b, " %v×%v", s.Duration, []float64(s.Alloc))
		if !s.Compression.IsZero() {
			fmt.Fprintf(&b, "(rc %.3g)", []float64(s.Compression))
		}
	}
	return b.String()
}
