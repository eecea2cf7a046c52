package toolrpc_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// The answers of the bad-input table, as the JSON-RPC 2.0 specification
// (section 5.1) and the table of docs/errors.md write them.
const (
	badParseError = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`

	// Every row of the table is followed by this request, which must get
	// this answer: the stream goes on after every bad input.
	badNextRequest = `{"jsonrpc":"2.0","method":"sum","params":[40,2],"id":"next"}`
	badNextAnswer  = `{"jsonrpc":"2.0","result":42,"id":"next"}`
)

// badInvalid is the -32600 answer to id (a raw token; "null" when the id is
// absent, itself invalid, or given twice) for the rule reason: the
// specification's message, and the rule in data (docs/errors.md).
func badInvalid(id, reason string) string {
	return `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"` + reason + `"}},"id":` + id + `}`
}

// The reasons of the -32600 answers to envelopes that break a rule.
const (
	whyNotObject  = "a request must be a JSON object"
	whyEmptyBatch = "a batch must not be empty"
	whyVersion    = "jsonrpc must be the string 2.0"
	whyMembers    = "a request has no members but jsonrpc, method, params and id"
	whyNoMethod   = "method is required"
	whyMethod     = "method must be a string"
	whyID         = "id must be a string, a number or null"
	whyIDTwice    = "id given more than once"
	whyParams     = "params must be an object or an array"
	whyInFlight   = "id already in use by a request in flight"
)

// badNotFound is the -32601 answer to id.
func badNotFound(id string) string {
	return `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":` + id + `}`
}

// badResult is the answer with result (raw JSON) to id.
func badResult(result, id string) string {
	return `{"jsonrpc":"2.0","result":` + result + `,"id":` + id + `}`
}

// badLimit is the -32600 answer, id null, of a limit passed: docs/limits.md's
// "the limit in data.reason".
func badLimit(reason string) string { return badInvalid(`null`, reason) }

// badEcho is a request for echo with params (raw JSON) and id.
func badEcho(params, id string) string {
	return `{"jsonrpc":"2.0","method":"echo","params":` + params + `,"id":` + id + `}`
}

// badEchoOfSize is an echo request with id "fs" exactly n bytes long, and
// its answer.
func badEchoOfSize(n int) (req, answer string) {
	head, tail := `{"jsonrpc":"2.0","method":"echo","params":["`, `"],"id":"fs"}`
	x := strings.Repeat("x", n-len(head)-len(tail))
	return head + x + tail, badResult(`["`+x+`"]`, `"fs"`)
}

// badNested is n arrays nested around 1: badNested(2) is [[1]].
func badNested(n int) string {
	return strings.Repeat("[", n) + "1" + strings.Repeat("]", n)
}

// badLines joins lines, each ending with a newline.
func badLines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// badInputTools is a tool served through package service, for the rows
// about params that reach a method's binding.
type badInputTools struct{}

type badPair struct {
	A int `json:"a"`
	B int `json:"b"`
}

func (badInputTools) Sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}
func (badInputTools) Add(p badPair) int     { return p.A + p.B }
func (badInputTools) Echo(p []any) []any    { return p }
func (badInputTools) Ping() (string, error) { return "pong", nil }

// badRow is one malformed or hostile input and the exact lines it must be
// answered with. The input is a transcript (tr), or raw bytes (in) with the
// lines expected (want) for what a transcript cannot carry. The runner
// appends badNextRequest (after a newline) and expects badNextAnswer last.
type badRow struct {
	name string
	tr   string
	in   string
	want []string
	opts *rpc.Options // limits; the runner makes it sequential and quiet
	h    rpc.Handler  // nil: a specHandler
	// atEOF: the input ends without a newline, so nothing can follow it;
	// its last line must be the valid request, and want its answer.
	atEOF bool
}

