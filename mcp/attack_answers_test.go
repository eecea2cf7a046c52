package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// A response POSTed in 2026-07-28, where servers send no requests, answers
// none: accepted (202) and dropped, logged at Debug as a legacy session's
// response to no request waiting, never at Warn, however many POSTs (each
// stateless request has an rpc handler of its own, whose count of
// dropped responses would start anew each time).
func TestAttackModernResponsesLogNothing(t *testing.T) {
	var logs wiretest.Logs
	h := newAskers(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour, RPC: rpc.Options{Logger: logs.Logger()}})
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close()
	}()
	hd := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}
	for i := range 100 {
		for _, body := range []string{
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`, i),
			`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`,
		} {
			check(t, srv.URL, exchange{body: body, header: hd, status: http.StatusAccepted})
		}
	}
	for _, r := range logs.Records(t) {
		require.Equal(t, "DEBUG", r["level"], "%v", r)
	}
	assert.Len(t, logs.Messages(t, "mcp: a response to no request waiting"), 300)
}

// asker is a legacy stdio session of s, initialized by a client that
// declares sampling and elicitation, driven line by line.
type asker struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	served chan error
}

func newAsker(t *testing.T, s *mcp.Server) *asker {
	t.Helper()
	r, in := io.Pipe()
	outR, out := io.Pipe()
	a := &asker{in: in, out: bufio.NewReader(outR), served: make(chan error, 1)}
	go func() {
		a.served <- s.Serve(context.Background(), r, out, &rpc.Options{Logger: wiretest.Quiet()})
		_ = out.Close()
	}()
	t.Cleanup(func() {
		_ = in.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		require.NoError(t, wiretest.Receive(t, a.served, "Serve to return"))
	})
	a.send(t, askInit)
	a.read(t)
	return a
}

func (a *asker) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(a.in, line+"\n")
	require.NoError(t, err)
}

func (a *asker) read(t *testing.T) string {
	t.Helper()
	line, err := a.out.ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSuffix(line, "\n")
}

// ask calls the tool, reads its request to the client, and returns the
// request's id.
func (a *asker) ask(t *testing.T, tool string) string {
	t.Helper()
	a.send(t, `{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":`+quote(tool)+`}}`)
	req := a.read(t)
	i := strings.LastIndex(req, `"id":`)
	require.Positive(t, i, req)
	return strings.TrimSuffix(req[i+len(`"id":`):], "}")
}

// formAsker asks a form of one field, a multi-choice, and says how many
// bytes of values it got.
type formAsker struct{}

func (formAsker) Form(ctx context.Context) (string, error) {
	res, err := mcp.Elicit(ctx, &mcp.ElicitParams{Message: "?", Fields: []mcp.Field{
		mcp.StringField{Name: "name"},
		mcp.MultiEnumField{Name: "tags", Values: []string{"a", "b"}},
	}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %d bytes", res.Action, len(res.Content)), nil
}

// members is n members "k0":1, "k1":1... of an object, without its braces.
func members(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":1`, i)
	}
	return b.String()
}

// An accepted form's values are checked against the form (shape, fields,
// members folded to a field's name) in a scan of the answer, whatever its
// members: an answer of 300,000 members (4 MiB), or of a multi-choice of
// a million items, costs a few times its length in allocations, where it
// cost 35 to 45 times (17 s of CPU and 620 MiB of heap for a 50 MB one)
// when each member and item was decoded into maps and slices, twice. Its
// verdicts are the same.
func TestAttackElicitAnswerCost(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	require.NoError(t, s.Register("", formAsker{}))
	a := newAsker(t, s)
	for _, c := range []struct{ name, content, want string }{
		{"many members", `{"name":"x",` + members(300_000) + `}`, "accept, 3488902 bytes"},
		{"many items", `{"tags":["a"` + strings.Repeat(`,"b"`, 1_000_000) + `]}`, "accept, 4000014 bytes"},
		{"many items, one not a choice", `{"tags":["a"` + strings.Repeat(`,"b"`, 1_000_000) + `,"c"]}`, `mcp: the answer does not fit the form: field \"tags\" must be an array of its values`},
		{"many items, one not a string", `{"tags":["a"` + strings.Repeat(`,"b"`, 1_000_000) + `,1]}`, `mcp: the client's answer to elicitation/create is not the result of one`},
		{"many members, one folded", `{"name":"x",` + members(300_000) + `,"NAME":"y"}`, `mcp: the answer does not fit the form: member \"NAME\" is not field \"name\" but would be decoded as it`},
		{"many members, one nested", `{"name":"x",` + members(300_000) + `,"k":{}}`, `mcp: the client's answer to elicitation/create is not the result of one`},
	} {
		t.Run(c.name, func(t *testing.T) {
			answer := `{"jsonrpc":"2.0","id":` + a.ask(t, "form") + `,"result":{"action":"accept","content":` + c.content + `}}`
			var got string
			allocated := wiretest.Allocated(func() {
				a.send(t, answer)
				got = a.read(t)
			})
			isError := strings.HasPrefix(c.want, "mcp:")
			want := `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + c.want + `"}]},"id":"call"}`
			if isError {
				want = `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + c.want + `"}],"isError":true},"id":"call"}`
			}
			assert.Equal(t, want, got)
			t.Logf("%d bytes answered: %d allocated (%.1f times)", len(answer), allocated, float64(allocated)/float64(len(answer)))
			assert.Less(t, allocated, uint64(10*len(answer)), "allocated for the answer (and its sending)")
		})
	}
}
