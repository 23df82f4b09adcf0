// Package cputime reads the CPU time the process has used, the figure
// the benchmarks of several packages report beside wall time: on a
// shared machine it is far less disturbed by other work.
package cputime
