//go:build unix

package rpc

import (
	"os"
	"os/signal"
	"syscall"
)

// catchSIGPIPE makes a write to a closed standard output or standard error
// fail with EPIPE, as a write to any other closed pipe does, instead of
// ending the process with SIGPIPE: Go's rule for file descriptors 1 and 2
// holds only while the program does not ask for SIGPIPE (see os/signal).
// stop undoes it. A process started meanwhile gets the default disposition,
// as always.
func catchSIGPIPE() (stop func()) {
	ch := make(chan os.Signal, 1) // never read: signal.Notify drops what does not fit
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}
