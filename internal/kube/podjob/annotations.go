package podjob

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
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
}

// parseMeta reads and checks the schedkit annotations of object.
func parseMeta(object string, ann map[string]string) (meta, *Error) {
	m := meta{tasks: [2]int{-1, -1}}
	abs, hasAbs := ann[AnnotationDeadline]
	rel, hasRel := ann[AnnotationRelativeDeadline]
	switch {
	case hasAbs && hasRel:
		return m, invalid(object, AnnotationDeadline, "both %s and %s given; give one", AnnotationDeadline, AnnotationRelativeDeadline)
	case !hasAbs && !hasRel:
		return m, invalid(object, AnnotationDeadline, "missing (or %s): a schedkit job needs a deadline", AnnotationRelativeDeadline)
	case hasAbs:
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(abs))
		if err != nil {
			return m, invalid(object, AnnotationDeadline, "%q is not an RFC 3339 time", abs)
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

// sameMeta reports whether two pods of a group carry the same schedkit
// annotations.
func sameMeta(a, b map[string]string) bool {
	for _, k := range []string{AnnotationDeadline, AnnotationRelativeDeadline, AnnotationTasks} {
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
