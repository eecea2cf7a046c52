package wiretest

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// Logs captures log records to read them back: each record one JSON
// object. It is safe for concurrent use.
type Logs struct{ buf Buffer }

// Logger returns a logger that writes every record, Debug included, to l.
func (l *Logs) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(&l.buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Records returns the records written so far, decoded.
func (l *Logs) Records(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range Lines(t, l.buf.String()) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		out = append(out, m)
	}
	return out
}

// Messages returns the records written so far whose message is msg.
func (l *Logs) Messages(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range l.Records(t) {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// Wait waits until at least n records were written, failing the test after
// Hang, and returns the records.
func (l *Logs) Wait(t testing.TB, n int) []map[string]any {
	t.Helper()
	WaitForLines(t, &l.buf, n)
	return l.Records(t)
}
