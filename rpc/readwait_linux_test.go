//go:build linux

package rpc_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// A wire of the read wait's tests: the connection reads from in and writes
// to out; the peer writes to send and reads from recv, whose bytes not yet
// read it can count.
type readWire struct {
	in   io.Reader
	out  io.Writer
	send io.Writer
	recv *os.File
}

// readWires are the outputs whose unread bytes the connection can count: a
// Unix stream socket (what Node.js gives a child for its stdout) and a
// pipe.
var readWires = map[string]func(t *testing.T) readWire{
	"socketpair": func(t *testing.T) readWire {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
		require.NoError(t, err)
		ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
		t.Cleanup(func() { ours.Close(); theirs.Close() })
		return readWire{in: ours, out: ours, send: theirs, recv: theirs}
	},
	"pipe": func(t *testing.T) readWire {
		inR, inW, err := os.Pipe()
		require.NoError(t, err)
		outR, outW, err := os.Pipe()
		require.NoError(t, err)
		t.Cleanup(func() { inR.Close(); inW.Close(); outR.Close(); outW.Close() })
		return readWire{in: inR, out: outW, send: inW, recv: outR}
	},
}

// unreadBy counts the bytes f holds for its reader (FIONREAD).
func unreadBy(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	var n int32
	var errno syscall.Errno
	require.NoError(t, rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}))
	require.Zero(t, errno)
	return int(n)
}

// awaitUnread waits until f holds exactly n bytes for its reader, failing
// after wiretest.Hang.
func awaitUnread(t *testing.T, f *os.File, n int, what string) {
	t.Helper()
	awaitUnreadThat(t, f, func(m int) bool { return m == n }, n, what)
}

