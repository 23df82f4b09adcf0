// Package policy adapts schedkit's algorithm packages to the simulator's
// host interface (sim.Policy): each file here is one host integration, the
// code a scheduler author would write to embed a schedkit package, run
// under the simulator so it can be judged against the baselines.
package policy
