package interop

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

	"go.uber.org/goleak"
)

// testTimeout bounds every exchange of a test, so that a peer that never
// answers fails the test instead of hanging it.
const testTimeout = 10 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

var discard = slog.New(slog.DiscardHandler)

// checkLeaks fails t if a goroutine started during it is still running when
// it ends, once every other cleanup (closing the peers) has run. TestMain
// checks the whole package the same way; this names the test at fault.
func checkLeaks(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// wire records the lines written in each direction, in the order they were
// written, so that a failing test can show the exact exchange.
type wire struct {
	mu      sync.Mutex
	lines   []string
	partial map[string][]byte
}

// tap returns wc, recording what is written to it as lines of direction dir.
func (w *wire) tap(dir string, wc io.WriteCloser) io.WriteCloser {
	return &tapWriter{w: w, dir: dir, wc: wc}
}

// record takes in the bytes written in direction dir. It is called before
// they are written, so that a request is always recorded before its answer.
func (w *wire) record(dir string, p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.partial == nil {
		w.partial = map[string][]byte{}
	}
	buf := append(w.partial[dir], p...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		w.lines = append(w.lines, dir+" "+string(buf[:i]))
		buf = buf[i+1:]
	}
	w.partial[dir] = append([]byte(nil), buf...)
}

// Lines returns the lines recorded so far, each prefixed with its direction.
func (w *wire) Lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

// LinesFrom returns the lines recorded in direction dir, without prefix.
func (w *wire) LinesFrom(dir string) []string {
	var out []string
	for _, l := range w.Lines() {
		if rest, ok := strings.CutPrefix(l, dir+" "); ok {
			out = append(out, rest)
		}
	}
	return out
}

// logOnFailure logs the exchange at the end of a failed test.
func (w *wire) logOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the wire:\n%s", strings.Join(w.Lines(), "\n"))
		}
	})
}

type tapWriter struct {
	w   *wire
	dir string
	wc  io.WriteCloser
}

func (t *tapWriter) Write(p []byte) (int, error) {
	t.w.record(t.dir, p)
	return t.wc.Write(p)
}

func (t *tapWriter) Close() error { return t.wc.Close() }

// logRecorder is a slog.Handler keeping every record, to see which
// notifications the calculator received (it logs them).
type logRecorder struct {
	mu      sync.Mutex
	entries []logEntry
}

type logEntry struct {
	Msg   string
	Attrs map[string]string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	e := logEntry{Msg: rec.Message, Attrs: map[string]string{}}
	rec.Attrs(func(a slog.Attr) bool {
		e.Attrs[a.Key] = a.Value.String()
		return true
	})
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
	return nil
}

func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// Messages returns the records whose message is one of msgs, in order.
func (r *logRecorder) Messages(msgs ...string) []logEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []logEntry
	for _, e := range r.entries {
		for _, m := range msgs {
			if e.Msg == m {
				out = append(out, e)
			}
		}
	}
	return out
}

// waitDone waits for done to be closed, failing the test after testTimeout.
func waitDone(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatalf("%s: still running after %v", what, testTimeout)
	}
}

// receive takes n values from ch, failing the test after testTimeout.
func receive[T any](t *testing.T, ch <-chan T, n int) []T {
	t.Helper()
	out := make([]T, 0, n)
	timeout := time.After(testTimeout)
	for len(out) < n {
		select {
		case v := <-ch:
			out = append(out, v)
		case <-timeout:
			t.Fatalf("received %d of %d values in %v: %v", len(out), n, testTimeout, out)
		}
	}
	return out
}

// noMore fails the test if ch yields a value within a short while.
func noMore[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("unexpected value: %v", fmt.Sprint(v))
	case <-time.After(50 * time.Millisecond):
	}
}
