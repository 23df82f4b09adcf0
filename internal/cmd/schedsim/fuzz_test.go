package main

import (
	"io"
	"strings"
	"testing"
)

// FuzzParse: any argument list parses or fails with an error; never a
// panic.
func FuzzParse(f *testing.F) {
	f.Add("-experiment paper000-light -scale 0.5 -seed 3")
	f.Add("-out json -policies fifo,drf -svg /tmp/x")
	f.Add("-trace /nonexistent -format swf -nodes -1")
	f.Add("-scale NaN -experiment ,,,")
	f.Add("-nodes 0 -policies , -load 0.8")
	f.Add("-experiment lss -trace x.tsv -timing -load 1e308")
	f.Fuzz(func(t *testing.T, line string) {
		_, _ = parse(strings.Fields(line), io.Discard)
	})
}
