package errtext

import (
	"errors"
	"testing"
)

func TestFormat(t *testing.T) {
	sentinel := errors.New("lss: invalid job")
	cause := errors.New("schedkit: inconsistent phase progress")
	tests := []struct {
		p    Parts
		want string
	}{
		{Parts{Pkg: "lss", Op: "Submit", Job: "j1", Sentinel: sentinel, Reason: "empty"}, `lss: Submit: job "j1": invalid job: empty`},
		{Parts{Pkg: "fgm", Op: "SampleTask", Task: "t1", Node: "n1", Sentinel: sentinel, Cause: cause}, `fgm: SampleTask: task "t1": node "n1": invalid job: inconsistent phase progress`},
		{Parts{Pkg: "dbs", Op: "New", Sentinel: errors.New("dbs: invalid config")}, `dbs: New: invalid config`},
		{Parts{Pkg: "binding", Op: "Add", Node: `a"b`, Sentinel: errors.New("other: x")}, `binding: Add: node "a\"b": other: x`},
	}
	for _, tt := range tests {
		if got := Format(tt.p); got != tt.want {
			t.Errorf("Format = %q, want %q", got, tt.want)
		}
	}
}

func TestUnwrap(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	for _, tt := range []struct {
		s, c error
		n    int
	}{{nil, nil, 0}, {a, nil, 1}, {nil, b, 1}, {a, b, 2}} {
		if got := Unwrap(tt.s, tt.c); len(got) != tt.n {
			t.Errorf("Unwrap(%v, %v) = %v", tt.s, tt.c, got)
		}
	}
}
