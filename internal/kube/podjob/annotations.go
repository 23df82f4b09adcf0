package podjob

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Keys of the annotations, labels and extended resources schedkit reads.
const (
	// Prefix starts every key below. A batch/v1 Job with at least one
	// annotation under it is managed by schedkit.
	Prefix = "schedkit.io/"

	// AnnotationDeadline (on the Job or the pod group's pods) is the
	// job's absolute deadline in RFC 3339, e.g. "2026-11-23T03:00:00Z".
	AnnotationDeadline = Prefix + "deadline"
	// AnnotationRelativeDeadline is the deadline as a Go duration after
	// submission, e.g. "500s" (the paper's D). Give exactly one of the two.
	AnnotationRelativeDeadline = Prefix + "relative-deadline"
	// AnnotationTasks declares the number of tasks per phase, e.g.
	// "map=108,reduce=1". Optional: without it, a phase's total is the
	// number of its non-failed pods.
	AnnotationTasks = Prefix + "tasks"

	// AnnotationPhi (DeadlineBudget) is the job's time-influence factor
	// φ: "1" (deadline only, High queue), "0.5" (both, Mid queue) or "0"
	// (budget only, Low queue). Required by the DeadlineBudget plugin,
	// which then requires a deadline only when φ > 0.
	AnnotationPhi = Prefix + "phi"
	// AnnotationBudget (DeadlineBudget) is the job's budget B, a
	// non-negative decimal in the currency of the plugin's queue prices
	// (price × slot-seconds). Required, and positive, when φ < 1.
	AnnotationBudget = Prefix + "budget"
	// AnnotationDataSizes (DeadlineBudget) gives the job's input size δ
	// and reduce input f·δ as Kubernetes quantities in bytes, e.g.
	// "input=3350Mi,reduce=120Mi" (either part optional): model 2's
	// shuffle time is f·δ over the plugin's transferRate.
	AnnotationDataSizes = Prefix + "data-sizes"
	// AnnotationQueue (DeadlineBudget, written by the plugin when
	// writeQueueAnnotation is on) is the queue the job is in: "high",
	// "mid" or "low". Informational; the plugin does not read it.
	AnnotationQueue = Prefix + "queue"
	// AnnotationDBSState (DeadlineBudget, written by the plugin when
	// persistState is on) is what dbs keeps of the job that the cluster
	// does not (its queue after model 3's moves, marks, last move, price
	// history), read back when a restarted plugin first sees the job.
	// Not one of the job's terms: writing it changes nothing Build reads.
	AnnotationDBSState = Prefix + "dbs-state"

	// LabelPodGroup (on pods) names a pod group: pods without an owning
	// Job that form one job.
	LabelPodGroup = Prefix + "pod-group"
	// LabelPhase (on pods) is the pod's phase: "map" (the default) or
	// "reduce".
	LabelPhase = Prefix + "phase"
	// LabelRack (on nodes) names the node's rack; "default" without it.
	LabelRack = Prefix + "rack"

	// ResourceMapSlot and ResourceReduceSlot are the extended resources
	// that carry Hadoop-1 slots: a node advertises how many it has in its
	// allocatable, a map (reduce) pod requests one map (reduce) slot.
	ResourceMapSlot    v1.ResourceName = Prefix + "map-slot"
	ResourceReduceSlot v1.ResourceName = Prefix + "reduce-slot"
)

// Errors wrapped by every *Error.
var (
	// ErrInvalid: a missing, malformed or inconsistent annotation, label
	// or pod status.
	ErrInvalid = errors.New("invalid schedkit annotation or status")
	// ErrNotFound: the pod's owning Job is not (yet) known.
	ErrNotFound = errors.New("owning Job not found")
)

// Error reports why a pod's job could not be translated.
type Error struct {
	// Object is "Job ns/name", "pod group ns/name" or "pod ns/name".
	Object string
	// Key is the annotation or label at fault, if any.
	Key    string
	Reason string
	Err    error // ErrInvalid or ErrNotFound
}

// Error returns the message, prefixed "podjob: " and naming the object
// and, if any, the key at fault.
func (e *Error) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("podjob: %s: %s: %s", e.Object, e.Key, e.Reason)
	}
	return fmt.Sprintf("podjob: %s: %s", e.Object, e.Reason)
}

