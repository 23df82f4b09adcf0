package examplecheck

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// example is one Example function and its playable program.
type example struct {
	pkg, name string // directory (relative to the root) and Example name
	src       []byte // the playable program, or nil if go/doc made none
}

// moduleRoot returns the repository's root directory (this package is
// internal/examplecheck).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module github.com/schedkit/schedkit\n")) {
		t.Fatalf("%s is not schedkit's root: %v", root, err)
	}
	return root
}

// publicExamples returns every Example in the _test.go files of the
// module's packages outside internal/ (and outside testdata), with
// go/doc's playable program for each.
func publicExamples(t *testing.T, root string) []example {
	t.Helper()
	var out []example
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "internal" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
			return filepath.SkipDir
		}
		exs, err := dirExamples(path, filepath.ToSlash(rel))
		out = append(out, exs...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dirExamples returns the Examples of the test files in dir, by package
// clause (the external test package and the package's own test files).
func dirExamples(dir, rel string) ([]example, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(names) == 0 {
		return nil, err
	}
	fset := token.NewFileSet()
	byPkg := map[string][]*ast.File{}
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		byPkg[f.Name.Name] = append(byPkg[f.Name.Name], f)
	}
	var out []example
	for _, pkg := range slices.Sorted(func(yield func(string) bool) {
		for p := range byPkg {
			if !yield(p) {
				return
			}
		}
	}) {
		for _, ex := range doc.Examples(byPkg[pkg]...) {
			e := example{pkg: rel, name: "Example" + prefixed(ex.Name)}
			if ex.Play != nil {
				var b bytes.Buffer
				if err := format.Node(&b, fset, ex.Play); err != nil {
					return nil, err
				}
				e.src = b.Bytes()
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// prefixed returns an Example's name suffix as it follows "Example".
func prefixed(name string) string {
	if name == "" {
		return ""
	}
	if strings.HasPrefix(name, "_") {
		return name
	}
	return "_" + name
}

// TestExamplesCompileAlone writes each public Example's playable program
// into a module of its own (one main package per Example, schedkit
// required and replaced by this repository) and runs go vet and go
// build on it: every Example compiles when copied alone into a new
// module. It needs the go command; -short skips it.
func TestExamplesCompileAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every public Example in a module of its own (the go command, about a minute on two cores); run without -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root := moduleRoot(t)
	exs := publicExamples(t, root)
	tmp := t.TempDir()
	mod := "module examplecheck\n\ngo 1.26\n\nrequire github.com/schedkit/schedkit v0.0.0\n\nreplace github.com/schedkit/schedkit => " + root + "\n"
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]example{}
	for i, ex := range exs {
		if ex.src == nil {
			t.Errorf("%s: %s cannot be copied alone: go/doc makes no program of it (it uses a name its file does not declare, or sits in a package's own test files)", ex.pkg, ex.name)
			continue
		}
		dir := filepath.Join(tmp, "ex", strings.ReplaceAll(ex.pkg, "/", "_")+"_"+ex.name)
		dirs[filepath.Base(dir)] = exs[i]
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), ex.src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d Examples in the public packages, %d written as programs", len(exs), len(dirs))
	if len(exs) < 30 {
		t.Fatalf("only %d Examples found: the walk missed packages", len(exs))
	}
	for _, args := range [][]string{{"vet", "./..."}, {"build", "./..."}} {
		start := time.Now()
		cmd := exec.Command(gobin, args...)
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go %s in the Examples' module: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	}
}
