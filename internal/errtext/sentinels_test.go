package errtext_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/binding"
	"github.com/schedkit/schedkit/dbs"
	"github.com/schedkit/schedkit/fgm"
	"github.com/schedkit/schedkit/internal/errtext"
	"github.com/schedkit/schedkit/lss"
	"github.com/schedkit/schedkit/pipeline"
)

// shared are the sentinel names several packages have, with their words.
var shared = map[string]string{
	"ErrConfig":        errtext.Config,
	"ErrInvalidJob":    errtext.InvalidJob,
	"ErrInvalidTask":   errtext.InvalidTask,
	"ErrInvalidNode":   errtext.InvalidNode,
	"ErrDuplicateJob":  errtext.DuplicateJob,
	"ErrDuplicateTask": errtext.DuplicateTask,
	"ErrDuplicateNode": errtext.DuplicateNode,
	"ErrUnknownJob":    errtext.UnknownJob,
	"ErrUnknownTask":   errtext.UnknownTask,
	"ErrUnknownNode":   errtext.UnknownNode,
	"ErrStaleTime":     errtext.StaleTime,
	"ErrTimeRange":     errtext.TimeRange,
}

// sentinels are every algorithm package's exported sentinels, by
// package directory and name.
var sentinels = map[string]map[string]error{
	"lss": {
		"ErrConfig": lss.ErrConfig, "ErrInvalidJob": lss.ErrInvalidJob, "ErrDuplicateJob": lss.ErrDuplicateJob,
		"ErrUnknownJob": lss.ErrUnknownJob, "ErrInvalidNode": lss.ErrInvalidNode, "ErrUnknownNode": lss.ErrUnknownNode,
		"ErrStaleTime": lss.ErrStaleTime, "ErrTimeRange": lss.ErrTimeRange, "ErrNotAdmitted": lss.ErrNotAdmitted,
	},
	"dbs": {
		"ErrConfig": dbs.ErrConfig, "ErrInvalidJob": dbs.ErrInvalidJob, "ErrDuplicateJob": dbs.ErrDuplicateJob,
		"ErrUnknownJob": dbs.ErrUnknownJob, "ErrInvalidNode": dbs.ErrInvalidNode, "ErrUnknownNode": dbs.ErrUnknownNode,
		"ErrStaleTime": dbs.ErrStaleTime, "ErrTimeRange": dbs.ErrTimeRange,
	},
	"fgm": {
		"ErrConfig": fgm.ErrConfig, "ErrInvalidTask": fgm.ErrInvalidTask, "ErrDuplicateTask": fgm.ErrDuplicateTask,
		"ErrUnknownTask": fgm.ErrUnknownTask, "ErrInvalidNode": fgm.ErrInvalidNode, "ErrDuplicateNode": fgm.ErrDuplicateNode,
		"ErrUnknownNode": fgm.ErrUnknownNode, "ErrInvalidSample": fgm.ErrInvalidSample,
		"ErrInvalidEstimate": fgm.ErrInvalidEstimate, "ErrStaleTime": fgm.ErrStaleTime, "ErrTimeRange": fgm.ErrTimeRange,
	},
	"binding": {
		"ErrConfig": binding.ErrConfig, "ErrInvalidNode": binding.ErrInvalidNode, "ErrUnknownNode": binding.ErrUnknownNode,
		"ErrDuplicateNode": binding.ErrDuplicateNode, "ErrStaleTime": binding.ErrStaleTime, "ErrTimeRange": binding.ErrTimeRange,
	},
	"pipeline": {
		"ErrConfig": pipeline.ErrConfig, "ErrStageFailed": pipeline.ErrStageFailed,
		"ErrUndeliverable": pipeline.ErrUndeliverable, "ErrWorkNotRun": pipeline.ErrWorkNotRun,
	},
}

// TestSharedSentinelsReadAlike requires a sentinel of one name to read
// the same words in every package ("lss: unknown node ID", "fgm: unknown
// node ID"), and the table above to list every exported Err variable of
// each package's source, so that a new sentinel is audited too.
func TestSharedSentinelsReadAlike(t *testing.T) {
	for dir, errs := range sentinels {
		for _, name := range exportedErrVars(t, filepath.Join("..", "..", dir)) {
			if _, ok := errs[name]; !ok {
				t.Errorf("%s.%s is not in this test's table: add it (and its words to errtext if another package has it)", dir, name)
			}
		}
		for name, err := range errs {
			if words, ok := shared[name]; ok {
				if got, want := err.Error(), dir+": "+words; got != want {
					t.Errorf("%s.%s reads %q, want %q (the words every package's %s reads)", dir, name, got, want, name)
				}
			} else if !strings.HasPrefix(err.Error(), dir+": ") {
				t.Errorf("%s.%s reads %q: it does not name its package", dir, name, err)
			}
		}
	}
}

// exportedErrVars lists the exported variables named Err… declared in
// dir's non-test Go files.
func exportedErrVars(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Err") && n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}
