package workload

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fbTrace is the FB-2009 day the experiments embed.
const fbTrace = "../experiment/data/swim/FB-2009_samples_24_times_1hr_0.tsv"

// exactOptions reads with exact durations and no generated constraints.
func exactOptions() TraceOptions {
	o := DefaultTraceOptions()
	o.Model = exactModel()
	o.Constraints = Constraints{}
	return o
}

type readFunc func(r io.Reader, name string, opt TraceOptions) (Workload, error)

func swim(r io.Reader, name string, o TraceOptions) (Workload, error) {
	return ReadSWIM(r, name, o, seeded(1))
}
func swf(r io.Reader, name string, o TraceOptions) (Workload, error) {
	return ReadSWF(r, name, o, seeded(1))
}
func csvRead(r io.Reader, name string, o TraceOptions) (Workload, error) {
	return ReadCSV(r, name, o, seeded(1))
}

type errCase struct {
	name  string
	input string
	line  int    // want ParseError.Line
	field string // want ParseError.Field
	want  error  // sentinel
}

func checkErrors(t *testing.T, read readFunc, cases []errCase) {
	t.Helper()
	for _, tc := range cases {
		_, err := read(strings.NewReader(tc.input), "in.txt", exactOptions())
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want a *ParseError wrapping %v", tc.name, err, tc.want)
			continue
		}
		if pe.File != "in.txt" || pe.Line != tc.line || pe.Field != tc.field {
			t.Errorf("%s: error at %s:%d field %q, want line %d field %q (%v)", tc.name, pe.File, pe.Line, pe.Field, tc.line, tc.field, err)
		}
	}
}

func TestReadSWIMErrors(t *testing.T) {
	ok := "job0\t49\t49\t740773\t2339561\t627471\n"
	checkErrors(t, swim, []errCase{
		{"empty file", "", 0, "", ErrEmpty},
		{"blank lines only", "\n\n  \n", 0, "", ErrEmpty},
		{"truncated line", ok + "job1\t101\t52\t736346\n", 2, "", ErrColumns},
		{"extra column", "job1\t101\t52\t736346\t1\t2\t3\n", 1, "", ErrColumns},
		{"negative submit", "job1\t-5\t52\t736346\t1\t2\n", 1, "submit_time_s", ErrRange},
		{"negative shuffle", ok + "job1\t101\t52\t736346\t-1\t2\n", 2, "shuffle_bytes", ErrRange},
		{"non-numeric input", "job1\t101\t52\tlots\t1\t2\n", 1, "map_input_bytes", ErrSyntax},
		{"float gap", "job1\t101\t5.5\t1\t1\t2\n", 1, "inter_arrival_gap_s", ErrSyntax},
		{"overflow", "job1\t101\t5\t99999999999999999999\t1\t2\n", 1, "map_input_bytes", ErrRange},
		{"duplicate id", ok + ok, 2, "job_id", ErrDuplicate},
		{"submit too large", "job1\t9223372036854775807\t5\t1\t1\t2\n", 1, "submit_time_s", ErrRange},
		{"too many tasks", "job1\t1\t5\t1000000000000000\t1\t2\n", 1, "map_input_bytes", ErrRange},
		{"map bytes over the limit", "job1\t1\t5\t9223372036854775807\t1\t2\n", 1, "map_input_bytes", ErrRange},
		{"shuffle over the limit", ok + "job1\t101\t52\t1\t1000000000000001\t2\n", 2, "shuffle_bytes", ErrRange},
		{"output over the limit", ok + ok[:1] + "1\t101\t52\t1\t1\t1000000000000000000\n", 2, "reduce_output_bytes", ErrRange},
	})
}

