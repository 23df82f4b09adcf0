package main

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/experiment"
	"github.com/schedkit/schedkit/internal/metrics"
)

// Plot geometry, in SVG user units.
const (
	plotW, plotH             = 640, 400
	marginL, marginR         = 70, 150
	marginT, marginB         = 40, 50
	innerW, innerH   float64 = plotW - marginL - marginR, plotH - marginT - marginB
)

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// writeSVGs writes, per experiment and workload, response-time CDFs and
// deadline success bars into dir.
func writeSVGs(dir string, results []experiment.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-svg: %w", err)
	}
	for _, r := range results {
		groups, order := map[string][]metrics.Run{}, []string{}
		for _, run := range r.Runs {
			if _, ok := groups[run.Workload]; !ok {
				order = append(order, run.Workload)
			}
			groups[run.Workload] = append(groups[run.Workload], run)
		}
		for _, wl := range order {
			runs := groups[wl]
			base := fileName(r.Experiment)
			if len(order) > 1 {
				base += "-" + fileName(wl)
			}
			sums := make([]metrics.Summary, len(runs))
			for i := range runs {
				sums[i] = metrics.Summarize(runs[i])
			}
			title := r.Title
			if len(order) > 1 {
				title += " — " + wl
			}
			if err := os.WriteFile(filepath.Join(dir, base+"-response-cdf.svg"), cdfSVG(title, sums), 0o644); err != nil {
				return fmt.Errorf("-svg: %w", err)
			}
			if b := successSVG(title, sums); b != nil {
				if err := os.WriteFile(filepath.Join(dir, base+"-deadline-success.svg"), b, 0o644); err != nil {
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

func header(b *bytes.Buffer, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	fmt.Fprintf(b, `<text x="%d" y="22" font-size="14">%s</text>`+"\n", marginL, html.EscapeString(title))
}

// cdfSVG plots each policy's empirical CDF of job response time (completed
// jobs), on a log time axis when the times span two decades or more.
func cdfSVG(title string, sums []metrics.Summary) []byte {
	lo, hi := math.Inf(1), 0.0
	for i := range sums {
		for _, p := range sums[i].Response.CDF {
			s := math.Max(p.At.Seconds(), 1e-3)
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
	}
	var b bytes.Buffer
	header(&b, title+": CDF of job response time")
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
	for _, t := range ticks(lo, hi, logX) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#999"/><text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n",
			x(t), marginT+innerH, x(t), marginT+innerH+5, x(t), marginT+innerH+18, secondsLabel(t))
	}
	axis := "response time (s)"
	if logX {
		axis += ", log scale"
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", marginL+innerW/2, plotH-10, axis)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="black"/>`+"\n", marginL, marginT, innerW, innerH)
	for i := range sums {
		color := palette[i%len(palette)]
		var pts strings.Builder
		prev := 0.0
		for j, p := range sums[i].Response.CDF {
			px := x(p.At.Seconds())
			if j == 0 {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px, y(0))
			}
			fmt.Fprintf(&pts, "%.1f,%.1f %.1f,%.1f ", px, y(prev), px, y(p.Fraction))
			prev = p.Fraction
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", color, strings.TrimSpace(pts.String()))
		ly := marginT + 14*float64(i) + 10
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			marginL+innerW+10, ly, marginL+innerW+28, ly, color, marginL+innerW+32, ly+4, html.EscapeString(sums[i].Policy))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func ticks(lo, hi float64, logX bool) []float64 {
	var out []float64
	if logX {
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			if t := math.Pow(10, e); t >= lo && t <= hi {
				out = append(out, t)
			}
		}
		return out
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 6 {
			step *= m
			break
		}
	}
	for t := math.Ceil(lo/step) * step; t <= hi; t += step {
		out = append(out, t)
	}
	return out
}

func secondsLabel(s float64) string {
	if s >= 1 {
		return (time.Duration(s) * time.Second).String()
	}
	return fmt.Sprintf("%gs", s)
}

// successSVG draws deadline success ratio bars, or returns nil when no
// job had a deadline.
func successSVG(title string, sums []metrics.Summary) []byte {
	any := false
	for i := range sums {
		any = any || sums[i].DeadlineSuccess.Total > 0
	}
	if !any {
		return nil
	}
	var b bytes.Buffer
	header(&b, title+": deadline success ratio")
	y := func(f float64) float64 { return marginT + innerH*(1-f) }
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ccc"/><text x="%d" y="%.1f" text-anchor="end">%.2f</text>`+"\n",
			marginL, y(f), marginL+innerW, y(f), marginL-6, y(f)+4, f)
	}
	slot := innerW / float64(len(sums))
	for i := range sums {
		v := sums[i].DeadlineSuccess.Value()
		x0 := marginL + slot*float64(i) + slot*0.15
		label := "n/a"
		if v.Valid {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x0, y(v.V), slot*0.7, innerH*v.V, palette[i%len(palette)])
			label = fmt.Sprintf("%.3f", v.V)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x0+slot*0.35, y(v.V)-4, label)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x0+slot*0.35, marginT+innerH+18, html.EscapeString(sums[i].Policy))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="black"/>`+"\n", marginL, marginT, innerW, innerH)
	b.WriteString("</svg>\n")
	return b.Bytes()
}
