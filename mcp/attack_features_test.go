package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// blocks returns one content block of each type.
type blocks struct{}

func (blocks) Blocks() *mcp.ToolResult {
	return &mcp.ToolResult{Content: []mcp.Content{
		mcp.TextContent{Text: "t"},
		mcp.AudioContent{Data: []byte{9}, MIMEType: "audio/wav"},
		mcp.ResourceLink{URI: "test://static-text", Name: "static-text", Title: "T", Description: "d"},
		&mcp.AudioContent{Data: []byte{9}, MIMEType: "audio/wav"},
		&mcp.ResourceLink{URI: "test://static-text", Name: "static-text", Title: "T", Description: "d"},
	}}
}

// A content block is sent as the session's revision has it: audio came in
// 2025-03-26, resource_link in 2025-06-18, and a revision's schema admits
// no other types (its clients refuse the whole result otherwise). A
// 2024-11-05 session gets audio as an embedded blob resource whose URI is
// the data: URI of the sound; a session before 2025-06-18 gets a
// resource link as a text block holding its URI. In tools/call and in
// prompts/get alike, blocks given by value or by pointer.
func TestAttackContentRevisions(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", blocks{}))
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	const (
		text  = `{"type":"text","text":"t"}`
		audio = `{"type":"audio","data":"CQ==","mimeType":"audio/wav"}`
		blob  = `{"type":"resource","resource":{"uri":"data:audio/wav;base64,CQ==","mimeType":"audio/wav","blob":"CQ=="}}`
		link  = `{"type":"resource_link","uri":"test://static-text","name":"static-text","title":"T","description":"d"}`
		asURI = `{"type":"text","text":"test://static-text"}`
	)
	for _, tc := range []struct{ version, audio, link, promptLink string }{
		{"2024-11-05", blob, asURI, asURI},
		{"2025-03-26", audio, asURI, asURI},
		{"2025-06-18", audio, link, `{"type":"resource_link","uri":"test://static-text","name":"static-text","title":"T"}`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + tc.version + `"}`
			wiretest.Serve(t, s.Handler(), fmt.Sprintf(`
		--> {"jsonrpc":"2.0","method":"tools/call","params":{"name":"blocks",%[1]s},"id":1}
		<-- {"jsonrpc":"2.0","result":{"content":[%[2]s,%[3]s,%[4]s,%[3]s,%[4]s]},"id":1}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"language":"go"},%[1]s},"id":2}
		<-- {"jsonrpc":"2.0","result":{"description":"code in go","messages":[{"role":"assistant","content":{"type":"text","text":"I write go"}},{"role":"user","content":%[5]s},{"role":"user","content":%[3]s}]},"id":2}`,
				meta, text, tc.audio, tc.link, tc.promptLink), nil)
		})
	}
}

// gatedOutput is an output whose writes wait until open is closed.
type gatedOutput struct {
	open chan struct{}
	wiretest.Buffer
}

func (g *gatedOutput) Write(p []byte) (int, error) {
	<-g.open
	return g.Buffer.Write(p)
}

