package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the schedsim blocks of the guarded documents with the current output")

// guarded lists the documents whose schedsim blocks TestREADME keeps
// true, from this package's directory: the repository README and the
// experiments' results beside the experiments.
var guarded = []string{"../../../README.md", "../../experiment/README.md"}

// readmeBlock matches
//
//	<!-- BEGIN schedsim ARGS -->
//	```text
//	...
//	```
//	<!-- END schedsim -->
var readmeBlock = regexp.MustCompile("(?s)<!-- BEGIN schedsim([^>]*?)-->\\n```text\\n(.*?)```\\n<!-- END schedsim -->")

// TestREADME keeps every schedsim block of the guarded documents equal
// to what `schedsim ARGS` prints on stdout. With -update it rewrites the
// blocks:
//
//	go test ./internal/cmd/schedsim -run TestREADME -update
func TestREADME(t *testing.T) {
	if raceEnabled && !*update {
		t.Skip("the README guard runs in the plain test run (go test ./...)")
	}
	for _, path := range guarded {
		t.Run(path, func(t *testing.T) { guardDocument(t, path) })
	}
}

// guardDocument checks (or, with -update, rewrites) the schedsim blocks
// of the document at path.
func guardDocument(t *testing.T, path string) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlock.FindAllSubmatchIndex(src, -1)
	if len(blocks) == 0 {
		t.Logf("%s has no schedsim blocks", path)
		return
	}
	var out bytes.Buffer
	last := 0
	for _, m := range blocks {
		args := strings.Fields(string(src[m[2]:m[3]]))
		want := string(src[m[4]:m[5]])
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Fatalf("schedsim %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		got := stdout.String()
		if got != want && !*update {
			t.Errorf("%s: block `schedsim %s` is stale; run go test ./internal/cmd/schedsim -run TestREADME -update\n%s",
				path, strings.Join(args, " "), firstDiff(want, got))
		}
		out.Write(src[last:m[4]])
		out.WriteString(got)
		last = m[5]
	}
	out.Write(src[last:])
	if *update && !bytes.Equal(out.Bytes(), src) {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %d schedsim blocks in %s", len(blocks), path)
	}
}

// firstDiff describes the first differing line.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  document: %s\n  now:      %s", i+1, a, b)
		}
	}
	return ""
}

// The guard itself, on a README written in a temporary directory.
func TestREADMEBlockFormat(t *testing.T) {
	var stdout bytes.Buffer
	args := []string{"-experiment", "paper000-light", "-scale", "0.1", "-assumptions=false"}
	if code := run(args, &stdout, io.Discard); code != exitOK {
		t.Fatal("exit", code)
	}
	doc := "intro\n<!-- BEGIN schedsim " + strings.Join(args, " ") + " -->\n```text\n" + stdout.String() + "```\n<!-- END schedsim -->\nend\n"
	m := readmeBlock.FindAllStringSubmatch(doc, -1)
	if len(m) != 1 || strings.Join(strings.Fields(m[0][1]), " ") != strings.Join(args, " ") || m[0][2] != stdout.String() {
		t.Fatalf("block not recognised: %q", m)
	}
}
