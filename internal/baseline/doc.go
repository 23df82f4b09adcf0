// Package baseline holds the request-based schedulers schedkit's
// algorithms are compared with, as policies of the simulator
// (internal/sim): FIFO, Fair, Capacity, DRF and EDF.
//
// Every baseline allocates each task exactly its declared Requested
// vector, as the schedulers in the papers' comparisons do, and is
// deterministic: ties are broken by submission time, then job ID. On a
// heartbeat a baseline places as many ready tasks on the node as fit:
//
//   - FIFO (Hadoop-1's JobQueueTaskScheduler): jobs in submission order,
//     each taking every task that fits before the next job;
//   - EDF: the same in order of deadline, jobs without one last;
//   - Fair: max-min fairness by progressive filling, one task at a time to
//     the job (or pool = job class, then job) with the least; by default
//     the least running tasks of the phase being filled (Hadoop-1's Fair
//     Scheduler shares map and reduce slots separately), or with
//     FairConfig.Kind the least allocation of that kind (YARN's
//     FairSharePolicy on memory);
//   - DRF (Ghodsi et al., NSDI 2011): progressive filling by dominant
//     share, the largest allocation/capacity ratio over kinds, per job or
//     per pool;
//   - Capacity (Hadoop's Capacity Scheduler, reduced to its core): queues
//     = job classes with guaranteed shares given as weights; a free
//     resource goes to the queue with the smallest dominant share ÷
//     guarantee, so idle capacity is lent; FIFO within a queue; optional
//     maximum shares. NewCapacity3 gives it paper 003's three queues
//     (low, mid, high) at DBS's shares, each job charged its queue's
//     price (PricedCapacity): the baseline DBS is compared with on its
//     own terms.
//
// A heartbeat costs O(log n) per decision in the number n of queued jobs,
// not O(n): jobs are indexed by class (a phase and the request its tasks
// share, sim.Job.PhaseRequest) in indexed heaps ordered by the policy's
// key (FIFO: submission; EDF: deadline; Fair, DRF: share; Capacity and
// pools: group share, then job), holding only jobs with ready tasks in
// the phase; a class whose request does not fit what is left on the node
// is skipped whole. The decisions are exactly those of scanning every job
// (naive_test.go keeps that scan as the reference; the tests compare
// every decision). Jobs whose phase's tasks ask differently are scanned.
//
// Capacity serves a queue's jobs FIFO, as Hadoop's Capacity Scheduler
// does, so it differs from DRF(pools) wherever a queue holds several jobs
// with ready tasks (with no Shares configured every queue weighs 1, and
// ordering a queue's jobs by dominant share would make the two one
// algorithm). Fair with pools shares map and reduce slots separately:
// each phase's round starts from that phase's running counts.
//
// Within a job, tasks are taken lowest phase first, and among a phase's
// ready tasks those whose data is on the heartbeating node first
// (sim.Job.ReadyTasks). Only the next ready task of a phase is tried: when
// it does not fit, the phase is skipped for this heartbeat (tasks of one
// phase are taken to ask alike). Policies do no preemption.
//
// None of this is the library's public API: the baselines exist to be
// measured against lss, dbs and fgm in schedsim.
//
// # Usage
//
//	p := baseline.NewDRF(baseline.DRFConfig{})
//	s, err := sim.New(cfg, &w, p)
//	...
//	run, err := s.Run()
//
// Policies are not safe for concurrent use; the simulator calls them from
// one goroutine.
package baseline
