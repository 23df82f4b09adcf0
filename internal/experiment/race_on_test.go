//go:build race

package experiment

// raceEnabled is true under the race detector. Whole-day replays run one
// simulation on one goroutine, so the race detector only makes them ten
// times slower; they run in the plain test run.
const raceEnabled = true
