package codec

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/wire"
)

// A response written in pieces is the line AppendResponse makes.
func TestWriteStringResponseMatchesAppendResponse(t *testing.T) {
	pieces := []string{"a", "é", "😀", "\u2028", "\"", "\\", "\n", "\x01", "\xff", "\xc3", strings.Repeat("x", 1000)}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		var b strings.Builder
		for b.Len() < n*3000 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		want, err := AppendResponse(nil, []byte(`"id"`), s)
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, wire.WriteStringResponse(wire.NewWriter(&out), []byte(`"id"`), s))
		require.Equal(t, string(want)+"\n", out.String(), "length %d", len(s))
		// With LSP framing, its length counted first, and for an id null.
		out.Reset()
		w := wire.NewLSPWriter(&out)
		require.NoError(t, wire.WriteStringResponse(w, []byte(`"id"`), s))
		require.NoError(t, wire.WriteStringResponse(w, nil, s))
		require.NoError(t, w.WriteLine([]byte(`{}`)))
		wantNull, err := AppendResponse(nil, nil, s)
		require.NoError(t, err)
		require.Equal(t, lspMsg(string(want))+lspMsg(string(wantNull))+lspMsg(`{}`), out.String(), "length %d", len(s))
		// Around the string, what AppendResponse makes of a StringIn.
		v, err := jsonx.NewStringIn(`{"content":[{"type":"text","text":`, s, `}]}`)
		require.NoError(t, err)
		want, err = AppendResponse(nil, []byte(`"id"`), v)
		require.NoError(t, err)
		out.Reset()
		ok, err := wire.WriteStringInResponse(wire.NewWriter(&out), []byte(`"id"`), v)
		require.True(t, ok)
		require.NoError(t, err)
		require.Equal(t, string(want)+"\n", out.String(), "length %d", len(s))
		out.Reset()
		w = wire.NewLSPWriter(&out)
		ok, err = wire.WriteStringInResponse(w, []byte(`"id"`), v)
		require.True(t, ok)
		require.NoError(t, err)
		require.Equal(t, lspMsg(string(want)), out.String(), "length %d", len(s))
	}
}
