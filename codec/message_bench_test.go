package codec

import "testing"

// BenchmarkDecode classifies one frame: the hot path (a request, a
// notification, a small batch) and the invalid envelopes answered -32600.
func BenchmarkDecode(b *testing.B) {
	frames := []struct{ name, frame string }{
		{"request", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23,"_meta":{"progressToken":"t"}},"id":1}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"batch", `[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"}]`},
		{"response", `{"jsonrpc":"2.0","result":19,"id":1}`},
		{"invalid", `{"jsonrpc":"2.0","method":"m","params":null,"id":7}`},
	}
	for _, f := range frames {
		b.Run(f.name, func(b *testing.B) {
			var d Decoder
			frame := []byte(f.frame)
			b.ReportAllocs()
			for b.Loop() {
				d.Decode(frame)
			}
		})
	}
}
