package rpc

import (
	"io"
	"syscall"
	"time"
	"unsafe"
)

// unreadOf returns how to ask w how many of the bytes written to it the
// peer has not read yet, or nil when it cannot tell: w must be a file (or a
// connection) whose descriptor is a Unix stream socket (SIOCOUTQ: the
// bytes the peer has not taken from its end, counted with the kernel's
// overhead; zero when it has taken them all) or a pipe (FIONREAD: the
// bytes in the pipe). Other outputs (a regular file, a terminal, a TCP
// socket, whose SIOCOUTQ counts the bytes the peer's host has not
// acknowledged rather than those its program has not read, an io.Writer
// that is no file) get no wait.
func unreadOf(w io.Writer) unreadFunc {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var req uintptr
	if rc.Control(func(fd uintptr) { req = unreadRequest(int(fd)) }) != nil || req == 0 {
		return nil
	}
	return func() (int, error) {
		var n int32
		var errno syscall.Errno
		err := rc.Control(func(fd uintptr) {
			_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(unsafe.Pointer(&n)))
		})
		switch {
		case err != nil:
			return 0, err
		case errno != 0:
			return 0, errno
		}
		return int(n), nil
	}
}

// unreadRequest is the ioctl request that tells the bytes written to fd and
// not read yet (SIOCOUTQ, FIONREAD), or 0 when there is none for its kind.
func unreadRequest(fd int) uintptr {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return 0
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return syscall.TIOCINQ // FIONREAD
	case syscall.S_IFSOCK:
		domain, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_DOMAIN)
		if err != nil || domain != syscall.AF_UNIX {
			return 0
		}
		typ, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE)
		if err != nil || typ != syscall.SOCK_STREAM {
			return 0
		}
		return syscall.TIOCOUTQ // SIOCOUTQ
	}
	return 0
}

// pause sleeps for d, a few microseconds, in a system call: the runtime's
// timers wake an idle program a millisecond late at best.
func pause(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
