package mcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// mirrored is a tool set whose arguments are mirrored in Mcp-Param
// headers (x-mcp-header, SEP-2243).
type mirrored struct{}

type zone struct {
	Zone string `json:"zone,omitempty" mcp:"header=Zone"`
}

type mirroredArgs struct {
	Region string `json:"region" validate:"required" mcp:"header=Region"`
	Count  *int   `json:"count,omitempty" mcp:"header=Count"`
	Flag   *bool  `json:"flag,omitempty" mcp:"header=Flag"`
	Level  int    `json:"level,omitempty"`
}

func (mirrored) Route(p mirroredArgs) string {
	return fmt.Sprintf("%s/%d", p.Region, p.Level)
}

// placeArgs mirror an argument under another: the object holding it is
// required, its type "object" (a nullable one would be anyOf, which no
// chain of properties crosses).
type placeArgs struct {
	Target struct {
		zone
	} `json:"target" validate:"required"`
}

func (mirrored) Place(p placeArgs) string { return p.Target.Zone }

// newMirrored serves mirrored over Streamable HTTP on a test server.
func newMirrored(t *testing.T) *httptest.Server {
	t.Helper()
	s := mcp.New(&mcp.Options{Name: "steps", Version: "1.0.0"})
	require.NoError(t, s.Register("", mirrored{}))
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	return srv
}

// tools/list advertises each mirrored argument's x-mcp-header, in both
// eras (a legacy client ignores it).
func TestParamHeaderListed(t *testing.T) {
	srv := newMirrored(t)
	check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`,
		header: modernHeaders("tools/list", ""), status: 200,
		want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","tools":[{"name":"place","inputSchema":{"type":"object","properties":{"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}},"additionalProperties":false,` +
			`"not":{"type":"object","properties":{"zone":{"const":""}},"additionalProperties":false}}},"required":["target"],"additionalProperties":false}},` +
			`{"name":"route","inputSchema":{"type":"object","properties":{` +
			`"region":{"type":"string","minLength":1,"x-mcp-header":"Region"},` +
			`"count":{"type":["integer","null"],"x-mcp-header":"Count"},` +
			`"flag":{"type":["boolean","null"],"x-mcp-header":"Flag"},` +
			`"level":{"type":"integer"}},` +
			`"required":["region"],"additionalProperties":false}}],` +
			`"ttlMs":0,"cacheScope":"public",` +
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":1}`)})
}

