package codec

import (
	"io"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wire"
)

func BenchmarkLSPFrames(b *testing.B) {
	b.Run("read/lsp", func(b *testing.B) {
		benchReadFrames(b, func(r io.Reader) *Reader { return NewLSPReader(r, 0) }, func(s string) string { return lspMsg(s) })
	})
	b.Run("write/lsp", func(b *testing.B) { benchWriteLines(b, NewLSPWriter(io.Discard)) })
	b.Run("string4MiB/lsp", func(b *testing.B) { benchStringResponse(b, wire.NewLSPWriter(io.Discard), false) })
	b.Run("string4MiB/lsp-whole", func(b *testing.B) { benchStringResponse(b, wire.NewLSPWriter(io.Discard), true) })
}
