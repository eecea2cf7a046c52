package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolrpc/toolrpc/codec"
)

// FuzzDeliver hands any JSON object, as a transport would route it as a
// client's response, to a handler whose call to the client with id 1
// waits: it is delivered only to id 1 exactly, once, and what the waiting
// call makes of it is the result, an *Error, or an error wrapping
// ErrBadResponse (read as a Conn reads a response); nothing else is kept.
func FuzzDeliver(f *testing.F) {
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
		h := NewHTTPHandler(context.Background(), nil, nil)
		defer h.Close()
		b := (*boundHandler)(h)
		p := h.pending()
		o := &outbound{id: p.nextID.Add(1), done: make(chan struct{})}
		if err := p.register(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		var d codec.Decoder
		msgs, isBatch := d.Decode([]byte(body))
		want := !isBatch && msgs[0].Kind == codec.Response && string(msgs[0].ID) == "1"
		delivered := b.Deliver([]byte(body))
		if delivered != want {
			t.Fatalf("delivered %v, want %v", delivered, want)
		}
		if b.Deliver([]byte(body)) {
			t.Fatal("delivered twice")
		}
		if delivered && b.Waiting() != 0 {
			t.Fatal("kept")
		}
		if !delivered {
			return
		}
		<-o.done
		var e *Error
		switch err := o.err; {
		case err == nil && o.result == nil:
			t.Fatal("no result and no error")
		case err != nil && o.result != nil:
			t.Fatal("a result and an error")
		case err != nil && !errors.As(err, &e) && !errors.Is(err, ErrBadResponse):
			t.Fatalf("error %v", err)
		}
	})
}
