//go:build race

package sqlite

// raceDetector says the tests run under -race, which slows the timing
// measurements (TestBotsAndPeopleAtAnOpening) tenfold.
const raceDetector = true