func badInputRows(t *testing.T) []badRow {
	tools := service.New(nil)
	require.NoError(t, tools.Register("", badInputTools{}))

	exactly100, exactly100Answer := badEchoOfSize(100)
	over100, _ := badEchoOfSize(101)
	maxDepth128 := badEcho(badNested(127), `"d128"`) // the object, then 127 arrays
	maxDepth129 := badEcho(badNested(128), `"d129"`)
	var batch1000, batch1001, batch100k strings.Builder
	batch1000.WriteString("[")
	for i := range 1000 {
		if i > 0 {
			batch1000.WriteString(",")
		}
		batch1000.WriteString(`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`)
	}
	batch1001.WriteString(batch1000.String() + `,{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`)
	batch1000.WriteString("]")
	batch100k.WriteString("[1" + strings.Repeat(",1", 99_999) + "]")
	bigNumber := "1" + strings.Repeat("0", 4000)
	var requests, answers []string
	for i := range 1000 {
		requests = append(requests, fmt.Sprintf(`{"jsonrpc":"2.0","method":"sum","params":[%d,1],"id":%d}`, i, i))
		answers = append(answers, badResult(fmt.Sprint(i+1), fmt.Sprint(i)))
	}
	batchOfRequests := "[" + strings.Join(requests, ",") + "]"
	batchOfAnswers := "[" + strings.Join(answers, ",") + "]"

	return []badRow{
		// Truncated JSON: the line ends, and so does the frame.
		{name: "truncated after the opening brace", tr: `
			--> {
			<-- ` + badParseError},
		{name: "truncated inside a member name", tr: `
			--> {"jsonrpc":"2.0","meth
			<-- ` + badParseError},
		{name: "truncated after a colon", tr: `
			--> {"jsonrpc":"2.0","method":
			<-- ` + badParseError},
		{name: "truncated inside a string value", tr: `
			--> {"jsonrpc":"2.0","method":"su
			<-- ` + badParseError},
		{name: "truncated inside an escape", tr: `
			--> {"jsonrpc":"2.0","method":"s\u00
			<-- ` + badParseError},
		{name: "truncated inside params", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1,
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":{"a":
			<-- ` + badParseError},
		{name: "truncated inside a number or a literal", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":-
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":nul
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1.
			<-- ` + badParseError},
		{name: "truncated before the closing brace", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1
			<-- ` + badParseError},
		{name: "truncated batch", tr: `
			--> [
			<-- ` + badParseError + `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":1},
			<-- ` + badParseError + `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":2}
			<-- ` + badParseError},
		{name: "a raw newline inside a string splits the frame", in: "" +
			`{"jsonrpc":"2.0","method":"s` + "\n" + `um","params":[1],"id":1}` + "\n",
			want: []string{badParseError, badParseError}},

		// Each envelope member with each wrong JSON type.
		{name: "jsonrpc of every wrong type", tr: `
			--> {"jsonrpc":2.0,"method":"sum","params":[1],"id":"j1"}
			<-- ` + badInvalid(`"j1"`, whyVersion) + `
			--> {"jsonrpc":2,"method":"sum","params":[1],"id":"j2"}
			<-- ` + badInvalid(`"j2"`, whyVersion) + `
			--> {"jsonrpc":null,"method":"sum","params":[1],"id":"j3"}
			<-- ` + badInvalid(`"j3"`, whyVersion) + `
			--> {"jsonrpc":true,"method":"sum","params":[1],"id":"j4"}
			<-- ` + badInvalid(`"j4"`, whyVersion) + `
			--> {"jsonrpc":{"version":"2.0"},"method":"sum","params":[1],"id":"j5"}
			<-- ` + badInvalid(`"j5"`, whyVersion) + `
			--> {"jsonrpc":["2.0"],"method":"sum","params":[1],"id":"j6"}
			<-- ` + badInvalid(`"j6"`, whyVersion) + `
			--> {"jsonrpc":"2","method":"sum","params":[1],"id":"j7"}
			<-- ` + badInvalid(`"j7"`, whyVersion) + `
			--> {"jsonrpc":" 2.0","method":"sum","params":[1],"id":"j8"}
			<-- ` + badInvalid(`"j8"`, whyVersion) + `
			--> {"jsonrpc":"2.0\u0000","method":"sum","params":[1],"id":"j9"}
			<-- ` + badInvalid(`"j9"`, whyVersion) + `
			--> {"jsonrpc":"1.0","method":"sum","params":[1],"id":"j10"}
			<-- ` + badInvalid(`"j10"`, whyVersion) + `
			--> {"method":"sum","params":[1],"id":"j11"}
			<-- ` + badInvalid(`"j11"`, whyVersion) + `
			--> {"jsonrpc":"1.0","method":"update"}
			<-- ` + badInvalid(`null`, whyVersion)},
		{name: "method of every wrong type", tr: `
			--> {"jsonrpc":"2.0","method":1,"params":[1],"id":"m1"}
			<-- ` + badInvalid(`"m1"`, whyMethod) + `
			--> {"jsonrpc":"2.0","method":null,"params":[1],"id":"m2"}
			<-- ` + badInvalid(`"m2"`, whyMethod) + `
			--> {"jsonrpc":"2.0","method":false,"params":[1],"id":"m3"}
			<-- ` + badInvalid(`"m3"`, whyMethod) + `
			--> {"jsonrpc":"2.0","method":{"name":"sum"},"params":[1],"id":"m4"}
			<-- ` + badInvalid(`"m4"`, whyMethod) + `
			--> {"jsonrpc":"2.0","method":["sum"],"params":[1],"id":"m5"}
			<-- ` + badInvalid(`"m5"`, whyMethod) + `
			--> {"jsonrpc":"2.0","params":[1],"id":"m6"}
			<-- ` + badInvalid(`"m6"`, whyNoMethod) + `
			--> {"jsonrpc":"2.0","method":"","params":[1],"id":"m7"}
			<-- ` + badNotFound(`"m7"`)},
		{name: "id of every wrong type", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":true}
			<-- ` + badInvalid(`null`, whyID) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":false}
			<-- ` + badInvalid(`null`, whyID) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":{"n":1}}
			<-- ` + badInvalid(`null`, whyID) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":[1]}
			<-- ` + badInvalid(`null`, whyID) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":{}}
			<-- ` + badInvalid(`null`, whyID)},
		{name: "params of every wrong type", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":"1","id":"p1"}
			<-- ` + badInvalid(`"p1"`, whyParams) + `
			--> {"jsonrpc":"2.0","method":"sum","params":1,"id":"p2"}
			<-- ` + badInvalid(`"p2"`, whyParams) + `
			--> {"jsonrpc":"2.0","method":"sum","params":true,"id":"p3"}
			<-- ` + badInvalid(`"p3"`, whyParams) + `
			--> {"jsonrpc":"2.0","method":"sum","params":null,"id":"p4"}
			<-- ` + badInvalid(`"p4"`, whyParams) + `
			--> {"jsonrpc":"2.0","method":"echo","params":{},"id":"p5"}
			<-- ` + badResult(`{}`, `"p5"`) + `
			--> {"jsonrpc":"2.0","method":"echo","params":[],"id":"p6"}
			<-- ` + badResult(`[]`, `"p6"`) + `
			--> {"jsonrpc":"2.0","method":"update","params":"bar"}
			<-- ` + badInvalid(`null`, whyParams)},
		{name: "a result or error member in a request", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"result":1,"id":"r1"}
			<-- ` + badInvalid(`"r1"`, whyMembers) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"error":{"code":1,"message":"x"},"id":"r2"}
			<-- ` + badInvalid(`"r2"`, whyMembers) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"result":null,"error":null,"id":"r3"}
			<-- ` + badInvalid(`"r3"`, whyMembers) + `
			--> {"jsonrpc":"2.0","method":"update","result":1}
			<-- ` + badInvalid(`null`, whyMembers)},
		{name: "extra members", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"x1","extra":null}
			<-- ` + badInvalid(`"x1"`, whyMembers) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"x2","_meta":{}}
			<-- ` + badInvalid(`"x2"`, whyMembers) + `
			--> {"Jsonrpc":"2.0","method":"sum","params":[1],"id":"x3"}
			<-- ` + badInvalid(`"x3"`, whyVersion) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"ID":"x4"}
			<-- ` + badInvalid(`null`, whyMembers) + `
			--> {"jsonrpc":"2.0","method":"update","params":[1],"":1}
			<-- ` + badInvalid(`null`, whyMembers)},
		// An id given twice is answered null: which one the peer meant
		// cannot be told (JSON-RPC 2.0, section 5).
		{name: "duplicate envelope members", tr: `
			--> {"jsonrpc":"2.0","jsonrpc":"2.0","method":"sum","params":[1],"id":"k1"}
			<-- ` + badInvalid(`"k1"`, "jsonrpc given more than once") + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"params":[2],"id":"k2"}
			<-- ` + badInvalid(`"k2"`, "params given more than once") + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"k3","id":"k4"}
			<-- ` + badInvalid(`null`, whyIDTwice) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":{},"id":"k5"}
			<-- ` + badInvalid(`null`, whyIDTwice) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"k6","\u0069d":"k7"}
			<-- ` + badInvalid(`null`, whyIDTwice) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1,"id":2}
			<-- ` + badInvalid(`null`, whyIDTwice) + `
			--> {"jsonrpc":"2.0","method":"sum","method":"sum","params":[1],"id":"k8"}
			<-- ` + badInvalid(`"k8"`, "method given more than once") + `
			--> {"jsonrpc":"2.0","method":"update","method":"update"}
			<-- ` + badInvalid(`null`, "method given more than once")},
		{name: "duplicate members inside params reach the handler as they came", tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":{"a":1,"a":2},"id":"dp1"}
			<-- ` + badResult(`{"a":1,"a":2}`, `"dp1"`) + `
			--> {"jsonrpc":"2.0","method":"echo","params":[{"b":{"c":1,"c":1}}],"id":"dp2"}
			<-- ` + badResult(`[{"b":{"c":1,"c":1}}]`, `"dp2"`)},
		// docs/tools-and-schemas.md, "Params": a member given twice is refused, -32602 with
		// rule "duplicate" in data (the message as service's tests hold it).
		{name: "duplicate members inside params are refused by service", h: tools, tr: `
			--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2,"a":3},"id":"ds1"}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"a","rule":"duplicate","message":"member \"a\" given more than once"}]},"id":"ds1"}
			--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":2},"id":"ds2"}
			<-- {"jsonrpc":"2.0","result":3,"id":"ds2"}`},

		// Numbers.
		{name: "huge and unusual numbers as ids are echoed byte for byte", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":123456789012345678901234567890123456789012345678901234567890}
			<-- ` + badResult(`1`, `123456789012345678901234567890123456789012345678901234567890`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1e400}
			<-- ` + badResult(`1`, `1e400`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":-1E-400}
			<-- ` + badResult(`1`, `-1E-400`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":0.10000000000000000000000000001}
			<-- ` + badResult(`1`, `0.10000000000000000000000000001`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":` + bigNumber + `}
			<-- ` + badResult(`1`, bigNumber)},
		{name: "ids 0, empty, null, negative, fractional, exponent", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":0}
			<-- ` + badResult(`1`, `0`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[2],"id":-0}
			<-- ` + badResult(`2`, `-0`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[3],"id":""}
			<-- ` + badResult(`3`, `""`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[4],"id":null}
			<-- ` + badResult(`4`, `null`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[5],"id":-7}
			<-- ` + badResult(`5`, `-7`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[6],"id":0.5}
			<-- ` + badResult(`6`, `0.5`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[7],"id":1e3}
			<-- ` + badResult(`7`, `1e3`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[8],"id":1E+3}
			<-- ` + badResult(`8`, `1E+3`) + `
			--> {"jsonrpc":"2.0","method":"sum","params":[9],"id":-1.5e-7}
			<-- ` + badResult(`9`, `-1.5e-7`)},
		{name: "numbers that are not JSON", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":01}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":+1}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":.5}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1e}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":0x10}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":NaN}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":-Infinity}
			<-- ` + badParseError},
		{name: "huge numbers in params pass through to the handler", tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":[123456789012345678901234567890,1e400,-0.0,1E-400],"id":"hp1"}
			<-- ` + badResult(`[123456789012345678901234567890,1e400,-0.0,1E-400]`, `"hp1"`) + `
			--> {"jsonrpc":"2.0","method":"echo","params":{"n":` + bigNumber + `},"id":"hp2"}
			<-- ` + badResult(`{"n":`+bigNumber+`}`, `"hp2"`)},
		// docs/tools-and-schemas.md, "Params": numbers must fit their Go type (rule "range").
		{name: "huge numbers in params are refused by service when they do not fit", h: tools, tr: `
			--> {"jsonrpc":"2.0","method":"add","params":{"a":100000000000000000000000,"b":1},"id":"hs1"}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"a","rule":"range","param":"int","message":"100000000000000000000000 does not fit in int"}]},"id":"hs1"}
			--> {"jsonrpc":"2.0","method":"add","params":{"a":1,"b":-9223372036854775809},"id":"hs2"}
			<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"b","rule":"range","param":"int","message":"-9223372036854775809 does not fit in int"}]},"id":"hs2"}
			--> {"jsonrpc":"2.0","method":"add","params":{"a":9223372036854775807,"b":-9223372036854775808},"id":"hs3"}
			<-- {"jsonrpc":"2.0","result":-1,"id":"hs3"}`},

		// Bytes: UTF-8, BOM, NUL, control characters.
		{name: "invalid UTF-8 inside a string", in: badLines(
			`{"jsonrpc":"2.0","method":"su`+"\xff"+`m","params":[1],"id":"u1"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["`+"\xc0\xaf"+`"],"id":"u2"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["`+"\xed\xa0\x80"+`"],"id":"u3"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["`+"\xf4\x90\x80\x80"+`"],"id":"u4"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["`+"\xe2\x82"+`"],"id":"u5"}`,
			`{"jsonrpc":"2.0","method":"echo","params":[1],"id":"u6`+"\x80"+`"}`,
			`{"jsonrpc":"2.0","method":"sum","params":["`+"\xff"+`"],"id":"u9"}`,
		), want: []string{badParseError, badParseError, badParseError, badParseError, badParseError, badParseError, badParseError}},
		{name: "invalid UTF-8 outside strings", in: badLines(
			`{"jsonrpc":"2.0",`+"\xff"+`"method":"sum","params":[1],"id":"u7"}`,
			`{"jsonrpc":"2.0","method":"sum","params":[1],"id":"u8"}`+"\xfe",
			"\xff",
		), want: []string{badParseError, badParseError, badParseError}},
		{name: "valid UTF-8 and raw DEL pass through byte for byte", in: badLines(
			badEcho(`["é€😀`+"\xf4\x8f\xbf\xbf"+`"]`, `"é"`),
			badEcho(`["a`+"\x7f"+`b"]`, `"del"`),
			badEcho(`["line`+"\u2028"+`sep`+"\u2029"+`"]`, `"`+"\u2028"+`"`),
		), want: []string{
			badResult(`["é€😀`+"\xf4\x8f\xbf\xbf"+`"]`, `"é"`),
			badResult(`["a`+"\x7f"+`b"]`, `"del"`),
			badResult(`["line`+"\u2028"+`sep`+"\u2029"+`"]`, `"`+"\u2028"+`"`),
		}},
		{name: "a UTF-8 byte order mark", in: badLines(
			"\xef\xbb\xbf"+`{"jsonrpc":"2.0","method":"sum","params":[1],"id":"bom1"}`,
			"  \xef\xbb\xbf"+`{"jsonrpc":"2.0","method":"sum","params":[1],"id":"bom2"}`,
			"\xef\xbb\xbf",
			badEcho(`["`+"\xef\xbb\xbf"+`"]`, `"bom3"`),
		), want: []string{badParseError, badParseError, badParseError, badResult(`["`+"\xef\xbb\xbf"+`"]`, `"bom3"`)}},
		{name: "NUL bytes", in: badLines(
			`{"jsonrpc":"2.0","method":"sum`+"\x00"+`","params":[1],"id":"n1"}`,
			`{"jsonrpc":"2.0",`+"\x00"+`"method":"sum","params":[1],"id":"n2"}`,
			`{"jsonrpc":"2.0","method":"sum","params":[1],"id":"n3"}`+"\x00",
			"\x00",
			"\x00\x00\x00\x00",
		), want: []string{badParseError, badParseError, badParseError, badParseError, badParseError}},
		{name: "raw control characters inside strings", in: badLines(
			`{"jsonrpc":"2.0","method":"echo","params":["a`+"\x01"+`b"],"id":"c1"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["a`+"\t"+`b"],"id":"c2"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["a`+"\x1f"+`b"],"id":"c3"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["a`+"\r"+`b"],"id":"c4"}`,
			`{"jsonrpc":"2.0","method":"echo","params":["a`+"\x1b[31m"+`b"],"id":"c5"}`,
			`{"jsonrpc":"2.0","method":"echo","params":[1],"id":"c`+"\b"+`6"}`,
		), want: []string{badParseError, badParseError, badParseError, badParseError, badParseError, badParseError}},
		// RFC 8259 section 2: white space is space, tab, LF and CR only, so
		// a line of form feeds is not a blank line either.
		{name: "control characters outside strings that are not JSON white space", in: badLines(
			`{"jsonrpc":"2.0",`+"\f"+`"method":"sum","params":[1],"id":"w1"}`,
			`{"jsonrpc":"2.0",`+"\v"+`"method":"sum","params":[1],"id":"w2"}`,
			`{"jsonrpc":"2.0",`+"\u00a0"+`"method":"sum","params":[1],"id":"w3"}`,
			"\f",
		), want: []string{badParseError, badParseError, badParseError, badParseError}},
		{name: "escaped control characters are valid", tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":["\u0000\u001f\t\n\r\b\f\"\\\/"],"id":"e1"}
			<-- ` + badResult(`["\u0000\u001f\t\n\r\b\f\"\\\/"]`, `"e1"`) + `
			--> {"jsonrpc":"2.0","method":"echo","params":[1],"id":"\u0000\n"}
			<-- ` + badResult(`[1]`, `"\u0000\n"`) + `
			--> {"jsonrpc":"2.0","method":"sum\u0000","params":[1],"id":"e2"}
			<-- ` + badNotFound(`"e2"`)},
		{name: "invalid escapes", tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":["\x41"],"id":"ie1"}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"echo","params":["\u12"],"id":"ie2"}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"echo","params":["\U0041"],"id":"ie3"}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"echo","params":["\u00g0"],"id":"ie4"}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"echo","params":["\'"],"id":"ie5"}
			<-- ` + badParseError},
		{name: "lone surrogate escapes are valid JSON", tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":["\ud800"],"id":"\udc00"}
			<-- ` + badResult(`["\ud800"]`, `"\udc00"`) + `
			--> {"jsonrpc":"2.0","method":"echo","params":["x\udfffy\ud83d"],"id":"ls1"}
			<-- ` + badResult(`["x\udfffy\ud83d"]`, `"ls1"`) + `
			--> {"jsonrpc":"2.0","method":"\ud800","params":[1],"id":"ls2"}
			<-- ` + badNotFound(`"ls2"`) + `
			--> {"jsonrpc":"2.0","method":"echo","params":["\ud83d\ude00"],"id":"ls3"}
			<-- ` + badResult(`["\ud83d\ude00"]`, `"ls3"`)},
		{name: "escapes in member names and values are decoded", tr: `
			--> {"\u006asonrpc":"\u0032.0","\u006dethod":"s\u0075m","p\u0061rams":[1,2],"\u0069d":"es1"}
			<-- ` + badResult(`3`, `"es1"`) + `
			--> {"jsonrpc":"2\u002e0","method":"sum","params":[1],"id":"es2"}
			<-- ` + badResult(`1`, `"es2"`)},

		// Nesting.
		{name: "nesting at the configured limit", opts: &rpc.Options{MaxDepth: 4}, tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":[[[1]]],"id":"d1"}
			<-- ` + badResult(`[[[1]]]`, `"d1"`) + `
			--> {"jsonrpc":"2.0","method":"echo","params":{"a":{"b":{}}},"id":"d2"}
			<-- ` + badResult(`{"a":{"b":{}}}`, `"d2"`) + `
			--> [{"jsonrpc":"2.0","method":"echo","params":[[1]],"id":"d3"}]
			<-- [` + badResult(`[[1]]`, `"d3"`) + `]`},
		{name: "nesting over the configured limit", opts: &rpc.Options{MaxDepth: 4}, tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":[[[[1]]]],"id":"d4"}
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> {"jsonrpc":"2.0","method":"echo","params":{"a":{"b":{"c":{}}}},"id":"d5"}
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> [{"jsonrpc":"2.0","method":"echo","params":[[[1]]],"id":"d6"}]
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
			<-- ` + badLimit("nested more than 4 levels deep")},
		{name: "a line nested too deep is refused at the limit, before what follows is read", opts: &rpc.Options{MaxDepth: 4}, tr: `
			--> {"jsonrpc":"2.0","method":"echo","params":[[[[1]]]],"id":1
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> {"jsonrpc":"2.0","method":"echo","params":[[[["\xff"]]]],"id":1}
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> [[[[[[[[ garbage
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> {"jsonrpc":"2.0","method":"echo","params":[[[[1]]]],"id":1} trailing
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> {"jsonrpc":"2.0","method":"echo","params":[[[1]]],"id":1} trailing
			<-- {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{name: "nesting inside _meta counts", opts: &rpc.Options{MaxDepth: 4}, tr: `
			--> {"jsonrpc":"2.0","method":"probe.meta","params":{"_meta":[[1]]},"id":"dm1"}
			<-- ` + badResult(`[[1]]`, `"dm1"`) + `
			--> {"jsonrpc":"2.0","method":"probe.meta","params":{"_meta":[[[1]]]},"id":"dm2"}
			<-- ` + badLimit("nested more than 4 levels deep") + `
			--> [{"jsonrpc":"2.0","method":"probe.meta","params":{"_meta":[[1]]},"id":"dm3"}]
			<-- ` + badLimit("nested more than 4 levels deep")},
		{name: "nesting at the default limit of 128", in: badLines(maxDepth128),
			want: []string{badResult(badNested(127), `"d128"`)}},
		{name: "nesting over the default limit of 128", in: badLines(
			maxDepth129,
			// Valid JSON, so that only the depth rule applies.
			strings.Repeat("[", 200_000)+strings.Repeat("]", 200_000),
			strings.Repeat(`{"a":`, 50_000)+"1"+strings.Repeat("}", 50_000),
		), want: []string{
			badLimit("nested more than 128 levels deep"),
			badLimit("nested more than 128 levels deep"),
			badLimit("nested more than 128 levels deep"),
		}},

		// Frame size.
		{name: "a frame of exactly the configured limit", opts: &rpc.Options{MaxFrameSize: 100},
			in: badLines(exactly100), want: []string{exactly100Answer}},
		{name: "a CR before the newline is not part of the frame", opts: &rpc.Options{MaxFrameSize: 100},
			in: exactly100 + "\r\n", want: []string{exactly100Answer}},
		{name: "a frame over the configured limit", opts: &rpc.Options{MaxFrameSize: 100}, in: badLines(
			over100,
			strings.Repeat("x", 1<<20),
			`{"jsonrpc":"2.0","method":"sum","params":[`+strings.Repeat("1,", 1000)+`1],"id":"big"}`,
		), want: []string{
			badLimit("frame larger than the limit of 100 bytes"),
			badLimit("frame larger than the limit of 100 bytes"),
			badLimit("frame larger than the limit of 100 bytes"),
		}},
		{name: "a white-space-only line over the limit is skipped", opts: &rpc.Options{MaxFrameSize: 100},
			in: badLines(strings.Repeat(" \t", 5000), strings.Repeat(" ", 1<<20)+"\r")},

		// Batches.
		{name: "a batch at the configured limit", opts: &rpc.Options{MaxBatch: 2}, tr: `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":"b1"},{"jsonrpc":"2.0","method":"sum","params":[2],"id":"b2"}]
			<-- [` + badResult(`1`, `"b1"`) + `,` + badResult(`2`, `"b2"`) + `]`},
		{name: "a batch over the configured limit", opts: &rpc.Options{MaxBatch: 2}, tr: `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":"b3"},{"jsonrpc":"2.0","method":"sum","params":[2],"id":"b4"},{"jsonrpc":"2.0","method":"sum","params":[3],"id":"b5"}]
			<-- ` + badLimit("batch longer than the limit of 2 entries") + `
			--> [1,2,3,4,5,6,7,8,9,10]
			<-- ` + badLimit("batch longer than the limit of 2 entries") + `
			--> [{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"update"}]
			<-- ` + badLimit("batch longer than the limit of 2 entries")},
		{name: "huge batches against the default limit of 1000", in: badLines(
			batch1000.String(),
			batch1001.String(),
			batch100k.String(),
		), want: []string{
			badLimit("batch longer than the limit of 1000 entries"),
			badLimit("batch longer than the limit of 1000 entries"),
		}},
		{name: "a batch of 1000 requests is answered on one line", in: badLines(batchOfRequests),
			want: []string{batchOfAnswers}},
		// docs/wire.md: a request whose id is in flight is answered -32600 with
		// that id, and a batch's ids stay in flight until it is answered;
		// 7.0 is another id. The message is TestDuplicateIDInFlight's.
		{name: "a batch repeating one id", tr: `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":7},{"jsonrpc":"2.0","method":"sum","params":[2],"id":7},{"jsonrpc":"2.0","method":"sum","params":[3],"id":7.0}]
			<-- [` + badResult(`1`, `7`) + `,` + badInvalid(`7`, whyInFlight) + `,` + badResult(`3`, `7.0`) + `]`},
		{name: "an empty batch", tr: `
			--> []
			<-- ` + badInvalid(`null`, whyEmptyBatch) + `
			--> [ ]
			<-- ` + badInvalid(`null`, whyEmptyBatch) + `
			--> [	]	
			<-- ` + badInvalid(`null`, whyEmptyBatch)},
		{name: "a batch of invalid entries", tr: `
			--> [1,"a",null,true,{},{"jsonrpc":"2.0","method":1},{"jsonrpc":"2.0","method":"sum","params":"x","id":"bi"}]
			<-- [` + strings.Repeat(badInvalid(`null`, whyNotObject)+`,`, 4) + badInvalid(`null`, whyVersion) + `,` +
			badInvalid(`null`, whyMethod) + `,` + badInvalid(`"bi"`, whyParams) + `]`},
		{name: "nested batches", tr: `
			--> [[{"jsonrpc":"2.0","method":"sum","params":[1],"id":"nb1"}]]
			<-- [` + badInvalid(`null`, whyNotObject) + `]
			--> [[]]
			<-- [` + badInvalid(`null`, whyNotObject) + `]
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":"nb2"},[],[1]]
			<-- [` + badResult(`1`, `"nb2"`) + `,` + badInvalid(`null`, whyNotObject) + `,` + badInvalid(`null`, whyNotObject) + `]`},
		{name: "a batch mixing requests, notifications, responses and bad entries", tr: `
			--> [{"jsonrpc":"2.0","result":1,"id":"mx0"},{"jsonrpc":"2.0","method":"update","params":[1]},{"jsonrpc":"2.0","method":"sum","params":[1,1],"id":"mx1"},{"jsonrpc":"2.0","method":"rpc.secret","id":"mx2"},{"foo":"boo"}]
			<-- [` + badResult(`2`, `"mx1"`) + `,` + badNotFound(`"mx2"`) + `,` + badInvalid(`null`, whyVersion) + `]`},
		{name: "broken batches", tr: `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":"bb1"},]
			<-- ` + badParseError + `
			--> [,{"jsonrpc":"2.0","method":"sum","params":[1],"id":"bb2"}]
			<-- ` + badParseError + `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":"bb3"}]]
			<-- ` + badParseError + `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":"bb4"} {"jsonrpc":"2.0","method":"sum","params":[1],"id":"bb5"}]
			<-- ` + badParseError},

		// Framing.
		{name: "white-space-only lines are skipped", in: "\n \n\t\t\n\r\n \r\n\r\r\n   \t \r \n"},
		{name: "CRLF and CR as white space", in: "" +
			`{"jsonrpc":"2.0","method":"sum","params":[1],"id":"cr1"}` + "\r\n" +
			`{"jsonrpc":"2.0",` + "\r" + `"method":"sum","params":[2],"id":"cr2"}` + "\n" +
			`{"jsonrpc":"2.0","method":"sum","params":[3],"id":"cr3"}` + "\r\r\n",
			want: []string{badResult(`1`, `"cr1"`), badResult(`2`, `"cr2"`), badResult(`3`, `"cr3"`)}},
		{name: "white space around and inside the message", in: badLines(
			" \t "+`{ "jsonrpc" : "2.0" , "method" : "sum" , "params" : [ 1 , 2 ] , "id" : "sp1" }`+" \t ",
			`{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":`+" \t 7 \t "+`}`,
		), want: []string{badResult(`3`, `"sp1"`), badResult(`3`, `7`)}},
		{name: "a request line without a final newline at EOF", atEOF: true,
			in:   badLines(`{"jsonrpc":"2.0","method":"sum","params":[1],"id":"eof1"}`) + badNextRequest,
			want: []string{badResult(`1`, `"eof1"`), badNextAnswer}},
		{name: "a last line of white space without a newline at EOF", atEOF: true,
			in:   badNextRequest + "\n \t \r",
			want: []string{badNextAnswer}},

		// Valid JSON that is not a request.
		{name: "a bare value at top level", tr: `
			--> "sum"
			<-- ` + badInvalid(`null`, whyNotObject) + `
			--> 42
			<-- ` + badInvalid(`null`, whyNotObject) + `
			--> -1.5e3
			<-- ` + badInvalid(`null`, whyNotObject) + `
			--> null
			<-- ` + badInvalid(`null`, whyNotObject) + `
			--> true
			<-- ` + badInvalid(`null`, whyNotObject) + `
			--> false
			<-- ` + badInvalid(`null`, whyNotObject) + `
			--> "\ud800"
			<-- ` + badInvalid(`null`, whyNotObject)},
		{name: "an object with no members", tr: `
			--> {}
			<-- ` + badInvalid(`null`, whyVersion) + `
			--> { }
			<-- ` + badInvalid(`null`, whyVersion) + `
			--> {"jsonrpc":"2.0"}
			<-- ` + badInvalid(`null`, whyNoMethod) + `
			--> {"jsonrpc":"2.0","id":"o1"}
			<-- ` + badInvalid(`"o1"`, whyNoMethod)},
		{name: "JSON-like text that is not JSON", tr: `
			--> {'jsonrpc':'2.0','method':'sum','params':[1],'id':1}
			<-- ` + badParseError + `
			--> {jsonrpc:"2.0",method:"sum",params:[1],id:1}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1,}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1} // call
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":NULL}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":True}
			<-- ` + badParseError + `
			--> {1:2}
			<-- ` + badParseError},
		{name: "two JSON values on one line", tr: `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"t1"}{"jsonrpc":"2.0","method":"sum","params":[1],"id":"t2"}
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"t3"} {"jsonrpc":"2.0","method":"sum","params":[1],"id":"t4"}
			<-- ` + badParseError + `
			--> [] []
			<-- ` + badParseError + `
			--> 1 2
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"t5"}]
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"t6"},
			<-- ` + badParseError + `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"t7"}x
			<-- ` + badParseError},

		// Messages the server must not answer.
		// docs/wire.md: responses are routed to our calls, an unexpected one
		// dropped, never answered; malformed ones too.
		{name: "responses sent to the server are never answered", tr: `
			--> {"jsonrpc":"2.0","result":19,"id":1}
			--> {"jsonrpc":"2.0","error":{"code":-1,"message":"x"},"id":9}
			--> {"jsonrpc":"2.0","result":null,"id":"never-sent"}
			--> {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":null}
			--> {"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":2}
			--> {"jsonrpc":"2.0","error":"x","id":3}
			--> {"jsonrpc":"1.0","result":1,"id":4}
			--> {"result":1,"id":5}
			--> {"jsonrpc":"2.0","result":1}
			--> {"jsonrpc":"2.0","result":1,"id":6,"extra":1}
			--> [{"jsonrpc":"2.0","result":1,"id":7},{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":8}]`},
		{name: "notifications are never answered, whatever their handler does", tr: `
			--> {"jsonrpc":"2.0","method":"no-such-method"}
			--> {"jsonrpc":"2.0","method":"subtract","params":"x"}
			<-- ` + badInvalid(`null`, whyParams) + `
			--> {"jsonrpc":"2.0","method":"subtract","params":["x"]}
			--> {"jsonrpc":"2.0","method":"probe.panic"}
			--> {"jsonrpc":"2.0","method":"probe.fail"}
			--> [{"jsonrpc":"2.0","method":"probe.panic"},{"jsonrpc":"2.0","method":"probe.fail"}]`},
		{name: "cancellations with malformed params are ignored", tr: `
			--> {"jsonrpc":"2.0","method":"$/cancelRequest"}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":[1]}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{}}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":true}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":null}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"next"}}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled"}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"id":"next"}}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"next"}}`},
		{name: "cancellations that are not valid notifications", tr: `
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":"next"}
			<-- ` + badInvalid(`null`, whyParams) + `
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"next"},"extra":1}
			<-- ` + badInvalid(`null`, whyMembers) + `
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"next"},"id":"cr"}
			<-- ` + badNotFound(`"cr"`)},
		{name: "the _meta of params reaches the handler", tr: `
			--> {"jsonrpc":"2.0","method":"probe.meta","params":{"a":1,"_meta":{"progressToken":"t1"}},"id":"mt1"}
			<-- ` + badResult(`{"progressToken":"t1"}`, `"mt1"`) + `
			--> {"jsonrpc":"2.0","method":"probe.meta","params":{"a":1},"id":"mt2"}
			<-- ` + badResult(`null`, `"mt2"`)},
		{name: "methods under rpc. never reach the handler", tr: `
			--> {"jsonrpc":"2.0","method":"rpc.secret","id":"rpc1"}
			<-- ` + badNotFound(`"rpc1"`) + `
			--> {"jsonrpc":"2.0","method":"rpc\u002esecret","id":"rpc2"}
			<-- ` + badNotFound(`"rpc2"`) + `
			--> {"jsonrpc":"2.0","method":"rpc.","id":"rpc3"}
			<-- ` + badNotFound(`"rpc3"`) + `
			--> {"jsonrpc":"2.0","method":"rpc.secret"}
			--> [{"jsonrpc":"2.0","method":"rpc.secret","id":"rpc4"},{"jsonrpc":"2.0","method":"rpc.secret"}]
			<-- [` + badNotFound(`"rpc4"`) + `]`},
	}
}

// badRules are the answers to bad input, each as a part of the wire: the
// code of each error other than -32600, the reason of each -32600 rule,
// and the start of each limit's reason.
var badRules = func() []string {
	rules := []string{`"code":-32700`, `"code":-32601`, `"code":-32602`}
	for _, why := range []string{whyNotObject, whyEmptyBatch, whyVersion, whyMembers, whyNoMethod,
		whyMethod, whyID, whyIDTwice, whyParams, whyInFlight} {
		rules = append(rules, `"reason":"`+why+`"`)
	}
	for _, limit := range []string{"frame larger than the limit of ", "nested more than ", "batch longer than the limit of "} {
		rules = append(rules, `"reason":"`+limit)
	}
	return rules
}()

// Each malformed or hostile input gets its exact answer (or none), and the
// next valid request is answered. Together the rows reach every answer to
// bad input (badRules).
func TestBadInput(t *testing.T) {
	rows := badInputRows(t)
	answered := map[string]bool{}
	seen := map[string]bool{}
	for _, row := range rows {
		require.False(t, seen[row.name], "row names are distinct: %q", row.name)
		seen[row.name] = true
		in, want := row.in, row.want
		if row.tr != "" {
			in, want = wiretest.Split(row.tr)
		}
		require.NotEmpty(t, in, "row %q sends something", row.name)
		if !row.atEOF {
			require.True(t, strings.HasSuffix(in, "\n"), "row %q ends with a newline", row.name)
			in += badNextRequest + "\n"
			want = append(append([]string(nil), want...), badNextAnswer)
		}
		t.Run(row.name, func(t *testing.T) {
			// In order, with the input read at once and byte by byte (the
			// framing must not depend on how reads split the input); and
			// with concurrent dispatch, where only the order may differ.
			got := badServe(t, row, strings.NewReader(in), true)
			badCompare(t, want, got)
			for _, rule := range badRules {
				for _, line := range got {
					answered[rule] = answered[rule] || strings.Contains(line, rule)
				}
			}
			got = badServe(t, row, iotest.OneByteReader(strings.NewReader(in)), true)
			badCompare(t, want, got)
			got = badServe(t, row, iotest.DataErrReader(strings.NewReader(in)), false)
			assert.ElementsMatch(t, want, got, "concurrent dispatch")
		})
	}
	for _, rule := range badRules {
		assert.True(t, answered[rule], "no row is answered %s", rule)
	}
}

// badServe serves in with the row's handler and limits, and returns the
// lines written.
func badServe(t *testing.T, row badRow, in io.Reader, sequential bool) []string {
	t.Helper()
	var opts rpc.Options
	if row.opts != nil {
		opts = *row.opts
	}
	opts.Sequential = sequential
	opts.Logger = wiretest.Quiet()
	h := row.h
	if h == nil {
		h = newSpecHandler()
	}
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), in, &out, h, &opts))
	return wiretest.Lines(t, out.String())
}

// badCompare checks the lines written against those expected, line by line.
func badCompare(t *testing.T, want, got []string) {
	t.Helper()
	if !assert.Equal(t, len(want), len(got), "number of lines written") {
		for i, line := range got {
			t.Logf("line %d: %.300q", i, line)
		}
		return
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("line %d:\n want %.400q\n  got %.400q", i, want[i], got[i])
		}
	}
}
