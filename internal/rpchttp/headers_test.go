package rpchttp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/internal/rpchttp"
)

// AcceptsEventStream reads Accept as the handler does, RFC 9110's most
// specific matching range and q=0 included, but for */* and no header,
// which allow an event stream.
func TestAcceptsEventStream(t *testing.T) {
	tests := []struct {
		values []string
		want   bool
	}{
		{nil, true},
		{[]string{"*/*"}, true},
		{[]string{"text/event-stream"}, true},
		{[]string{"application/json"}, false},
		{[]string{"application/json, text/event-stream"}, true},
		{[]string{"text/*;q=0.5"}, true},
		{[]string{"text/event-stream;q=0, application/json"}, false},
		{[]string{"text/event-stream;q=0, */*"}, false},
		{[]string{"*/*;q=0"}, false},
		{[]string{"text/*;q=0, */*"}, false},
		{[]string{"text/*;q=0", "text/event-stream"}, true},
		{[]string{"text/event-stream;q=x"}, false}, // malformed: ignored
		{[]string{"application/json", "*/*"}, true},
		{[]string{"text/html"}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, rpchttp.AcceptsEventStream(tt.values), "%q", tt.values)
	}
}
