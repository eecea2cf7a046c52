//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package rpc

import "os"

// takeStdout keeps the real standard output for the protocol and points
// os.Stdout at standard error; restore undoes it. Without dup2, what writes
// to file descriptor 1 directly is not redirected.
func takeStdout() (protocol *os.File, restore func(), err error) {
	protocol = os.Stdout
	os.Stdout = os.Stderr
	return protocol, func() { os.Stdout = protocol }, nil
}
