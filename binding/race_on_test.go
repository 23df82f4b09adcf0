//go:build race

package binding

// raceEnabled shrinks the heaviest randomised tests under the race
// detector, which slows them about tenfold.
const raceEnabled = true