// The Mcp-Param headers of a stateless tools/call, on the wire: each
// mirrored argument present needs its header, equal to it once decoded
// (400, -32020 otherwise, the tool not called); an argument absent or
// null has none; a header the tool does not mirror is not looked at.
func TestParamHeaderChecked(t *testing.T) {
	srv := newMirrored(t)
	tool := "route"
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + modernMeta + `}}`
	}
	headers := func(kv ...string) map[string]string {
		h := modernHeaders("tools/call", "route")
		if len(kv)%2 == 1 { // another tool
			h["Mcp-Name"], kv = kv[0], kv[1:]
		}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = kv[i+1]
		}
		return h
	}
	served := func(text string) string {
		return streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":` + quote(text) + `}],` +
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"steps","version":"1.0.0"}}},"id":7}`)
	}
	refused := func(msg string) string { return refusal(-32020, "Header mismatch: "+msg, "", "7") }
	for _, c := range []struct {
		name   string
		args   string
		header map[string]string
		status int
		want   string
	}{
		{"match", `{"region":"us-west1"}`, headers("Mcp-Param-Region", "us-west1"), 200, served("us-west1/0")},
		{"match, name in lower case", `{"region":"us-west1"}`, headers("mcp-param-region", "us-west1"), 200, served("us-west1/0")},
		{"match, Base64", `{"region":"Hello, 世界"}`, headers("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="), 200, served("Hello, 世界/0")},
		{"match, the sentinel Base64-encoded", `{"region":"=?base64?literal?="}`, headers("Mcp-Param-Region", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="), 200, served("=?base64?literal?=/0")},
		{"match, no suffix: literal", `{"region":"=?base64?SGVsbG8="}`, headers("Mcp-Param-Region", "=?base64?SGVsbG8="), 200, served("=?base64?SGVsbG8=/0")},
		{"match, escaped in the body", `{"region":"\u0075s"}`, headers("Mcp-Param-Region", "us"), 200, served("us/0")},
		{"match, every kind", `{"region":"r","count":42,"flag":false,"level":1}`,
			headers("Mcp-Param-Region", "r", "Mcp-Param-Count", "42", "Mcp-Param-Flag", "false"), 200, served("r/1")},
		{"match, nested", `{"target":{"zone":"b"}}`, headers("place", "Mcp-Param-Zone", "b"), 200, served("b")},
		{"match, integer compared as a number", `{"region":"r","count":42}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Count", "42.0"), 200, served("r/0")},
		{"null: no header", `{"region":"r","count":null,"flag":null}`, headers("Mcp-Param-Region", "r"), 200, served("r/0")},
		{"not mirrored: not looked at", `{"region":"r","level":3}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Level", "4", "Mcp-Param-Other", "=?base64?!?="), 200, served("r/3")},
		{"not this tool's: not looked at", `{"target":{"zone":"b"}}`, headers("place", "Mcp-Param-Zone", "b", "Mcp-Param-Region", "r"), 200, served("b")},

		{"mismatch", `{"region":"us-west1"}`, headers("Mcp-Param-Region", "eu-west1"), 400,
			refused(`Mcp-Param-Region header value "eu-west1" does not match body value arguments.region`)},
		{"mismatch, value case", `{"region":"us-west1"}`, headers("Mcp-Param-Region", "US-WEST1"), 400,
			refused(`Mcp-Param-Region header value "US-WEST1" does not match body value arguments.region`)},
		{"mismatch, Base64", `{"region":"Hello"}`, headers("Mcp-Param-Region", "=?base64?SGVsbG8h?="), 400,
			refused(`Mcp-Param-Region header value "Hello!" does not match body value arguments.region`)},
		{"mismatch, Base64 not decoded when the body holds it", `{"region":"=?base64?SGVsbG8=?="}`, headers("Mcp-Param-Region", "=?base64?SGVsbG8=?="), 400,
			refused(`Mcp-Param-Region header value "Hello" does not match body value arguments.region`)},
		{"mismatch, integer", `{"region":"r","count":42}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Count", "43"), 400,
			refused(`Mcp-Param-Count header value "43" does not match body value arguments.count`)},
		{"mismatch, integer not a number", `{"region":"r","count":42}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Count", "0x2a"), 400,
			refused(`Mcp-Param-Count header value "0x2a" does not match body value arguments.count`)},
		{"mismatch, integer past 2^53-1", `{"region":"r","count":9007199254740993}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Count", "9007199254740993"), 400,
			refused(`Mcp-Param-Count header value "9007199254740993" does not match body value arguments.count`)},
		{"mismatch, boolean", `{"region":"r","flag":true}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Flag", "True"), 400,
			refused(`Mcp-Param-Flag header value "True" does not match body value arguments.flag`)},
		{"mismatch, nested", `{"target":{"zone":"a"}}`, headers("place", "Mcp-Param-Zone", "b"), 400,
			refused(`Mcp-Param-Zone header value "b" does not match body value arguments.target.zone`)},
		{"missing", `{"region":"us-west1"}`, headers(), 400,
			refused(`the Mcp-Param-Region header is required: arguments.region is present`)},
		{"missing, nested", `{"target":{"zone":"a"}}`, headers("place"), 400,
			refused(`the Mcp-Param-Zone header is required: arguments.target.zone is present`)},
		{"for an argument absent", `{"region":"r"}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Count", "1"), 400,
			refused(`Mcp-Param-Count header given for arguments.count, which is absent or null`)},
		{"for an argument null", `{"region":"r","flag":null}`, headers("Mcp-Param-Region", "r", "Mcp-Param-Flag", "true"), 400,
			refused(`Mcp-Param-Flag header given for arguments.flag, which is absent or null`)},
		{"twice", `{"region":"r"}`, headers("Mcp-Param-Region", "r\x00r"), 400,
			refused(`one Mcp-Param-Region header at most`)},
		{"bad Base64 padding", `{"region":"Hello"}`, headers("Mcp-Param-Region", "=?base64?SGVsbG8?="), 400,
			refused(`the Mcp-Param-Region header value is not a valid header value`)},
		{"bad Base64 characters", `{"region":"Hello"}`, headers("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), 400,
			refused(`the Mcp-Param-Region header value is not a valid header value`)},
		{"not ASCII, not encoded", `{"region":"Hello, 世界"}`, headers("Mcp-Param-Region", "Hello, 世界"), 400,
			refused(`the Mcp-Param-Region header value is not a valid header value`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool = c.header["Mcp-Name"]
			check(t, srv.URL, exchange{body: call(c.args), header: c.header, status: c.status, want: c.want})
		})
	}
}