// A legacy session that stops reading, while it subscribes, is told of an
// update and unsubscribes, again and again, is owed no update of a
// resource it unsubscribed from: what it is owed stays bounded by its
// subscriptions (MaxSubscriptions), not by the number of resources it
// ever subscribed to. Once it reads again it is told of the one resource
// it still subscribes to (and of the update already being written).
func TestAttackUnsubscribeWhileStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
		require.NoError(t, s.Register("", hostile{}))
		require.NoError(t, s.AddResources(fixtureResources()...))
		in, w := io.Pipe()
		out := &gatedOutput{open: make(chan struct{})}
		served := make(chan error, 1)
		go func() {
			served <- rpc.Serve(context.Background(), in, out, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
		}()
		wiretest.Send(t, w, legacyInit)
		wiretest.Send(t, w, initialized)
		synctest.Wait()
		// More than the output queues: every line after it waits for the
		// output to take it.
		wiretest.Send(t, w, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fill"},"id":"fill"}`)
		synctest.Wait()
		wiretest.Send(t, w, `{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://kept"},"id":"kept"}`)
		synctest.Wait()
		const n = 20
		for i := range n {
			uri := fmt.Sprintf("test://r%d", i)
			wiretest.Send(t, w, fmt.Sprintf(`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":%q},"id":%d}`, uri, 2*i))
			synctest.Wait()
			s.ResourceUpdated(uri)
			s.ResourceUpdated("test://kept")
			wiretest.Send(t, w, fmt.Sprintf(`{"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":%q},"id":%d}`, uri, 2*i+1))
			synctest.Wait()
		}
		close(out.open)
		synctest.Wait()
		lines := wiretest.Lines(t, out.String())
		require.NoError(t, w.Close())
		require.NoError(t, wiretest.Receive(t, served, "Serve to return"))
		told := map[string]int{}
		for _, l := range lines {
			if strings.Contains(l, `"notifications/resources/updated"`) {
				told[l]++
			}
		}
		// The first update is being written when the output stalls: r0's,
		// or kept's if r0's was unsubscribed from first.
		first := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://r0"}}`
		kept := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://kept"}}`
		assert.Equal(t, 2, told[first]+told[kept], "the update being written, and kept's owed")
		delete(told, first)
		delete(told, kept)
		assert.Empty(t, told, "no update of a resource unsubscribed from")
	})
}

// ExpandURI of a template that is not valid UTF-8 fails, as AddResources
// does, instead of panicking.
func TestAttackExpandInvalidUTF8(t *testing.T) {
	_, err := mcp.ExpandURI("x://\xb5{a}", nil)
	assert.EqualError(t, err, `mcp: resource template "x://\xb5{a}" is not valid UTF-8`)
}

// A URI is matched against a template's regexp only when it holds the
// template's literal text in order: that test refuses no URI the template
// matches (literals that overlap, are empty between variables, repeat).
// FuzzMayMatch holds the same for any literals.
func TestAttackTemplateLiterals(t *testing.T) {
	for _, tc := range []struct{ template, uri, want string }{
		{"a{x}a", "a", ""},
		{"a{x}a", "aa", "x="},
		{"a{x}a", "aba", "x=b"},
		{"{x}ab{y}ab", "abab", "x= y="},
		{"{x}ab{y}ab", "ab", ""},
		{"x://{a}.{b}", "x://1.2.3", "a=1.2 b=3"},
		{"p{+a}/s", "p/s", "a="},
		{"ab{x}ba", "aba", ""},
		{"ab{x}ba", "abba", "x="},
		{"x://{+a}/end", "x://a/b/end/end", "a=a/b/end"},
	} {
		s := mcp.New(nil)
		require.NoError(t, s.AddResources(mcp.Resource{Template: tc.template, Name: "t",
			Read: func(_ context.Context, _ string, vars map[string]string) ([]mcp.ResourceContents, error) {
				var b strings.Builder
				for _, k := range slices.Sorted(maps.Keys(vars)) {
					fmt.Fprintf(&b, " %s=%s", k, vars[k])
				}
				return []mcp.ResourceContents{{Text: b.String()[1:]}}, nil
			}}))
		want := fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32002,"message":"Resource not found","data":{"uri":%q}},"id":1}`, tc.uri)
		if tc.want != "" {
			want = fmt.Sprintf(`{"jsonrpc":"2.0","result":{"contents":[{"uri":%q,"text":%q}]},"id":1}`, tc.uri, tc.want)
		}
		wiretest.Serve(t, s.Handler(), fmt.Sprintf(`
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":%q,"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}},"id":1}
		<-- %s`, tc.uri, want), nil)
	}
}

// BenchmarkReadManyTemplates reads a URI of 8 KiB that none of 100
// templates, of one scheme, matches.
func BenchmarkReadManyTemplates(b *testing.B) {
	s := mcp.New(nil)
	for i := range 100 {
		require.NoError(b, s.AddResources(mcp.Resource{Template: fmt.Sprintf("x://{+a}/{+b}/{+c}/end%03d", i), Name: "t", Read: read("")}))
	}
	uri := "x://" + strings.Repeat("a/", 4050) + "/nomatch"
	req := `{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"` + uri + `",` + modernMeta + `},"id":1}`
	want := `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Resource not found","data":{"uri":"` + jsonx.Echo(uri) + `"}},"id":1}`
	wiretest.BenchRoundTrip(b, s.Handler(), req, want)
}

