package podjob

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedkit/schedkit"
)

// Kinds of Job.Kind.
const (
	KindJob      = "Job"
	KindPodGroup = "PodGroup"
)

// JobLookup returns the batch/v1 Job namespace/name, or an error if it is
// not known (a lister's Get).
type JobLookup func(namespace, name string) (*batchv1.Job, error)

// Job is one schedkit job: a batch/v1 Job or a pod group with its pods.
// It implements schedkit.Job over a snapshot and never changes.
type Job struct {
	id        schedkit.JobID
	Kind      string // KindJob or KindPodGroup
	Namespace string
	Name      string
	// Object is the batch/v1 Job, nil for a pod group.
	Object *batchv1.Job
	// Pods are the job's pods (terminating ones excluded), by creation
	// time then name.
	Pods []*v1.Pod

	submitted, deadline time.Time
	phases              int
	progress            [2]schedkit.PhaseProgress
	ready               [2][]*v1.Pod
	budget              budgetMeta
	runs                []Run
	terms               terms
}

// Run is one pod's time on a slot: from Start to End for a succeeded pod;
// from Start on, with End zero, for a running one.
type Run struct {
	Phase      schedkit.Phase
	Start, End time.Time
}

// Phi is the job's AnnotationPhi (read with Options.Budget; 0 otherwise).
func (j *Job) Phi() float64 { return j.budget.phi }

// Budget is the job's AnnotationBudget, 0 without one.
func (j *Job) Budget() float64 { return j.budget.budget }

// DataSizes are the job's input and reduce input in bytes
// (AnnotationDataSizes), 0 when not given.
func (j *Job) DataSizes() (input, reduceInput int64) {
	return j.budget.input, j.budget.reduceInput
}

// UID is the batch/v1 Job's UID; "" for a pod group.
func (j *Job) UID() types.UID {
	if j.Object == nil {
		return ""
	}
	return j.Object.UID
}

// TermsChanged lists the annotations of the job's terms — deadline, φ,
// budget, data sizes, not its task counts — whose values differ from
// old's, each as `key "old" → "new"`; none when they are the same.
func (j *Job) TermsChanged(old *Job) []string {
	var out []string
	for i, k := range termKeys {
		if j.terms[i] != old.terms[i] {
			out = append(out, fmt.Sprintf("%s %q → %q", k, old.terms[i], j.terms[i]))
		}
	}
	return out
}

// Runs lists the time each of the job's finished or running pods held a
// slot, in rank order: the slot-seconds a host charges for.
func (j *Job) Runs() []Run { return j.runs }

var _ schedkit.Job = (*Job)(nil)

// ID is "Job/ns/name" or "PodGroup/ns/name".
func (j *Job) ID() schedkit.JobID { return j.id }

// Submitted is the Job's creation time, or the pod group's earliest pod's.
func (j *Job) Submitted() time.Time { return j.submitted }

// Deadline is the annotated deadline.
func (j *Job) Deadline() time.Time { return j.deadline }

// Phases is 2 if the job has reduce tasks, else 1.
func (j *Job) Phases() int { return j.phases }

// Progress returns the counters of phase p.
func (j *Job) Progress(p schedkit.Phase) schedkit.PhaseProgress {
	if int(p) >= j.phases {
		return schedkit.PhaseProgress{}
	}
	return j.progress[p]
}

// Ready returns the job's ready (pending, ungated) pods of phase p in
// rank order: creation time, then name.
func (j *Job) Ready(p schedkit.Phase) []*v1.Pod {
	if int(p) >= len(j.ready) {
		return nil
	}
	return j.ready[p]
}

// PodRef places one pod in its job.
type PodRef struct {
	Job   *Job
	Phase schedkit.Phase
	// Rank is the pod's index in Job.Ready(Phase), or -1 if it is not
	// ready (bound, finished or gated).
	Rank int
}

// Snapshot is the translation of one consistent read of pods, Jobs and
// nodes at one instant.
type Snapshot struct {
	// Now is the instant the snapshot was built for.
	Now time.Time
	// Jobs are the jobs translated without error, by ID.
	Jobs []*Job
	// Cluster is the nodes' slot view.
	Cluster *Cluster
	// Refused holds, by node name, why a node's slots are left out of
	// Cluster (figures out of bounds: MaxNodeSlots, MaxClusterSlots).
	Refused map[string]error

	pods   map[types.UID]PodRef
	podErr map[types.UID]error
}

