package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
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
// members: an answer of 100,000 members (1 MiB), or of a multi-choice of
// 300,000 items, costs 5 to 8 times its length in allocations, its
// sending included, where it cost 20 to 67 times (a 50 MB one, 17 s of
// CPU and 620 MiB of heap) when each member and item was decoded into
// maps and slices, twice. Its verdicts are the same.
func TestAttackElicitAnswerCost(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	require.NoError(t, s.Register("", formAsker{}))
	a := newAsker(t, s)
	for _, c := range []struct{ name, content, want string }{
		{"many members", `{"name":"x",` + members(100_000) + `}`, "accept, 1088902 bytes"},
		{"many items", `{"tags":["a"` + strings.Repeat(`,"b"`, 300_000) + `]}`, "accept, 1200014 bytes"},
		{"many items, one not a choice", `{"tags":["a"` + strings.Repeat(`,"b"`, 300_000) + `,"c"]}`, `mcp: the answer does not fit the form: field \"tags\" must be an array of its values`},
		{"many items, one not a string", `{"tags":["a"` + strings.Repeat(`,"b"`, 300_000) + `,1]}`, `mcp: the client's answer to elicitation/create is not the result of one`},
		{"many members, one folded", `{"name":"x",` + members(100_000) + `,"NAME":"y"}`, `mcp: the answer does not fit the form: member \"NAME\" is not field \"name\" but would be decoded as it`},
		{"many members, one nested", `{"name":"x",` + members(100_000) + `,"k":{}}`, `mcp: the client's answer to elicitation/create is not the result of one`},
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

// A 2026-07-28 retry's inputResponses is checked (an object of objects)
// in a scan: 100,000 answers to questions never asked (1.2 MB) cost 4.5
// times their length in allocations, where they cost 18 times, decoded
// into a map to be checked; the tool gets its own answer.
func TestAttackInputResponsesCost(t *testing.T) {
	p := wiretest.NewPipe(newAskers(t).Handler(), nil)
	defer p.Close(t)
	responses := `{` + strings.ReplaceAll(members(100_000), ":1", ":{}") + `,"sampling-2a5d62d36af8ea92":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m2"}}`
	req := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"},"inputResponses":` + responses + `,"_meta":{` + askMeta + `}}}`
	var got []byte
	allocated := wiretest.Allocated(func() {
		require.NoError(t, p.Write([]byte(req+"\n")))
		var err error
		got, err = p.ReadLine()
		require.NoError(t, err)
	})
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"m2 says hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ask","version":"1"}}},"id":2}`+"\n", string(got))
	t.Logf("%d bytes: %d allocated (%.1f times)", len(req), allocated, float64(allocated)/float64(len(req)))
	assert.Less(t, allocated, uint64(6*len(req)), "allocated for the retry")
}

// completion/complete's context holds at most 1,000 arguments: more is
// -32602 naming the bound, decoded no further than one past it, so that
// 100,000 of them (1.2 MB) cost 4.7 times their length in allocations,
// where they cost 17 times (a map of them all; a 64 MiB request, a
// gigabyte); 1,000 reach the CompletionFunc.
func TestAttackCompletionContextBounded(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	s.SetCompletion(func(_ context.Context, req mcp.CompleteRequest) ([]string, error) {
		return []string{fmt.Sprint(len(req.Context))}, nil
	})
	p := wiretest.NewPipe(s.Handler(), nil)
	defer p.Close(t)
	complete := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code"},"argument":{"name":"language","value":"g"},"context":{"arguments":{` +
			strings.ReplaceAll(members(n), ":1", `:""`) + `}},` + modernMeta + `}}` + "\n"
	}
	answered := func(values string) string {
		return `{"jsonrpc":"2.0","result":{"resultType":"complete","completion":{"values":[` + values + `],"total":1,"hasMore":false},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":1}` + "\n"
	}
	refused := `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"context.arguments","rule":"max","param":"1000","message":"context.arguments must hold at most 1000 arguments"}]},"id":1}` + "\n"
	for _, c := range []struct {
		n    int
		want string
	}{{1000, answered(`"1000"`)}, {1001, refused}, {100_000, refused}} {
		req := complete(c.n)
		var got []byte
		allocated := wiretest.Allocated(func() {
			require.NoError(t, p.Write([]byte(req)))
			var err error
			got, err = p.ReadLine()
			require.NoError(t, err)
		})
		assert.Equal(t, c.want, string(got), "%d arguments", c.n)
		t.Logf("%d arguments, %d bytes: %d allocated (%.1f times)", c.n, len(req), allocated, float64(allocated)/float64(len(req)))
		if c.n > 1001 {
			assert.Less(t, allocated, uint64(6*len(req)), "allocated for the request")
		}
	}
}