// Legacy sessions subscribe and unsubscribe, and end, while the server
// tells of updates and adds and removes resources, all at once: every
// request read is answered, every line is whole, nothing outlives the
// sessions (goleak), the race detector sees nothing.
func TestAttackSubscribeRaces(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.AddResources(fixtureResources()...))
	uris := []string{"test://a", "test://b", "test://c"}
	const sessions, rounds = 4, 50
	outs := make([]*wiretest.Buffer, sessions)
	served := make(chan error, sessions)
	var ins []*io.PipeWriter
	for i := range sessions {
		in, w := io.Pipe()
		outs[i] = &wiretest.Buffer{}
		ins = append(ins, w)
		go func() {
			served <- rpc.Serve(context.Background(), in, outs[i], s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
		}()
	}
	stop := make(chan struct{})
	updated := make(chan struct{})
	go func() {
		defer close(updated)
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			s.ResourceUpdated(uris[n%len(uris)])
			if n%10 == 0 {
				require.NoError(t, s.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("")}))
				s.RemoveResources("test://new")
			}
		}
	}()
	done := make(chan struct{}, sessions)
	for i, w := range ins {
		go func() {
			defer func() { done <- struct{}{} }()
			wiretest.Send(t, w, legacyInit)
			wiretest.WaitForLines(t, outs[i], 1) // the answer to initialize
			for r := range rounds {
				method := "resources/subscribe"
				if r%2 == 1 {
					method = "resources/unsubscribe"
				}
				wiretest.Send(t, w, fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"uri":%q},"id":%d}`, method, uris[(r/2+i)%len(uris)], r+1))
			}
			_ = w.Close()
		}()
	}
	wiretest.ReceiveN(t, done, sessions, "the sessions to send")
	wiretest.ReceiveN(t, served, sessions, "the sessions to end")
	close(stop)
	wiretest.Receive(t, updated, "the updates to stop")
	for _, out := range outs {
		answered := map[string]bool{}
		for _, l := range wiretest.Lines(t, out.String()) {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m), "a whole line: %s", l)
			if id, ok := m["id"]; ok && id != 0.0 {
				assert.Equal(t, map[string]any{}, m["result"], l)
				answered[fmt.Sprint(id)] = true
			}
		}
		assert.Len(t, answered, rounds, "every request answered")
	}
}

// A CompletionFunc that finds a million values sends MaxCompletions of
// them, the rest counted; one that waits for its context ends when the
// client cancels the request, which then gets no answer, and the next
// request is served.
func TestAttackCompletionCostAndCancel(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	entered, left := make(chan struct{}), make(chan error, 1)
	s.SetCompletion(func(ctx context.Context, req mcp.CompleteRequest) ([]string, error) {
		if req.Value == "block" {
			close(entered)
			<-ctx.Done()
			left <- ctx.Err()
			return nil, ctx.Err()
		}
		return make([]string, 1_000_000), nil
	})
	in, w := io.Pipe()
	out := &wiretest.Buffer{}
	served := make(chan error, 1)
	go func() {
		served <- rpc.Serve(context.Background(), in, out, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
	}()
	complete := func(value string, id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code"},"argument":{"name":"language","value":%q},%s},"id":%d}`, value, modernMeta, id)
	}
	wiretest.Send(t, w, complete("block", 1))
	wiretest.Receive(t, entered, "the completion to start")
	wiretest.Send(t, w, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,`+modernMeta+`}}`)
	assert.ErrorIs(t, wiretest.Receive(t, left, "the completion to end"), context.Canceled)
	wiretest.Send(t, w, complete("many", 2))
	wiretest.WaitForLines(t, out, 1)
	require.NoError(t, w.Close())
	require.NoError(t, wiretest.Receive(t, served, "Serve to return"))
	values := strings.Repeat(`"",`, mcp.MaxCompletions)
	assert.Equal(t, []string{`{"jsonrpc":"2.0","result":{"resultType":"complete","completion":{"values":[` + values[:len(values)-1] +
		`],"total":1000000,"hasMore":true},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":2}`},
		wiretest.Lines(t, out.String()))
}

