package rpc

import (
	"context"
	"io"
	"time"

	"github.com/toolrpc/toolrpc/internal/option"
)

// The read wait. A response written while the peer has not yet read the
// notifications of its call may reach the peer in one read with them, and
// a peer may then handle the response first: the official MCP TypeScript
// SDK's client does, handling a notification a microtask after the read
// that brought it and a response at once, so that the call's progress
// comes after its result and is dropped as of an unknown token. So a
// stream connection whose output can tell how much of what it wrote the
// peer has not read (on Linux, a Unix stream socket, which Node.js gives
// a child process for its standard output, or a pipe) writes the
// response of a call that notified only once the peer has read everything
// written up to the call's last notification, and the read that took it
// is over: the response then comes in a read of its own, after the peer
// has handled the one before (Node.js runs a read's promise jobs before
// the next read's callback).
//
// The wait first waits for the notifications to be written (they are
// queued), then polls the output's count of bytes unread: at once, then
// every finePoll for finePolls polls (a peer that reads takes the lines
// within microseconds; pause sleeps without the runtime timers'
// millisecond granularity), then with timers, doubling from finePoll to
// maxPoll. Once the count is zero it pauses readSettle more: the kernel
// counts an unread buffer as read while the peer's read system call is
// still under way, and that call takes a line written meanwhile along.
// The wait ends at Options.ReadWait, when the call's context ends (the
// peer cancelled it, the connection shuts down), or when the output
// fails: the response is then written as it would have been.
const (
	finePoll   = 10 * time.Microsecond
	finePolls  = 100
	maxPoll    = 10 * time.Millisecond
	readSettle = 50 * time.Microsecond
)

// unreadFunc tells how many bytes written to an output the peer has not
// read yet; zero once it has read them all.
type unreadFunc func() (int, error)

// newReadWait sets up the read wait of c on its output w (see
// Options.ReadWait).
func (c *Conn) newReadWait(w io.Writer, o *Options) {
	if o.ReadWait < 0 {
		return
	}
	c.readWait = option.PositiveOr(o.ReadWait, DefaultReadWait)
	c.unread = unreadOf(w)
}

// awaitRead waits, before the response to a call that notified is
// written, until the peer has read what was queued up to then (the call's
// notifications among it), as long as Options.ReadWait and ctx (the
// call's) let it. It returns at once on an output that cannot tell.
func (c *Conn) awaitRead(ctx context.Context) {
	if c.unread == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, c.readWait)
	defer cancel()
	if c.w.WaitWritten(ctx) == nil && c.readYet(ctx) {
		pause(readSettle)
	}
	if context.Cause(ctx) == context.DeadlineExceeded {
		c.log.Debug("rpc: a call's response written before the peer read its notifications: Options.ReadWait passed",
			"wait", c.readWait)
	}
}

// readYet polls the output until the peer has read everything written to
// it, and reports whether it has; false when ctx ends first or the output
// cannot tell any more.
func (c *Conn) readYet(ctx context.Context) bool {
	for i := 0; ; i++ {
		n, err := c.unread()
		switch {
		case err != nil:
			return false
		case n == 0:
			return true
		case ctx.Err() != nil:
			return false
		case i < finePolls:
			pause(finePoll)
		default:
			return c.pollSlowly(ctx)
		}
	}
}

// pollSlowly is readYet after its fine polls: it sleeps on a timer
// between polls, the sleeps doubling, as long as ctx lets it.
func (c *Conn) pollSlowly(ctx context.Context) bool {
	poll := 2 * finePoll
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-ctx.Done():
			return false
		}
		n, err := c.unread()
		if err != nil {
			return false
		}
		if n == 0 {
			return true
		}
		poll = min(2*poll, maxPoll)
		timer.Reset(poll)
	}
}
