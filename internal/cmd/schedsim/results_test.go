package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/metrics"
)

var update = flag.Bool("update", false, "rewrite the generated results files and README blocks with what the templates give now")

// resultsDir holds the results templates (NAME.md.tmpl) and the files
// generated from them (NAME.md), from this package's directory.
const resultsDir = "../../experiment/results"

// guarded lists the documents with generated blocks, from this
// package's directory:
//
//	<!-- BEGIN results TEMPLATE -->
//	...
//	<!-- END results -->
//
// where TEMPLATE names a template in resultsDir.
var guarded = []string{"../../../README.md", "../../experiment/README.md"}

// resultsBlock matches a generated block of a guarded document.
var resultsBlock = regexp.MustCompile(`(?s)<!-- BEGIN results ([^ >]+) -->\n(.*?)<!-- END results -->`)

// cheapTemplate is the one template the -short run renders: its runs
// take a second, and it uses every template function.
const cheapTemplate = "paper001.md.tmpl"

// TestResults keeps every generated results file (resultsDir/NAME.md)
// equal to what its template (NAME.md.tmpl) gives when filled from
// schedsim's runs, and so every generated block of the guarded READMEs.
// Tables are schedsim's output; every sentence that quotes a number is
// filled from the runs by name, and expect fails the test when a
// sentence's claim no longer holds. With -update it rewrites them:
//
//	go test ./internal/cmd/schedsim -run TestResults -update
//
// With -short it renders only cheapTemplate.
func TestResults(t *testing.T) {
	if raceEnabled && !*update {
		t.Skip("the results guard runs in the plain test run (go test ./...)")
	}
	g := &generator{runs: map[string]*genRun{}}
	tmpls, err := filepath.Glob(filepath.Join(resultsDir, "*.md.tmpl"))
	if err != nil || len(tmpls) == 0 {
		t.Fatalf("no templates in %s (%v)", resultsDir, err)
	}
	for _, path := range tmpls {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != cheapTemplate {
				t.Skipf("-short renders only %s", cheapTemplate)
			}
			got := g.render(t, name)
			if strings.HasPrefix(name, "_") {
				return // a block of a guarded document, checked below
			}
			out := filepath.Join(resultsDir, strings.TrimSuffix(name, ".tmpl"))
			g.check(t, out, []byte(got))
		})
	}
	for _, path := range guarded {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			if testing.Short() {
				t.Skip("-short renders no README block")
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			last := 0
			for _, m := range resultsBlock.FindAllSubmatchIndex(src, -1) {
				out.Write(src[last:m[4]])
				out.WriteString(g.render(t, string(src[m[2]:m[3]])))
				last = m[5]
			}
			out.Write(src[last:])
			g.check(t, path, out.Bytes())
		})
	}
}

// generator renders templates, running each schedsim command once.
type generator struct {
	runs  map[string]*genRun
	cache map[string]string // rendered templates
}

// genRun is one schedsim command's output and results.
type genRun struct {
	args    string
	text    string
	results []experiment.Result
}

