package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/rpc"
)

// FuzzClientResponse hands any JSON object the transport would route as a
// response to the requests of a session waiting for id 1: it is delivered
// only when its id is 1 exactly, once, and what the waiting call makes of
// it is the result (an object), an *rpc.Error, or an error saying it is
// neither; nothing else is kept.
func FuzzClientResponse(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":null}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":"1","result":{}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":01,"result":{}}`,
		`{"jsonrpc":"2.0","id":-0,"result":{}}`,
		`{"jsonrpc":"2.0","id":9223372036854775808,"result":{}}`,
		`{"id":1,"id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"both"}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !json.Valid([]byte(body)) {
			return // the transport routes nothing else
		}
		env := readEnvelope([]byte(body))
		if !isResponse(env, []byte(body)) {
			return
		}
		h := newHTTPCalls(0)
		reply := make(chan json.RawMessage, 1)
		h.pending[1] = reply
		delivered := h.deliver([]byte(body))
		if delivered != (string(env.id) == "1") {
			t.Fatalf("delivered %v, id %s", delivered, env.id)
		}
		if h.deliver([]byte(body)) {
			t.Fatal("delivered twice")
		}
		if h.waiting() != 0 && delivered {
			t.Fatal("kept")
		}
		if !delivered {
			return
		}
		result, err := responseResult(<-reply)
		var e *rpc.Error
		switch {
		case err == nil && result == nil:
			t.Fatal("no result and no error")
		case err != nil && result != nil:
			t.Fatal("a result and an error")
		case err != nil && !errors.As(err, &e) && err.Error() != "mcp: the client's response holds neither a result nor an error":
			t.Fatalf("error %v", err)
		}
	})
}

// FuzzClientResponses holds clientResponses, which splits a batch at any
// depth, to encoding/json's split for any body it reads (nested no more
// than 10000 deep): the same responses, byte for byte, and whether
// anything else is in the batch.
func FuzzClientResponses(f *testing.F) {
	for _, seed := range []string{
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}]`,
		` [ {"id":1,"result":[[1]]} ] `, `[]`, `[1]`, `[{"id":1,"result":1},]`, `[{"id":1,"result":1}`, `[{"id":1,"result":1}] x`,
		`[{"id":1,"result":1} {"id":2,"result":1}]`, `[{"id":1,"method":"m"}]`, `{"id":1,"result":1}`, `[,{"id":1,"result":1}]`,
	} {
		f.Add(seed)
	}
	rev := revision{name: "2025-03-26", batches: true}
	f.Fuzz(func(t *testing.T, body string) {
		b := []byte(body)
		if !utf8.Valid(b) {
			return // not JSON for us, where encoding/json takes it: served, and answered a parse error
		}
		got, gotOthers := clientResponses(readEnvelope(b), b, rev)
		var want [][]byte
		var wantOthers bool
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) == nil && len(batch) > 0 {
			for _, m := range batch {
				if isResponse(readEnvelope(m), m) {
					want = append(want, m)
				} else {
					wantOthers = true
				}
			}
		} else if isResponse(readEnvelope(b), b) {
			want = [][]byte{b}
		}
		if len(got) != len(want) || gotOthers != wantOthers {
			t.Fatalf("%q: %q, want %q", body, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: %q, want %q", body, got, want)
			}
		}
	})
}
