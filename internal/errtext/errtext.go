// Package errtext holds the one text format of every schedkit package's
// *Error, so that a message names its package once and reads the same
// whichever package returned it:
//
//	pkg: Op: job "j1": task "t1": node "n1": <sentinel>: <reason>: <cause>
//
// where <sentinel> and <cause> are the wrapped errors' texts without
// their own package prefix, and every part after Op is left out when
// empty.
package errtext

import (
	"strconv"
	"strings"
)

// prefixes are the package names a wrapped error's text may start with.
var prefixes = [...]string{"schedkit: ", "lss: ", "dbs: ", "fgm: ", "binding: ", "pipeline: ", "estimate: ", "resource: "}

// Bare returns err's text without a leading schedkit package prefix.
func Bare(err error) string {
	msg := err.Error()
	for _, p := range prefixes {
		if m, ok := strings.CutPrefix(msg, p); ok {
			return m
		}
	}
	return msg
}

// Parts are the fields of an *Error that its text shows.
type Parts struct {
	Pkg, Op         string
	Job, Task, Node string
	Sentinel        error
	Reason          string
	Cause           error
}

// Format renders p in the format above.
func Format(p Parts) string {
	var b strings.Builder
	b.WriteString(p.Pkg)
	b.WriteString(": ")
	b.WriteString(p.Op)
	for _, s := range [...]struct{ what, id string }{{"job", p.Job}, {"task", p.Task}, {"node", p.Node}} {
		if s.id != "" {
			b.WriteString(": ")
			b.WriteString(s.what)
			b.WriteByte(' ')
			b.WriteString(strconv.Quote(s.id))
		}
	}
	if p.Sentinel != nil {
		b.WriteString(": ")
		b.WriteString(Bare(p.Sentinel))
	}
	if p.Reason != "" {
		b.WriteString(": ")
		b.WriteString(p.Reason)
	}
	if p.Cause != nil {
		b.WriteString(": ")
		b.WriteString(Bare(p.Cause))
	}
	return b.String()
}

// Unwrap returns the non-nil ones of sentinel and cause, the list every
// *Error's Unwrap() []error returns.
func Unwrap(sentinel, cause error) []error {
	switch {
	case sentinel == nil && cause == nil:
		return nil
	case cause == nil:
		return []error{sentinel}
	case sentinel == nil:
		return []error{cause}
	}
	return []error{sentinel, cause}
}
