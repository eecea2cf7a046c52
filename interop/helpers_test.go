package interop

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/internal/wiretest"
)

// testContext bounds every exchange of a test by wiretest.Hang, so that a
// peer that never answers fails the test instead of hanging it.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wiretest.Hang)
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
// written, so that a failing test can show the exact exchange, and a test
// can wait for a line.
type wire struct {
	mu      sync.Mutex
	partial map[string][]byte
	lines   wiretest.Buffer // each line recorded: its direction, a space, the line
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
		_, _ = w.lines.Write([]byte(dir + " " + string(buf[:i+1])))
		buf = buf[i+1:]
	}
	w.partial[dir] = append([]byte(nil), buf...)
}

// Lines returns the lines recorded so far, each prefixed with its direction.
func (w *wire) Lines() []string { return splitLines(w.lines.String()) }

// WaitFor waits until the line (prefixed with its direction) is recorded,
// failing the test after wiretest.Hang.
func (w *wire) WaitFor(t *testing.T, line string) {
	t.Helper()
	wiretest.WaitUntil(t, &w.lines, line, func(s string) bool { return slices.Contains(splitLines(s), line) })
}

// splitLines splits text made of whole lines into its lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
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
