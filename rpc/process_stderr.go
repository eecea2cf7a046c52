package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/scan"
)

// DefaultMaxStderrLine is the longest line of a tool server's standard
// error forwarded whole, in bytes: 64 KiB. See ProcessOptions.MaxStderrLine.
const DefaultMaxStderrLine = 64 << 10

// maxStderrGroupDepth is the deepest nesting of groups in the record of a
// stderr line: an object nested deeper is one raw JSON value.
const maxStderrGroupDepth = 8

// stderrBufferSize is the size of the buffer stderr is read with: a line
// that fits, with its line end, is never copied; a longer one is read in
// pieces of this size.
const stderrBufferSize = 64 << 10

// stderrMessage is the message of the record of a line that is not a JSON
// log record, or of one without "msg".
const stderrMessage = "tool server stderr"

// stderrForwarder forwards a tool server's standard error to a logger, one
// record per line.
type stderrForwarder struct {
	r    *bufio.Reader
	h    slog.Handler
	pid  slog.Attr
	max  int         // the longest line forwarded whole
	keep []byte      // the head of a line longer than the buffer
	tail [2]byte     // the last bytes of that line read so far
	buf  []slog.Attr // the attributes of a record, reused
}

// forwardStderr forwards the lines read from r to log until r ends, each as
// a record with the attribute "pid". r is read with a buffer of bufSize
// bytes (stderrBufferSize). A line longer than maxLine bytes is
// cut to maxLine (at a UTF-8 character boundary), its record saying how many
// bytes were dropped ("dropped"); the rest of it is skipped as it is read.
// A line that is a JSON object is a log record (see stderrRecord); any
// other line is forwarded as it is, at Info, in the attribute "line".
func forwardStderr(r io.Reader, log *slog.Logger, pid, maxLine, bufSize int) {
	f := stderrForwarder{
		r:   bufio.NewReaderSize(r, bufSize),
		h:   log.Handler(),
		pid: slog.Int("pid", pid),
		max: maxLine,
	}
	for {
		line, dropped, err := f.readLine()
		if line != nil {
			f.forward(line, dropped)
		}
		if err != nil {
			return
		}
	}
}

// readLine returns the next line, without its line end, cut to f.max, and
// how many bytes of it were dropped; nil at the end of the input. The line
// is valid until the next call.
func (f *stderrForwarder) readLine() (line []byte, dropped int64, err error) {
	chunk, err := f.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		if len(chunk) == 0 {
			return nil, 0, err
		}
		return f.cut(trimLineEnd(chunk), err)
	}
	// A line longer than the buffer: keep its head (and room for a line
	// end), count the rest as it goes by.
	f.keep = f.keep[:0]
	var n int64
	for {
		f.keep = append(f.keep, chunk[:min(len(chunk), f.max+2-len(f.keep))]...)
		n += int64(len(chunk))
		switch len(chunk) {
		case 0:
		case 1:
			f.tail = [2]byte{f.tail[1], chunk[0]}
		default:
			f.tail = [2]byte{chunk[len(chunk)-2], chunk[len(chunk)-1]}
		}
		if err != bufio.ErrBufferFull {
			break
		}
		chunk, err = f.r.ReadSlice('\n')
	}
	if f.tail[1] == '\n' {
		n--
		if f.tail[0] == '\r' {
			n--
		}
	}
	line, _, _ = f.cut(f.keep[:min(int64(len(f.keep)), n)], nil)
	return line, n - int64(len(line)), err
}

// cut returns line cut to f.max, and how many bytes were dropped.
func (f *stderrForwarder) cut(line []byte, err error) ([]byte, int64, error) {
	if len(line) <= f.max {
		return line, 0, err
	}
	kept := jsonx.CutUTF8(line, f.max)
	return kept, int64(len(line) - len(kept)), err
}

