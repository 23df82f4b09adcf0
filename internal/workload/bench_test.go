package workload

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// benchTrace returns the first n lines of the FB-2009 trace, or n
// synthetic lines of similar sizes when the trace is absent.
func benchTrace(b *testing.B, n int) []byte {
	if data, err := os.ReadFile(fbTrace); err == nil {
		lines := bytes.SplitAfter(data, []byte{'\n'})
		if n <= len(lines) {
			return bytes.Join(lines[:n], nil)
		}
	}
	rng := seeded(1)
	var sb strings.Builder
	for i := range n {
		input := int64(1) << (10 + rng.IntN(28))
		fmt.Fprintf(&sb, "job%d\t%d\t1\t%d\t%d\t%d\n", i, 15*i, input, input/3, input/10)
	}
	return []byte(sb.String())
}

func BenchmarkReadSWIM(b *testing.B) {
	for _, n := range []int{100, 1000, 5894} {
		data := benchTrace(b, n)
		b.Run(fmt.Sprintf("jobs=%d/slab", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadSWIM(bytes.NewReader(data), "bench", DefaultTraceOptions(), seeded(1)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("jobs=%d/naive", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := naiveReadSWIM(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// naiveReadSWIM is the straightforward reader: encoding/csv, and every
// task's vectors allocated on their own by ShapeTask. It applies no
// constraints; it is here to measure what the slab layout saves.
func naiveReadSWIM(r io.Reader) ([]JobSpec, error) {
	cr := csv.NewReader(r)
	cr.Comma = '\t'
	shaper, _ := NewSlotShaper(SlotSpace())
	m := WordCountModel()
	rng := seeded(1)
	var jobs []JobSpec
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return nil, err
		}
		var v [5]int64
		for i := range v {
			if v[i], err = strconv.ParseInt(rec[i+1], 10, 64); err != nil {
				return nil, err
			}
		}
		maps := int(max(1, ceilDiv(v[2], 64*MiB)))
		reduces := int(ceilDiv(v[3], GiB))
		j := JobSpec{ID: rec[0]}
		for _, p := range mapReducePlans(m, maps, reduces, v[2], v[3], v[4]) {
			var ph PhaseSpec
			for range p.n {
				req, prof, err := ShapeTask(shaper, p.kind, m.Apply(p.base, rng), p.data)
				if err != nil {
					return nil, err
				}
				ph.Tasks = append(ph.Tasks, TaskSpec{Logic: "swim/" + p.kind.String(), DataSize: p.data, Requested: req, Profile: prof})
			}
			j.Phases = append(j.Phases, ph)
		}
		jobs = append(jobs, j)
	}
}

func BenchmarkGeneratePoisson(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GeneratePoisson(Paper000Light(), seeded(1)); err != nil {
			b.Fatal(err)
		}
	}
}
