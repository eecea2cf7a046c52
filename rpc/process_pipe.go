package rpc

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

const (
	// maxDrain bounds what a pipe from the child is read for once the
	// child has exited. Everything the child wrote and we did not read yet
	// is in the pipe then, at most its capacity (64 KiB by default on
	// Linux; 1 MiB, the default pipe-max-size, for a child that enlarged
	// it); a descendant writing on cannot keep us reading.
	maxDrain = 1 << 20
	// exitAfterEOF is how long the end of the child's standard output
	// waits for the child to exit (which it follows by microseconds when
	// the child exits), so that calls fail saying how it exited; a child
	// that closed its output and lives on ends the session after it.
	exitAfterEOF = 100 * time.Millisecond
)

// longAgo is a deadline that has passed.
var longAgo = time.Unix(1, 0)

// childPipe is our end of a pipe the child writes to: its standard output
// or its standard error. It reads as the file does until the child exits;
// then it reads what the pipe still holds, without waiting (all the child
// wrote; at most maxDrain bytes), and ends with io.EOF. So a descendant of
// the child that holds the pipe open (a server started in the background)
// keeps neither the session nor our reading goroutine alive.
//
// The child's exit wakes a reader waiting in Read by setting a deadline
// on the file (setExited). SetReadDeadline is the connection's, which
// uses it only to stop reading, for good.
type childPipe struct {
	f      *os.File
	exited <-chan struct{} // closed when the child has exited
	// onEnd, when set, is called once as the pipe ends (io.EOF), before
	// Read returns, with whether the child has exited: after it waited up
	// to exitAfterEOF for it, when the child closed the pipe itself.
	onEnd func(exited bool)

	mu      sync.Mutex
	exit    bool // the child exited
	stopped bool // the connection stopped reading

	// The reader's own.
	draining bool // reading what is left, without waiting
	drained  int  // bytes read while draining
	ended    bool // onEnd was called
}

// Read reads from the pipe, as the child's exit allows.
func (c *childPipe) Read(b []byte) (int, error) {
	if !c.draining {
		n, err := c.f.Read(b)
		switch {
		case err == io.EOF:
			return 0, c.end(false)
		case err == nil || !errors.Is(err, os.ErrDeadlineExceeded) || !c.startDraining():
			return n, err
		}
	}
	c.mu.Lock()
	stopped := c.stopped
	c.mu.Unlock()
	switch {
	case stopped:
		return 0, os.ErrDeadlineExceeded
	case len(b) == 0:
		return 0, nil
	case c.drained >= maxDrain:
		return 0, c.end(true)
	}
	n, err := readNow(c.f, b[:min(len(b), maxDrain-c.drained)])
	c.drained += n
	switch {
	case n > 0:
		return n, nil
	case err != nil:
		return 0, err
	}
	return 0, c.end(true) // nothing more: all the child wrote was read
}

// startDraining reports whether the deadline that ended a Read was the
// child's exit, and if so starts reading what is left without waiting.
func (c *childPipe) startDraining() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || !c.exit {
		return false
	}
	c.draining = true
	_ = c.f.SetReadDeadline(time.Time{}) // readNow must not time out
	return true
}

// end ends the pipe: it calls onEnd once, and returns io.EOF.
func (c *childPipe) end(exited bool) error {
	if c.ended || c.onEnd == nil {
		return io.EOF
	}
	c.ended = true
	if !exited {
		t := time.NewTimer(exitAfterEOF)
		select {
		case <-c.exited:
			exited = true
		case <-t.C:
		}
		t.Stop()
	}
	c.onEnd(exited)
	return io.EOF
}

// setExited tells the pipe that the child exited, waking a Read waiting
// for input. It reports false when a Read cannot be woken (the file has
// no deadlines): then reading goes on until the pipe ends or is closed.
func (c *childPipe) setExited() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.exit = true
	if c.stopped {
		return true
	}
	return c.f.SetReadDeadline(longAgo) == nil
}

// SetReadDeadline stops reading, for the connection: a Read waiting ends,
// and every later one fails.
func (c *childPipe) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	return c.f.SetReadDeadline(t)
}
