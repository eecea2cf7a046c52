package rpc_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// plain is the record of a plain stderr line.
func plain(line string) string {
	b, _ := json.Marshal(line)
	return `{"time":"now","level":"INFO","msg":"tool server stderr","pid":"N","line":` + string(b) + `}`
}

// cut is the record of a plain stderr line cut to kept, dropped bytes
// dropped.
func cut(kept string, dropped int) string {
	return strings.TrimSuffix(plain(kept), "}") + `,"dropped":` + strconv.Itoa(dropped) + "}"
}

// What a tool server writes to stderr, line by line, becomes records: a
// JSON object as the log record it is, anything else as a plain line, a
// line over the cap cut to it.
func TestStderrRecords(t *testing.T) {
	const at = `"time":"2001-02-03T04:05:06.007Z"`
	x := func(n int) string { return strings.Repeat("x", n) }
	deep := strings.Repeat(`{"g":`, 10) + "1" + strings.Repeat("}", 10)
	for _, tc := range []struct {
		name    string
		max     int // MaxStderrLine; 0: 16
		stderr  string
		records []string
	}{
		{name: "plain lines", stderr: "hello\r\nlast, no newline",
			records: []string{plain("hello"), plain("last, no newline")}},
		{name: "empty lines", stderr: "\n\r\n", records: []string{plain(""), plain("")}},
		{name: "a lone CR stays", stderr: "a\rb\r", records: []string{plain("a\rb\r")}},
		{name: "at the cap", stderr: x(16) + "\n" + x(16) + "\r\n",
			records: []string{plain(x(16)), plain(x(16))}},
		{name: "over the cap", stderr: x(17) + "\n" + x(18) + "\r\n" + x(20),
			records: []string{cut(x(16), 1), cut(x(16), 2), cut(x(16), 4)}},
		{name: "longer than the buffer", stderr: x(100) + "\n" + x(100) + "\r\n" + x(100) + "\nnext\n" + x(100),
			records: []string{cut(x(16), 84), cut(x(16), 84), cut(x(16), 84), plain("next"), cut(x(16), 84)}},
		// The buffer is 16 bytes: the CR ends the first piece, the LF the next.
		{name: "CR LF across pieces", stderr: x(31) + "\r\n", records: []string{cut(x(16), 15)}},
		{name: "LF alone in a piece", stderr: x(32) + "\n", records: []string{cut(x(16), 16)}},
		{name: "a line that fits once its line end is gone", max: 40, stderr: x(15) + "\r\n" + x(16) + "\n" + x(40) + "\r\n",
			records: []string{plain(x(15)), plain(x(16)), plain(x(40))}},
		{name: "cut at a character boundary", stderr: "x" + strings.Repeat("é", 8) + "\n" + strings.Repeat("é", 9) + "\n",
			records: []string{cut("x"+strings.Repeat("é", 7), 2), cut(strings.Repeat("é", 8), 2)}},
		{name: "a JSON record over the cap is a plain line", stderr: `{"msg":"a long message"}` + "\n",
			records: []string{cut(`{"msg":"a long m`, 8)}},

		{name: "a slog JSON record", max: 1024,
			stderr:  `{` + at + `,"level":"WARN","msg":"disk low","free":42}`,
			records: []string{`{` + at + `,"level":"WARN","msg":"disk low","pid":"N","free":42}`}},
		{name: "every kind of value", max: 1024,
			stderr: `{` + at + `,"level":"ERROR+2","msg":"m","s":"a\"\u00e9","i":-3,"u":18446744073709551615,` +
				`"f":1.5,"e":1e400,"t":true,"n":null,"arr":[1, {"a":2}],"o":{"a":{"b":1},"c":"d"},"empty":{ }}`,
			records: []string{`{` + at + `,"level":"ERROR+2","msg":"m","pid":"N","s":"a\"é","i":-3,"u":18446744073709551615,` +
				`"f":1.5,"e":1e400,"t":true,"n":null,"arr":[1,{"a":2}],"o":{"a":{"b":1},"c":"d"},"empty":{}}`}},
		{name: "objects deeper than 8 groups are raw values", max: 1024, stderr: `{"msg":"m","g":` + deep + `}`,
			records: []string{`{"time":"now","level":"INFO","msg":"m","pid":"N","g":` + deep + `}`}},
		{name: "no time, level or message", max: 1024, stderr: `  {"a":1}  `,
			records: []string{`{"time":"now","level":"INFO","msg":"tool server stderr","pid":"N","a":1}`}},
		{name: "an unreadable time, level or message is an attribute", max: 1024,
			stderr:  `{"time":"yesterday","level":"LOUD","msg":5,"level":"info","msg":"m","msg":"again"}`,
			records: []string{`{"time":"now","level":"INFO","msg":"m","pid":"N","time":"yesterday","level":"LOUD","msg":5,"msg":"again"}`}},
		{name: "below the logger's level", max: 1024, stderr: `{"level":"DEBUG","msg":"m"}` + "\n" + `{"level":"debug+4","msg":"m"}`,
			records: []string{`{"time":"now","level":"INFO","msg":"m","pid":"N"}`}},
		{name: "not a JSON object", max: 1024, stderr: "[1]\n\"s\"\n{\"a\":\n{} x\n{\"a\":\"\xff\"}",
			records: []string{plain("[1]"), plain(`"s"`), plain(`{"a":`), plain("{} x"),
				`{"time":"now","level":"INFO","msg":"tool server stderr","pid":"N","line":"{\"a\":\"\ufffd\"}"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs wiretest.Buffer
			rpc.ForwardStderr(strings.NewReader(tc.stderr), stderrLog(&logs), 7, cmp.Or(tc.max, 16), 16)
			assert.Equal(t, tc.records, wiretest.Lines(t, logs.String()))
		})
	}
}

// Groups nest at most 8 deep in the record of a stderr line; a deeper
// object is a raw JSON value.
func TestStderrGroupDepth(t *testing.T) {
	var rec recorder
	rpc.ForwardStderr(strings.NewReader(`{"g":`+strings.Repeat(`{"g":`, 9)+"1"+strings.Repeat("}", 10)), slog.New(&rec), 7, 1024, 16)
	require.Len(t, rec.records, 1)
	var g slog.Value
	rec.records[0].Attrs(func(a slog.Attr) bool { g = a.Value; return a.Key != "g" })
	groups := 0
	for g.Kind() == slog.KindGroup {
		groups++
		g = g.Group()[0].Value
	}
	assert.Equal(t, 8, groups)
	assert.Equal(t, json.RawMessage(`{"g":1}`), g.Any())
}

// recorder keeps the records it is handed.
type recorder struct{ records []slog.Record }

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.records = append(r.records, rec.Clone())
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// The forwarding of a tool server's stderr reads a peer's input: whatever
// it writes gives one record per line, each a valid JSON line through
// slog's JSONHandler; a plain line is forwarded as it is, cut to the cap,
// with how much was dropped.
func FuzzStderr(f *testing.F) {
	for _, s := range []string{
		"hello\nworld", "\r\n\n", strings.Repeat("x", 100) + "\r\n",
		`{"time":"2001-02-03T04:05:06.007Z","level":"WARN+2","msg":"m","a":{"b":[1,{}]},"n":1e400}`,
		`{"msg":"m","msg":5,"level":"nope","time":null}`, `{"a":` + strings.Repeat(`{"a":`, 20) + "1" + strings.Repeat("}", 21),
		"{\"a\":\"\xff\"}", `{} x`, "é\xe9\n",
	} {
		f.Add([]byte(s), uint8(40))
	}
	f.Fuzz(func(t *testing.T, in []byte, capByte uint8) {
		maxLine := int(capByte)%64 + 1
		var rec recorder
		var out bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&out, nil))
		rpc.ForwardStderr(bytes.NewReader(in), slog.New(&rec), 7, maxLine, 16)
		rpc.ForwardStderr(bytes.NewReader(in), log, 7, maxLine, 16)

		var lines [][]byte
		for rest := in; len(rest) > 0; {
			line, after, found := bytes.Cut(rest, []byte("\n"))
			if found {
				line = bytes.TrimSuffix(line, []byte("\r"))
			}
			lines, rest = append(lines, line), after
		}
		require.Len(t, rec.records, len(lines), "a record per line")
		for i, out := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
			if len(out) > 0 {
				require.True(t, json.Valid(out), "record %d is valid JSON: %q", i, out)
			}
		}
		for i, line := range lines {
			r := rec.records[i]
			var attrs []slog.Attr
			r.Attrs(func(a slog.Attr) bool { attrs = append(attrs, a); return true })
			require.NotEmpty(t, attrs)
			require.Equal(t, "pid", attrs[0].Key, "pid comes first")
			if r.Message != "tool server stderr" || len(attrs) < 2 || attrs[1].Key != "line" ||
				json.Valid(line) && bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("{")) && len(line) <= maxLine {
				// A JSON object, forwarded as a record.
				require.LessOrEqual(t, len(line), maxLine)
				require.True(t, json.Valid(line), "line %q is JSON", line)
				continue
			}
			kept := attrs[1].Value.String()
			require.LessOrEqual(t, len(kept), maxLine)
			dropped := int64(0)
			if len(attrs) == 3 {
				require.Equal(t, "dropped", attrs[2].Key)
				dropped = attrs[2].Value.Int64()
				require.Positive(t, dropped)
			} else {
				require.Len(t, attrs, 2)
			}
			require.Equal(t, int64(len(line)), int64(len(kept))+dropped, "kept and dropped make the line")
			require.Equal(t, string(line[:len(kept)]), kept)
			if dropped > 0 && utf8.Valid(line) {
				require.True(t, utf8.ValidString(kept), "the cut splits no character")
			}
		}
	})
}
