package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/internal/metrics"
	"github.com/schedkit/schedkit/internal/sim"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// small keeps test runs quick.
var small = []string{"-experiment", "paper000-light", "-scale", "0.1"}

func TestHelpExplainsEveryFlag(t *testing.T) {
	code, out, errOut := runCLI(t, "-h")
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, f := range []string{"-experiment", "-trace", "-format", "-policies", "-seed", "-scale", "-out", "-svg", "-list", "-nodes", "-load", "-assumptions", "-timing", "-parallel", "-full"} {
		if !strings.Contains(errOut, "  "+f) {
			t.Errorf("-h does not explain %s:\n%s", f, errOut)
		}
	}
}

func TestList(t *testing.T) {
	code, out, _ := runCLI(t, "-list")
	if code != exitOK {
		t.Fatal("exit", code)
	}
	for _, s := range []string{"paper000-light", "paper000-heavy", "fb2009", "trace", "fifo", "fair", "capacity", "drf", "edf", "(default)",
		"dbs ", "runs at 0.1 of its full size unless -full"} {
		if !strings.Contains(out, s) {
			t.Errorf("-list lacks %q:\n%s", s, out)
		}
	}
}

// Bad flags and files exit non-zero with one clear line on stderr.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\tx\t1\t2\t3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.tsv")
	if err := os.WriteFile(huge, []byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t1\t1\t1000000000000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "odd.dat")
	if err := os.WriteFile(odd, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nope"}, "flag provided but not defined"},
		{[]string{"-out", "xml"}, "-out"},
		{[]string{"-scale", "0"}, "-scale"},
		{[]string{"-scale", "abc"}, "invalid value"},
		{[]string{"-experiment", "nope"}, "unknown experiment \"nope\""},
		{[]string{"-experiment", ","}, "names no experiment"},
		{[]string{"-nodes", "0"}, "-nodes 0: want 1 to 100000"},
		{[]string{"-nodes", "-3"}, "-nodes -3: want 1 to 100000"},
		{[]string{"-nodes", "100001", "-experiment", "fb2009"}, "-nodes 100001: want 1 to 100000"},
		{[]string{"-nodes", "10000000", "-trace", bad}, "-nodes 10000000: want 1 to 100000"},
		{[]string{"-policies", ","}, "-policies \",\" names no policy"},
		{[]string{"-policies", ""}, "names no policy"},
		{[]string{"-load", "0", "-trace", bad}, "-load 0: want"},
		{[]string{"-load", "NaN", "-trace", bad}, "-load NaN: want"},
		{[]string{"-load", "0.8", "-nodes", "5", "-trace", bad}, "not both"},
		{[]string{"-parallel", "-1"}, "-parallel -1"},
		// A flag an experiment does not use is an error, never ignored.
		{[]string{"-experiment", "lss", "-trace", bad}, "experiment lss does not use -trace"},
		{[]string{"-experiment", "fb2009", "-trace", bad}, "experiment fb2009 does not use -trace"},
		{[]string{"-experiment", "paper000-light", "-nodes", "9"}, "experiment paper000-light does not use -nodes"},
		{[]string{"-experiment", "accel", "-policies", "fifo"}, "experiment accel does not use -policies"},
		{[]string{"-experiment", "lss", "-load", "0.5"}, "experiment lss does not use -load"},
		{[]string{"-experiment", "lss", "-timing"}, "experiment lss does not use -timing"},
		{[]string{"-nodes", "9"}, "paper000-light does not use -nodes, which the default suite runs"},
		{[]string{"-policies", "fifo,nope"}, "nope"},
		{[]string{"-policies", "fifo,fifo"}, "twice"},
		{[]string{"-trace", filepath.Join(dir, "missing.tsv")}, "missing.tsv"},
		{[]string{"-trace", bad}, "bad.tsv:2: inter_arrival_gap_s: \"x\" is not an integer"},
		{[]string{"-trace", huge}, "huge.tsv:2: reduce_output_bytes: 1e18 bytes exceeds the limit 1e15"},
		{[]string{"-trace", odd}, "format"},
		{[]string{"-trace", dir}, "is a directory"},
		{[]string{"-trace", bad, "-format", "xls"}, "xls"},
		{[]string{"-format", "swim"}, "-format needs -trace"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"-experiment", "trace"}, "needs -trace"},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code == exitOK {
			t.Errorf("%v: exit 0", tc.args)
			continue
		}
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "schedsim: ") || !strings.Contains(lines[0], tc.want) {
			t.Errorf("%v: stderr %q, want one line mentioning %q", tc.args, errOut, tc.want)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", tc.args, out)
		}
	}
}

