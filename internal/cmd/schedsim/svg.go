package main

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

// Plot geometry, in SVG user units.
const (
	plotW, plotH             = 640, 400
	marginL, marginR         = 70, 150
	marginT, marginB         = 48, 50
	innerW, innerH   float64 = plotW - marginL - marginR, plotH - marginT - marginB
	// titleChars and subtitleChars are how many characters fit across
	// the plot at the title's and subtitle's font sizes.
	titleChars, subtitleChars = 72, 95
)

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// writeSVGs writes, per experiment and workload, response-time CDFs,
// deadline success bars and, for each run with task records, the slots
// each workflow held over time (paper 000 fig. 2) into dir, named after the result's FileName (a
// trace replay: after the trace) and, when an experiment has several
// workloads, the workload.
func writeSVGs(dir string, results []experiment.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-svg: %w", err)
	}
	for _, r := range results {
		groups, order := map[string][]sim.Run{}, []string{}
		for _, run := range r.Runs {
			if _, ok := groups[run.Workload]; !ok {
				order = append(order, run.Workload)
			}
			groups[run.Workload] = append(groups[run.Workload], run)
		}
		stem := r.FileName
		if stem == "" {
			stem = r.Experiment
		}
		for _, wl := range order {
			runs := groups[wl]
			base, label := fileName(stem), stem
			if len(order) > 1 {
				base += "-" + fileName(wl)
				label += ", " + wl
			}
			sums := make([]metrics.Summary, len(runs))
			for i := range runs {
				sums[i] = metrics.Summarize(runs[i])
			}
			if err := os.WriteFile(filepath.Join(dir, base+"-response-cdf.svg"), cdfSVG(label, r.Title, sums), 0o644); err != nil {
				return fmt.Errorf("-svg: %w", err)
			}
			if b := successSVG(label, r.Title, sums); b != nil {
				if err := os.WriteFile(filepath.Join(dir, base+"-deadline-success.svg"), b, 0o644); err != nil {
					return fmt.Errorf("-svg: %w", err)
				}
			}
			for _, run := range runs {
				if len(run.Tasks) == 0 {
					continue
				}
				if err := os.WriteFile(filepath.Join(dir, base+"-held-"+fileName(run.Policy)+".svg"), heldSVG(label, r.Title, run), 0o644); err != nil {
					return fmt.Errorf("-svg: %w", err)
				}
			}
		}
	}
	return nil
}

func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// clip shortens s to n characters, ending in "…" when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// header starts a plot: the title names the plot type first, so that
// clipping a long label never hides it; the subtitle is the
// experiment's one-line description.
func header(b *bytes.Buffer, title, subtitle string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	fmt.Fprintf(b, `<text x="%d" y="18" font-size="14">%s</text>`+"\n", marginL, html.EscapeString(clip(title, titleChars)))
	fmt.Fprintf(b, `<text x="%d" y="34" font-size="11" fill="#555">%s</text>`+"\n", marginL, html.EscapeString(clip(subtitle, subtitleChars)))
}

