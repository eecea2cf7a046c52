package codec

import (
	"io"
	"testing"
)

func BenchmarkLSPFrames(b *testing.B) {
	b.Run("read/lsp", func(b *testing.B) {
		benchReadFrames(b, func(r io.Reader) *Reader { return NewLSPReader(r, 0) }, func(s string) string { return string(appendHeader(nil, len(s))) + s })
	})
	b.Run("write/lsp", func(b *testing.B) { benchWriteLines(b, NewLSPWriter(io.Discard)) })
	b.Run("string4MiB/lsp", func(b *testing.B) {
		// Counted first, then written in pieces.
		w := NewLSPWriter(io.Discard)
		b.SetBytes(int64(len(benchStringResponse)))
		b.ReportAllocs()
		for b.Loop() {
			if err := WriteStringResponse(w, []byte("1"), benchStringResponse); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("string4MiB/lsp-whole", func(b *testing.B) {
		// The alternative: the message made whole, its length known.
		w := NewLSPWriter(io.Discard)
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
