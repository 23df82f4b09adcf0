package workload_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/schedkit/schedkit/internal/workload"
)

func ExampleGeneratePoisson() {
	cfg := workload.Paper000Heavy()
	cfg.Horizon = 30 * time.Minute
	w, err := workload.GeneratePoisson(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	for _, j := range w.Jobs[:4] {
		fmt.Printf("%-5s submit %-8v deadline %-5v maps %3d reduces %d\n",
			j.ID, j.Submit, j.Deadline, len(j.Phases[0].Tasks), len(j.Phases[1].Tasks))
	}
	mapLoad, reduceLoad, _ := cfg.OfferedLoad(10, 5)
	fmt.Printf("offered load on 10 map / 5 reduce slots: %.2f / %.2f\n", mapLoad, reduceLoad)
	// Output:
	// W6-1  submit 2m33.015s deadline 2m40s maps  20 reduces 1
	// W5-1  submit 4m34.485s deadline 4m0s  maps  39 reduces 1
	// W4-1  submit 4m56.566s deadline 6m40s maps 108 reduces 1
	// W6-2  submit 5m8.471s deadline 2m40s maps  20 reduces 1
	// offered load on 10 map / 5 reduce slots: 0.56 / 0.06
}

func ExampleReadCSV() {
	const scenario = `id,class,submit,deadline,phase,tasks,duration
a,gold,0,120,0,4,20s
a,,,,1,1,30s
b,bronze,5,,0,2,1m
`
	opt := workload.DefaultTraceOptions()
	opt.Constraints = workload.Constraints{} // no generated deadlines: b has none
	w, err := workload.ReadCSV(strings.NewReader(scenario), "scenario.csv", opt, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	for _, j := range w.Jobs {
		fmt.Printf("%s %s submit=%v deadline=%v phases=%d first task=%v requests %v\n",
			j.ID, j.Class, j.Submit, j.Deadline, len(j.Phases), j.Phases[0].Tasks[0].Duration(), j.Phases[0].Tasks[0].Requested)
	}
	// Output:
	// a gold submit=0s deadline=2m0s phases=2 first task=20s requests [1 0]
	// b bronze submit=5s deadline=0s phases=1 first task=1m0s requests [1 0]
}

func ExampleParseError() {
	in := "job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t-3\t0\t0\n"
	_, err := workload.ReadSWIM(strings.NewReader(in), "fb.tsv", workload.DefaultTraceOptions(), rand.New(rand.NewPCG(1, 2)))
	var pe *workload.ParseError
	fmt.Println(errors.As(err, &pe), pe.Line, pe.Field, errors.Is(err, workload.ErrRange))
	fmt.Println(err)
	// Output:
	// true 2 map_input_bytes true
	// fb.tsv:2: map_input_bytes: negative value -3
}

func ExampleNewMultiShaper() {
	s, err := workload.NewMultiShaper(workload.MultiSpace(), workload.DefaultMultiConfig())
	if err != nil {
		panic(err)
	}
	req, prof, _ := workload.ShapeTask(s, workload.MapTask, 10*time.Second, 30*workload.MiB)
	for _, st := range prof {
		fmt.Printf("%v: cpu %.1f, mem %.2f GiB, disk %.0f MiB/s\n", st.Duration, st.Demand[0], st.Demand[1]/workload.GiB, st.Demand[2]/workload.MiB)
	}
	fmt.Printf("requested: cpu %.1f, mem %.2f GiB, disk %.0f MiB/s\n", req[0], req[1]/workload.GiB, req[2]/workload.MiB)
	// Output:
	// 3s: cpu 0.3, mem 1.00 GiB, disk 10 MiB/s
	// 7s: cpu 1.0, mem 1.25 GiB, disk 0 MiB/s
	// requested: cpu 1.2, mem 1.50 GiB, disk 12 MiB/s
}

func ExampleGenerateFacebookMix() {
	w, err := workload.Paper004Offline(0.25, rand.New(rand.NewPCG(1, 4)))
	if err != nil {
		panic(err)
	}
	fmt.Println(w.Name, len(w.Jobs), "jobs,", w.Tasks(), "tasks")
	j := w.Jobs[2]
	task := j.Phases[0].Tasks[0]
	fmt.Printf("%s %s: %d maps, request %.0f cores %.0f GB, key %s/%d\n",
		j.ID, j.Class, len(j.Phases[0].Tasks), task.Requested[0], task.Requested[1], task.Logic, task.DataSize)
	for _, st := range task.Profile {
		fmt.Printf("  %-8v cpu %.2f  mem %.2f GB  disk %4.1f MB/s  net %4.1f MB/s\n",
			st.Duration, st.Demand[0], st.Demand[1], st.Demand[2], st.Demand[3])
	}
	c, _ := workload.Paper004Cluster(workload.Paper004Workers)
	fmt.Println(c.Workers, "workers of", []float64(c.Capacity))
	// Output:
	// paper004-offline-100GB 33 jobs, 896 tasks
	// fb-3 mapreduce/sort: 8 maps, request 2 cores 3 GB, key mapreduce/sort/map/118264680
	//   4.391s   cpu 0.20  mem 1.00 GB  disk 25.0 MB/s  net  0.0 MB/s
	//   2.744s   cpu 1.24  mem 1.88 GB  disk  0.0 MB/s  net  0.0 MB/s
	//   4.391s   cpu 0.20  mem 1.00 GB  disk 25.0 MB/s  net  0.0 MB/s
	// 23 workers of [16 32 300 125]
}