// awaitUnreadThat waits until ok holds of the bytes f holds for its
// reader, failing after wiretest.Hang; want says what ok wants.
func awaitUnreadThat(t *testing.T, f *os.File, ok func(int) bool, want int, what string) {
	t.Helper()
	hang := time.Now().Add(wiretest.Hang)
	for !ok(unreadBy(t, f)) {
		if time.Now().After(hang) {
			t.Fatalf("hang: still waiting for %s (%d bytes unread, want %d)", what, unreadBy(t, f), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// readExactly reads n bytes from f, failing after wiretest.Hang.
func readExactly(t *testing.T, f *os.File, n int) string {
	t.Helper()
	require.NoError(t, f.SetReadDeadline(time.Now().Add(wiretest.Hang)))
	buf := make([]byte, n)
	_, err := io.ReadFull(f, buf)
	require.NoError(t, err)
	return string(buf)
}

const (
	readWaitCall     = `{"jsonrpc":"2.0","id":1,"method":"work"}`
	readWaitNote     = `{"jsonrpc":"2.0","method":"progress","params":{"done":1}}` + "\n"
	readWaitResponse = `{"jsonrpc":"2.0","result":"done","id":1}` + "\n"
)

// noting notifies once and returns "done", telling returned when it has.
func noting(returned chan<- struct{}) rpc.Handler {
	return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if err := rpc.Notify(ctx, "progress", map[string]int{"done": 1}); err != nil {
			return nil, err
		}
		returned <- struct{}{}
		return "done", nil
	})
}

// startNoting serves noting over a wire of kind, with opts, and waits until
// the call has notified and its handler returned: the response, and
// nothing else, is what may still come, or may have come already.
func startNoting(t *testing.T, kind string, opts *rpc.Options) (readWire, *rpc.Conn, context.CancelFunc) {
	t.Helper()
	w := readWires[kind](t)
	returned := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	c := rpc.NewConn(ctx, w.in, w.out, noting(returned), opts)
	t.Cleanup(func() { cancel(); _ = c.Close() })
	wiretest.Send(t, w.send, readWaitCall)
	wiretest.Receive(t, returned, "the handler's return")
	awaitUnreadThat(t, w.recv, func(n int) bool { return n >= len(readWaitNote) }, len(readWaitNote), "the notification")
	return w, c, cancel
}

// The response of a call that notified is written once the peer has read
// the notification, and not before: the peer reads it in a read of its own.
func TestReadWaitHoldsTheResponseUntilTheNotificationIsRead(t *testing.T) {
	for kind := range readWires {
		t.Run(kind, func(t *testing.T) {
			w, _, _ := startNoting(t, kind, &rpc.Options{ReadWait: time.Hour, Logger: wiretest.Quiet()})
			// A response written at once would be there within
			// microseconds of the handler's return; none is, however long
			// the peer leaves it.
			time.Sleep(20 * time.Millisecond)
			require.Equal(t, len(readWaitNote), unreadBy(t, w.recv), "the response came before the notification was read")

			assert.Equal(t, readWaitNote, readExactly(t, w.recv, len(readWaitNote)))
			assert.Equal(t, readWaitResponse, readExactly(t, w.recv, len(readWaitResponse)))
		})
	}
}

// A peer that never reads holds the response Options.ReadWait at most:
// then it is written anyway, and the connection says so at Debug.
func TestReadWaitEndsAtItsBound(t *testing.T) {
	for kind := range readWires {
		t.Run(kind, func(t *testing.T) {
			var logs wiretest.Logs
			w, _, _ := startNoting(t, kind, &rpc.Options{ReadWait: 30 * time.Millisecond, Logger: logs.Logger()})
			awaitUnread(t, w.recv, len(readWaitNote)+len(readWaitResponse), "the response, the peer reading nothing")
			assert.Equal(t, readWaitNote+readWaitResponse, readExactly(t, w.recv, len(readWaitNote)+len(readWaitResponse)))
			recs := logs.Messages(t, "rpc: a call's response written before the peer read its notifications: Options.ReadWait passed")
			require.Len(t, recs, 1, "%v", logs.Records(t))
			assert.InDelta(t, float64(30*time.Millisecond), recs[0]["wait"], 0)
		})
	}
}

// The wait ends with the call's context: the peer cancelling the call, or
// the connection shutting down, lets the response go without the peer
// reading (a call's result stands once its handler returned).
func TestReadWaitEndsWithTheCall(t *testing.T) {
	ends := map[string]func(t *testing.T, w readWire, c *rpc.Conn, cancel context.CancelFunc){
		"cancelled by the peer": func(t *testing.T, w readWire, _ *rpc.Conn, _ context.CancelFunc) {
			wiretest.Send(t, w.send, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
		},
		"connection's context": func(_ *testing.T, _ readWire, _ *rpc.Conn, cancel context.CancelFunc) { cancel() },
		"Close": func(_ *testing.T, _ readWire, c *rpc.Conn, _ context.CancelFunc) {
			go func() { _ = c.Close() }()
		},
	}
	for kind := range readWires {
		for name, end := range ends {
			t.Run(kind+"/"+name, func(t *testing.T) {
				w, c, cancel := startNoting(t, kind, &rpc.Options{ReadWait: time.Hour, Logger: wiretest.Quiet()})
				end(t, w, c, cancel)
				awaitUnread(t, w.recv, len(readWaitNote)+len(readWaitResponse), "the response, the peer reading nothing")
				assert.Equal(t, readWaitNote+readWaitResponse, readExactly(t, w.recv, len(readWaitNote)+len(readWaitResponse)))
			})
		}
	}
}

// Calls that notify nothing never wait, and ReadWait < 0 turns the wait
// off: the response follows the notification unread.
func TestReadWaitOnlyWhenItCan(t *testing.T) {
	for kind := range readWires {
		t.Run(kind+"/off", func(t *testing.T) {
			w, _, _ := startNoting(t, kind, &rpc.Options{ReadWait: -1, Logger: wiretest.Quiet()})
			awaitUnread(t, w.recv, len(readWaitNote)+len(readWaitResponse), "the response, the wait off")
		})
		t.Run(kind+"/no notification", func(t *testing.T) {
			w := readWires[kind](t)
			c := rpc.NewConn(context.Background(), w.in, w.out, rpc.HandlerFunc(func(context.Context, *rpc.Request) (any, error) {
				return "done", nil
			}), &rpc.Options{ReadWait: time.Hour, Logger: wiretest.Quiet()})
			t.Cleanup(func() { _ = c.Close() })
			// An earlier response left unread holds up nothing.
			wiretest.Send(t, w.send, readWaitCall)
			awaitUnread(t, w.recv, len(readWaitResponse), "the first response")
			wiretest.Send(t, w.send, `{"jsonrpc":"2.0","id":2,"method":"work"}`)
			awaitUnread(t, w.recv, 2*len(readWaitResponse), "the second response, the first unread")
		})
	}
}

// Outputs that cannot tell what the peer has not read get no wait: a TCP
// socket (whose count is of bytes unacknowledged by the peer's host, not
// unread by its program), a Unix datagram socket, a regular file, a
// writer that is no file.
func TestReadWaitNotWhereTheOutputCannotTell(t *testing.T) {
	outputs := map[string]func(t *testing.T) io.Writer{
		"tcp": func(t *testing.T) io.Writer {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(func() { l.Close() })
			accepted := make(chan net.Conn, 1)
			go func() {
				a, err := l.Accept()
				if err == nil {
					accepted <- a
				}
				close(accepted)
			}()
			d, err := net.Dial("tcp", l.Addr().String())
			require.NoError(t, err)
			a := wiretest.Receive(t, accepted, "the accepted connection")
			require.NotNil(t, a)
			t.Cleanup(func() { d.Close(); a.Close() })
			return a
		},
		"unixgram": func(t *testing.T) io.Writer {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
			require.NoError(t, err)
			ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
			t.Cleanup(func() { ours.Close(); theirs.Close() })
			return ours
		},
		"file": func(t *testing.T) io.Writer {
			f, err := os.Create(filepath.Join(t.TempDir(), "out"))
			require.NoError(t, err)
			t.Cleanup(func() { f.Close() })
			return f
		},
		"buffer": func(*testing.T) io.Writer { return &wiretest.Buffer{} },
	}
	for name, output := range outputs {
		t.Run(name, func(t *testing.T) {
			assert.False(t, rpc.CanTellUnread(output(t)))
		})
	}
	for kind, wire := range readWires {
		t.Run(kind, func(t *testing.T) {
			assert.True(t, rpc.CanTellUnread(wire(t).out))
		})
	}
}

// BenchmarkReadWait is a round trip over a Unix socket to a peer that
// reads at once: a call that notifies nothing, one that notifies once
// and whose response waits for the peer to read the notification (the
// default), and the same with the wait off. The second against the third
// is what the wait adds to a call with progress; the first against a
// run before the wait existed is what it costs a call without.
func BenchmarkReadWait(b *testing.B) {
	cases := []struct {
		name     string
		notify   bool
		readWait time.Duration
	}{
		{"silent", false, 0},
		{"notifying", true, 0},
		{"notifying/wait=off", true, -1},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
			require.NoError(b, err)
			ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
			defer theirs.Close()
			h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				if tc.notify {
					if err := rpc.Notify(ctx, "progress", map[string]int{"done": 1}); err != nil {
						return nil, err
					}
				}
				return "done", nil
			})
			c := rpc.NewConn(context.Background(), ours, ours, h, &rpc.Options{ReadWait: tc.readWait, Logger: wiretest.Quiet()})
			defer func() { _ = c.Close() }()
			r := bufio.NewReader(theirs)
			req := []byte(readWaitCall + "\n")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := theirs.Write(req); err != nil {
					b.Fatal(err)
				}
				for {
					line, err := r.ReadSlice('\n')
					if err != nil {
						b.Fatal(err)
					}
					if bytes.Contains(line, []byte(`"id":1`)) {
						break
					}
				}
			}
		})
	}
}
