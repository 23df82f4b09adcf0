//go:build race

package dbs_test

// raceEnabled shrinks the heaviest randomised tests under the race
// detector, which slows them about tenfold.
const raceEnabled = true
