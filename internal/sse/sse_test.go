package sse_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sse"
)

// The writer's bytes, field by field: what rpc's and mcp's event streams
// hold on the wire.
func TestAppendEvent(t *testing.T) {
	assert.Equal(t, "data: {}\n\n", string(sse.AppendData(nil, []byte("{}"))))
	assert.Equal(t, "id: 1-0\nretry: 1000\ndata: \n\n",
		string(sse.AppendEvent(nil, sse.Event{ID: []byte("1-0"), Retry: time.Second})))
	assert.Equal(t, "id: 1-1\ndata: a\ndata: b\n\n",
		string(sse.AppendEvent(nil, sse.Event{ID: []byte("1-1"), Data: []byte("a\nb")})))
	h := http.Header{}
	sse.SetHeader(h)
	assert.Equal(t, "text/event-stream", h.Get("Content-Type"))
	assert.Equal(t, "no-cache", h.Get("Cache-Control"))
}

// The reader takes what the writer writes, and what other servers write:
// CRLF and CR line ends, comments and other fields, several data lines, a
// last event without its blank line.
func TestReader(t *testing.T) {
	var wire []byte
	wire = sse.AppendEvent(wire, sse.Event{ID: []byte("7-0"), Retry: time.Second})
	wire = append(wire, sse.KeepAlive...)
	wire = sse.AppendData(wire, []byte("one"))
	wire = append(wire, "event: message\r\ndata:two\r\ndata: lines\r\n\r\n: comment\rdata: three\rid: x\r\rdata: last"...)
	r := sse.NewReader(bytes.NewReader(wire), 64)
	var got []string
	for {
		data, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, string(data))
	}
	assert.Equal(t, []string{"", "one", "two\nlines", "three", "last"}, got)
}

// A line or an event past the bound fails (a line is read in a buffer of
// 4 KiB at least).
func TestReaderBounds(t *testing.T) {
	_, err := sse.NewReader(strings.NewReader("data: "+strings.Repeat("x", 5000)+"\n\n"), 16).Next()
	assert.ErrorIs(t, err, sse.ErrLineTooLong)
	_, err = sse.NewReader(strings.NewReader(strings.Repeat("data: 0123456789\n", 3)+"\n"), 16).Next()
	assert.ErrorIs(t, err, sse.ErrEventTooLarge)
}