// completion/complete's params are read as the protocol names them: a
// member given twice, one in other letters, or a context argument that is
// not a string, is -32602 naming it.
func TestAttackCompletionParams(t *testing.T) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	s.SetCompletion(func(_ context.Context, req mcp.CompleteRequest) ([]string, error) { return []string{req.Value}, nil })
	const ref = `"ref":{"type":"ref/prompt","name":"code"}`
	complete := func(params string, id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"completion/complete","params":{%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}},"id":%d}`, params, id)
	}
	refusal := func(field, rule, param, message string, id int) string {
		if param != "" {
			param = `,"param":"` + param + `"`
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":%q,"rule":%q%s,"message":%q}]},"id":%d}`, field, rule, param, message, id)
	}
	wiretest.Serve(t, s.Handler(), `
		--> `+complete(ref+`,"argument":{"name":"language","value":"g","value":"h"}`, 1)+`
		<-- `+refusal("argument.value", "duplicate", "", `member "value" given more than once`, 1)+`
		--> `+complete(`"REF":{"type":"ref/prompt","name":"code"},"argument":{"name":"language","value":"g"}`, 2)+`
		<-- `+refusal("ref", "required", "", "ref is required", 2)+`
		--> `+complete(ref+`,"argument":{"name":"language","value":"g"},"context":{"arguments":{"style":1}}`, 3)+`
		<-- `+refusal(`context.arguments["style"]`, "type", "string", "expected a string, got a number", 3)+`
		--> `+complete(ref+`,"argument":{"name":"language","value":"g"},"future":{"x":1}`, 4)+`
		<-- {"jsonrpc":"2.0","result":{"completion":{"values":["g"],"total":1,"hasMore":false}},"id":4}`, nil)
}

// A modern listen whose client stops reading, while lists change and the
// resources it names are updated a hundred times each, is owed at most one
// notification per list and per resource beside those being written (what
// it was owed when the output stalled), and adds no goroutine.
func TestAttackListenStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := stalledFeatures(t)
		c.Send(t, `{"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://a","test://b","test://c"]}},"id":"l"}`)
		synctest.Wait()
		c.Send(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fill",`+modernMeta+`},"id":"fill"}`)
		synctest.Wait()
		before := runtime.NumGoroutine()
		storm(t, s, true)
		synctest.Wait()
		assert.LessOrEqual(t, runtime.NumGoroutine(), before, "no goroutine per change")
		lines, err := c.Drain(t)
		require.NoError(t, err)
		told := map[string]int{}
		for _, l := range lines {
			if strings.Contains(l, `"method":"notifications/`) && !strings.Contains(l, "acknowledged") && !strings.Contains(l, "cancelled") {
				told[l]++
			}
		}
		total := 0
		for l, n := range told {
			assert.LessOrEqual(t, n, 2, "at most the notification being written and the one owed: %s", l)
			total += n
		}
		assert.LessOrEqual(t, total, 12, "three lists and three resources being written, and owed again")
		assert.NotContains(t, strings.Join(lines, "\n"), `"uri":"test://d"`)
	})
}

// storm changes the resources and the prompts of s (and its tools, if
// tools) a hundred times, and updates test://a to test://d as often.
func storm(t *testing.T, s *mcp.Server, tools bool) {
	for range 100 {
		require.NoError(t, s.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("")}))
		require.Equal(t, 1, s.RemoveResources("test://new"))
		require.NoError(t, s.RegisterPrompts("", more{}))
		require.Equal(t, 1, s.RemovePrompts("another"))
		if tools {
			require.NoError(t, s.Register("", extra{}))
			require.Equal(t, 1, s.Remove("extra"))
		}
		for _, uri := range []string{"test://a", "test://b", "test://c", "test://d"} {
			s.ResourceUpdated(uri)
		}
	}
}