func TestTextOutputDeterministic(t *testing.T) {
	_, a, _ := runCLI(t, small...)
	_, b, _ := runCLI(t, append(small, "-parallel", "1")...)
	if a != b || a == "" {
		t.Fatalf("same seed, different output (or none):\n%s\n---\n%s", a, b)
	}
	_, c, _ := runCLI(t, append(small, "-seed", "2")...)
	if a == c {
		t.Fatal("different seeds, same output")
	}
	for _, s := range []string{"== paper000-light ==", "FIFO", "Fair", "Capacity", "DRF", "EDF", "deadline success", "W1 response mean (completed)", "Assumptions (paper000-light):", "workflow W1"} {
		if !strings.Contains(a, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	_, d, _ := runCLI(t, append(small, "-assumptions=false")...)
	if strings.Contains(d, "Assumptions") {
		t.Error("-assumptions=false still prints them")
	}
}

func TestCSVAndJSON(t *testing.T) {
	code, out, _ := runCLI(t, append(small, "-out", "csv", "-policies", "fifo,drf")...)
	if code != exitOK {
		t.Fatal("exit", code)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) < 10 || strings.Join(rows[0], ",") != "experiment,table,policy,metric,value,display" {
		t.Fatalf("csv: %v, %d rows, header %v", err, len(rows), rows[0])
	}
	byKey := map[string][]string{}
	assumptions := 0
	for _, r := range rows[1:] {
		if r[3] == "assumption" {
			assumptions++
			continue
		}
		byKey[r[3]+"/"+r[2]] = r
	}
	if assumptions == 0 {
		t.Error("csv drops the assumptions")
	}
	for key, want := range map[string]string{
		"jobs_count/FIFO":                   `^[0-9]+$`,
		"deadline_success_ratio/FIFO":       `^(0|1|0\.[0-9]+)$`,
		"response_mean_completed_s/DRF":     `^[0-9]+(\.[0-9]+)?$`,
		"utilisation_map_slot_ratio/FIFO":   `^0\.[0-9]+$`,
		"w1_response_mean_completed_s/FIFO": `^[0-9]+(\.[0-9]+)?$`,
	} {
		r, ok := byKey[key]
		if !ok || !regexp.MustCompile(want).MatchString(r[4]) {
			t.Errorf("csv %s: %q, want a value matching %s", key, r, want)
		}
	}
	code, out, _ = runCLI(t, append(small, "-out", "json")...)
	if code != exitOK {
		t.Fatal("exit", code)
	}
	var res []map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 1 {
		t.Fatalf("json: %v %+v", err, res)
	}
	// Every key is snake_case, and metric values are numbers or null.
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if !snake.MatchString(k) {
					t.Errorf("json key %q is not snake_case", k)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(res)
	tables := res[0]["tables"].([]any)
	first := tables[0].(map[string]any)
	if len(first["policies"].([]any)) != 6 || len(res[0]["assumptions"].([]any)) == 0 {
		t.Fatalf("json table: %v", first)
	}
	for _, m := range first["metrics"].([]any) {
		row := m.(map[string]any)
		for _, v := range row["values"].([]any) {
			if _, ok := v.(float64); !ok && v != nil {
				t.Errorf("metric %v: value %v is not a number", row["key"], v)
			}
		}
	}
}

func TestSVG(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	if code, _, errOut := runCLI(t, append(small, "-svg", dir)...); code != exitOK {
		t.Fatal("exit", code, errOut)
	}
	for _, f := range []string{"paper000-light-response-cdf.svg", "paper000-light-deadline-success.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.HasPrefix(b, []byte("<svg")) || !bytes.Contains(b, []byte("FIFO")) {
			t.Errorf("%s: %v %.80q", f, err, b)
		}
	}
}

// A run with task records (paper000 records them) gets a slots-held plot
// per policy: title with the plot type first, one line per workflow,
// round ticks on both axes, and the line's mean equal to the table's.
func TestSVGHeld(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	if code, _, errOut := runCLI(t, append(small, "-svg", dir)...); code != exitOK {
		t.Fatal("exit", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "paper000-light-held-FIFO.svg"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{">Slots held per workflow: paper000-light, FIFO<", ">W1<", ">W2<", ">W3<", "slots held (mean per ", ">0<"} {
		if !strings.Contains(s, want) {
			t.Errorf("held plot lacks %q", want)
		}
	}
	if n := strings.Count(s, "<polyline"); n != 3 {
		t.Errorf("%d lines, want one per workflow (3)", n)
	}
	for _, tc := range []struct {
		top  float64
		want []float64
	}{{15, []float64{0, 5, 10, 15}}, {3.2, []float64{0, 1, 2, 3, 4}}, {0.7, []float64{0, 0.2, 0.4, 0.6, 0.8}}, {100, []float64{0, 20, 40, 60, 80, 100}}} {
		if got := valueTicks(tc.top); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("valueTicks(%g) = %v, want %v", tc.top, got, tc.want)
		}
	}
	if got := string(heldSVG("x", "sub", sim.Run{Policy: "P"})); !strings.Contains(got, "no task held a slot") {
		t.Errorf("empty run: %s", got)
	}
}

// Each trace's plots are named after it (a second trace does not
// overwrite the first's), titles start with the plot type, and a
// policy that leaves jobs out ends below 1 with its share in the legend.
func TestSVGTraceNamesAndTitles(t *testing.T) {
	dir := t.TempDir()
	plots := filepath.Join(dir, "plots")
	for _, name := range []string{"day-one.tsv", "a-trace-with-a-rather-long-name-that-would-not-fit-in-a-title.tsv"} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t1700537\t432269\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := runCLI(t, "-trace", f, "-nodes", "4", "-policies", "fifo", "-svg", plots); code != exitOK {
			t.Fatal(code, errOut)
		}
	}
	for _, f := range []string{"trace-day-one-response-cdf.svg", "trace-a-trace-with-a-rather-long-name-that-would-not-fit-in-a-title-response-cdf.svg"} {
		b, err := os.ReadFile(filepath.Join(plots, f))
		if err != nil {
			t.Fatal(err)
		}
		title := regexp.MustCompile(`font-size="14">([^<]*)<`).FindSubmatch(b)
		if title == nil || !strings.HasPrefix(string(title[1]), "Response-time CDF: trace-") || len([]rune(string(title[1]))) > titleChars {
			t.Errorf("%s: title %q", f, title)
		}
		if bytes.Contains(b, []byte("(s)")) {
			t.Errorf("%s: axis labelled (s)", f)
		}
	}
	sums := []metrics.Summary{metrics.Summarize(sim.Run{Policy: "P", Jobs: []sim.JobRecord{
		{ID: "a", Finish: 10 * time.Second}, {ID: "b", Finish: 2000 * time.Second}, {ID: "c", Finish: 5 * time.Second, Outcome: sim.Killed},
		{ID: "d", Finish: 5 * time.Second, Outcome: sim.Rejected},
	}})}
	b := string(cdfSVG("x", "sub", sums))
	if !strings.Contains(b, "P (50.0% done)") || !strings.Contains(b, "curves end at the share") {
		t.Errorf("killed jobs not shown:\n%s", b)
	}
	// the curve's last step is at y(0.5), not y(1)
	if y := fmt.Sprintf("%.1f", marginT+innerH*0.5); !strings.Contains(b, ","+y+`"/>`) {
		t.Errorf("CDF does not end at 0.5 (y %s):\n%s", y, b)
	}
}

// Log-axis ticks are round time units; linear ones a round step in one
// unit; labels never read "1m40s".
func TestTimeTicks(t *testing.T) {
	labels := func(ts []tick) string {
		var out []string
		for _, x := range ts {
			out = append(out, x.label)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		lo, hi float64
		log    bool
		want   string
	}{
		{1, 20000, true, "1s 10s 1m 10m 1h"},
		{0.05, 300000, true, "100ms 1s 10s 1m 10m 1h 10h 1d"},
		{3, 200, true, "5s 10s 20s 30s 1m 2m"},
		{0, 300, false, "0 1m 2m 3m 4m 5m"},
		{0, 7200, false, "0 20m 40m 60m 80m 100m 120m"},
		{0, 40000, false, "0 2h 4h 6h 8h 10h"},
		{0, 12, false, "0 2s 4s 6s 8s 10s 12s"},
		{0, 0.3, false, "0 50ms 100ms 150ms 200ms 250ms 300ms"},
	} {
		if got := labels(timeTicks(tc.lo, tc.hi, tc.log)); got != tc.want {
			t.Errorf("ticks(%g, %g, log %v) = %q, want %q", tc.lo, tc.hi, tc.log, got, tc.want)
		}
	}
}

// Gaps that contradict submit times and an overloaded cluster are
// warned about on stderr (and in the table), and the run goes on.
func TestTraceWarnings(t *testing.T) {
	f := filepath.Join(t.TempDir(), "gap.tsv")
	if err := os.WriteFile(f, []byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t5\t68719476736\t0\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "-trace", f, "-nodes", "1", "-policies", "fifo")
	if code != exitOK {
		t.Fatal(code, errOut)
	}
	for _, want := range []string{
		"schedsim: trace: warning: SWIM: 1 of 2 lines have an inter_arrival_gap_s that contradicts submit_time_s (first: line 2, gap 5 s, submit times 52 s apart); submit_time_s used\n",
		"schedsim: trace: warning: offered load exceeds capacity on 1 workers (map-slot ",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "note: warning: offered load exceeds capacity") || !strings.Contains(out, "offered load on 1 workers") {
		t.Errorf("stdout lacks the load note or line:\n%s", out)
	}
}

// A trace file replays through -trace with the format detected.
func TestTraceReplay(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "mini.tsv")
	if err := os.WriteFile(f, []byte("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t1700537\t432269\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "-trace", f, "-nodes", "4", "-policies", "fifo")
	if code != exitOK || !strings.Contains(out, "== trace ==") || !strings.Contains(out, "completed") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}