// An input far outside any real trace is refused with the limit named,
// in one line without nested prefixes.
func TestReadSWIMLimitMessage(t *testing.T) {
	in := "job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t1\t1\t1000000000000000000\n"
	_, err := ReadSWIM(strings.NewReader(in), "x.tsv", exactOptions(), seeded(1))
	if want := "x.tsv:2: reduce_output_bytes: 1e18 bytes exceeds the limit 1e15"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	in = "job0\t0\t0\t1000000000000001\t1\t1\n"
	if _, err := ReadSWIM(strings.NewReader(in), "x.tsv", exactOptions(), seeded(1)); err == nil || !strings.HasSuffix(err.Error(), "1.000000000000001e15 bytes exceeds the limit 1e15") {
		t.Errorf("just over: %v", err)
	}
	// At the limit is accepted.
	in = "job0\t0\t0\t1\t1\t1000000000000000\n"
	if _, err := ReadSWIM(strings.NewReader(in), "x.tsv", exactOptions(), seeded(1)); err != nil {
		t.Error(err)
	}
}

// submit_time_s is authoritative; gaps that contradict it and lines out
// of submission order are stated as warnings naming the first line.
func TestReadSWIMGapWarnings(t *testing.T) {
	warnings := func(in string) []string {
		t.Helper()
		w, err := ReadSWIM(strings.NewReader(in), "x.tsv", exactOptions(), seeded(1))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range w.Assumptions {
			if strings.HasPrefix(a, "warning: ") {
				out = append(out, a)
			}
		}
		return out
	}
	if got := warnings("a\t10\t10\t1\t0\t0\nb\t15\t5\t1\t0\t0\n"); len(got) != 0 {
		t.Errorf("consistent trace: %q", got)
	}
	got := warnings("a\t10\t10\t1\t0\t0\nb\t15\t7\t1\t0\t0\nc\t20\t5\t1\t0\t0\n")
	if want := []string{"warning: SWIM: 1 of 3 lines have an inter_arrival_gap_s that contradicts submit_time_s (first: line 2, gap 7 s, submit times 5 s apart); submit_time_s used"}; !cmp.Equal(got, want) {
		t.Errorf("gap: %q", got)
	}
	got = warnings("a\t10\t10\t1\t0\t0\nb\t5\t0\t1\t0\t0\n")
	if len(got) != 2 || !strings.Contains(got[0], "1 of 2 lines submit before the line above (first: line 2)") {
		t.Errorf("backwards: %q", got)
	}
	// The real FB-2009 day is consistent.
	f, err := os.Open(fbTrace)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	if got := warnings(string(b)); len(got) != 0 {
		t.Errorf("FB-2009: %q", got)
	}
}

