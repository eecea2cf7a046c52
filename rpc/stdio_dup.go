//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package rpc

import (
	"fmt"
	"os"
	"syscall"
)

// takeStdout duplicates file descriptor 1 for the protocol and points 1 at
// standard error; restore undoes it.
func takeStdout() (protocol *os.File, restore func(), err error) {
	fd, err := syscall.Dup(1)
	if err != nil {
		return nil, nil, fmt.Errorf("rpc: duplicating standard output: %w", err)
	}
	syscall.CloseOnExec(fd)
	if err := dupOnto(2, 1); err != nil {
		_ = syscall.Close(fd)
		return nil, nil, fmt.Errorf("rpc: pointing standard output at standard error: %w", err)
	}
	protocol = os.NewFile(uintptr(fd), "/dev/stdout (protocol)")
	return protocol, func() {
		_ = dupOnto(fd, 1)
		_ = protocol.Close()
	}, nil
}
