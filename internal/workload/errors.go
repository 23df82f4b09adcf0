package workload

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error returned by this package wraps exactly one of
// them, so callers test with errors.Is; reader errors are also a
// *ParseError and configuration errors a *ConfigError (use errors.As).
var (
	// ErrEmpty reports an input with no job at all.
	ErrEmpty = errors.New("workload: no jobs in input")
	// ErrColumns reports a line with the wrong number of fields, or a CSV
	// header with a missing, unknown or repeated column.
	ErrColumns = errors.New("workload: wrong number of fields")
	// ErrSyntax reports a field that is not a number (or duration) where
	// one is expected.
	ErrSyntax = errors.New("workload: malformed value")
	// ErrRange reports a value out of its range: negative, NaN, infinite,
	// zero where a positive value is needed, or too large to represent.
	ErrRange = errors.New("workload: value out of range")
	// ErrDuplicate reports a job ID seen twice.
	ErrDuplicate = errors.New("workload: duplicate job ID")
	// ErrInconsistent reports rows of one job that disagree (CSV), or a
	// workload that breaks an invariant of Workload.Validate.
	ErrInconsistent = errors.New("workload: inconsistent input")
	// ErrConfig reports an invalid generator, reader or shaper setting.
	ErrConfig = errors.New("workload: invalid configuration")
)

// ParseError is returned by the readers for malformed input. It names the
// input (the name passed to the reader), the 1-based line, and the field,
// and wraps one of the sentinel errors.
type ParseError struct {
	File  string // name given to the reader, e.g. a path
	Line  int    // 1-based line number; 0 when the error is about the whole input
	Field string // column or field name, e.g. "submit_time_s"; "" if none
	Err   error  // wraps a sentinel error
}

// Error returns "file:line: field: message".
func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Field != "":
		return fmt.Sprintf("%s:%d: %s: %v", e.File, e.Line, e.Field, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	case e.Field != "":
		return fmt.Sprintf("%s: %s: %v", e.File, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the wrapped error.
func (e *ParseError) Unwrap() error { return e.Err }

// ConfigError reports an invalid setting of a generator, reader option or
// shaper. It wraps ErrConfig (or ErrRange for out-of-range numbers).
type ConfigError struct {
	Field string // the setting, e.g. "TaskModel.MapRate"
	Err   error
}

// Error returns "workload: config Field: message".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("workload: config %s: %v", e.Field, e.Err)
}

// Unwrap returns the wrapped error.
func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(field string, sentinel error, format string, args ...any) error {
	return &ConfigError{Field: field, Err: because(sentinel, format, args...)}
}

func parseErr(file string, line int, field string, sentinel error, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Field: field, Err: because(sentinel, format, args...)}
}

// reason is a message that matches a sentinel (errors.Is) without
// repeating the sentinel's text: "x.tsv:4: reduce_output_bytes: 1e18
// bytes exceeds the limit 1e15", not "...: workload: value out of range:
// ...".
type reason struct {
	sentinel error
	msg      string
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.sentinel }

// because returns a reason for sentinel with the formatted message.
func because(sentinel error, format string, args ...any) error {
	return &reason{sentinel, fmt.Sprintf(format, args...)}
}