// Unwrap returns ErrInvalid or ErrNotFound.
func (e *Error) Unwrap() error { return e.Err }

func invalid(object, key, format string, args ...any) *Error {
	return &Error{Object: object, Key: key, Reason: fmt.Sprintf(format, args...), Err: ErrInvalid}
}

// maxTasks bounds declared task counts.
const maxTasks = 1 << 31

// meta is what a job's annotations declare.
type meta struct {
	deadline time.Time     // absolute, or zero
	relative time.Duration // after submission, or zero
	tasks    [2]int        // declared totals; -1 when not declared
	budget   budgetMeta
}

// budgetMeta is what the DeadlineBudget annotations declare.
type budgetMeta struct {
	phi, budget        float64
	input, reduceInput int64
}

// Options choose what Build reads.
type Options struct {
	// Budget reads the DeadlineBudget annotations: AnnotationPhi is
	// required, a deadline only when φ > 0, AnnotationBudget (positive)
	// when φ < 1; AnnotationDataSizes is optional.
	Budget bool
	// SchedulerName, if set, is the scheduler whose pods form jobs: the
	// pods of other schedulers join no job (they only hold slots on their
	// nodes), and a job whose pods name both that scheduler and another
	// is an error naming the other's pod.
	SchedulerName string
}

// parseMeta reads and checks the schedkit annotations of object.
func parseMeta(object string, ann map[string]string, opts Options) (meta, *Error) {
	m := meta{tasks: [2]int{-1, -1}}
	needDeadline := true
	if opts.Budget {
		b, err := parseBudget(object, ann)
		if err != nil {
			return m, err
		}
		m.budget = b
		needDeadline = b.phi > 0
	}
	abs, hasAbs := ann[AnnotationDeadline]
	rel, hasRel := ann[AnnotationRelativeDeadline]
	switch {
	case hasAbs && hasRel:
		return m, invalid(object, AnnotationDeadline, "both %s and %s given; give one", AnnotationDeadline, AnnotationRelativeDeadline)
	case !hasAbs && !hasRel && !needDeadline:
	case !hasAbs && !hasRel && opts.Budget:
		return m, invalid(object, AnnotationDeadline, "missing (or %s): a job with %s %v > 0 needs a deadline", AnnotationRelativeDeadline, AnnotationPhi, m.budget.phi)
	case !hasAbs && !hasRel:
		return m, invalid(object, AnnotationDeadline, "missing (or %s): a schedkit job needs a deadline", AnnotationRelativeDeadline)
	case hasAbs:
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(abs))
		if err != nil {
			return m, invalid(object, AnnotationDeadline, "%q is not an RFC 3339 time", abs)
		}
		if t.IsZero() {
			// The algorithms read the zero time as "no deadline".
			return m, invalid(object, AnnotationDeadline, "%q is the zero time, which reads as no deadline: give the job's deadline", abs)
		}
		m.deadline = t
	default:
		d, err := time.ParseDuration(strings.TrimSpace(rel))
		if err != nil || d <= 0 {
			return m, invalid(object, AnnotationRelativeDeadline, "%q is not a positive Go duration", rel)
		}
		m.relative = d
	}
	if s, ok := ann[AnnotationTasks]; ok {
		t, err := parseTasks(object, s)
		if err != nil {
			return m, err
		}
		m.tasks = t
	}
	return m, nil
}

// parseBudget reads and checks the DeadlineBudget annotations.
func parseBudget(object string, ann map[string]string) (budgetMeta, *Error) {
	var b budgetMeta
	v, ok := ann[AnnotationPhi]
	if !ok {
		return b, invalid(object, AnnotationPhi, "missing: the DeadlineBudget plugin needs the job's φ (1, 0.5 or 0)")
	}
	phi, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || (phi != 0 && phi != 0.5 && phi != 1) {
		return b, invalid(object, AnnotationPhi, "%q: want 1 (deadline only), 0.5 (both) or 0 (budget only)", v)
	}
	b.phi = phi
	if v, ok := ann[AnnotationBudget]; ok {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return b, invalid(object, AnnotationBudget, "%q is not a finite, non-negative number", v)
		}
		b.budget = x
	}
	if b.budget == 0 && phi < 1 {
		return b, invalid(object, AnnotationBudget, "missing or zero: a job with %s %v < 1 needs a positive budget", AnnotationPhi, phi)
	}
	if v, ok := ann[AnnotationDataSizes]; ok {
		in, red, err := parseDataSizes(object, v)
		if err != nil {
			return b, err
		}
		b.input, b.reduceInput = in, red
	}
	return b, nil
}

