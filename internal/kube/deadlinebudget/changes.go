package deadlinebudget

import (
	"time"

	"github.com/schedkit/schedkit/internal/kube/podjob"
)

// Which informer events change dbs's order.
//
// The order (dbs.Queue read into each ready pod's place) depends on the
// jobs, their pods' kinds and states (ready, running, finished), the
// Jobs' annotations and the nodes' slot capacity. Between two weight
// updates it does not depend on a pod's binding, as long as pods bind in
// that order: after heartbeats that start a prefix of dbs.Queue's
// answer, dbs.Queue returns the rest of it (dbs's
// TestQueueIsHeartbeatPrefix), and dbs.Scheduler.Update lets a host pass
// such starts on later, before the next Tick, which is the only reader
// of their start times and costs. So a binding (an unbound pod becoming
// bound, nothing else about it changing but its status) and a bound
// pod's status changes (start time, conditions) leave the evaluated order
// as it is and are passed on to dbs at the next Tick; every other event
// makes the next Less or PreEnqueue evaluate again.
//
// Deferred events are passed on sooner than the next Tick when that is
// cheap: the next Less or PreEnqueue evaluates again if the last
// evaluation was listed at least earlyFactor times its own duration ago,
// so that passing them on costs at most about 1/earlyFactor of a core.
// That keeps the order close to the cluster when kube-scheduler acts on
// an event before the plugin's handler has seen it (the informers' event
// handlers run concurrently: a node's arrival may send pods to the active
// queue while the plugin still orders by the nodes before it), and costs
// nothing at scale, where Ticks do it.

// earlyFactor is the default Plugin.earlyFactor.
const earlyFactor = 10

// passOnEarly reports whether deferred events have come since v was
// listed and v is old enough to list again (earlyFactor; 0: never before
// the next Tick).
func (pl *Plugin) passOnEarly(v *view) bool {
	return pl.earlyFactor > 0 && v.deferred != pl.deferred.Load() && time.Since(v.listed) >= time.Duration(pl.earlyFactor)*v.cost
}

// Stats counts the plugin's evaluations and the events it passed on
// lazily, for tests and diagnostics.
type Stats struct {
	// Evaluations is how many times the plugin listed the cluster and
	// brought dbs up to date (on an event that changes the order, at a
	// Tick after any event, or to pass deferred events on early).
	Evaluations uint64
	// Reorders is how many Ticks re-read dbs's order on the state dbs
	// already had, without listing the cluster (no event since the last
	// evaluation).
	Reorders uint64
	// Deferred is how many informer events (bindings, a bound pod's
	// status) left the order as it was, passed on at the next Tick or
	// sooner (passOnEarly).
	Deferred uint64
}

// Stats returns the counters.
func (pl *Plugin) Stats() Stats {
	return Stats{Evaluations: pl.evaluations.Load(), Reorders: pl.reorders.Load(), Deferred: pl.deferred.Load()}
}

// take is the informer hook (queuesort.Config.Take): an update that
// changes nothing podjob reads is taken as it is (a node's status
// report, a failed attempt's condition); a binding or a bound pod's
// status change is counted as deferred and taken; every other event
// makes the order stale (podjob.ChangeOf).
func (pl *Plugin) take(old, cur any) bool {
	if old == nil {
		return false
	}
	switch podjob.ChangeOf(old, cur) {
	case podjob.Unchanged:
		return true
	case podjob.Bound, podjob.Started:
		pl.deferred.Add(1)
		return true
	}
	return false
}
