package experiment

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
	"github.com/schedkit/schedkit/internal/workload"
)

// An experiment is data: setups (a workload on a cluster) × columns
// (labelled policy variants), run by one runner (RunGrids) into Cells,
// which the experiment's tables then read by name. Adding a policy
// variant is a line in a column list, adding a world a line in a setup
// list; neither touches the runner or the tables that iterate them.

// A Setup is one world of a comparison: a workload on a cluster.
type Setup struct {
	// Name addresses the setup's cells (Cells.Get) and labels its runs'
	// progress lines; it is unique within a run of RunGrids.
	Name     string
	Config   sim.Config
	Workload *workload.Workload
}

// A Column is one labelled policy variant: what runs, under what name.
type Column struct {
	// Name addresses the column's cells; it is unique within a grid.
	Name   string
	Policy Policy
	// Workload, if set, gives the workload this column runs instead of
	// the setup's (e.g. Capacity with three queues runs on a copy of it
	// whose job classes are the φ queues).
	Workload func(*workload.Workload) *workload.Workload
	// Config, if set, changes the copy of the setup's simulator
	// configuration this column runs with (e.g. FIFO given DBS's reduce
	// rule: reduces readied when the maps end); it may set fields, not
	// change the slices the copy shares with the setup's.
	Config func(*sim.Config)
	// Label, if set, names the column's runs in tables instead of the
	// policy's own name (a policy run in two configurations).
	Label string
}

// A Grid runs every column on every setup.
type Grid struct {
	Setups  []Setup
	Columns []Column
	// Done, if set, is called with each run as soon as its simulation
	// ends (Case.Done), before the run is summarised.
	Done func(*sim.Run)
}

// Named is a list of columns made from named policies (LookupPolicies),
// each column named after its policy.
func Named(names ...string) ([]Column, error) {
	pols, err := LookupPolicies(names)
	if err != nil {
		return nil, err
	}
	return Columns(pols...), nil
}

// Columns makes one column per policy, named after it.
func Columns(pols ...Policy) []Column {
	out := make([]Column, len(pols))
	for i, p := range pols {
		out[i] = Column{Name: p.Name, Policy: p}
	}
	return out
}

// A Cell is one simulation's outcome: a column on a setup.
type Cell struct {
	Setup, Column string
	// Run is the simulation's record, Sum its summary.
	Run sim.Run
	Sum metrics.Summary
	// Policy is the policy instance the run used, for its adapter's own
	// statistics (e.g. *policy.LSS, *policy.DBS, *policy.FGM).
	Policy sim.Policy
	// Workload is the workload the column ran.
	Workload *workload.Workload
	label    string // Column.Label
}

// Cells are the outcomes of one RunGrids call, addressed by setup and
// column name.
type Cells struct {
	list   []*Cell
	at     map[[2]string]*Cell
	setups map[string]*Setup
}

// World returns the setup of that name (its workload and cluster), or
// nil.
func (c *Cells) World(setup string) *Setup { return c.setups[setup] }

// Get returns the cell of column on setup. A name that does not exist is
// a mistake in the experiment's own code, so Get panics on it, naming
// what exists.
func (c *Cells) Get(setup, column string) *Cell {
	if x, ok := c.at[[2]string{setup, column}]; ok {
		return x
	}
	panic(fmt.Sprintf("experiment: no cell %q/%q (setups: %s)", setup, column, strings.Join(c.Setups(), ", ")))
}

// Lookup returns the cell of column on setup, or nil.
func (c *Cells) Lookup(setup, column string) *Cell { return c.at[[2]string{setup, column}] }

// Row returns the cells of setup under each named column, in that order.
func (c *Cells) Row(setup string, columns []Column) []*Cell {
	out := make([]*Cell, len(columns))
	for i, col := range columns {
		out[i] = c.Get(setup, col.Name)
	}
	return out
}

// Setups returns the setup names, each once, in the order they first
// ran.
func (c *Cells) Setups() []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range c.list {
		if !seen[x.Setup] {
			seen[x.Setup] = true
			out = append(out, x.Setup)
		}
	}
	return out
}

// All returns every cell in run order: per grid, per setup, per column.
func (c *Cells) All() []*Cell { return c.list }

// RunGrids is the one runner of every experiment: it runs each grid's
// columns on each of its setups, all grids in one parallel batch (up to
// p.Parallel simulations at a time), and returns the outcomes by name.
// A setup and a column name one simulation: grids that list the same
// pair (an ablation's plain variant and the comparison's column) share
// one run. label prefixes the progress lines and errors
// ("dbs/exp. 1/fifo").
func RunGrids(p Params, label string, grids ...Grid) (*Cells, error) {
	var cases []Case
	out := &Cells{at: map[[2]string]*Cell{}, setups: map[string]*Setup{}}
	for _, g := range grids {
		for _, s := range g.Setups {
			if _, ok := out.setups[s.Name]; !ok {
				out.setups[s.Name] = &s
			}
			for _, col := range g.Columns {
				k := [2]string{s.Name, col.Name}
				if _, ok := out.at[k]; ok {
					continue
				}
				w := s.Workload
				if col.Workload != nil {
					w = col.Workload(w)
				}
				name := label + "/" + s.Name + "/" + col.Name
				if s.Name == label {
					name = label + "/" + col.Name
				}
				cfg := s.Config
				if col.Config != nil {
					col.Config(&cfg)
				}
				cases = append(cases, Case{Label: name, Config: cfg, Workload: w, Policy: col.Policy, Done: g.Done})
				c := &Cell{Setup: s.Name, Column: col.Name, Workload: w, label: col.Label}
				out.list = append(out.list, c)
				out.at[k] = c
			}
		}
	}
	done, err := runCases(p, cases)
	if err != nil {
		return nil, err
	}
	for i, c := range out.list {
		c.Run, c.Sum, c.Policy = done[i].run, done[i].sum, done[i].policy
		if c.label != "" {
			c.Run.Policy, c.Sum.Policy = c.label, c.label
		}
	}
	return out, nil
}

// Sums returns the cells' summaries, in order.
func Sums(cells []*Cell) []metrics.Summary {
	out := make([]metrics.Summary, len(cells))
	for i, c := range cells {
		out[i] = c.Sum
	}
	return out
}

// Runs returns the cells' runs, in order.
func Runs(cells []*Cell) []sim.Run {
	out := make([]sim.Run, len(cells))
	for i, c := range cells {
		out[i] = c.Run
	}
	return out
}
