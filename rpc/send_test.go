package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/rpc"
)

// Send writes a message its caller built on behalf of a call, compacted
// on one line, before the call's response; over HTTP as an event of the
// response, and not at all (ErrNoStream) to a client that takes no event
// stream; never after the response (ErrAnswered), never for a context of
// no call (ErrNoCall), and never a message that is not one JSON object
// (invalid UTF-8 is not JSON: json.Compact let it through before).
func TestSend(t *testing.T) {
	late := make(chan context.Context, 1)
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		var errs []string
		for _, m := range []string{"{\n \"jsonrpc\": \"2.0\", \"id\": 7,\n \"method\": \"ask\"\n}", `[1]`, `{`, ``, "{\"a\":\"\xff\"}"} {
			if err := rpc.Send(ctx, json.RawMessage(m)); err != nil {
				errs = append(errs, err.Error())
			}
		}
		select {
		case late <- ctx:
		default:
		}
		return errs, nil
	})
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","method":"m","id":1}`+"\n"), &out, h, &rpc.Options{Logger: quiet}))
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"method":"ask"}`+"\n"+
		`{"jsonrpc":"2.0","result":["rpc: Send takes one JSON object","rpc: Send takes one JSON object","rpc: Send takes one JSON object","rpc: Send takes one JSON object"],"id":1}`+"\n", out.String())
	assert.ErrorIs(t, rpc.Send(<-late, json.RawMessage(`{}`)), rpc.ErrAnswered)
	assert.ErrorIs(t, rpc.Send(context.Background(), json.RawMessage(`{}`)), rpc.ErrNoCall)

	hh := rpc.NewHTTPHandler(context.Background(), h, &rpc.Options{Logger: quiet})
	defer hh.Close()
	for accept, want := range map[string]string{
		"text/event-stream": `data: {"jsonrpc":"2.0","id":7,"method":"ask"}` + "\n\n" +
			`data: {"jsonrpc":"2.0","result":["rpc: Send takes one JSON object","rpc: Send takes one JSON object","rpc: Send takes one JSON object","rpc: Send takes one JSON object"],"id":1}` + "\n\n",
		"application/json": `{"jsonrpc":"2.0","result":["` + strings.Repeat(rpc.ErrNoStream.Error()+`","`, 4) + rpc.ErrNoStream.Error() + `"],"id":1}` + "\n",
	} {
		req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"m","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		hh.ServeHTTP(w, req)
		b, _ := io.ReadAll(w.Body)
		assert.Equal(t, want, string(b), accept)
	}
	assert.False(t, errors.Is(rpc.ErrNoStream, rpc.ErrNoCall))
}