// stalledFeatures returns a Server of the hostile tools and the fixture
// resources and prompts, and a client of it that does not read yet.
func stalledFeatures(t *testing.T) (*mcp.Server, *wiretest.Stalled) {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", hostile{}))
	require.NoError(t, s.AddResources(fixtureResources()...))
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	return s, wiretest.NewStalled(context.Background(), s.Handler(), nil)
}

// A legacy session whose client goes away while a notification is being
// written, and more are owed, ends: Serve returns, the goroutine telling
// it ends (synctest and goleak see none left), and the next change forgets
// it.
func TestAttackSessionEndsMidNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
		require.NoError(t, s.AddResources(fixtureResources()...))
		in, w := io.Pipe()
		out, ow := io.Pipe()
		served := make(chan error, 1)
		go func() {
			served <- rpc.Serve(context.Background(), in, ow, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
		}()
		lines := bufio.NewReader(out)
		wiretest.Send(t, w, legacyInit)
		_, err := lines.ReadString('\n')
		require.NoError(t, err)
		for i, uri := range []string{"test://a", "test://b"} {
			wiretest.Send(t, w, fmt.Sprintf(`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":%q},"id":%d}`, uri, i+1))
			_, err := lines.ReadString('\n')
			require.NoError(t, err)
		}
		s.ResourceUpdated("test://a")
		s.ResourceUpdated("test://b")
		require.NoError(t, s.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("")}))
		synctest.Wait() // the first update is being written, the others owed
		require.NoError(t, out.CloseWithError(errors.New("the client went away")))
		synctest.Wait()
		require.NoError(t, w.Close())
		wiretest.Receive(t, served, "Serve to return")
		s.ResourceUpdated("test://a")
		assert.Equal(t, 0, mcp.Sessions(s))
	})
}

// prompts/get as a hostile client sends it: an argument given twice, of
// another type than string, null for a required one, one the prompt does
// not have, arguments null, any argument to a prompt that takes none, and
// a value of 1 MiB (served: the connection bounds a message's size).
func TestAttackPromptArguments(t *testing.T) {
	s := newFeatures(t)
	get := func(args string, id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":%s,%s},"id":%d}`, args, modernMeta, id)
	}
	invalid := func(data string, id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[%s]},"id":%d}`, data, id)
	}
	long := strings.Repeat("x", 1<<20)
	wiretest.Serve(t, s.Handler(), `
		--> `+get(`{"language":"go","language":"c"}`, 1)+`
		<-- `+invalid(`{"field":"language","rule":"duplicate","message":"member \"language\" given more than once"}`, 1)+`
		--> `+get(`{"language":["go"]}`, 2)+`
		<-- `+invalid(`{"field":"language","rule":"type","param":"string","message":"expected a string, got an array"}`, 2)+`
		--> `+get(`{"language":null}`, 3)+`
		<-- `+invalid(`{"field":"language","rule":"type","param":"string","message":"expected a string, got null"}`, 3)+`
		--> `+get(`{"language":"go","zzz":"1"}`, 4)+`
		<-- `+invalid(`{"field":"zzz","rule":"unknown","message":"unknown field \"zzz\""}`, 4)+`
		--> `+get(`null`, 5)+`
		<-- `+invalid(`{"field":"arguments","rule":"type","param":"object","message":"arguments must be an object"}`, 5)+`
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"simple","arguments":{"x":"1"},`+modernMeta+`},"id":6}
		<-- `+invalid(`{"field":"","rule":"count","param":"0","message":"the method takes no params"}`, 6)+`
		--> `+get(`{"language":"`+long+`"}`, 7)+`
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","description":"code in `+long+`","messages":[{"role":"assistant","content":{"type":"text","text":"I write `+long+`"}},{"role":"user","content":{"type":"resource_link","uri":"test://static-text","name":"static-text","title":"T"}},{"role":"user","content":{"type":"audio","data":"CQ==","mimeType":"audio/wav"}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":7}`, nil)
}
