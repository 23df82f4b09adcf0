package workload

import (
	"errors"
	"strings"
	"testing"
)

// fuzzOptions bound a job's tasks so a fuzzed size cannot exhaust memory.
func fuzzOptions() TraceOptions {
	o := DefaultTraceOptions()
	o.MaxTasksPerJob = 1000
	return o
}

// checkRead asserts the readers' contract: a *ParseError, or a workload
// that passes Validate.
func checkRead(t *testing.T, w Workload, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error is not a *ParseError: %v", err)
		}
		return
	}
	if err := w.Validate(SlotSpace()); err != nil {
		t.Fatalf("accepted an invalid workload: %v", err)
	}
}

func FuzzReadSWIM(f *testing.F) {
	f.Add("job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t1700537\t432269\n")
	f.Add("a\t10\t10\t209715200\t3221225472\t5\nb\t3\t0\t0\t0\t100\n")
	f.Add("x\t1\t1\t1\t1\n")
	f.Fuzz(func(t *testing.T, in string) {
		w, err := ReadSWIM(strings.NewReader(in), "fuzz", fuzzOptions(), seeded(1))
		checkRead(t, w, err)
	})
}

func FuzzReadSWF(f *testing.F) {
	f.Add("; header\n1 0 5 100 4 -1 -1 4 200 -1 1 3 1 -1 2 -1 -1 -1\n2 10 -1 -1 -1 -1 -1 3 250 -1 5 3 1 -1 -1 -1 -1 -1\n")
	f.Add("1 0 5 1e3 4.0 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n")
	f.Fuzz(func(t *testing.T, in string) {
		w, err := ReadSWF(strings.NewReader(in), "fuzz", fuzzOptions(), seeded(1))
		checkRead(t, w, err)
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add(docCSV)
	f.Add("ID,Submit,Tasks,Duration,Phase,Kind,Deadline\nx,1m,1,5,2,compute,0\nx,,2,1m30s,0,,\nx,,1,7,1,,\n")
	f.Add("id,submit,tasks,budget,phi\na,\"1\",3,7,0.5\n")
	f.Fuzz(func(t *testing.T, in string) {
		w, err := ReadCSV(strings.NewReader(in), "fuzz", fuzzOptions(), seeded(1))
		checkRead(t, w, err)
	})
}

func FuzzDetectFormat(f *testing.F) {
	f.Add("trace", docCSV)
	f.Add("x.swf", "; v\n")
	f.Fuzz(func(t *testing.T, name, head string) {
		format := DetectFormat(name, []byte(head))
		if format == FormatUnknown {
			return
		}
		w, err := Read(strings.NewReader(head), name, format, fuzzOptions(), seeded(1))
		checkRead(t, w, err)
	})
}
