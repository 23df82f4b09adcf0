package errtext

import "errors"

// The words of the sentinels several packages share. A sentinel of one
// name reads the same in every package that has it, after the package's
// name: lss.ErrUnknownNode is "lss: unknown node ID", fgm.ErrUnknownNode
// "fgm: unknown node ID". TestSharedSentinelsReadAlike checks every
// package's sentinels against these.
const (
	Config        = "invalid config"
	InvalidJob    = "invalid job"
	InvalidTask   = "invalid task"
	InvalidNode   = "invalid node"
	DuplicateJob  = "duplicate job ID"
	DuplicateTask = "duplicate task ID"
	DuplicateNode = "duplicate node ID"
	UnknownJob    = "unknown job ID"
	UnknownTask   = "unknown task ID"
	UnknownNode   = "unknown node ID"
	StaleTime     = "time before an earlier call"
	TimeRange     = "time out of range"
)

// Sentinel returns the sentinel error of package pkg that reads words:
// "pkg: words".
func Sentinel(pkg, words string) error { return errors.New(pkg + ": " + words) }
