//go:build unix

package rpc

import (
	"os"
	"syscall"
)

// readNow reads what f holds without waiting for more: 0 and no error when
// it holds nothing (or at its end). f must be non-blocking, as a file with
// deadlines is.
func readNow(f *os.File, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), b)
			if rerr != syscall.EINTR {
				return true // never wait for more
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case rerr == syscall.EAGAIN:
		return 0, nil
	case rerr != nil:
		return 0, os.NewSyscallError("read", rerr)
	}
	return max(n, 0), nil
}