// Pod returns the job of a managed pod. ok is false for pods that are not
// managed, or whose job has an error (see PodError).
func (s *Snapshot) Pod(uid types.UID) (PodRef, bool) {
	r, ok := s.pods[uid]
	return r, ok
}

// PodError returns why a pod's job could not be translated, or nil.
func (s *Snapshot) PodError(uid types.UID) error { return s.podErr[uid] }

// Job returns the job with the given ID, or nil.
func (s *Snapshot) Job(id schedkit.JobID) *Job {
	i, ok := slices.BinarySearchFunc(s.Jobs, id, func(j *Job, id schedkit.JobID) int { return cmp.Compare(j.id, id) })
	if !ok {
		return nil
	}
	return s.Jobs[i]
}

// group collects one job's pods before translation.
type group struct {
	kind, ns, name string
	job            *batchv1.Job
	pods           []*v1.Pod
	err            *Error
	// foreign is a pod of the job that names another scheduler than
	// Options.SchedulerName (nil: none).
	foreign *v1.Pod
}

// Build translates pods, their Jobs (found with lookup) and nodes at now.
// It never fails as a whole: a job whose annotations or pods are bad is
// left out of Jobs and each of its pods gets the error (PodError); a
// node whose slots are out of bounds is left out of Cluster (Refused).
func Build(now time.Time, pods []*v1.Pod, lookup JobLookup, nodes []*v1.Node) *Snapshot {
	return BuildWith(now, pods, lookup, nodes, Options{})
}

// BuildWith is Build reading what opts asks for.
func BuildWith(now time.Time, pods []*v1.Pod, lookup JobLookup, nodes []*v1.Node, opts Options) *Snapshot {
	s := &Snapshot{Now: now, pods: map[types.UID]PodRef{}, podErr: map[types.UID]error{}, Refused: map[string]error{}}
	groups, keys := s.group(pods, lookup, opts)
	for _, key := range keys {
		g := groups[key]
		if len(g.pods) == 0 {
			continue // another scheduler's job, or only pods of a Job gone
		}
		if g.kind == KindJob && g.err == nil && !hasPrefixed(g.job.Annotations) {
			if !anyLabelled(g.pods) {
				continue // an ordinary Job: not ours
			}
			g.err = invalid("Job "+g.ns+"/"+g.name, "", "its pods carry %s labels but the Job has no %s annotation", Prefix, Prefix)
		}
		if g.err == nil && g.foreign != nil {
			g.err = invalid(g.object(), "", "its pod %s names scheduler %q, not %q: a job's pods name one scheduler",
				g.foreign.Name, g.foreign.Spec.SchedulerName, opts.SchedulerName)
		}
		slices.SortFunc(g.pods, podOrder)
		j, err := translate(now, key, g, opts)
		if err != nil {
			for _, p := range g.pods {
				s.podErr[p.UID] = err
			}
			continue
		}
		s.Jobs = append(s.Jobs, j)
	}
	for _, j := range s.Jobs {
		for _, p := range j.Pods {
			s.pods[p.UID] = PodRef{Job: j, Phase: phaseOf(p), Rank: -1}
		}
		for ph := range j.ready {
			for i, p := range j.ready[ph] {
				s.pods[p.UID] = PodRef{Job: j, Phase: schedkit.Phase(ph), Rank: i}
			}
		}
	}
	s.Cluster = newCluster(nodes, pods, s.Refused)
	return s
}

// object names the group's Job or pod group in errors.
func (g *group) object() string {
	if g.kind == KindJob {
		return "Job " + g.ns + "/" + g.name
	}
	return "pod group " + g.ns + "/" + g.name
}

