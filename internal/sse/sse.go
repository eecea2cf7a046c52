// Package sse is the Server-Sent Events codec of the module's HTTP
// transports (WHATWG HTML, "Server-sent events"): the writer rpc's
// HTTPHandler and mcp's Streamable HTTP write their event streams with,
// and the reader rpc's HTTPClient reads them with. The event format is
// written here and nowhere else.
//
// An event, as written: an id field (when it has one), a retry field
// (when it has one), a data field for each line of its data, then a blank
// line. A comment (a line starting with ':') keeps a quiet stream alive.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// ContentType is the media type of an event stream.
const ContentType = "text/event-stream"

// KeepAlive is the comment written on a quiet stream, so that proxies and
// clients do not take it for dead: an empty comment, then the blank line.
const KeepAlive = ":\n\n"

// The values of an event stream's header, one slice each for all streams,
// never written (net/http only reads them): Header().Set would make one
// each time.
var (
	contentType = []string{ContentType}
	noCache     = []string{"no-cache"}
)

// SetHeader sets the header fields of an event stream: its Content-Type,
// and Cache-Control: no-cache.
func SetHeader(h http.Header) {
	h["Content-Type"] = contentType
	h["Cache-Control"] = noCache
}

// An Event is one event of a stream.
type Event struct {
	// ID is the event's id field, none when empty.
	ID []byte
	// Retry is the reconnection delay the retry field tells the client
	// (in milliseconds on the wire), none when 0.
	Retry time.Duration
	// Data is the event's data: a data field for each of its lines
	// (split at LF). The messages of JSON-RPC are one line each.
	Data []byte
}

// AppendEvent appends e as written on the wire to dst.
func AppendEvent(dst []byte, e Event) []byte {
	if len(e.ID) > 0 {
		dst = append(append(append(dst, "id: "...), e.ID...), '\n')
	}
	if e.Retry > 0 {
		dst = strconv.AppendInt(append(dst, "retry: "...), e.Retry.Milliseconds(), 10)
		dst = append(dst, '\n')
	}
	data := e.Data
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		dst = append(append(append(dst, "data: "...), line...), '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(dst, '\n')
}

// AppendData appends the event whose data is data, and nothing else: the
// most common event, as AppendEvent writes it.
func AppendData(dst, data []byte) []byte { return AppendEvent(dst, Event{Data: data}) }

// Errors of a Reader, beside those of what it reads.
var (
	// ErrLineTooLong is the error of a line longer than the Reader's
	// bound.
	ErrLineTooLong = errors.New("sse: an event line longer than the limit")
	// ErrEventTooLarge is the error of an event whose data is longer than
	// the Reader's bound.
	ErrEventTooLarge = errors.New("sse: an event larger than the limit")
)

// A Reader reads the events of a stream. Lines end with CRLF, LF or CR;
// an event is its data lines joined with '\n'; other fields and comments
// are ignored.
type Reader struct {
	lines *bufio.Scanner
	max   int
	data  []byte
	done  bool
}

// NewReader returns a Reader of r whose events' data, and lines, are at
// most max bytes (a data line's field name aside).
func NewReader(r io.Reader, max int) *Reader {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 4096), max+len("data: ")+2)
	lines.Split(splitLines)
	return &Reader{lines: lines, max: max}
}

// Next returns the data of the next event, valid until the next call; a
// stream that ends after an event's data, without its blank line, ends
// that event. At the end of the stream it returns io.EOF; a line or an
// event past the bound is ErrLineTooLong or ErrEventTooLarge, and a
// failure to read is the reader's error.
func (r *Reader) Next() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	r.data = r.data[:0]
	inEvent := false // a data field was seen since the last blank line
	for r.lines.Scan() {
		line := r.lines.Bytes()
		if len(line) == 0 { // the end of an event
			if inEvent {
				return r.data, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // a comment, or a field of no use here (event, id, retry)
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if inEvent {
			r.data = append(r.data, '\n')
		}
		r.data, inEvent = append(r.data, value...), true
		if len(r.data) > r.max {
			return nil, ErrEventTooLarge
		}
	}
	r.done = true
	switch err := r.lines.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, ErrLineTooLong
	case err != nil:
		return nil, err
	case inEvent: // the stream ended after a last event's data
		return r.data, nil
	}
	return nil, io.EOF
}

// splitLines splits an event stream into lines ending with CRLF, LF or CR
// (the end of the line not included).
func splitLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		switch {
		case data[i] == '\n':
			return i + 1, data[:i], nil
		case i+1 < len(data):
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		case atEOF:
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // a CR last: an LF may follow
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
