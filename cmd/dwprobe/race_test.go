//go:build race

package main

// raceEnabled: the race detector slows a run about tenfold, so tests
// that race many specs try fewer.
const raceEnabled = true