// group sorts the pods into their jobs (keys in order), looking up each
// Job once. A pod whose controller reference names a Job of another UID
// (one deleted and re-created under its name) is not that Job's: it gets
// ErrNotFound. With opts.SchedulerName, pods of other schedulers join no
// job; each group remembers one of them.
func (s *Snapshot) group(pods []*v1.Pod, lookup JobLookup, opts Options) (map[string]*group, []string) {
	groups := map[string]*group{}
	var keys []string
	for _, pod := range pods {
		if pod == nil || pod.DeletionTimestamp != nil || pod.Status.Phase == v1.PodFailed {
			continue
		}
		kind, name, uid, ok := owner(pod)
		if !ok {
			continue
		}
		key := kind + "/" + pod.Namespace + "/" + name
		g := groups[key]
		if g == nil {
			g = &group{kind: kind, ns: pod.Namespace, name: name}
			groups[key] = g
			keys = append(keys, key)
			if kind == KindJob {
				g.job, g.err = findJob(lookup, pod.Namespace, name)
			}
		}
		if opts.SchedulerName != "" && pod.Spec.SchedulerName != opts.SchedulerName {
			g.foreign = pod
			continue
		}
		if kind == KindJob && g.job != nil && uid != g.job.UID {
			s.podErr[pod.UID] = &Error{Object: "pod " + pod.Namespace + "/" + pod.Name, Err: ErrNotFound,
				Reason: fmt.Sprintf("its Job %s/%s of UID %s is gone (the Job of that name now has UID %s)", pod.Namespace, name, uid, g.job.UID)}
			continue
		}
		g.pods = append(g.pods, pod)
	}
	slices.Sort(keys)
	return groups, keys
}

// JobOf returns the ID a job of pod p's would have in a Snapshot
// ("Job/ns/name" for its controlling batch/v1 Job, "PodGroup/ns/name"
// for its pod group label); ok is false for pods that are neither. The
// Job need not be schedkit's: an ordinary Job's pods have an ID too, and
// no job in the Snapshot.
func JobOf(p *v1.Pod) (id schedkit.JobID, ok bool) {
	kind, name, _, ok := owner(p)
	if !ok {
		return "", false
	}
	return schedkit.JobID(kind + "/" + p.Namespace + "/" + name), true
}

// owner returns the job a pod belongs to: its controlling batch/v1 Job
// (and the Job's UID the reference names), else its pod group label. ok
// is false for pods that are neither.
func owner(pod *v1.Pod) (kind, name string, uid types.UID, ok bool) {
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "Job" && groupOfAPIVersion(ref.APIVersion) == "batch" {
		return KindJob, ref.Name, ref.UID, true
	}
	if g := pod.Labels[LabelPodGroup]; g != "" {
		return KindPodGroup, g, "", true
	}
	return "", "", "", false
}

func groupOfAPIVersion(v string) string {
	for i := range len(v) {
		if v[i] == '/' {
			return v[:i]
		}
	}
	return ""
}

// findJob looks the Job up, turning a miss into ErrNotFound.
func findJob(lookup JobLookup, ns, name string) (*batchv1.Job, *Error) {
	if lookup == nil {
		return nil, &Error{Object: "Job " + ns + "/" + name, Reason: "no Job lister", Err: ErrNotFound}
	}
	j, err := lookup(ns, name)
	if err != nil || j == nil {
		return nil, &Error{Object: "Job " + ns + "/" + name, Reason: "not in the scheduler's cache", Err: ErrNotFound}
	}
	return j, nil
}

// anyLabelled reports whether a pod carries a schedkit label.
func anyLabelled(pods []*v1.Pod) bool {
	for _, p := range pods {
		if hasPrefixed(p.Labels) {
			return true
		}
	}
	return false
}

