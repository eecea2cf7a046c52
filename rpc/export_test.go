package rpc

import "io"

// ForwardStderr is forwardStderr, for the tests of package rpc_test.
var ForwardStderr = forwardStderr

// CanTellUnread reports whether the read wait can count what the peer has
// not read of w (see Options.ReadWait).
func CanTellUnread(w io.Writer) bool { return unreadOf(w) != nil }