// In 2025-03-26 a client may answer in an array of responses, which is a
// batch: one of more than MaxBatch (1,000) entries is refused as any
// batch is (-32600), none of its responses delivered, where each of them
// was decoded and delivered (200,000 in 7 MB allocated 16 times that,
// now 2.3; 1.7 million in 60 MiB, 1 GB and 3 s of CPU); one of 1,000 is
// delivered.
func TestAttackAskBatchedAnswersBounded(t *testing.T) {
	h, url, sid := askHTTP(t, 0)
	s := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10},"id":1}`+"\n\n", s.event(t))
	right := `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"batched"},"model":"m"}}`
	batch := func(n int) string {
		return "[" + right + strings.Repeat(`,{"jsonrpc":"2.0","id":7,"result":{}}`, n-1) + "]"
	}
	hd := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-03-26"}
	tooLong := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"batch longer than the limit of 1000 entries"}},"id":null}` + "\n"
	check(t, url, exchange{body: batch(1001), header: hd, status: http.StatusOK, want: tooLong})
	huge := batch(200_000)
	allocated := wiretest.Allocated(func() {
		check(t, url, exchange{body: huge, header: hd, status: http.StatusOK, want: tooLong})
	})
	t.Logf("%d bytes: %d allocated (%.1f times)", len(huge), allocated, float64(allocated)/float64(len(huge)))
	assert.Less(t, allocated, uint64(4*len(huge)), "allocated for the batch")
	assert.Equal(t, 1, mcp.Waiting(h), "nothing delivered")
	check(t, url, exchange{body: batch(1000), header: hd, status: http.StatusAccepted})
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m says batched"}]},"id":2}`+"\n\n", s.event(t))
	assert.Equal(t, 0, mcp.Waiting(h))
}