// trimLineEnd returns line without its "\n" or "\r\n".
func trimLineEnd(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

// forward logs one line.
func (f *stderrForwarder) forward(line []byte, dropped int64) {
	ctx := context.Background()
	if dropped == 0 {
		if r, ok := f.record(line); ok {
			if f.h.Enabled(ctx, r.Level) {
				_ = f.h.Handle(ctx, r)
			}
			return
		}
	}
	if !f.h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	r := slog.NewRecord(time.Now(), slog.LevelInfo, stderrMessage, 0)
	r.AddAttrs(f.pid, slog.String("line", string(line)))
	if dropped > 0 {
		r.AddAttrs(slog.Int64("dropped", dropped))
	}
	_ = f.h.Handle(ctx, r)
}

// record reads line as a log record, if it is a JSON object (as slog's
// JSONHandler writes them): the member "time" (RFC 3339) is its time, "level"
// (DEBUG, INFO, WARN, ERROR, with an offset such as INFO+2) its level, and
// "msg" its message; the other members are attributes, in their order, after
// "pid". A "time", "level" or "msg" that does not read as one is an
// attribute too; without them the record is at Info, now, with the message
// of a plain line. Strings, numbers, booleans and null are values of their
// kind (an integer that fits int64 or uint64 is one, another number a
// float64, or a json.Number past float64's range); an object is a group
// (groups nest at most maxStderrGroupDepth deep), or one raw JSON value
// (json.RawMessage) when empty or deeper; an array is a raw JSON value. The cost is
// linear in the line's length, which bounds nesting and member counts.
func (f *stderrForwarder) record(line []byte) (slog.Record, bool) {
	i := scan.SkipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return slog.Record{}, false
	}
	if end, st := scan.Value(line, i, 0, scan.Unlimited); st != scan.OK || scan.SkipSpace(line, end) != len(line) {
		return slog.Record{}, false
	}
	var (
		t                         time.Time
		level                     = slog.LevelInfo
		msg                       = stderrMessage
		haveT, haveLevel, haveMsg bool
	)
	attrs := append(f.buf[:0], f.pid)
	m := scan.ObjectMembers(line, i)
	for {
		name, at, done, _ := m.Next()
		if done {
			break
		}
		var a slog.Attr
		a, m.End = stderrAttr(name, line, at, 1)
		if a.Value.Kind() == slog.KindString {
			s := a.Value.String()
			switch {
			case !haveT && a.Key == slog.TimeKey:
				if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
					t, haveT = v, true
					continue
				}
			case !haveLevel && a.Key == slog.LevelKey:
				if level.UnmarshalText([]byte(s)) == nil {
					haveLevel = true
					continue
				}
			case !haveMsg && a.Key == slog.MessageKey:
				msg, haveMsg = s, true
				continue
			}
		}
		attrs = append(attrs, a)
	}
	if !haveT {
		t = time.Now()
	}
	r := slog.NewRecord(t, level, msg, 0)
	r.AddAttrs(attrs...)
	clear(attrs) // let go of what the attributes hold
	f.buf = attrs[:0]
	return r, true
}

// stderrAttr returns the attribute of the member name whose value starts
// at b[i], and the index past the value; depth is the nesting of the group
// the value would be (1 for a member of the record).
// b is valid JSON.
func stderrAttr(name, b []byte, i, depth int) (slog.Attr, int) {
	key := string(name)
	switch b[i] {
	case '"':
		end, escaped, _ := scan.String(b, i)
		return slog.String(key, string(scan.Unquote(b[i:end], escaped))), end
	case 't':
		return slog.Bool(key, true), i + len("true")
	case 'f':
		return slog.Bool(key, false), i + len("false")
	case 'n':
		return slog.Any(key, nil), i + len("null")
	case '{':
		if depth <= maxStderrGroupDepth && b[scan.SkipSpace(b, i+1)] != '}' {
			var attrs []slog.Attr
			m := scan.ObjectMembers(b, i)
			for {
				name, at, done, _ := m.Next()
				if done {
					return slog.Attr{Key: key, Value: slog.GroupValue(attrs...)}, m.End
				}
				var a slog.Attr
				a, m.End = stderrAttr(name, b, at, depth+1)
				attrs = append(attrs, a)
			}
		}
	case '[':
	default:
		end, _ := scan.Number(b, i)
		return slog.Attr{Key: key, Value: numberValue(b[i:end])}, end
	}
	end, _ := scan.Value(b, i, 0, scan.Unlimited)
	return slog.Any(key, json.RawMessage(bytes.Clone(b[i:end]))), end
}

// numberValue is the value of a JSON number token.
func numberValue(tok []byte) slog.Value {
	s := string(tok)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return slog.Int64Value(n)
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return slog.Uint64Value(n)
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		return slog.Float64Value(x)
	}
	return slog.AnyValue(json.Number(s))
}
