// Package wiretest runs wire transcripts against a handler, for tests.
//
// A transcript reads like the wire: "--> " starts a line sent to the server,
// "<-- " a line expected back; other lines (blank ones, say) are ignored:
//
//	--> {"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}
//	<-- {"jsonrpc":"2.0","result":3,"id":1}
package wiretest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// Quiet is a logger that drops every record.
func Quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Split splits a transcript into the text sent (each line ending in "\n")
// and the lines expected back.
func Split(tr string) (in string, want []string) {
	var sent []string
	for _, line := range strings.Split(tr, "\n") {
		line = strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(line, "--> "):
			sent = append(sent, strings.TrimPrefix(line, "--> "))
		case strings.HasPrefix(line, "<-- "):
			want = append(want, strings.TrimPrefix(line, "<-- "))
		}
	}
	if len(sent) == 0 {
		return "", want
	}
	return strings.Join(sent, "\n") + "\n", want
}

// Lines splits output into lines, checking that it is empty or ends with a
// newline.
func Lines(t testing.TB, out string) []string {
	t.Helper()
	if out == "" {
		return nil
	}
	require.True(t, strings.HasSuffix(out, "\n"), "output ends with a newline: %q", out)
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

func options(opts *rpc.Options, sequential bool) *rpc.Options {
	o := rpc.Options{Sequential: sequential}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = Quiet()
	}
	return &o
}

// Serve serves the transcript's input at once from a bytes.Buffer, and
// checks the output line for line. opts nil means sequential dispatch, so
// that answers come in request order.
func Serve(t testing.TB, h rpc.Handler, tr string, opts *rpc.Options) {
	t.Helper()
	in, want := Split(tr)
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), bytes.NewBufferString(in), &out, h, options(opts, true)))
	assert.Equal(t, want, Lines(t, out.String()))
}

// Steps serves a transcript step by step over a pipe: each line sent waits
// until every line expected before it has been written, so the transcript
// fixes the interleaving, not only the lines. opts nil means concurrent
// dispatch with the defaults.
func Steps(t testing.TB, h rpc.Handler, tr string, opts *rpc.Options) {
	t.Helper()
	StepsServe(t, func(r io.Reader, w io.Writer) error {
		return rpc.Serve(context.Background(), r, w, h, options(opts, false))
	}, tr)
}

// StepsServe is Steps for a connection served by serve, which reads r and
// writes w until r ends (a server's own Serve method, say).
func StepsServe(t testing.TB, serve func(r io.Reader, w io.Writer) error, tr string) {
	t.Helper()
	pr, pw := io.Pipe()
	defer pr.Close()
	var out Buffer
	done := make(chan error, 1)
	go func() { done <- serve(pr, &out) }()
	var want []string
	for _, line := range strings.Split(tr, "\n") {
		line = strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(line, "--> "):
			WaitForLines(t, &out, len(want))
			Send(t, pw, strings.TrimPrefix(line, "--> "))
		case strings.HasPrefix(line, "<-- "):
			want = append(want, strings.TrimPrefix(line, "<-- "))
		}
	}
	require.NoError(t, pw.Close())
	require.NoError(t, Receive(t, done, "Serve to return at the end of the input"))
	assert.Equal(t, want, Lines(t, out.String()))
}

// Buffer is a bytes.Buffer safe for concurrent use, which can be waited on
// (WaitUntil).
type Buffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed by the next Write; nil if nobody waits
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

// next returns what was written and a channel closed by the next Write.
func (s *Buffer) next() (string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote == nil {
		s.wrote = make(chan struct{})
	}
	return s.b.String(), s.wrote
}

// String returns what was written.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Send writes line and a newline to w.
func Send(t testing.TB, w io.Writer, line string) {
	t.Helper()
	_, err := io.WriteString(w, line+"\n")
	require.NoError(t, err)
}

// Hang is how long a test waits for something that must happen before it
// calls it a hang and fails: a guard against waiting forever, never a
// measure of speed.
const Hang = 30 * time.Second

// Receive returns the next value from ch, failing the test if none comes
// within Hang; what names the value awaited.
func Receive[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Hang):
		tb.Fatalf("hang: still waiting for %s after %v", what, Hang)
		panic("unreachable")
	}
}

// ReceiveN returns the next n values from ch, in the order they came,
// failing the test if one does not come within Hang of the one before; what
// names the values awaited.
func ReceiveN[T any](tb testing.TB, ch <-chan T, n int, what string) []T {
	tb.Helper()
	out := make([]T, n)
	for i := range out {
		out[i] = Receive(tb, ch, fmt.Sprintf("%s (%d of %d)", what, i+1, n))
	}
	return out
}

// Ready returns the value ch holds now; with none, it fails the test
// (going on with it) and returns false. In a synctest bubble, after
// synctest.Wait, it checks that what had to happen did.
func Ready[T any](tb testing.TB, ch <-chan T, what string) (v T, ok bool) {
	tb.Helper()
	select {
	case v = <-ch:
		return v, true
	default:
		tb.Errorf("not yet: %s", what)
		return v, false
	}
}

// WaitForLines waits until out holds at least n lines, failing the test
// after Hang.
func WaitForLines(t testing.TB, out *Buffer, n int) {
	t.Helper()
	WaitUntil(t, out, fmt.Sprintf("%d lines", n), func(s string) bool { return strings.Count(s, "\n") >= n })
}

// WaitUntil waits, woken by each write to out, until ok holds of what out
// holds, failing the test after Hang; what names what is awaited.
func WaitUntil(t testing.TB, out *Buffer, what string, ok func(string) bool) {
	t.Helper()
	hang := time.After(Hang)
	for {
		s, wrote := out.next()
		if ok(s) {
			return
		}
		select {
		case <-wrote:
		case <-hang:
			t.Fatalf("hang: still waiting for %s after %v; have %q", what, Hang, s)
		}
	}
}
