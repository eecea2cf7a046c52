package wire

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lspMsg is body with its LSP header.
func lspMsg(body string) string { return string(appendHeader(nil, len(body))) + body }

func TestLSPWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewLSPWriter(&out)
	ctx := context.Background()
	require.NoError(t, w.WriteLine([]byte("{\"a\":1}\n")))
	require.NoError(t, w.WriteLine([]byte(`[]`)))
	_, err := w.Enqueue(ctx, []byte(`{"b":2}`))
	require.NoError(t, err)
	require.NoError(t, w.QueueLine([]byte("{\"c\":3}\n")))
	require.NoError(t, w.Flush(ctx))
	assert.Equal(t, ErrNewline, w.WriteLine([]byte("{}\n{}")))
	long := `"` + strings.Repeat("l", maxWrite) + `"` // written directly, header apart
	require.NoError(t, w.WriteLine([]byte(long+"\n")))
	assert.Equal(t, lspMsg(`{"a":1}`)+lspMsg(`[]`)+lspMsg(`{"b":2}`)+lspMsg(`{"c":3}`)+lspMsg(long), out.String())
	line := []byte("{\"b\":2}\n")
	allocs := testing.AllocsPerRun(100, func() { _ = w.WriteLine(line) })
	assert.Zero(t, allocs)
}

// A message made in parts that is not the length its header gave fails
// the Writer for good: what follows could not be read.
func TestLSPWriteLineFuncCutShort(t *testing.T) {
	for _, fn := range []func(emit func([]byte) error) error{
		func(emit func([]byte) error) error { return emit([]byte("{}")) },                                         // shorter
		func(emit func([]byte) error) error { return emit([]byte("{\"a\":11}")) },                                 // longer
		func(emit func([]byte) error) error { _ = emit([]byte("{")); return emit([]byte("\n")) },                  // a newline
		func(emit func([]byte) error) error { _ = emit([]byte("{\"a\":1")); return errors.New("gave up midway") }, // failed
	} {
		var out bytes.Buffer
		w := NewLSPWriter(&out)
		assert.Equal(t, errCutMessage, w.writeLineFunc(7, fn))
		assert.Equal(t, errCutMessage, w.WriteLine([]byte(`{}`)))
	}
	var out bytes.Buffer
	w := NewLSPWriter(&out)
	require.NoError(t, w.writeLineFunc(7, func(emit func([]byte) error) error { return emit([]byte(`{"a":1}`)) }))
	assert.Equal(t, lspMsg(`{"a":1}`), out.String())
}