// logging/setLevel as a hostile client sends it: before initialize it is
// refused as any request naming no revision; a level not the protocol's
// (in other letters, a number, null, 1 MiB long) is -32602, the level
// never echoed; given twice it is the last, as encoding/json reads it; as
// a notification it changes nothing; named in a 2026-07-28 request it is
// not a method (-32601). Flapped 2,000 times, the session keeps one
// level, the last, and logs nothing at Info: each answer's record is at
// Debug, and a refused one's at Warn, one per request, short.
func TestAttackSetLevel(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", logKit{}))
	set := func(level string, id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":%s},"id":%d}`, level, id)
	}
	refused := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"level","rule":"oneof","param":"debug info notice warning error critical alert emergency","message":"level must be one of the protocol's"}]},"id":%d}`, id)
	}
	var tr strings.Builder
	tr.WriteString(`
		--> ` + set(`"debug"`, 1) + `
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/protocolVersion\"]","rule":"required","message":"the request names no protocol version, and no initialize came before it"}]},"id":1}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":2}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":2}
	`)
	for i, level := range []string{`"DEBUG"`, `"verbose"`, `1`, `null`, `["debug"]`, `"` + strings.Repeat("d", 1<<20) + `"`, `"debug\u0000"`} {
		tr.WriteString("--> " + set(level, 10+i) + "\n<-- " + refused(10+i) + "\n")
	}
	levels := []string{"debug", "emergency"}
	for i := range 2000 {
		tr.WriteString("--> " + set(`"`+levels[i%2]+`"`, 100+i) + "\n" + fmt.Sprintf(`<-- {"jsonrpc":"2.0","result":{},"id":%d}`, 100+i) + "\n")
	}
	tr.WriteString(`
		--> {"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"debug","level":"warning"},"id":3}
		<-- {"jsonrpc":"2.0","result":{},"id":3}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"log"},"id":4}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"careful","tool":"log","g":{"why":"<because>"}}}}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"critical","data":{"msg":"very bad","tool":"log"}}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"logged"}]},"id":4}
		--> {"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"emergency"}}
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"log"},"id":5}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"msg":"careful","tool":"log","g":{"why":"<because>"}}}}
		<-- {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"critical","data":{"msg":"very bad","tool":"log"}}}
		<-- {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"logged"}]},"id":5}
		--> {"jsonrpc":"2.0","method":"logging/setLevel","params":{"level":"debug",` + modernMeta + `},"id":6}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":6}
	`)
	var logs wiretest.Logs
	wiretest.Serve(t, s.Handler(), tr.String(), &rpc.Options{Sequential: true, Logger: logs.Logger()})
	warned := 0
	for _, r := range logs.Records(t) {
		if r["level"] != "DEBUG" && r["tool"] == nil { // not the tool's own records
			warned++
			require.Equal(t, "WARN", r["level"], "%.200v", r)
			require.Less(t, len(fmt.Sprint(r)), 1024, "a record repeats no long level")
		}
	}
	assert.Equal(t, 1+7+1, warned, "a record at Warn per refused request")
}

// completion/complete as a hostile client sends it: a reference to no
// prompt or template, or an argument not of it, 1 MiB long, is -32602
// echoing at most codec.MaxEcho bytes of it; a value of 2 MiB reaches the
// CompletionFunc whole, costing a few times its length. 1,000 calls to
// unknown references keep nothing (the live heap is what it was) and log
// a short record each, at Warn, as any refused call.
func TestAttackCompletionHostile(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	s.SetCompletion(func(_ context.Context, req mcp.CompleteRequest) ([]string, error) {
		return []string{fmt.Sprint(len(req.Value))}, nil
	})
	var records recordCounter // counted, not held: the heap is measured
	p := wiretest.NewPipe(s.Handler(), &rpc.Options{Logger: slog.New(slog.NewJSONHandler(&records, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	defer p.Close(t)
	complete := func(ref, argument string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":` + ref + `,"argument":` + argument + `,` + modernMeta + `}}` + "\n"
	}
	long := strings.Repeat("n", 1<<20)
	cut := long[:256] + "…(1048576 bytes)"
	refused := func(msg string) string {
		return `{"jsonrpc":"2.0","error":{"code":-32602,"message":` + quote(msg) + `},"id":1}` + "\n"
	}
	lang := `{"name":"language","value":"g"}`
	for _, c := range []struct{ name, req, want string }{
		{"unknown prompt", complete(`{"type":"ref/prompt","name":"`+long+`"}`, lang), refused("Unknown prompt: " + cut)},
		{"unknown template", complete(`{"type":"ref/resource","uri":"`+long+`"}`, lang), refused("Unknown resource template: " + cut)},
		{"unknown argument", complete(`{"type":"ref/prompt","name":"code"}`, `{"name":"`+long+`","value":"g"}`),
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"argument.name","rule":"oneof","param":"language style","message":"argument ` + cut + ` is not one of the reference's"}]},"id":1}` + "\n"},
		{"unknown ref type", complete(`{"type":"ref/`+long+`"}`, lang),
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"ref","rule":"oneof","param":"ref/prompt ref/resource","message":"ref must be {\"type\":\"ref/prompt\",\"name\":...} or {\"type\":\"ref/resource\",\"uri\":...}"}]},"id":1}` + "\n"},
		{"2 MiB value", complete(`{"type":"ref/prompt","name":"code"}`, `{"name":"language","value":"`+strings.Repeat("v", 2<<20)+`"}`),
			`{"jsonrpc":"2.0","result":{"resultType":"complete","completion":{"values":["2097152"],"total":1,"hasMore":false},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":1}` + "\n"},
	} {
		var got []byte
		allocated := wiretest.Allocated(func() {
			require.NoError(t, p.Write([]byte(c.req)))
			var err error
			got, err = p.ReadLine()
			require.NoError(t, err)
		})
		assert.Equal(t, c.want, string(got), c.name)
		t.Logf("%s, %d bytes: %d allocated (%.1f times)", c.name, len(c.req), allocated, float64(allocated)/float64(len(c.req)))
		assert.Less(t, allocated, uint64(5*len(c.req)+4<<20), "allocated for %s", c.name)
	}
	records = recordCounter{}
	before := heapAfterGC()
	req := []byte(complete(`{"type":"ref/prompt","name":"nope"}`, lang))
	for range 1000 {
		require.NoError(t, p.Write(req))
		got, err := p.ReadLine()
		require.NoError(t, err)
		require.Equal(t, refused("Unknown prompt: nope"), string(got))
	}
	grown := int64(heapAfterGC()) - int64(before)
	assert.Less(t, grown, int64(512<<10), "live heap grown by %d bytes", grown)
	assert.Equal(t, [2]int{1000, 1000}, [2]int{records.n, records.warn}, "records, at Warn")
	assert.Less(t, records.longest, 512)
}

