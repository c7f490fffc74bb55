//go:build race

package tests

// raceEnabled: the test binary, and so every guard process it starts, is
// race-checked, which makes each process several times slower. The tests
// that count what hundreds of processes did then start fewer of them; the
// plain run (go test ./tests) and the stress run keep the full counts.
const raceEnabled = true