// podOrder is the rank order: creation time, then name.
func podOrder(a, b *v1.Pod) int {
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// phaseOf returns the pod's phase; call it after checkPhase.
func phaseOf(p *v1.Pod) schedkit.Phase {
	if p.Labels[LabelPhase] == "reduce" {
		return schedkit.PhaseReduce
	}
	return schedkit.PhaseMap
}

// translate builds a Job from a group whose pods are in rank order.
func translate(now time.Time, key string, g *group, opts Options) (*Job, error) {
	j := &Job{id: schedkit.JobID(key), Kind: g.kind, Namespace: g.ns, Name: g.name, Object: g.job, Pods: g.pods}
	if g.err != nil {
		return nil, g.err
	}
	var m meta
	var err *Error
	object := g.object()
	if g.kind == KindJob {
		if m, err = parseMeta(object, g.job.Annotations, opts); err != nil {
			return nil, err
		}
		j.terms = termsOf(g.job.Annotations)
		j.submitted = g.job.CreationTimestamp.Time
	} else {
		first := g.pods[0]
		for _, p := range g.pods[1:] {
			if !sameMeta(first.Annotations, p.Annotations) {
				return nil, invalid(object, "", "pods %s and %s carry different %s annotations", first.Name, p.Name, Prefix)
			}
		}
		if m, err = parseMeta(object, first.Annotations, opts); err != nil {
			return nil, err
		}
		j.terms = termsOf(first.Annotations)
		j.submitted = first.CreationTimestamp.Time // pods are in creation order
	}
	// Clock skew: an object created "in the future" (the API server's
	// clock ahead of ours) was submitted now.
	if j.submitted.After(now) {
		j.submitted = now
	}
	j.deadline = m.deadline
	j.budget = m.budget
	if m.relative > 0 {
		j.deadline = j.submitted.Add(m.relative)
	}
	seen := [2]int{}
	for _, p := range g.pods {
		if v, ok := p.Labels[LabelPhase]; ok {
			if _, ok := phaseByName(v); !ok {
				return nil, invalid("pod "+p.Namespace+"/"+p.Name, LabelPhase, "%q: want map or reduce", v)
			}
		}
		ph := phaseOf(p)
		pr := &j.progress[ph]
		seen[ph]++
		switch {
		case p.Status.Phase == v1.PodSucceeded:
			start, end, err := finishedRun(p, j.submitted, now)
			if err != nil {
				return nil, err
			}
			pr.Finished++
			pr.FinishedDurationSum += end.Sub(start)
			j.runs = append(j.runs, Run{Phase: ph, Start: start, End: end})
		case p.Spec.NodeName != "":
			start := now
			if p.Status.StartTime != nil {
				start = p.Status.StartTime.Time
			}
			start = clamp(start, j.submitted, now) // clock skew, as finishedRun
			pr.Running++
			pr.RunningStartSum += start.Sub(j.submitted)
			j.runs = append(j.runs, Run{Phase: ph, Start: start})
		case len(p.Spec.SchedulingGates) == 0:
			pr.Ready++
			j.ready[ph] = append(j.ready[ph], p)
		}
	}
	for ph := range 2 {
		pr := &j.progress[ph]
		pr.Total = seen[ph]
		if m.tasks[ph] >= 0 {
			if seen[ph] > m.tasks[ph] {
				name := [2]string{"map", "reduce"}[ph]
				return nil, invalid("Job or pod group "+g.ns+"/"+g.name, AnnotationTasks, "declares %s=%d but the job has %d %s pods", name, m.tasks[ph], seen[ph], name)
			}
			pr.Total = m.tasks[ph]
		}
		if err := pr.Validate(); err != nil {
			return nil, invalid("Job or pod group "+g.ns+"/"+g.name, "", "%v", err)
		}
	}
	j.phases = 1
	if j.progress[1].Total > 0 {
		j.phases = 2
	}
	return j, nil
}

// finishedRun is a succeeded pod's run: status.startTime to the last
// container's finish, each clamped to [submitted, now] (a node's clock
// before NTP, or ahead: a start in 1970 would make one task last decades
// and its job hopeless), the finish never before the start.
func finishedRun(p *v1.Pod, submitted, now time.Time) (start, end time.Time, err *Error) {
	object := "pod " + p.Namespace + "/" + p.Name
	if p.Status.StartTime == nil {
		return start, end, invalid(object, "", "succeeded without status.startTime")
	}
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.Time.After(end) {
			end = t.FinishedAt.Time
		}
	}
	if end.IsZero() {
		return start, end, invalid(object, "", "succeeded without a container finish time")
	}
	start = clamp(p.Status.StartTime.Time, submitted, now)
	end = clamp(end, start, now)
	return start, end, nil
}

// clamp returns t within [lo, hi] (lo when hi is before lo).
func clamp(t, lo, hi time.Time) time.Time {
	if t.After(hi) {
		t = hi
	}
	if t.Before(lo) {
		t = lo
	}
	return t
}

// Terms returns the values of the job's terms annotations (deadline, φ,
// budget, data sizes: "" when absent), in a fixed order: a job whose
// Terms differ has different terms (TermsChanged names them).
func (j *Job) Terms() []string { return append([]string(nil), j.terms[:]...) }