// cdfSVG plots each policy's empirical CDF of job response time over all
// its jobs: only completed jobs have a response time, so a curve ends at
// the policy's completed share (below 1 when it killed, rejected or
// failed jobs), and the legend gives that share. The time axis is
// logarithmic when the times span two decades or more.
func cdfSVG(label, subtitle string, sums []metrics.Summary) []byte {
	lo, hi := math.Inf(1), 0.0
	for i := range sums {
		for _, p := range sums[i].Response.CDF {
			s := math.Max(p.At.Seconds(), 1e-3)
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
	}
	var b bytes.Buffer
	header(&b, "Response-time CDF: "+label, subtitle)
	if hi == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no completed jobs</text></svg>`+"\n", marginL, plotH/2)
		return b.Bytes()
	}
	logX := hi/lo >= 100
	if !logX {
		lo = 0
	}
	if hi <= lo {
		hi = lo + 1
	}
	x := func(s float64) float64 {
		s = math.Max(s, 1e-3)
		if logX {
			return marginL + innerW*(math.Log10(s)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
		}
		return marginL + innerW*(s-lo)/(hi-lo)
	}
	y := func(f float64) float64 { return marginT + innerH*(1-f) }
	// axes and grid
	fmt.Fprintf(&b, `<g stroke="#ccc">`)
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f"/>`, marginL, y(f), marginL+innerW, y(f))
	}
	fmt.Fprintln(&b, `</g>`)
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.2f</text>`+"\n", marginL-6, y(f)+4, f)
	}
	fmt.Fprintf(&b, `<text x="16" y="%.0f" text-anchor="middle" transform="rotate(-90 16 %.0f)">share of jobs</text>`+"\n", marginT+innerH/2, marginT+innerH/2)
	for _, t := range timeTicks(lo, hi, logX) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#999"/><text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n",
			x(t.at), marginT+innerH, x(t.at), marginT+innerH+5, x(t.at), marginT+innerH+18, t.label)
	}
	axis := "job response time"
	if logX {
		axis += " (log scale)"
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", marginL+innerW/2, plotH-10, axis)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="black"/>`+"\n", marginL, marginT, innerW, innerH)
	partial := false
	for i := range sums {
		color := palette[i%len(palette)]
		share := 1.0
		if sums[i].Jobs > 0 {
			share = float64(sums[i].Completed) / float64(sums[i].Jobs)
		}
		var pts strings.Builder
		prev := 0.0
		for j, p := range sums[i].Response.CDF {
			px := x(p.At.Seconds())
			if j == 0 {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px, y(0))
			}
			f := p.Fraction * share
			fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", px, y(prev), px, y(f))
			prev = f
		}
		if len(sums[i].Response.CDF) > 0 {
			fmt.Fprintf(&pts, "%.1f,%.1f", marginL+innerW, y(prev))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", color, strings.TrimSpace(pts.String()))
		name := sums[i].Policy
		if sums[i].Completed < sums[i].Jobs {
			partial = true
			name = fmt.Sprintf("%s (%.1f%% done)", name, 100*share)
		}
		ly := marginT + 14*float64(i) + 10
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			marginL+innerW+10, ly, marginL+innerW+28, ly, color, marginL+innerW+32, ly+4, html.EscapeString(clip(name, 16)))
	}
	if partial {
		ly := marginT + 14*float64(len(sums)) + 20
		for k, line := range []string{"curves end at the share", "of jobs completed; killed,", "rejected and failed jobs", "have no response time"} {
			fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#555">%s</text>`+"\n", marginL+innerW+10, ly+12*float64(k), line)
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// tick is one labelled position on a time axis, in seconds.
type tick struct {
	at    float64
	label string
}

// roundTimes are round durations in seconds, 1-2-5 steps within each
// unit: the candidates for ticks.
var roundTimes = []float64{
	0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
	1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800,
	3600, 2 * 3600, 5 * 3600, 10 * 3600, 86400, 2 * 86400, 5 * 86400, 10 * 86400, 20 * 86400, 50 * 86400,
}

// decades are the log-axis ticks: 1 ms … 100 ms, 1 s, 10 s, 1 m, 10 m,
// 1 h, 10 h, 1 d, 10 d.
var decades = []float64{0.001, 0.01, 0.1, 1, 10, 60, 600, 3600, 36000, 86400, 864000}

// timeTicks returns round ticks in [lo, hi] seconds: on a log axis the
// decades of time units (1 s, 10 s, 1 m, 10 m, 1 h…), filled in with
// 1-2-5 steps when fewer than three fall in range; on a linear axis the
// smallest round step giving at most six ticks.
func timeTicks(lo, hi float64, logX bool) []tick {
	in := func(cands []float64) []tick {
		var out []tick
		for _, t := range cands {
			if t >= lo*(1-1e-9) && t <= hi*(1+1e-9) {
				out = append(out, tick{t, timeLabel(t, t)})
			}
		}
		return out
	}
	if logX {
		if out := in(decades); len(out) >= 3 {
			return out
		}
		return in(roundTimes)
	}
	step := roundTimes[len(roundTimes)-1]
	for _, s := range roundTimes {
		if (hi-lo)/s <= 6 {
			step = s
			break
		}
	}
	for (hi-lo)/step > 6 { // beyond the table: whole multiples of its last step
		step *= 2
	}
	var out []tick
	for t := math.Ceil(lo/step) * step; t <= hi*(1+1e-9); t += step {
		out = append(out, tick{t, timeLabel(t, step)})
	}
	return out
}

// timeLabel prints t seconds in the largest unit (ms, s, m, h, d) that
// step fills at least once: "500ms", "30s", "10m", "1.5h", "2d".
func timeLabel(t, step float64) string {
	if t == 0 {
		return "0"
	}
	units := []struct {
		size float64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}, {0.001, "ms"}}
	for _, u := range units {
		if step >= u.size*(1-1e-9) || u.name == "ms" {
			return strconv.FormatFloat(math.Round(t/u.size*1000)/1000, 'g', -1, 64) + u.name
		}
	}
	return ""
}

// successSVG draws deadline success ratio bars, with each policy's value
// under its name below the axis (never on the frame), or returns nil
// when no job had a deadline.
func successSVG(label, subtitle string, sums []metrics.Summary) []byte {
	any := false
	for i := range sums {
		any = any || sums[i].DeadlineSuccess.Total > 0
	}
	if !any {
		return nil
	}
	var b bytes.Buffer
	header(&b, "Deadline success: "+label, subtitle)
	y := func(f float64) float64 { return marginT + innerH*(1-f) }
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ccc"/><text x="%d" y="%.1f" text-anchor="end">%.2f</text>`+"\n",
			marginL, y(f), marginL+innerW, y(f), marginL-6, y(f)+4, f)
	}
	fmt.Fprintf(&b, `<text x="16" y="%.0f" text-anchor="middle" transform="rotate(-90 16 %.0f)">share of jobs with a deadline that met it</text>`+"\n", marginT+innerH/2, marginT+innerH/2)
	slot := innerW / float64(len(sums))
	for i := range sums {
		v := sums[i].DeadlineSuccess.Value()
		x0 := marginL + slot*float64(i) + slot*0.15
		value := "n/a"
		if v.Valid {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x0, y(v.V), slot*0.7, innerH*v.V, palette[i%len(palette)])
			value = fmt.Sprintf("%.3f", v.V)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x0+slot*0.35, marginT+innerH+16, html.EscapeString(sums[i].Policy))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%s</text>`+"\n", x0+slot*0.35, marginT+innerH+30, value)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="black"/>`+"\n", marginL, marginT, innerW, innerH)
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// heldPoints is about how many windows heldSVG averages a run into.
const heldPoints = 200