// parseDataSizes reads "input=Q,reduce=Q" (either part optional, not
// both), Q a Kubernetes quantity of bytes.
func parseDataSizes(object, s string) (input, reduce int64, err *Error) {
	seen := [2]bool{}
	if strings.TrimSpace(s) == "" {
		return 0, 0, invalid(object, AnnotationDataSizes, "empty; want e.g. \"input=3350Mi,reduce=120Mi\"")
	}
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return 0, 0, invalid(object, AnnotationDataSizes, "%q: want input=size or reduce=size", part)
		}
		i := 0
		switch strings.TrimSpace(k) {
		case "input":
		case "reduce":
			i = 1
		default:
			return 0, 0, invalid(object, AnnotationDataSizes, "%q: unknown size %q (input or reduce)", part, k)
		}
		if seen[i] {
			return 0, 0, invalid(object, AnnotationDataSizes, "%s given twice", k)
		}
		seen[i] = true
		q, perr := resource.ParseQuantity(strings.TrimSpace(v))
		if perr != nil || q.Sign() < 0 {
			return 0, 0, invalid(object, AnnotationDataSizes, "%q: not a non-negative quantity of bytes", part)
		}
		n, ok := q.AsInt64()
		if !ok {
			return 0, 0, invalid(object, AnnotationDataSizes, "%q: not a whole number of bytes below 2^63", part)
		}
		if i == 0 {
			input = n
		} else {
			reduce = n
		}
	}
	return input, reduce, nil
}

// parseTasks reads "map=N,reduce=M" (either part optional, not both).
func parseTasks(object, s string) ([2]int, *Error) {
	out := [2]int{-1, -1}
	if strings.TrimSpace(s) == "" {
		return out, invalid(object, AnnotationTasks, "empty; want e.g. \"map=8,reduce=1\"")
	}
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return out, invalid(object, AnnotationTasks, "%q: want phase=count", part)
		}
		p, ok := phaseByName(strings.TrimSpace(k))
		if !ok {
			return out, invalid(object, AnnotationTasks, "%q: unknown phase %q (map or reduce)", part, k)
		}
		if out[p] >= 0 {
			return out, invalid(object, AnnotationTasks, "phase %s given twice", k)
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > maxTasks {
			return out, invalid(object, AnnotationTasks, "%q: count must be an integer in [0, 2^31]", part)
		}
		out[p] = n
	}
	return out, nil
}

// phaseByName maps "map" and "reduce" to phase indexes.
func phaseByName(s string) (int, bool) {
	switch s {
	case "map":
		return 0, true
	case "reduce":
		return 1, true
	}
	return 0, false
}

// metaKeys are the annotations a job's meta is read from; the first
// len(termKeys) of them are its terms (what it asks: deadline, φ,
// budget, data sizes), the last its task counts.
var metaKeys = [...]string{AnnotationDeadline, AnnotationRelativeDeadline, AnnotationPhi, AnnotationBudget, AnnotationDataSizes, AnnotationTasks}

// termKeys are the annotations of a job's terms.
var termKeys = metaKeys[:len(metaKeys)-1]

// terms are the values of a job's termKeys annotations ("" when absent).
type terms [len(metaKeys) - 1]string

func termsOf(ann map[string]string) terms {
	var t terms
	for i, k := range termKeys {
		t[i] = ann[k]
	}
	return t
}

// sameMeta reports whether two pods of a group carry the same schedkit
// annotations.
func sameMeta(a, b map[string]string) bool {
	for _, k := range metaKeys {
		va, oka := a[k]
		vb, okb := b[k]
		if oka != okb || va != vb {
			return false
		}
	}
	return true
}

// hasPrefixed reports whether m has a key under Prefix.
func hasPrefixed(m map[string]string) bool {
	for k := range m {
		if strings.HasPrefix(k, Prefix) {
			return true
		}
	}
	return false
}
