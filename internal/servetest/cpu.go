package servetest

import (
	"syscall"
	"time"
)

// CPUTime is the process's user and system time so far. Benchmarks on a
// machine shared with other jobs report it per call (cpu-ns/op) beside
// the wall time, which other jobs' load stretches.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
