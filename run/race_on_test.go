//go:build race

package run

// raceEnabled: the race detector slows every memory access several times,
// so tests of the driver's top speed skip under it (the plain test run
// covers them).
const raceEnabled = true
