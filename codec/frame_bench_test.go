package codec

import (
	"io"
	"strings"
	"testing"
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

// benchStringResponse is a long string result: 4 MiB, a tenth of it
// escaped.
var benchStringResponse = strings.Repeat(`abcdefghi"`, 400<<10)

func BenchmarkFrames(b *testing.B) {
	b.Run("read/newline", func(b *testing.B) {
		benchReadFrames(b, func(r io.Reader) *Reader { return NewReader(r, 0) }, func(s string) string { return s + "\n" })
	})
	b.Run("write/newline", func(b *testing.B) { benchWriteLines(b, NewWriter(io.Discard)) })
	b.Run("string4MiB/newline", func(b *testing.B) {
		w := NewWriter(io.Discard)
		b.SetBytes(int64(len(benchStringResponse)))
		b.ReportAllocs()
		for b.Loop() {
			if err := WriteStringResponse(w, []byte("1"), benchStringResponse); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("string4MiB/whole", func(b *testing.B) {
		// The floor WriteStringResponse avoids: the line made whole.
		w := NewWriter(io.Discard)
		var buf []byte
		b.SetBytes(int64(len(benchStringResponse)))
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = AppendResponse(buf[:0], []byte("1"), benchStringResponse)
			if err := w.WriteLine(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
