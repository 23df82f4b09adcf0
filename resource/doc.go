// Package resource is the resource algebra schedkit's algorithms share:
// kinds of resource and whether they are compressible, vectors of amounts
// with the tuple algebra of paper 004 (Zhou et al., "Dynamically
// fine-grained scheduling method in cloud environment", 2020), the
// compression formulas of its §2.1, its time-weighted mean (14) and
// staged duration (15), and a piecewise-constant Timeline of amounts
// over time (a server's free resources).
//
// # Kinds and spaces
//
// A Kind names a resource and says whether it is compressible (CPU time,
// disk and network bandwidth: a task given less runs longer) or
// incompressible (memory, GPU memory, devices, slots: a task given less
// fails), and whether it is counted in whole units. The predefined kinds
// cover CPU, memory, disk and network bandwidth, GPUs, GPU memory and
// Hadoop-1 map and reduce slots; users declare their own Kind values.
// A Space fixes an order of kinds; element i of a Vector is an amount of
// the Space's i-th kind. Resolve kind indices once (Space.Index uses a
// map); decision paths index vectors directly.
//
// # Formulas
//
// Each formula of paper 004 that schedkit computes has its home here
// (package fgm calls these):
//
//	(1)  CompressionRate       rc = (R_r − R_u)/R_r if R_r > R_u, else 0; 0 for incompressible kinds
//	(4)  CompressedDuration    T' = T/(1 − rc)
//	(5)  ContendedDuration     T' = (1 + p)·T/(1 − rc)
//	(6)(7) CompressionBound    rc = clamp((w_{n+1} − p·Σw_i)/Σ_{i≤n+1} w_i, 0, limit)
//	(9)–(12) Vector            a tuple of amounts; Add (10), AddScaled (10) with (12)
//	(14) Mean                  Σ r_i·t_i / T, kept as running sums
//	(15) StagedDuration        Σ D_i/(1 − rc_i)
//	DRF  DominantShare         max_i v_i/total_i
//
// Where the paper is unclear we chose, and say so: formula (7) is printed
// as min(max(limitation, x), 10%), which could never fall below the limit;
// its text says the rate is non-negative and below the limit, so
// CompressionBound clamps x to [0, limit]. The element-wise product (11)
// and the order (13) are not computed: no algorithm here needs them
// (Fits is the test a demand passes, every kind at most the capacity).
//
// # Errors
//
// Every error is an *Error wrapping one sentinel (ErrLength, ErrNotFinite,
// ErrNegative, ErrNotIntegral, ErrLimit, ErrKind, ErrZeroCapacity,
// ErrInterval, ErrOverflow), so callers test with errors.Is and read the
// offending element with errors.As. Nothing in this package panics on
// caller input, and no NaN comes out of finite input.
//
// # Allocation
//
// Vector methods work in place and never allocate. A Timeline owns its
// storage and stops allocating once it has grown to its working size;
// BenchmarkVector and BenchmarkTimeline report allocs/op.
//
// # Usage
//
//	space, err := resource.NewSpace(resource.CPU, resource.Memory)
//	capacity, err := space.New(16, 64<<30)
//	demand, err := space.New(4, 8<<30)
//	ok, err := demand.Fits(capacity)                 // true
//	share, err := resource.DominantShare(demand, capacity) // 0.25
//
//	free, err := resource.NewTimeline(capacity)      // a server's future free resources
//	err = free.Sub(0, 30*time.Second, demand)        // reserve a task stage
//	least := space.Zero()
//	err = free.Min(0, time.Minute, least)            // least free over the next minute
//
// Types are not safe for concurrent mutation; a Space is immutable and
// safe to share.
package resource
