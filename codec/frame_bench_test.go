package codec

import (
	"io"
	"strings"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wire"
)

// benchFrame is a request of the hot path, as a frame.
const benchFrame = `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":1}`

// benchReadFrames reads frames from in (made by frame) over and over.
func benchReadFrames(b *testing.B, newReader func(io.Reader) *Reader, frame func(string) string) {
	in := strings.Repeat(frame(benchFrame), 1000)
	src := strings.NewReader(in)
	r := newReader(src)
	b.SetBytes(int64(len(in) / 1000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadFrame(); err == io.EOF {
			src.Reset(in)
			r = newReader(src)
		}
	}
}

// benchWriteLines writes a line of the hot path, over and over.
func benchWriteLines(b *testing.B, w *Writer) {
	line := []byte(benchFrame + "\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WriteLine(line); err != nil {
			b.Fatal(err)
		}
	}
}

// longResult is a long string result: 4 MiB, a tenth of it escaped.
var longResult = strings.Repeat(`abcdefghi"`, 400<<10)

func BenchmarkFrames(b *testing.B) {
	b.Run("read/newline", func(b *testing.B) {
		benchReadFrames(b, func(r io.Reader) *Reader { return NewReader(r, 0) }, func(s string) string { return s + "\n" })
	})
	b.Run("write/newline", func(b *testing.B) { benchWriteLines(b, NewWriter(io.Discard)) })
	b.Run("string4MiB/newline", func(b *testing.B) { benchStringResponse(b, wire.NewWriter(io.Discard), false) })
	b.Run("string4MiB/whole", func(b *testing.B) { benchStringResponse(b, wire.NewWriter(io.Discard), true) })
}

// benchStringResponse writes a long string result with
// wire.WriteStringResponse (as rpc writes a long string result), or, whole, the line made whole (the floor in time
// that WriteStringResponse avoids in memory).
func benchStringResponse(b *testing.B, w *wire.Writer, whole bool) {
	var buf []byte
	b.SetBytes(int64(len(longResult)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if whole {
			buf, _ = AppendResponse(buf[:0], []byte("1"), longResult)
			err = w.WriteLine(buf)
		} else {
			err = wire.WriteStringResponse(w, []byte("1"), longResult)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
