package experiment

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/policy"
	"github.com/schedkit/schedkit/internal/workload"
)

// fgmCPUBoundTotalGB is the compression-bound experiment's input (× the
// experiment's scale), submitted at once like the offline setup.
const fgmCPUBoundTotalGB = 200

// FGMCPUBoundApps returns the compression-bound experiment's
// applications: the two CPU-bound ones of the default mix
// (workload.FacebookApps), one MapReduce and one Spark, so that CPU, a
// compressible kind, is what fills a worker rather than memory.
// mapreduce/wordcount is taken as it is (1 core and 1.5 GB while
// computing: 16 cores bind before 32 GB). spark/kmeans computes with 2
// cores per task (spark.task.cpus = 2: MLlib's distance computations
// run on a multithreaded BLAS), its 3.5 GB otherwise filling memory
// first; its rates, memory and ratios are the default mix's.
func FGMCPUBoundApps() []workload.FBApp {
	var out []workload.FBApp
	for _, a := range workload.FacebookApps() {
		switch a.Name {
		case "mapreduce/wordcount":
			out = append(out, a)
		case "spark/kmeans":
			a.ComputeCPU = 2
			out = append(out, a)
		}
	}
	return out
}

// fgmCPUBoundWorkload is the compression-bound mix: the default
// Facebook-mix generator with FGMCPUBoundApps, every job given a
// deadline (the trace readers' default rule, k ∈ [1.5, 4] × its critical
// path) so that checkQoS has deadlines to protect.
func fgmCPUBoundWorkload(p Params) (workload.Workload, error) {
	c := workload.DefaultFBMix(fgmCPUBoundTotalGB * p.Scale)
	c.Name = fmt.Sprintf("cpu-bound-%gGB", fgmCPUBoundTotalGB*p.Scale)
	c.Apps = FGMCPUBoundApps()
	c.Constraints = workload.DefaultTraceConstraints()
	w, err := workload.GenerateFacebookMix(c, rand.New(rand.NewPCG(p.Seed, 0x004_c0)))
	if err != nil {
		return w, paramErr("%w", err)
	}
	return w, nil
}

// boundTable tabulates the compression-bound mix on the dedicated
// cluster under the baselines and fgm's variants, each against DRF: the
// experiment where fgm's compression, stage matching and checkQoS have
// something to do.
func (pl *fgmPlan) boundTable(cells *Cells) metrics.Table {
	w := pl.bound.Workload
	drf := cells.Get(pl.bound.Name, "drf").Sum
	title := fmt.Sprintf("compression-bound: CPU-bound mix, %g GB, %d jobs at once, every job with a deadline", fgmCPUBoundTotalGB*pl.p.Scale, len(w.Jobs))
	t := metrics.Table{Title: title, Columns: []string{"makespan", "vs DRF", "mean job completion", "vs DRF", "deadline success", "failed attempts", "utilisation cpu", "Jain unmet"}}
	for i, c := range cells.Row(pl.bound.Name, append(slices.Clone(pl.base), pl.bndCols...)) {
		s := &c.Sum
		name := s.Policy
		if i >= len(pl.base) {
			v := pl.bndVars[i-len(pl.base)]
			name = v.name + " (" + v.doc + ")"
		}
		cpu := metrics.NA
		if len(s.Utilisation) > 0 {
			cpu = s.Utilisation[0].Mean.String()
		}
		t.Rows = append(t.Rows, metrics.Row{Name: name, Cells: []string{
			s.Makespan.String(), pct(s.Makespan.D, drf.Makespan.D),
			s.Response.MeanSpan().String(), pct(s.Response.Mean, drf.Response.Mean),
			s.DeadlineSuccess.String(), strconv.Itoa(s.FailedTasks), cpu, s.UnmetFairness.String(),
		}})
	}
	t.Notes = append(t.Notes, "the mix: mapreduce/wordcount (1 core, 1.5 GB computing) and spark/kmeans (2 cores, 3.5 GB) of the default applications, so that CPU fills a worker before memory; deadlines k ∈ [1.5, 4] × each job's critical path")
	return t
}

// c2s names apps with their compute CPU and memory.
func c2s(apps []workload.FBApp) string {
	s := ""
	for i, a := range apps {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s (compute %g cores, %g GB)", a.Name, a.ComputeCPU, a.ComputeMemGB)
	}
	return s
}

// fgmForeignQ is the foreign-memory option measured in the cloud setup:
// the 95th percentile of the last 15 minutes' samples in place of
// formula (14)'s mean (policy.ForeignQuantile).
var fgmForeignQ = policy.ForeignQuantile{Q: 0.95, Window: 15 * time.Minute}

// foreignTable sets the cloud sweep with fgm as printed beside the
// foreign-memory quantile option.
func (pl *fgmPlan) foreignTable(cells *Cells) metrics.Table {
	def, q := pl.offCols[0], pl.foreignCol
	t := metrics.Table{Title: "online, cloud: " + q.Policy.Doc + ", against fgm as printed (formula (14)'s mean)",
		Columns: []string{"makespan fgm", "fgm-foreignq", "change", "mean job completion fgm", "fgm-foreignq", "change", "failed attempts fgm | fgm-foreignq"}}
	for _, su := range pl.cloud {
		a, b := &cells.Get(su.Name, def.Name).Sum, &cells.Get(su.Name, q.Name).Sum
		t.Rows = append(t.Rows, metrics.Row{Name: su.Name[len(fgmEnv(true))+2:], Cells: []string{
			a.Makespan.String(), b.Makespan.String(), pct(b.Makespan.D, a.Makespan.D),
			a.Response.MeanSpan().String(), b.Response.MeanSpan().String(), pct(b.Response.Mean, a.Response.Mean),
			fmt.Sprintf("%d | %d", a.FailedTasks, b.FailedTasks),
		}})
	}
	t.Notes = append(t.Notes, "fgm-foreignq: each node's foreign memory (node minus its tasks) estimated by the quantile of its samples over the window instead of the mean since the previous Tick; the policy raises the memory it reports so that fgm's formula (14) yields the quantile (fgm has no such option)")
	return t
}
