//go:build !linux

package rpc

import (
	"io"
	"time"
)

// unreadOf is nil: on this system a connection's output cannot tell what
// the peer has not read, and responses never wait for it (see
// Options.ReadWait).
func unreadOf(io.Writer) unreadFunc { return nil }

// pause sleeps for d (never called: unreadOf is nil).
func pause(d time.Duration) { time.Sleep(d) }
