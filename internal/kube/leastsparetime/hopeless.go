package leastsparetime

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/internal/kube/podjob"
	"github.com/schedkit/schedkit/lss"
)

// The kill rule as an action: lss kills a job whose deadline passed or
// whose Spare + Tavg < 0; the plugin holds its pods back (PreEnqueue),
// records a Warning event on it once and, with DeleteHopelessJobs,
// deletes it — trying again at every check until the deletion succeeds
// or the job is gone.

// Reason of the Warning event on hopeless jobs.
const EventReasonHopeless = "DeadlineHopeless"

// Hopeless describes a job lss would kill, e.g. "job Job/ns/x cannot
// meet its deadline 2026-11-23T01:58:40Z: spare+tavg<0 (spare -40s,
// tavg 20s)".
func Hopeless(st lss.JobStatus) string {
	f := st.Figures
	spare := "-inf"
	if !f.Spare.CannotFinish {
		spare = f.Spare.Time.String()
	}
	tavg := "unknown"
	if f.TaskTime.Known {
		tavg = f.TaskTime.Avg.String()
	}
	return fmt.Sprintf("job %s cannot meet its deadline %s: %s (spare %s, tavg %s)", st.Job, f.Deadline.UTC().Format(time.RFC3339), st.Kill, spare, tavg)
}

// jobKey names one job for the kill rule's record: its ID and, for a
// batch/v1 Job, its UID (a Job deleted and re-created under its name is
// another job).
type jobKey struct {
	id  schedkit.JobID
	uid types.UID
}

func keyOf(j *podjob.Job) jobKey { return jobKey{id: j.ID(), uid: j.UID()} }

// killRule is the record of the hopeless jobs acted on, guarded by
// Plugin.mu: reported (event recorded), deleted (deletion done) and the
// last deletion error logged per job. Jobs no longer in lss's order are
// forgotten.
type killRule struct {
	reported map[jobKey]bool
	deleted  map[jobKey]bool
	failed   map[jobKey]string
}

func newKillRule() killRule {
	return killRule{reported: map[jobKey]bool{}, deleted: map[jobKey]bool{}, failed: map[jobKey]string{}}
}

// forget drops the record of jobs not in live.
func (k *killRule) forget(live map[jobKey]bool) {
	for _, m := range []map[jobKey]bool{k.reported, k.deleted} {
		for key := range m {
			if !live[key] {
				delete(m, key)
			}
		}
	}
	for key := range k.failed {
		if !live[key] {
			delete(k.failed, key)
		}
	}
}

// len is how many jobs the record holds.
func (k *killRule) len() int { return len(k.reported) }

// ActOnHopeless applies lss's kill rule now: for each job of the
// plugin's profile that lss would kill, it records a Warning event on
// the Job (on the first pod of a pod group) the first time and, with
// DeleteHopelessJobs, deletes the Job (or the pod group's unfinished
// pods) until a deletion succeeds. It returns the statuses of the jobs
// reported this time. The plugin calls it every HopelessCheckInterval.
func (pl *Plugin) ActOnHopeless(ctx context.Context) []lss.JobStatus {
	v := pl.current(nil)
	pl.mu.Lock()
	var report, del []lss.JobStatus
	live := make(map[jobKey]bool, len(v.order))
	for _, st := range v.order {
		key := keyOf(v.Snap.Job(st.Job))
		live[key] = true
		if st.Kill == lss.NoReason {
			continue
		}
		if !pl.kills.reported[key] {
			pl.kills.reported[key] = true
			report = append(report, st)
		}
		if pl.args.DeleteHopelessJobs && !pl.kills.deleted[key] {
			del = append(del, st)
		}
	}
	if v.Err == nil {
		pl.kills.forget(live)
	}
	pl.mu.Unlock()
	logger := klog.FromContext(ctx)
	for _, st := range report {
		j := v.Snap.Job(st.Job)
		var regarding runtime.Object = j.Object
		if j.Object == nil {
			regarding = j.Pods[0]
		}
		action := "None"
		if pl.args.DeleteHopelessJobs {
			action = "Delete"
		}
		if pl.handle != nil {
			if r := pl.handle.EventRecorder(); r != nil {
				r.Eventf(regarding, nil, v1.EventTypeWarning, EventReasonHopeless, action, "%s", Hopeless(st))
			}
		}
		logger.Info("Hopeless deadline job", "plugin", Name, "job", st.Job, "reason", st.Kill.String(), "delete", pl.args.DeleteHopelessJobs)
		HopelessJobs.WithLabelValues(killLabel(st.Kill)).Inc()
	}
	for _, st := range del {
		j := v.Snap.Job(st.Job)
		err := pl.delete(ctx, j)
		pl.mu.Lock()
		key := keyOf(j)
		last := pl.kills.failed[key]
		if err == nil {
			pl.kills.deleted[key] = true
			delete(pl.kills.failed, key)
			Deletions.WithLabelValues("deleted").Inc()
		} else {
			Deletions.WithLabelValues("failed").Inc()
			pl.kills.failed[key] = err.Error()
		}
		pl.mu.Unlock()
		if err != nil && err.Error() != last {
			logger.Error(err, "Deleting a hopeless job failed; trying again every hopelessCheckInterval", "plugin", Name, "job", j.ID())
		}
	}
	return report
}

// delete removes a hopeless job: the Job (its pods follow by garbage
// collection), or a pod group's unfinished pods. Objects already gone
// count as deleted.
func (pl *Plugin) delete(ctx context.Context, j *podjob.Job) error {
	if pl.handle == nil {
		return fmt.Errorf("%s: no clientset to delete %s", Name, j.ID())
	}
	cs := pl.handle.ClientSet()
	bg := metav1.DeletePropagationBackground
	if j.Object != nil {
		uid := j.Object.UID
		err := cs.BatchV1().Jobs(j.Namespace).Delete(ctx, j.Name, metav1.DeleteOptions{PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: &uid}})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil // gone, or another Job of that name now: not this one
		}
		return err
	}
	var first error
	for _, p := range j.Pods {
		if p.Status.Phase == v1.PodSucceeded {
			continue
		}
		uid := p.UID
		err := cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && first == nil {
			first = fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return first
}