func TestReadSWIMWorked(t *testing.T) {
	// job a: 200 MiB input → ⌈200/64⌉ = 4 maps of 50 MiB: 2 s + 50 s = 52 s;
	//        3 GiB shuffle → 3 reduces of 1 GiB: 0 + 1024 s.
	// job b: 0 input → 1 map of 0 bytes = 2 s; no shuffle → map-only, the
	//        map writes its output (write rate 0 here: free).
	// job c: submitted before b: sorted stably.
	in := "a\t10\t10\t209715200\t3221225472\t5\n" +
		"b\t30\t20\t0\t0\t100\n" +
		"c\t20\t0\t1\t1\t1\n"
	w, err := ReadSWIM(strings.NewReader(in), "t.tsv", exactOptions(), seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(SlotSpace()); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range w.Jobs {
		ids = append(ids, j.ID)
	}
	if diff := cmp.Diff([]string{"a", "c", "b"}, ids); diff != "" {
		t.Fatalf("order (-want +got): %s", diff)
	}
	a, b := w.Jobs[0], w.Jobs[2]
	if len(a.Phases) != 2 || len(a.Phases[0].Tasks) != 4 || len(a.Phases[1].Tasks) != 3 {
		t.Fatalf("job a: %d phases", len(a.Phases))
	}
	if d := a.Phases[0].Tasks[3].Duration(); d != 52*time.Second || a.Phases[0].Tasks[3].DataSize != 50*MiB {
		t.Fatalf("job a map: %v, %d bytes", d, a.Phases[0].Tasks[3].DataSize)
	}
	if d := a.Phases[1].Tasks[0].Duration(); d != 1024*time.Second {
		t.Fatalf("job a reduce: %v", d)
	}
	if len(b.Phases) != 1 || len(b.Phases[0].Tasks) != 1 || b.Phases[0].Tasks[0].Duration() != 2*time.Second {
		t.Fatalf("job b: %+v", b.Phases)
	}
	if a.Submit != 10*time.Second || a.Class != ClassSmall || a.Deadline != 0 || a.Phi != 1 {
		t.Fatalf("job a: %+v", a)
	}
	if !strings.Contains(strings.Join(w.Assumptions, "\n"), "sorted stably") {
		t.Fatalf("unsorted input not stated: %q", w.Assumptions)
	}
	// MaxReduces and MaxJobs.
	o := exactOptions()
	o.MaxReduces, o.MaxJobs = 2, 2
	w, err = ReadSWIM(strings.NewReader(in), "t.tsv", o, seeded(1))
	if err != nil || len(w.Jobs) != 2 || len(w.Jobs[0].Phases[1].Tasks) != 2 {
		t.Fatalf("caps: %v, %d jobs", err, len(w.Jobs))
	}
	if d := w.Jobs[0].Phases[1].Tasks[0].Duration(); d != 1536*time.Second { // 1.5 GiB each
		t.Fatalf("capped reduce: %v", d)
	}
}

func TestReadSWIMFacebookTrace(t *testing.T) {
	f, err := os.Open(fbTrace)
	if err != nil {
		t.Skip("trace not present:", err)
	}
	defer f.Close()
	o := DefaultTraceOptions()
	w, err := ReadSWIM(f, fbTrace, o, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 5894 {
		t.Fatalf("%d jobs, want 5894", len(w.Jobs))
	}
	if j := w.Jobs[0]; j.ID != "job0" || j.Submit != 49*time.Second || j.Deadline <= 0 {
		t.Fatalf("first job %+v", j)
	}
	if err := w.Validate(SlotSpace()); err != nil {
		t.Fatal(err)
	}
	// Σ max(1, ⌈input / 64 MiB⌉) over the trace, and ⌈shuffle / 1 GiB⌉.
	maps, reduces := 0, 0
	for _, j := range w.Jobs {
		maps += len(j.Phases[0].Tasks)
		if len(j.Phases) > 1 {
			reduces += len(j.Phases[1].Tasks)
		}
	}
	if maps != 406005 || reduces != 21895 {
		t.Fatalf("%d maps, %d reduces; want 406005, 21895", maps, reduces)
	}
}

func TestReadSWFErrors(t *testing.T) {
	hdr := "; Version: 2.2\n; MaxProcs: 128\n"
	ok := "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n"
	checkErrors(t, swf, []errCase{
		{"empty file", "", 0, "", ErrEmpty},
		{"header only", hdr, 0, "", ErrEmpty},
		{"truncated line", hdr + ok + "2 10 5 100 4\n", 4, "", ErrColumns},
		{"19 fields", "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1 7\n", 1, "", ErrColumns},
		{"negative run time", "1 0 5 -7 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "run_time", ErrRange},
		{"non-numeric procs", "1 0 5 100 four -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "allocated_processors", ErrSyntax},
		{"NaN think time", "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 NaN\n", 1, "think_time", ErrRange},
		{"unknown submit", "1 -1 5 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "submit_time", ErrRange},
		{"run and requested unknown", "1 0 5 -1 4 -1 -1 4 -1 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "run_time", ErrRange},
		{"no processors", "1 0 5 100 -1 -1 -1 -1 200 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "requested_processors", ErrRange},
		{"zero processors", "1 0 5 100 0 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "allocated_processors", ErrRange},
		{"fractional processors", "1 0 5 100 2.5 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "allocated_processors", ErrRange},
		{"duplicate job", ok + ok, 2, "job_number", ErrDuplicate},
		{"too many processors", "1 0 5 100 1e12 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n", 1, "allocated_processors", ErrRange},
	})
}

func TestReadSWFWorked(t *testing.T) {
	in := "; Computer: test\n" +
		"1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 2 -1 -1 -1\n" +
		"\n" +
		"2 10 -1 -1 -1 -1 -1 3 250 -1 5 3 1 -1 -1 -1 -1 -1\n" + // run and allocation unknown: requested
		"3 12 0 0 1 -1 -1 1 0 -1 0 3 1 -1 2 -1 -1 -1\n" // zero run time: MinDuration
	w, err := ReadSWF(strings.NewReader(in), "t.swf", exactOptions(), seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID, Class string
		Submit    time.Duration
		Tasks     int
		Each      time.Duration
	}
	var g []got
	for _, j := range w.Jobs {
		ts := j.Phases[0].Tasks
		g = append(g, got{j.ID, j.Class, j.Submit, len(ts), ts[0].Duration()})
	}
	want := []got{
		{"1", "queue-2", 0, 4, 100 * time.Second},
		{"2", "swf", 10 * time.Second, 3, 250 * time.Second},
		{"3", "queue-2", 12 * time.Second, 1, time.Millisecond},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if err := w.Validate(SlotSpace()); err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(w.Assumptions, "\n"); !strings.Contains(s, "1 jobs with unknown run time used requested time") {
		t.Fatalf("assumptions: %s", s)
	}
}

const docCSV = `# id, class, submit, deadline, budget, phi: job-level
id,class,submit,deadline,budget,phi,phase,kind,tasks,duration,data
j1,etl,0,300,50,1,0,map,4,20s,67108864
j1,,,,,,1,reduce,1,30,
j2,adhoc,10,,,,0,,2,,134217728
`

func TestReadCSVWorked(t *testing.T) {
	o := exactOptions()
	o.Constraints = Constraints{Deadline: DeadlineRule{KMin: 2, KMax: 2}}
	w, err := ReadCSV(strings.NewReader(docCSV), "s.csv", o, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(SlotSpace()); err != nil {
		t.Fatal(err)
	}
	j1, j2 := w.Jobs[0], w.Jobs[1]
	// j1 is given: deadline 300 s, budget 50, φ 1; 4 maps of 20 s, 1 reduce of 30 s.
	if j1.ID != "j1" || j1.Class != "etl" || j1.Deadline != 300*time.Second || j1.Budget != 50 || j1.Phi != 1 {
		t.Fatalf("j1 %+v", j1)
	}
	if len(j1.Phases) != 2 || len(j1.Phases[0].Tasks) != 4 || j1.Phases[0].Tasks[0].Duration() != 20*time.Second ||
		j1.Phases[0].Tasks[0].DataSize != 64*MiB || j1.Phases[1].Tasks[0].Duration() != 30*time.Second ||
		j1.Phases[1].Tasks[0].Logic != "csv/reduce" {
		t.Fatalf("j1 phases %+v", j1.Phases)
	}
	// j2: 2 maps of 128 MiB from the model: 2 s + 128 s = 130 s; deadline
	// generated: 2 × critical path 130 s = 260 s; φ 1 by the default rule.
	if j2.Submit != 10*time.Second || len(j2.Phases) != 1 || j2.Phases[0].Tasks[1].Duration() != 130*time.Second ||
		j2.Deadline != 260*time.Second || j2.Phi != 1 {
		t.Fatalf("j2 %+v", j2)
	}
}

func TestReadCSVPhasesAndKinds(t *testing.T) {
	in := "ID,Submit,Tasks,Duration,Phase,Kind,Deadline\n" +
		"x,1m,1,5,2,compute,0\n" + // explicit 0 deadline: none, even with a rule
		"x,,2,1m30s,0,,\n" +
		"x,,1,7,1,,\n" +
		"x,,3,4,0,,\n"
	o := exactOptions()
	o.Constraints = DefaultTraceConstraints()
	w, err := ReadCSV(strings.NewReader(in), "p.csv", o, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	x := w.Jobs[0]
	var got [][]string
	for _, ph := range x.Phases {
		var row []string
		for _, ts := range ph.Tasks {
			row = append(row, ts.Logic+" "+ts.Duration().String())
		}
		got = append(got, row)
	}
	want := [][]string{
		{"csv/map 1m30s", "csv/map 1m30s", "csv/map 4s", "csv/map 4s", "csv/map 4s"},
		{"csv/reduce 7s"},
		{"csv/compute 5s"},
	}
	if diff := cmp.Diff(want, got); diff != "" || x.Submit != time.Minute || x.Deadline != 0 {
		t.Fatalf("(-want +got):\n%s\nsubmit %v deadline %v", diff, x.Submit, x.Deadline)
	}
}

func TestReadCSVErrors(t *testing.T) {
	h := "id,submit,tasks,duration,phase,deadline,phi,data,kind\n"
	checkErrors(t, csvRead, []errCase{
		{"empty file", "", 0, "", ErrEmpty},
		{"comments only", "# nothing\n\n", 0, "", ErrEmpty},
		{"header only", h, 0, "", ErrEmpty},
		{"unknown column", "id,submit,tasks,colour\n", 1, "colour", ErrColumns},
		{"repeated column", "id,submit,tasks,ID\n", 1, "id", ErrColumns},
		{"missing tasks column", "id,submit\na,1\n", 1, "tasks", ErrColumns},
		{"truncated row", h + "a,0,1,5,0,,,,\nb,0,1\n", 3, "", ErrColumns},
		{"too many fields", h + "a,0,1,5,0,,,,,9\n", 2, "", ErrColumns},
		{"empty id", h + ",0,1,5,0,,,,\n", 2, "id", ErrSyntax},
		{"negative tasks", h + "a,0,-2,5,0,,,,\n", 2, "tasks", ErrRange},
		{"zero tasks", h + "a,0,0,5,0,,,,\n", 2, "tasks", ErrRange},
		{"non-numeric tasks", h + "a,0,two,5,0,,,,\n", 2, "tasks", ErrSyntax},
		{"bad duration", h + "a,0,1,soon,0,,,,\n", 2, "duration", ErrSyntax},
		{"negative duration", h + "a,0,1,-5,0,,,,\n", 2, "duration", ErrRange},
		{"zero duration", h + "a,0,1,0,0,,,,\n", 2, "duration", ErrRange},
		{"negative data", h + "a,0,1,,0,,,-1,\n", 2, "data", ErrRange},
		{"data over the limit", h + "a,0,1,,0,,,1000000000000001,\n", 2, "data", ErrRange},
		{"phi above 1", h + "a,0,1,5,0,,1.5,,\n", 2, "phi", ErrRange},
		{"NaN deadline", h + "a,0,1,5,0,NaN,,,\n", 2, "deadline", ErrRange},
		{"bad kind", h + "a,0,1,5,0,,,,shuffle\n", 2, "kind", ErrSyntax},
		{"compute without duration", h + "a,0,1,,0,,,,compute\n", 2, "duration", ErrRange},
		{"phase out of range", h + "a,0,1,5,64,,,,\n", 2, "phase", ErrRange},
		{"phase gap", h + "a,0,1,5,0,,,,\na,,1,5,2,,,,\n", 3, "phase", ErrInconsistent},
		{"no phase 0", h + "a,0,1,5,1,,,,\n", 2, "phase", ErrInconsistent},
		{"submit disagrees", h + "a,0,1,5,0,,,,\na,3,1,5,1,,,,\n", 3, "submit", ErrInconsistent},
		{"no submit", h + "a,,1,5,0,,,,\n", 2, "submit", ErrSyntax},
		{"bare quote", h + "a,0,1,5\"x,0,,,,\n", 2, "", ErrSyntax},
	})
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		name, head string
		want       Format
	}{
		{"x.tsv", "", FormatSWIM},
		{"x.SWF", "", FormatSWF},
		{"x.csv", "", FormatCSV},
		{"trace", "; Version 2\n1 2", FormatSWF},
		{"trace", "1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n", FormatSWF},
		{"trace", "job0\t49\t49\t740773\t2339561\t627471\n", FormatSWIM},
		{"trace", "# hand\nid,submit,tasks\n", FormatCSV},
		{"trace", "a,b,c\n", FormatUnknown},
		{"trace", "", FormatUnknown},
	}
	for _, tt := range tests {
		if got := DetectFormat(tt.name, []byte(tt.head)); got != tt.want {
			t.Errorf("DetectFormat(%q, %q) = %v, want %v", tt.name, tt.head, got, tt.want)
		}
	}
	for _, f := range []Format{FormatSWIM, FormatSWF, FormatCSV} {
		if g, err := ParseFormat(f.String()); err != nil || g != f {
			t.Errorf("ParseFormat(%v) = %v, %v", f, g, err)
		}
	}
	if _, err := ParseFormat("json"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseFormat(json): %v", err)
	}
	if _, err := Read(strings.NewReader(docCSV), "x", FormatCSV, exactOptions(), seeded(1)); err != nil {
		t.Errorf("Read CSV: %v", err)
	}
	if _, err := Read(strings.NewReader(docCSV), "x", FormatUnknown, exactOptions(), seeded(1)); !errors.Is(err, ErrConfig) {
		t.Errorf("Read unknown: %v", err)
	}
}

func TestTraceOptionErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*TraceOptions)
		want error
	}{
		{"zero block", func(o *TraceOptions) { o.BlockSize = 0 }, ErrRange},
		{"zero reduce bytes", func(o *TraceOptions) { o.ReduceBytes = 0 }, ErrRange},
		{"negative max jobs", func(o *TraceOptions) { o.MaxJobs = -1 }, ErrRange},
		{"negative horizon", func(o *TraceOptions) { o.Horizon = -1 }, ErrRange},
		{"bad model", func(o *TraceOptions) { o.Model.ReduceRate = 0 }, ErrRange},
	}
	for _, tt := range tests {
		o := DefaultTraceOptions()
		tt.mod(&o)
		for _, read := range []readFunc{swim, swf, csvRead} {
			if _, err := read(strings.NewReader(docCSV), "x", o); !errors.Is(err, tt.want) {
				t.Errorf("%s: %v", tt.name, err)
			}
		}
	}
	for _, f := range []Format{FormatSWIM, FormatSWF, FormatCSV} {
		if _, err := Read(strings.NewReader(docCSV), "x", f, DefaultTraceOptions(), nil); !errors.Is(err, ErrConfig) {
			t.Errorf("%v nil rng: %v", f, err)
		}
	}
}

func TestHorizonOption(t *testing.T) {
	in := "a\t10\t10\t1\t0\t1\nb\t20\t10\t1\t0\t1\nc\t30\t10\t1\t0\t1\n"
	o := exactOptions()
	o.Horizon = 20 * time.Second // keeps jobs submitted before 20 s
	w, err := ReadSWIM(strings.NewReader(in), "h", o, seeded(1))
	if err != nil || len(w.Jobs) != 1 || w.Jobs[0].ID != "a" {
		t.Fatalf("%v %+v", err, w.Jobs)
	}
	if !strings.Contains(strings.Join(w.Assumptions, "\n"), "kept the first 1 of 3 jobs") {
		t.Fatalf("%q", w.Assumptions)
	}
}
