package rpc

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A POST is answered exactly as the stream answers the same line (one
// dispatch core): the batches whose entries must be answered with id null
// (an entry that is not a request object, an id of the wrong type or given
// twice, a response among requests), and the frames refused whole with id
// null (a batch too long, too deep, empty, not JSON). The HTTP client is
// served events (it accepts them), so that the notifications a call sends
// before its answer are seen too.
func TestHTTPAnswersAsTheStream(t *testing.T) {
	const (
		notObject = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a request must be a JSON object"}},"id":null}`
		badID     = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id must be a string, a number or null"}},"id":null}`
		twiceID   = `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id given more than once"}},"id":null}`
	)
	tests := []struct {
		name, frame string
		status      int
		want        []string
	}{
		{"an entry not an object", `[{"jsonrpc":"2.0","method":"echo","params":[1],"id":1},1]`, 200,
			[]string{`[{"jsonrpc":"2.0","result":[1],"id":1},` + notObject + `]`}},
		{"an id of the wrong type", `[{"jsonrpc":"2.0","method":"echo","id":{}},{"jsonrpc":"2.0","method":"echo","id":2}]`, 200,
			[]string{`[` + badID + `,{"jsonrpc":"2.0","result":null,"id":2}]`}},
		{"an id given twice", `[{"jsonrpc":"2.0","method":"echo","id":1,"id":2}]`, 200, []string{`[` + twiceID + `]`}},
		{"a request with id null", `[{"jsonrpc":"2.0","method":"echo","id":null}]`, 200, []string{`[{"jsonrpc":"2.0","result":null,"id":null}]`}},
		{"a response among them", `[{"jsonrpc":"2.0","result":1,"id":1},1]`, 200, []string{`[` + notObject + `]`}},
		{"a notification and an invalid entry", `[{"jsonrpc":"2.0","method":"echo"},1]`, 200, []string{`[` + notObject + `]`}},
		{"notifications before the array", `[{"jsonrpc":"2.0","method":"note","id":1},{"foo":1}]`, 200,
			[]string{`{"jsonrpc":"2.0","method":"note","params":{"n":1}}`,
				`[{"jsonrpc":"2.0","result":"ok","id":1},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"jsonrpc must be the string 2.0"}},"id":null}]`}},
		{"only invalid entries", `[1,"x"]`, 200, []string{`[` + notObject + `,` + notObject + `]`}},
		{"a batch too long", `[{"jsonrpc":"2.0","method":"echo","id":1},{"jsonrpc":"2.0","method":"echo","id":2},{"jsonrpc":"2.0","method":"echo","id":3}]`, 200,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"batch longer than the limit of 2 entries"}},"id":null}`}},
		{"a batch too deep", `[{"jsonrpc":"2.0","method":"echo","params":[[[[[1]]]]],"id":1}]`, 200,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"nested more than 4 levels deep"}},"id":null}`}},
		{"an empty batch", `[]`, 200,
			[]string{`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"a batch must not be empty"}},"id":null}`}},
		{"not JSON", `[{"jsonrpc":"2.0"`, 200, []string{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`}},
		{"notifications alone", `[{"jsonrpc":"2.0","method":"echo"}]`, 202, nil},
	}
	opts := &Options{Logger: slog.New(slog.DiscardHandler), MaxDepth: 4, MaxBatch: 2}
	h := NewHTTPHandler(context.Background(), HandlerFunc(frameHandler), opts)
	defer h.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, streamAnswers(t, tt.frame, opts), "the stream")

			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.frame))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, tt.status, w.Code)
			var httpLines []string
			switch body := w.Body.String(); w.Header().Get("Content-Type") {
			case "text/event-stream":
				for event := range strings.SplitSeq(strings.TrimSuffix(body, "\n\n"), "\n\n") {
					httpLines = append(httpLines, strings.TrimPrefix(event, "data: "))
				}
			case "application/json":
				httpLines = []string{strings.TrimSuffix(body, "\n")}
			default:
				assert.Empty(t, body)
			}
			assert.Equal(t, tt.want, httpLines, "HTTP")
		})
	}
}