// recordCounter counts the records a slog handler writes (one Write
// each), those at Warn, and the longest, holding none.
type recordCounter struct {
	mu               sync.Mutex
	n, warn, longest int
}

func (c *recordCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if strings.Contains(string(p), `"level":"WARN"`) {
		c.warn++
	}
	c.longest = max(c.longest, len(p))
	return len(p), nil
}

// heapAfterGC is the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// sampleLen asks its client to sample, and says how long the content it
// got is, or the error.
type sampleLen struct{}

func (sampleLen) Sample(ctx context.Context) (string, error) {
	res, err := mcp.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1,
		Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent{Text: "?"}}}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %d bytes", res.Model, len(res.Content)), nil
}

// A client's answer to a sampling over stdio, as a hostile client gives
// it: 2 MiB of text reaches the tool, costing a few times its length (its
// copies: read, the result, the content); an error whose message is 2 MiB
// fails the tool with the message cut at MaxErrorText, one whose data is
// 2 MiB with its message alone; an answer
// to an id never asked, or a second one, is dropped, nothing written, and
// the tool's result is the first answer's.
func TestAttackSamplingAnswers(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	require.NoError(t, s.Register("", sampleLen{}))
	a := newAsker(t, s)
	huge := strings.Repeat("e", 2<<20)
	isError := func(text string) string {
		return `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"` + text + `"}],"isError":true},"id":"call"}`
	}
	for _, c := range []struct{ name, answer, want string }{
		{"2 MiB of text", `"result":{"role":"assistant","content":{"type":"text","text":"` + huge + `"},"model":"m"}`,
			`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m: 2097177 bytes"}]},"id":"call"}`},
		{"a 2 MiB message", `"error":{"code":1,"message":"` + huge + `"}`, isError(huge[:mcp.MaxErrorText] + "…(2097152 bytes)")},
		{"2 MiB of data", `"error":{"code":1,"message":"no","data":"` + huge + `"}`, isError("no")},
	} {
		answer := `{"jsonrpc":"2.0","id":` + a.ask(t, "sample") + `,` + c.answer + `}`
		var got string
		allocated := wiretest.Allocated(func() {
			a.send(t, answer)
			got = a.read(t)
		})
		assert.Equal(t, c.want, got, c.name)
		t.Logf("%s, %d bytes: %d allocated (%.1f times)", c.name, len(answer), allocated, float64(allocated)/float64(len(answer)))
		assert.Less(t, allocated, uint64(10*len(answer)), "allocated for %s (and its sending)", c.name)
	}
	id := a.ask(t, "sample")
	a.send(t, `{"jsonrpc":"2.0","id":999,"result":{"role":"assistant","content":{"type":"text","text":"never asked"},"model":"x"}}`)
	a.send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"role":"assistant","content":{"type":"text","text":"first"},"model":"first"}}`)
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"first: 30 bytes"}]},"id":"call"}`, a.read(t))
	a.send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"role":"assistant","content":{"type":"text","text":"again"},"model":"again"}}`)
	a.send(t, `{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	assert.Equal(t, `{"jsonrpc":"2.0","result":{},"id":"sync"}`, a.read(t), "nothing written for the answers dropped")
}