// heldSVG plots what each job class (workflow) of run held over time,
// one line per class: paper 000's fig. 2. Amounts are means over round
// windows (at least 1 s, at most heldPoints of them; metrics.HeldSeries),
// so a line accounts for every slot-second however short a task was.
func heldSVG(label, subtitle string, run sim.Run) []byte {
	step := time.Duration(roundTimes[len(roundTimes)-1] * float64(time.Second))
	for _, t := range roundTimes {
		if d := time.Duration(t * float64(time.Second)); d >= time.Second && d >= run.End/heldPoints {
			step = d
			break
		}
	}
	h := metrics.HeldSeries(run, step, nil)
	top := 0.0
	for _, a := range h.Amount {
		for _, v := range a {
			top = math.Max(top, v)
		}
	}
	var b bytes.Buffer
	header(&b, "Slots held per workflow: "+label+", "+run.Policy, subtitle)
	if len(h.Amount) == 0 || top == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no task held a slot</text></svg>`+"\n", marginL, plotH/2)
		return b.Bytes()
	}
	ys := valueTicks(top)
	top = ys[len(ys)-1]
	hi := math.Max(float64(len(h.Amount))*step.Seconds(), 1)
	x := func(s float64) float64 { return marginL + innerW*s/hi }
	y := func(v float64) float64 { return marginT + innerH*(1-v/top) }
	for _, v := range ys {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ccc"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			marginL, y(v), marginL+innerW, y(v), marginL-6, y(v)+4, strconv.FormatFloat(v, 'g', -1, 64))
	}
	fmt.Fprintf(&b, `<text x="16" y="%.0f" text-anchor="middle" transform="rotate(-90 16 %.0f)">slots held (mean per %s)</text>`+"\n",
		marginT+innerH/2, marginT+innerH/2, timeLabel(step.Seconds(), step.Seconds()))
	for _, t := range timeTicks(0, hi, false) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#999"/><text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n",
			x(t.at), marginT+innerH, x(t.at), marginT+innerH+5, x(t.at), marginT+innerH+18, t.label)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">time</text>`+"\n", marginL+innerW/2, plotH-10)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="black"/>`+"\n", marginL, marginT, innerW, innerH)
	for c, class := range h.Classes {
		color := palette[c%len(palette)]
		var pts strings.Builder
		for i, a := range h.Amount {
			t0, t1 := float64(i)*step.Seconds(), float64(i+1)*step.Seconds()
			fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", x(t0), y(a[c]), x(t1), y(a[c]))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.2" points="%s"/>`+"\n", color, strings.TrimSpace(pts.String()))
		ly := marginT + 14*float64(c) + 10
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			marginL+innerW+10, ly, marginL+innerW+28, ly, color, marginL+innerW+32, ly+4, html.EscapeString(clip(class, 16)))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// valueTicks returns round ticks from 0 to at least top (> 0): a 1-2-5
// step giving at most six intervals.
func valueTicks(top float64) []float64 {
	step := math.Pow(10, math.Floor(math.Log10(top)))
	for _, m := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10} {
		if top/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var out []float64
	for k := 0; ; k++ {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(k)*step, 'g', 12, 64), 64) // 0.6, not 0.6000000000000001
		out = append(out, v)
		if v >= top*(1-1e-9) {
			return out
		}
	}
}