// A legacy session's tools/call carries no Mcp-Param headers (they are
// 2026-07-28's): none is required, none is looked at.
func TestParamHeaderLegacy(t *testing.T) {
	srv := newMirrored(t)
	sid := initialize(t, srv.URL)
	check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"route","arguments":{"region":"r"}}}`,
		header: map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25", "Mcp-Param-Region": "other"}, status: 200,
		want: answered(1, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"r/0"}]},"id":2}`)})
}

// Annotations the protocol does not allow fail registration (2026-07-28,
// Schema Extension), and so does an mcp tag that is not header=Name.
func TestParamHeaderRefused(t *testing.T) {
	for _, c := range []struct {
		value any
		want  string
	}{
		{badToken{}, `mcp: tool bad: x-mcp-header "Bad Name" of s is not an HTTP field-name token`},
		{badNumber{}, `mcp: tool bad: x-mcp-header "N" of n: the property's type is [number], and only a string, an integer or a boolean may be mirrored in a header`},
		{badObject{}, `mcp: tool bad: x-mcp-header "O" of o: the property's type is [object], and only a string, an integer or a boolean may be mirrored in a header`},
		{badTwice{}, `mcp: tool bad: x-mcp-header "a" of b is used twice (regardless of case)`},
		{badItems{}, `mcp: tool bad: x-mcp-header "Zone" at l.zone: only a property reached from the root by properties alone may be mirrored in a header`},
		{badTag{}, `mcp tag "Header=X": want header=Name`},
	} {
		err := mcp.New(nil).Register("", c.value)
		require.Error(t, err, "%T", c.value)
		assert.Contains(t, err.Error(), c.want)
	}
}

type badToken struct{}

func (badToken) Bad(struct {
	S string `json:"s" mcp:"header=Bad Name"`
}) {
}

type badNumber struct{}

func (badNumber) Bad(struct {
	N float64 `json:"n" mcp:"header=N"`
}) {
}

type badObject struct{}

func (badObject) Bad(struct {
	O struct{} `json:"o" mcp:"header=O"`
}) {
}

type badTwice struct{}

func (badTwice) Bad(struct {
	A string `json:"a" mcp:"header=A"`
	B string `json:"b" mcp:"header=a"`
}) {
}

type badItems struct{}

func (badItems) Bad(struct {
	L []zone `json:"l"`
}) {
}

type badTag struct{}

func (badTag) Bad(struct {
	S string `json:"s" mcp:"Header=X"`
}) {
}

// The cost of a stateless tools/call whose tool mirrors an argument in a
// header, its check included (BenchmarkHTTP/modern is the same call of a
// tool that mirrors none).
func BenchmarkParamHeader(b *testing.B) {
	s := mcp.New(&mcp.Options{Name: "steps", Version: "1.0.0"})
	if err := s.Register("", mirrored{}); err != nil {
		b.Fatal(err)
	}
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	defer h.Close()
	hd := modernHeaders("tools/call", "route")
	hd["Mcp-Param-Region"] = "us-west1"
	x := exchange{body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"us-west1"},` + modernMeta + `}}`, header: hd}
	b.ReportAllocs()
	for b.Loop() {
		if w := serveDirect(h, x); w.Code != 200 {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