// Over Streamable HTTP (a legacy session), 2 MiB of sampled text POSTed
// reaches the tool as over stdio, costing a few times its length.
func TestAttackSamplingAnswerOverHTTP(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "ask", Version: "1"})
	require.NoError(t, s.Register("", sampleLen{}))
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour, RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close()
	}()
	resp := check(t, srv.URL, exchange{body: askInit, status: http.StatusOK,
		want: `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}` + "\n"})
	sid := resp.Header.Get("Mcp-Session-Id")
	st := post(t, srv.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample"}}`)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"?"}}],"maxTokens":1},"id":1}`+"\n\n", st.event(t))
	body := `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"},"model":"m"}}`
	var got string
	allocated := wiretest.Allocated(func() {
		answer(t, srv.URL, sid, body)
		got = st.event(t)
	})
	assert.Equal(t, `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"m: 2097177 bytes"}]},"id":2}`+"\n\n", got)
	t.Logf("%d bytes: %d allocated (%.1f times)", len(body), allocated, float64(allocated)/float64(len(body)))
	assert.Less(t, allocated, uint64(10*len(body)), "allocated for the answer")
}

// Over Streamable HTTP, in a legacy session and in 2026-07-28 alike,
// cancelling what is not under way (ids never used, in both styles, a
// 1 MiB id, 600 of them) is accepted (202) and costs nothing else: no
// record, even at Debug, nothing kept.
func TestAttackCancelUnknownOverHTTP(t *testing.T) {
	var logs wiretest.Logs
	h := newAskers(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{KeepAlive: time.Hour, RPC: rpc.Options{Logger: logs.Logger()}})
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		_ = h.Close()
	}()
	resp := check(t, srv.URL, exchange{body: askInit, status: http.StatusOK,
		want: `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"ask","version":"1"}},"id":1}` + "\n"})
	legacy := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "notifications/cancelled"}
	long := `"` + strings.Repeat("x", 1<<20) + `"`
	cancel := func(n int) {
		for i := range n {
			check(t, srv.URL, exchange{body: fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, 1000+i), header: legacy, status: http.StatusAccepted})
			check(t, srv.URL, exchange{body: fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"u%d"}}`, i), header: legacy, status: http.StatusAccepted})
			check(t, srv.URL, exchange{body: fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,%s}}`, i, modernMeta), header: modern, status: http.StatusAccepted})
		}
		check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + long + `}}`, header: legacy, status: http.StatusAccepted})
		check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + long + `,` + modernMeta + `}}`, header: modern, status: http.StatusAccepted})
		// One more, small: the connection that served the long ones is
		// done with them (it may still hold a body it answered 202).
		check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`, header: legacy, status: http.StatusAccepted})
	}
	cancel(1) // the connections and buffers a round makes, before the count
	logs = wiretest.Logs{}
	before := heapAfterGC()
	cancel(200)
	grown := int64(heapAfterGC()) - int64(before)
	assert.Empty(t, logs.Records(t))
	assert.Less(t, grown, int64(1<<20), "live heap grown by %d bytes", grown)
}