// check compares the file at path with want, or rewrites it.
func (g *generator) check(t *testing.T, path string, want []byte) {
	t.Helper()
	have, err := os.ReadFile(path)
	if *update {
		if !bytes.Equal(have, want) {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote %s", path)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v (generate it: go test ./internal/cmd/schedsim -run TestResults -update)", err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("%s is stale; run go test ./internal/cmd/schedsim -run TestResults -update\n%s", path, firstDiff(string(have), string(want)))
	}
}

// render fills the template of that name in resultsDir.
func (g *generator) render(t *testing.T, name string) string {
	t.Helper()
	if s, ok := g.cache[name]; ok {
		return s
	}
	src, err := os.ReadFile(filepath.Join(resultsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := template.New(name).Option("missingkey=error").Funcs(g.funcs(t)).Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if !strings.HasPrefix(name, "_") {
		fmt.Fprintf(&b, "<!-- Generated from %s by `go test ./internal/cmd/schedsim -run TestResults -update`: edit the template, not this file. -->\n\n", name)
	}
	if err := tm.Execute(&b, nil); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if g.cache == nil {
		g.cache = map[string]string{}
	}
	g.cache[name] = b.String()
	return b.String()
}

// run runs schedsim with args (once per test process).
func (g *generator) run(args string) (*genRun, error) {
	if r, ok := g.runs[args]; ok {
		return r, nil
	}
	var stderr bytes.Buffer
	opt, err := parse(strings.Fields(args), &stderr)
	if err != nil {
		return nil, fmt.Errorf("schedsim %s: %v", args, err)
	}
	opt.params.Progress = nil
	results, code := runExperiments(opt, &stderr)
	if code != exitOK {
		return nil, fmt.Errorf("schedsim %s: exit %d: %s", args, code, stderr.String())
	}
	var out bytes.Buffer
	if err := write(&out, opt.out, results, opt.assumptions); err != nil {
		return nil, err
	}
	r := &genRun{args: args, text: out.String(), results: results}
	g.runs[args] = r
	return r, nil
}

// cell returns the cell of column on setup in the run's results.
func (r *genRun) cell(setup, column string) (*experiment.Cell, error) {
	for _, res := range r.results {
		if res.Cells == nil {
			continue
		}
		if c := res.Cells.Lookup(setup, column); c != nil {
			return c, nil
		}
	}
	var have []string
	for _, res := range r.results {
		if res.Cells != nil {
			have = append(have, res.Cells.Setups()...)
		}
	}
	return nil, fmt.Errorf("schedsim %s: no cell %q/%q (setups: %q)", r.args, setup, column, have)
}

// value reads a named figure of a cell.
func (g *generator) value(args, setup, column, figure string) (experiment.Figure, metrics.Number, error) {
	r, err := g.run(args)
	if err != nil {
		return experiment.Figure{}, metrics.Number{}, err
	}
	c, err := r.cell(setup, column)
	if err != nil {
		return experiment.Figure{}, metrics.Number{}, err
	}
	f, err := experiment.FigureNamed(figure)
	if err != nil {
		return f, metrics.Number{}, err
	}
	n := f.Of(c)
	if !n.Valid {
		return f, n, fmt.Errorf("schedsim %s: %s/%s has no %s", args, setup, column, figure)
	}
	return f, n, nil
}

// table finds the table of the run of args whose title starts with
// prefix.
func (g *generator) table(args, prefix string) (metrics.Table, error) {
	r, err := g.run(args)
	if err != nil {
		return metrics.Table{}, err
	}
	return r.table(prefix)
}

// textBlock is a table as schedsim prints it, in a text block after head.
func textBlock(head string, tb metrics.Table) string {
	var b bytes.Buffer
	writeTable(&b, tb)
	return "```text\n" + head + b.String() + "```"
}

// pair reads a named figure of two columns of one setup.
func (g *generator) pair(args, setup, column, against, figure string) (experiment.Figure, float64, float64, error) {
	f, a, err := g.value(args, setup, column, figure)
	if err != nil {
		return f, 0, 0, err
	}
	_, b, err := g.value(args, setup, against, figure)
	return f, a.V, b.V, err
}

// table finds the table of the run whose title starts with prefix.
func (r *genRun) table(prefix string) (metrics.Table, error) {
	var titles []string
	for _, res := range r.results {
		for _, tb := range res.Tables {
			if strings.HasPrefix(tb.Title, prefix) {
				return tb, nil
			}
			titles = append(titles, tb.Title)
		}
	}
	return metrics.Table{}, fmt.Errorf("schedsim %s: no table titled %q… (have %q)", r.args, prefix, titles)
}

// funcs are the template functions. Every number a results file quotes
// comes from one of them.
func (g *generator) funcs(t *testing.T) template.FuncMap {
	return template.FuncMap{
		// schedsim ARGS: schedsim's whole output for ARGS, as a text block.
		"schedsim": func(args string) (string, error) {
			r, err := g.run(args)
			if err != nil {
				return "", err
			}
			return "```text\n$ schedsim " + args + "\n" + r.text + "```", nil
		},
		// table ARGS TITLE: one table of the run, as a text block.
		"table": func(args, prefix string) (string, error) {
			tb, err := g.table(args, prefix)
			return textBlock("", tb), err
		},
		// fig ARGS SETUP COLUMN FIGURE: a figure as the results quote it.
		"fig": func(args, setup, column, figure string) (string, error) {
			f, n, err := g.value(args, setup, column, figure)
			return f.Format(n), err
		},
		// val ARGS SETUP COLUMN FIGURE: a figure as a number, for expect.
		"val": func(args, setup, column, figure string) (float64, error) {
			_, n, err := g.value(args, setup, column, figure)
			return n.V, err
		},
		// change ARGS SETUP COLUMN AGAINST FIGURE: the relative change of
		// column against another column, in percent ("−18.1%").
		"change": func(args, setup, column, against, figure string) (string, error) {
			f, a, b, err := g.pair(args, setup, column, against, figure)
			return f.FormatChange(100*(a-b)/b, true), err
		},
		// diff ARGS SETUP COLUMN AGAINST FIGURE: the difference of column
		// and another column, in the figure's unit ("−20.98").
		"diff": func(args, setup, column, against, figure string) (string, error) {
			f, a, b, err := g.pair(args, setup, column, against, figure)
			return f.FormatChange(a-b, false), err
		},
		// bound ARGS SETUP NAME: a bound (experiment.BoundNamed) of a
		// setup of the run, in its figure's unit.
		"bound": func(args, setup, name string) (string, error) {
			b, err := experiment.BoundNamed(name)
			if err != nil {
				return "", err
			}
			r, err := g.run(args)
			if err != nil {
				return "", err
			}
			for _, res := range r.results {
				if res.Cells == nil || res.Cells.World(setup) == nil {
					continue
				}
				v, ok := b.Of(res.Cells.World(setup))
				f, err := experiment.FigureNamed(b.Figure)
				if !ok || err != nil {
					return "", fmt.Errorf("bound %q does not apply to %q (%v)", name, setup, err)
				}
				return f.Format(metrics.Number{V: v, Valid: true}), nil
			}
			return "", fmt.Errorf("schedsim %s: no setup %q", args, setup)
		},
		// cell ARGS TITLE ROW COLUMN: one cell of a table of the run, as
		// printed.
		"cell": func(args, prefix, row, column string) (string, error) {
			tb, err := g.table(args, prefix)
			if err != nil {
				return "", err
			}
			k := slices.Index(tb.Columns, column)
			for _, rw := range tb.Rows {
				if rw.Name == row && k >= 0 {
					return rw.Cells[k], nil
				}
			}
			return "", fmt.Errorf("schedsim %s: table %q has no cell %q/%q", args, tb.Title, row, column)
		},
		// seeds ARGS SEEDS SETUP FIGURE COLUMNS: a seed summary table of
		// one figure (ARGS run with -seed each of the comma-separated
		// SEEDS; COLUMNS comma-separated).
		"seeds": func(args, seeds, setup, figure, columns string) (string, error) {
			var runs []experiment.SeedCells
			for _, s := range strings.Split(seeds, ",") {
				seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
				if err != nil {
					return "", err
				}
				r, err := g.run(args + " -seed " + strconv.FormatUint(seed, 10))
				if err != nil {
					return "", err
				}
				for _, res := range r.results {
					if res.Cells != nil && res.Cells.World(setup) != nil {
						runs = append(runs, experiment.SeedCells{Seed: seed, Cells: res.Cells})
					}
				}
			}
			tb, err := experiment.SeedTable(setup, figure, strings.Split(columns, ","), runs)
			return textBlock("$ schedsim "+args+" -seed N\n", tb), err
		},
		// scorecard ARGS…: the scorecard of the runs' results together.
		"scorecard": func(args ...string) (string, error) {
			var all []experiment.Result
			for _, a := range args {
				r, err := g.run(a)
				if err != nil {
					return "", err
				}
				all = append(all, r.results...)
			}
			return textBlock("", experiment.Scorecard(all)), nil
		},
		// expect COND TEXT: fails the test with TEXT when a sentence's
		// claim does not hold for the numbers it quotes.
		"expect": func(ok bool, what string) string {
			if !ok {
				t.Errorf("a results sentence no longer holds: %s", what)
			}
			return ""
		},
		// num TEXT: the number a table cell starts with ("4.28",
		// "15.7%", "50.8s").
		"num": func(s string) (float64, error) {
			end := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("+-.0123456789e", r) })
			if end < 0 {
				end = len(s)
			}
			return strconv.ParseFloat(s[:end], 64)
		},
		// pct X: a fraction as a whole percentage ("56%").
		"pct": func(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) },
		// below ARGS PREFIX COLUMN AGAINST FIGURE: on how many of the
		// run's setups named PREFIX… column's figure is below against's
		// ("7 of 8").
		"below": func(args, prefix, column, against, figure string) (string, error) {
			r, err := g.run(args)
			if err != nil {
				return "", err
			}
			n, k := 0, 0
			for _, res := range r.results {
				if res.Cells == nil {
					continue
				}
				for _, s := range res.Cells.Setups() {
					if !strings.HasPrefix(s, prefix) {
						continue
					}
					_, a, b, err := g.pair(args, s, column, against, figure)
					if err != nil {
						return "", err
					}
					n++
					if a < b {
						k++
					}
				}
			}
			if n == 0 {
				return "", fmt.Errorf("schedsim %s: no setup %q…", args, prefix)
			}
			return fmt.Sprintf("%d of %d", k, n), nil
		},
		// paper SETUP COLUMN FIGURE AGAINST: the paper's own figure for a
		// cell of ours (experiment.PaperFigureFor), as it prints it.
		"paper": func(setup, column, figure, against string) (string, error) {
			f, ok := experiment.PaperFigureFor(setup, column, figure, against)
			if !ok {
				return "", fmt.Errorf("no paper figure %s/%s %s against %q", setup, column, figure, against)
			}
			return f.Text(), nil
		},
		// list A B …: the arguments, for range.
		"list": func(xs ...string) []string { return xs },
		// abs X, sub X Y, div X Y: arithmetic for expect.
		"abs": math.Abs,
		"sub": func(a, b float64) float64 { return a - b },
		"div": func(a, b float64) float64 { return a / b },
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
			return fmt.Sprintf("line %d:\n  file: %s\n  now:  %s", i+1, a, b)
		}
	}
	return ""
}
