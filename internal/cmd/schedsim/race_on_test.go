//go:build race

package main

// raceEnabled is true under the race detector. The results guard runs whole
// experiments and exercises no concurrency of its own, so it runs only in
// the plain test run, where it is ten times cheaper.
const raceEnabled = true
