package rpc

import (
	"bytes"
	"context"
	"testing"
)

// FuzzHTTPClientEvents holds the client's reading of an event stream on
// any bytes: it never panics, and it settles the call or fails it.
func FuzzHTTPClientEvents(f *testing.F) {
	for _, seed := range []string{
		"data: {\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}\r\n\r\n",
		": comment\nevent: message\ndata: [\ndata: {\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1}]\n\n",
		"data:{\"jsonrpc\":\"2.0\",\"error\":{\"code\":1,\"message\":\"x\"},\"id\":null}\r\r",
		"data", "\n\n\n", "data: \n\n", "id: 1\nretry: x\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		c := NewHTTPClient("http://unused", &HTTPClientOptions{MaxFrameSize: 1 << 16})
		o := newOutbound(WithProgress(context.Background(), func(Progress) {}), 1)
		err := c.events(bytes.NewReader(stream), []*outbound{o}, func(answer []byte) error { return settle(answer, []*outbound{o}, false) })
		if err == nil && !o.settled() {
			t.Fatalf("no error, and the call is not settled: %q", stream)
		}
	})
}
