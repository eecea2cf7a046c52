package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// read returns a Read that gives text.
func read(text string) func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
	return func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: text}}, nil
	}
}

// fixtureResources are the resources of the tests: static text and
// binary, a templated one, one that fails, one whose Read says it is not
// found, and a file template of RFC 6570 level 2.
func fixtureResources() []mcp.Resource {
	return []mcp.Resource{
		{URI: "test://static-text", Name: "static-text", Title: "Static text", Description: "Some text.", MIMEType: "text/plain", Size: 5, Read: read("hello")},
		{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png",
			Read: func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Blob: []byte{1, 2, 3}}}, nil
			}},
		{URI: "test://broken", Name: "broken",
			Read: func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
				return nil, rpc.NewError(4001, "the disk is gone")
			}},
		{Template: "test://template/{id}/data", Name: "template", Title: "Data", MIMEType: "application/json",
			Read: func(_ context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
				if vars["id"] == "none" {
					return nil, fmt.Errorf("no such id: %w", mcp.ErrResourceNotFound)
				}
				return []mcp.ResourceContents{{Text: `{"id":"` + vars["id"] + `"}`}, {URI: uri + "#2", MIMEType: "text/plain", Text: "second"}}, nil
			}},
		{Template: "file:///{+path}", Name: "files",
			Read: func(_ context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Text: vars["path"]}}, nil
			}},
	}
}

// fixturePrompts are the prompts of the tests.
type fixturePrompts struct{}

type codeArgs struct {
	Language string  `json:"language" validate:"required" jsonschema:"the language"`
	Style    *string `json:"style"`
}

func (fixturePrompts) Simple() string { return "simple" }

func (fixturePrompts) Code(a codeArgs) (*mcp.PromptResult, error) {
	if a.Language == "cobol" {
		return nil, errors.New("no")
	}
	return &mcp.PromptResult{Description: "code in " + a.Language, Messages: []mcp.PromptMessage{
		{Role: "assistant", Content: mcp.TextContent{Text: "I write " + a.Language}},
		{Content: mcp.ResourceLink{URI: "test://static-text", Name: "static-text", Title: "T"}},
		{Content: mcp.AudioContent{Data: []byte{9}, MIMEType: "audio/wav"}},
	}}, nil
}

func (fixturePrompts) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{"Code": {Title: "Code", Description: "Writes code."}}
}

// newFeatures returns a Server of a tool, and the fixture resources,
// prompts and completion, two to a page.
func newFeatures(t testing.TB) *mcp.Server {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0", PageSize: 2})
	require.NoError(t, s.Register("", extra{}))
	addFeatures(t, s)
	return s
}

// addFeatures adds the fixture resources, prompts and completion to s.
func addFeatures(t testing.TB, s *mcp.Server) {
	require.NoError(t, s.AddResources(fixtureResources()...))
	require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
	s.SetCompletion(func(_ context.Context, req mcp.CompleteRequest) ([]string, error) {
		if req.Value == "fail" {
			return nil, rpc.NewError(4002, "no completions today")
		}
		if req.Value == "many" {
			return strings.Split(strings.Repeat("x ", 150), " ")[:150], nil
		}
		return []string{fmt.Sprintf("%s|%s|%s|%s|%v", req.Prompt, req.Template, req.Argument, req.Value, req.Context)}, nil
	})
}

// Resources, prompts and completion in a legacy session: initialize
// announces their capabilities; resources/list pages in URI order, two to
// a page (nextCursor), and refuses a cursor it did not make;
// templates/list; resources/read of a text, a binary, a template (its
// variable decoded; a value with "/" does not match {id}, it does match
// {+path}), several contents, a Read's ErrResourceNotFound, a Read's
// *rpc.Error, a URI nothing serves (-32002, the uri in its data), params
// that are not a read's; subscribe and unsubscribe; prompts/list (name
// order, arguments from the struct: description, required), prompts/get
// (a string, a PromptResult with a role, a link and audio), arguments that
// fail binding, a prompt's error, an unknown prompt, arguments not an
// object, no name; completion/complete for a prompt (context passed on),
// a template, more than MaxCompletions values (total, hasMore), and its
// refusals: a static URI, an unknown prompt, a ref of another type, the
// function's error, params of the wrong shape.
func TestFeaturesLegacy(t *testing.T) {
	wiretest.Serve(t, newFeatures(t).Handler(), `
		--> {"jsonrpc":"2.0","method":"resources/list","id":0}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"_meta[\"io.modelcontextprotocol/protocolVersion\"]","rule":"required","message":"the request names no protocol version, and no initialize came before it"}]},"id":0}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":1}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}
		--> {"jsonrpc":"2.0","method":"resources/list","id":2}
		<-- {"jsonrpc":"2.0","result":{"resources":[{"uri":"test://broken","name":"broken"},{"uri":"test://static-binary","name":"static-binary","mimeType":"image/png"}],"nextCursor":"dGVzdDovL3N0YXRpYy1iaW5hcnk"},"id":2}
		--> {"jsonrpc":"2.0","method":"resources/list","params":{"cursor":"dGVzdDovL3N0YXRpYy1iaW5hcnk"},"id":3}
		<-- {"jsonrpc":"2.0","result":{"resources":[{"uri":"test://static-text","name":"static-text","title":"Static text","description":"Some text.","mimeType":"text/plain","size":5}]},"id":3}
		--> {"jsonrpc":"2.0","method":"resources/list","params":{"cursor":"!!"},"id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid cursor"},"id":4}
		--> {"jsonrpc":"2.0","method":"resources/templates/list","params":{},"id":5}
		<-- {"jsonrpc":"2.0","result":{"resourceTemplates":[{"uriTemplate":"file:///{+path}","name":"files"},{"uriTemplate":"test://template/{id}/data","name":"template","title":"Data","mimeType":"application/json"}]},"id":5}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://static-text"},"id":6}
		<-- {"jsonrpc":"2.0","result":{"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"hello"}]},"id":6}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://static-binary"},"id":7}
		<-- {"jsonrpc":"2.0","result":{"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"AQID"}]},"id":7}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://template/a%20b/data"},"id":8}
		<-- {"jsonrpc":"2.0","result":{"contents":[{"uri":"test://template/a%20b/data","mimeType":"application/json","text":"{\"id\":\"a b\"}"},{"uri":"test://template/a%20b/data#2","mimeType":"text/plain","text":"second"}]},"id":8}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://template/a/b/data"},"id":9}
		<-- {"jsonrpc":"2.0","error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://template/a/b/data"}},"id":9}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"file:///etc/a%2Fb?x=1"},"id":10}
		<-- {"jsonrpc":"2.0","result":{"contents":[{"uri":"file:///etc/a%2Fb?x=1","text":"etc/a/b?x=1"}]},"id":10}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://template/none/data"},"id":11}
		<-- {"jsonrpc":"2.0","error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://template/none/data"}},"id":11}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://broken"},"id":12}
		<-- {"jsonrpc":"2.0","error":{"code":4001,"message":"the disk is gone"},"id":12}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://nope\u0000"},"id":13}
		<-- {"jsonrpc":"2.0","error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://nope\u0000"}},"id":13}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":1},"id":14}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"type","param":"string","message":"uri must be a string"}]},"id":14}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{},"id":15}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"required","message":"uri is required"}]},"id":15}
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://static-text"},"id":16}
		<-- {"jsonrpc":"2.0","result":{},"id":16}
		--> {"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":"test://static-text"},"id":17}
		<-- {"jsonrpc":"2.0","result":{},"id":17}
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":null},"id":18}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"type","param":"string","message":"uri must be a string"}]},"id":18}
		--> {"jsonrpc":"2.0","method":"prompts/list","id":19}
		<-- {"jsonrpc":"2.0","result":{"prompts":[{"name":"code","title":"Code","description":"Writes code.","arguments":[{"name":"language","description":"the language","required":true},{"name":"style"}]},{"name":"simple"}]},"id":19}
		--> {"jsonrpc":"2.0","method":"prompts/list","params":{"cursor":"c2ltcGxl"},"id":20}
		<-- {"jsonrpc":"2.0","result":{"prompts":[]},"id":20}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"simple"},"id":21}
		<-- {"jsonrpc":"2.0","result":{"messages":[{"role":"user","content":{"type":"text","text":"simple"}}]},"id":21}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"language":"go","style":"terse"}},"id":22}
		<-- {"jsonrpc":"2.0","result":{"description":"code in go","messages":[{"role":"assistant","content":{"type":"text","text":"I write go"}},{"role":"user","content":{"type":"resource_link","uri":"test://static-text","name":"static-text","title":"T"}},{"role":"user","content":{"type":"audio","data":"CQ==","mimeType":"audio/wav"}}]},"id":22}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"style":1,"x":"y"}},"id":23}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"style","rule":"type","param":"string","message":"expected a string, got a number"},{"field":"x","rule":"unknown","message":"unknown field \"x\""},{"field":"language","rule":"required","message":"language is required"}]},"id":23}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"language":"cobol"}},"id":24}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"no"}},"id":24}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"nope"},"id":25}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Unknown prompt: nope"},"id":25}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":[]},"id":26}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"arguments","rule":"type","param":"object","message":"arguments must be an object"}]},"id":26}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{},"id":27}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"name","rule":"required","message":"name is required"}]},"id":27}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code"},"argument":{"name":"style","value":"te"},"context":{"arguments":{"language":"go"}}},"id":28}
		<-- {"jsonrpc":"2.0","result":{"completion":{"values":["code||style|te|map[language:go]"],"total":1,"hasMore":false}},"id":28}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"}},"id":29}
		<-- {"jsonrpc":"2.0","result":{"completion":{"values":["|test://template/{id}/data|id|1|map[]"],"total":1,"hasMore":false}},"id":29}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"many"}},"id":30}
		<-- {"jsonrpc":"2.0","result":{"completion":{"values":["x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x","x"],"total":150,"hasMore":true}},"id":30}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://static-text"},"argument":{"name":"id","value":"1"}},"id":31}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Unknown resource template: test://static-text"},"id":31}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"id","value":"1"}},"id":32}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Unknown prompt: nope"},"id":32}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"id"}},"id":33}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"argument","rule":"required","message":"argument's name and value are required"}]},"id":33}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code"},"argument":{"name":"language","value":"fail"}},"id":34}
		<-- {"jsonrpc":"2.0","error":{"code":4002,"message":"no completions today"},"id":34}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":1},"id":35}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"ref","rule":"type","param":"object","message":"expected an object, got a number"}]},"id":35}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{},"id":36}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"ref","rule":"required","message":"ref is required"},{"field":"argument","rule":"required","message":"argument's name and value are required"}]},"id":36}`, nil)
}

// The same in 2026-07-28, where every result carries resultType and the
// server's identity, lists and resources/read ttlMs and cacheScope; a URI
// nothing serves is -32602 (the 2026-07-28 rule, SEP-2164); subscribe and
// unsubscribe are gone (subscriptions/listen instead); a missing required
// prompt argument is -32602. Then 2025-03-26, before titles: none in the
// lists, and a resource link a text block of its URI.
func TestFeaturesModern(t *testing.T) {
	wiretest.Serve(t, newFeatures(t).Handler(), `
		--> {"jsonrpc":"2.0","method":"server/discover","params":{`+modernMeta+`},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":1}
		--> {"jsonrpc":"2.0","method":"resources/list","params":{`+modernMeta+`},"id":2}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","resources":[{"uri":"test://broken","name":"broken"},{"uri":"test://static-binary","name":"static-binary","mimeType":"image/png"}],"nextCursor":"dGVzdDovL3N0YXRpYy1iaW5hcnk","ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":2}
		--> {"jsonrpc":"2.0","method":"resources/list","params":{"cursor":"dGVzdDovL3N0YXRpYy1iaW5hcnk",`+modernMeta+`},"id":3}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","resources":[{"uri":"test://static-text","name":"static-text","title":"Static text","description":"Some text.","mimeType":"text/plain","size":5}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":3}
		--> {"jsonrpc":"2.0","method":"resources/templates/list","params":{"cursor":1,`+modernMeta+`},"id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid cursor"},"id":4}
		--> {"jsonrpc":"2.0","method":"resources/templates/list","params":{`+modernMeta+`},"id":5}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","resourceTemplates":[{"uriTemplate":"file:///{+path}","name":"files"},{"uriTemplate":"test://template/{id}/data","name":"template","title":"Data","mimeType":"application/json"}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":5}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://static-text",`+modernMeta+`},"id":6}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"hello"}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":6}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://nope",`+modernMeta+`},"id":7}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Resource not found","data":{"uri":"test://nope"}},"id":7}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://template/none/data",`+modernMeta+`},"id":8}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Resource not found","data":{"uri":"test://template/none/data"}},"id":8}
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://static-text",`+modernMeta+`},"id":9}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":9}
		--> {"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":"test://static-text",`+modernMeta+`},"id":10}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":10}
		--> {"jsonrpc":"2.0","method":"prompts/list","params":{`+modernMeta+`},"id":11}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","prompts":[{"name":"code","title":"Code","description":"Writes code.","arguments":[{"name":"language","description":"the language","required":true},{"name":"style"}]},{"name":"simple"}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":11}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"style":"a"},`+modernMeta+`},"id":12}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"language","rule":"required","message":"language is required"}]},"id":12}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"simple",`+modernMeta+`},"id":13}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"simple"}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":13}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"nope",`+modernMeta+`},"id":14}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Unknown prompt: nope"},"id":14}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code"},"argument":{"name":"language","value":"g"},`+modernMeta+`},"id":15}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","completion":{"values":["code||language|g|map[]"],"total":1,"hasMore":false},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}},"id":15}
		--> {"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":16}
		<-- {"jsonrpc":"2.0","result":{"protocolVersion":"2025-03-26","capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":16}
		--> {"jsonrpc":"2.0","method":"resources/list","params":{"cursor":"dGVzdDovL3N0YXRpYy1iaW5hcnk"},"id":17}
		<-- {"jsonrpc":"2.0","result":{"resources":[{"uri":"test://static-text","name":"static-text","description":"Some text.","mimeType":"text/plain","size":5}]},"id":17}
		--> {"jsonrpc":"2.0","method":"resources/templates/list","id":18}
		<-- {"jsonrpc":"2.0","result":{"resourceTemplates":[{"uriTemplate":"file:///{+path}","name":"files"},{"uriTemplate":"test://template/{id}/data","name":"template","mimeType":"application/json"}]},"id":18}
		--> {"jsonrpc":"2.0","method":"prompts/list","id":19}
		<-- {"jsonrpc":"2.0","result":{"prompts":[{"name":"code","description":"Writes code.","arguments":[{"name":"language","description":"the language","required":true},{"name":"style"}]},{"name":"simple"}]},"id":19}
		--> {"jsonrpc":"2.0","method":"prompts/get","params":{"name":"code","arguments":{"language":"go"}},"id":20}
		<-- {"jsonrpc":"2.0","result":{"description":"code in go","messages":[{"role":"assistant","content":{"type":"text","text":"I write go"}},{"role":"user","content":{"type":"text","text":"test://static-text"}},{"role":"user","content":{"type":"audio","data":"CQ==","mimeType":"audio/wav"}}]},"id":20}`, nil)
}

// pipeLines returns a function that writes a request (none for "") on p
// and reads the next line the server writes.
func pipeLines(t *testing.T, p *wiretest.Pipe) func(req string) string {
	return func(req string) string {
		t.Helper()
		if req != "" {
			require.NoError(t, p.Write([]byte(req+"\n")))
		}
		l, err := p.ReadLine()
		require.NoError(t, err)
		return strings.TrimSuffix(string(l), "\n")
	}
}

const legacyInit = `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":0}`

// more is a prompt value registered while serving.
type more struct{}

func (more) Another() string { return "another" }

// A legacy session is told of updates to the resources it subscribed to,
// and to those alone, until it unsubscribes; of resources and templates
// added and removed (notifications/resources/list_changed), of prompts
// registered and removed (notifications/prompts/list_changed). A removal
// of nothing tells nothing.
func TestResourceSubscriptions(t *testing.T) {
	s := newFeatures(t)
	p := wiretest.NewPipe(s.Handler(), nil)
	line := pipeLines(t, p)
	updated := func(uri string) string {
		return `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + uri + `"}}`
	}
	assert.Contains(t, line(legacyInit), `"resources":{"subscribe":true,"listChanged":true}`)
	require.NoError(t, p.Write([]byte(initialized+"\n")))
	assert.Equal(t, `{"jsonrpc":"2.0","result":{},"id":1}`, line(`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://static-text"},"id":1}`))
	assert.Equal(t, `{"jsonrpc":"2.0","result":{},"id":2}`, line(`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://template/1/data"},"id":2}`))

	s.ResourceUpdated("test://other")
	s.ResourceUpdated("test://static-text")
	assert.Equal(t, updated("test://static-text"), line(""), "test://other is not told: the next line is static-text's")
	assert.Equal(t, `{"jsonrpc":"2.0","result":{},"id":3}`, line(`{"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":"test://static-text"},"id":3}`))
	s.ResourceUpdated("test://static-text")
	s.ResourceUpdated("test://template/1/data")
	assert.Equal(t, updated("test://template/1/data"), line(""))

	require.NoError(t, s.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("new")}))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`, line(""))
	assert.Equal(t, 0, s.RemoveResources("test://nothing"))
	assert.Equal(t, 2, s.RemoveResources("test://new", "file:///{+path}", "test://nothing"))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`, line(""))
	uris, templates := s.Resources()
	assert.Equal(t, []string{"test://broken", "test://static-binary", "test://static-text"}, uris)
	assert.Equal(t, []string{"test://template/{id}/data"}, templates)

	require.NoError(t, s.RegisterPrompts("more", more{}))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`, line(""))
	assert.Equal(t, []string{"code", "more.another", "simple"}, s.Prompts())
	assert.Equal(t, 0, s.RemovePrompts("nope"))
	assert.Equal(t, 1, s.RemovePrompts("more.another"))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`, line(""))
	assert.Equal(t, `{"jsonrpc":"2.0","result":{"prompts":[{"name":"code","title":"Code","description":"Writes code.","arguments":[{"name":"language","description":"the language","required":true},{"name":"style"}]},{"name":"simple"}]},"id":4}`,
		line(`{"jsonrpc":"2.0","method":"prompts/list","id":4}`))
	p.Close(t)
}

// A modern client listens (subscriptions/listen) for the lists it asks for
// and the resources it names: the acknowledgment says what the server
// honors, each notification carries the subscriptionId, updates of other
// resources and changes to lists it did not ask for are not sent.
func TestListenResources(t *testing.T) {
	s := newFeatures(t)
	p := wiretest.NewPipe(s.Handler(), nil)
	line := pipeLines(t, p)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"},"notifications":{"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://b","test://static-text"]}}}`,
		line(`{"jsonrpc":"2.0","method":"subscriptions/listen","params":{`+modernMeta+`,"notifications":{"toolsListChanged":false,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://static-text","test://b"]}},"id":"s"}`))
	assert.Equal(t, 1, mcp.Listeners(s))
	const meta = `"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}`

	s.ResourceUpdated("test://other")
	s.ResourceUpdated("test://static-text")
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{`+meta+`,"uri":"test://static-text"}}`, line(""))
	require.NoError(t, s.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("new")}))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{`+meta+`}}`, line(""))
	require.NoError(t, s.RegisterPrompts("more", more{}))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{`+meta+`}}`, line(""))
	require.NoError(t, s.Register("more", extra{}))
	s.ResourceUpdated("test://b")
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{`+meta+`,"uri":"test://b"}}`, line(""), "no tools list_changed before it")

	require.NoError(t, p.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}`+"\n")))
	assert.Equal(t, `{"jsonrpc":"2.0","result":{},"id":1}`, line(`{"jsonrpc":"2.0","method":"ping","id":1}`), "the cancelled listen gets no answer")
	p.Close(t)
	assert.Equal(t, 0, mcp.Listeners(s))
}

// What a peer sends about resources costs a bounded amount: a URI longer
// than MaxURI is refused before any template is matched; a session
// subscribes to at most MaxSubscriptions resources (subscribing again to
// one of them is fine); a listen names at most MaxSubscriptions.
func TestResourceBounds(t *testing.T) {
	s := newFeatures(t)
	long := "test://template/" + strings.Repeat("a", mcp.MaxURI) + "/data"
	var tr strings.Builder
	tr.WriteString("--> " + legacyInit + "\n<-- IGNORED\n")
	for i := range mcp.MaxSubscriptions {
		fmt.Fprintf(&tr, `--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://%d"},"id":%d}`+"\n", i, i+1)
		fmt.Fprintf(&tr, `<-- {"jsonrpc":"2.0","result":{},"id":%d}`+"\n", i+1)
	}
	in, want := wiretest.Split(tr.String() + `
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://more"},"id":"a"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"max","param":"1000","message":"a session subscribes to at most 1000 resources: unsubscribe from one first"}]},"id":"a"}
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://7"},"id":"b"}
		<-- {"jsonrpc":"2.0","result":{},"id":"b"}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"` + long + `"},"id":"c"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"max","param":"8192","message":"uri must be at most 8192 bytes long"}]},"id":"c"}
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"` + long + `"},"id":"d"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"max","param":"8192","message":"uri must be at most 8192 bytes long"}]},"id":"d"}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + modernMeta + `,"notifications":{"resourceSubscriptions":["` + long + `"]}},"id":"e"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"notifications.resourceSubscriptions","rule":"max","param":"1000","message":"notifications.resourceSubscriptions must hold at most 1000 URIs of at most 8192 bytes"}]},"id":"e"}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + modernMeta + `,"notifications":{"resourceSubscriptions":[` + strings.Repeat(`"x",`, mcp.MaxSubscriptions) + `"x"]}},"id":"f"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"notifications.resourceSubscriptions","rule":"max","param":"1000","message":"notifications.resourceSubscriptions must hold at most 1000 URIs of at most 8192 bytes"}]},"id":"f"}`)
	var out strings.Builder
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, s.Handler(), &rpc.Options{Sequential: true, Logger: wiretest.Quiet()}))
	got := wiretest.Lines(t, out.String())
	require.Len(t, got, len(want))
	assert.Equal(t, want[1:], got[1:])
}

// AddResources and RegisterPrompts check everything before adding
// anything, and say what is wrong.
func TestFeatureRegistration(t *testing.T) {
	ok := mcp.Resource{URI: "test://a", Name: "a", Read: read("a")}
	for _, tc := range []struct {
		r    mcp.Resource
		want string
	}{
		{mcp.Resource{Name: "x", Read: read("")}, `mcp: resource "x": exactly one of URI and Template must be set`},
		{mcp.Resource{URI: "a", Template: "b", Name: "x", Read: read("")}, `mcp: resource "x": exactly one of URI and Template must be set`},
		{mcp.Resource{URI: "test://b", Read: read("")}, `mcp: resource "test://b" has no name`},
		{mcp.Resource{URI: "test://b", Name: "b"}, `mcp: resource "test://b" has no Read`},
		{mcp.Resource{URI: strings.Repeat("a", mcp.MaxURI+1), Name: "b", Read: read("")}, `mcp: resource "` + strings.Repeat("a", 64) + `…(8193 bytes)" is longer than MaxURI (8192 bytes)`},
		{mcp.Resource{URI: "test://a", Name: "a", Read: read("")}, `mcp: resource "test://a" is added twice`},
		{mcp.Resource{Template: "x://{a}/{a}", Name: "t", Read: read("")}, `mcp: resource template "x://{a}/{a}": variable a is used twice`},
		{mcp.Resource{Template: "x://{a", Name: "t", Read: read("")}, `mcp: resource template "x://{a": a { without its }`},
		{mcp.Resource{Template: "x://a}", Name: "t", Read: read("")}, `mcp: resource template "x://a}": a } without its {`},
		{mcp.Resource{Template: "x://%7{v}", Name: "t", Read: read("")}, `mcp: resource template "x://%7{v}": a % in its literal text is not followed by two hexadecimal digits`},
		{mcp.Resource{Template: "x://%zz/{v}", Name: "t", Read: read("")}, `mcp: resource template "x://%zz/{v}": a % in its literal text is not followed by two hexadecimal digits`},
		{mcp.Resource{Template: "x://{a,b}", Name: "t", Read: read("")}, `mcp: resource template "x://{a,b}": {a,b} is not a variable of RFC 6570 level 1 or 2 ({name} or {+name}, the name of A-Z, a-z, 0-9, _ and .)`},
		{mcp.Resource{Template: "x://{}", Name: "t", Read: read("")}, `mcp: resource template "x://{}": {} is not a variable of RFC 6570 level 1 or 2 ({name} or {+name}, the name of A-Z, a-z, 0-9, _ and .)`},
		{mcp.Resource{Template: "x://{#frag}", Name: "t", Read: read("")}, `mcp: resource template "x://{#frag}": {#frag} is not a variable of RFC 6570 level 1 or 2 ({name} or {+name}, the name of A-Z, a-z, 0-9, _ and .)`},
	} {
		s := mcp.New(nil)
		require.NoError(t, s.AddResources(ok))
		assert.EqualError(t, s.AddResources(mcp.Resource{URI: "test://fine", Name: "f", Read: read("")}, tc.r), tc.want)
		uris, _ := s.Resources()
		assert.Equal(t, []string{"test://a"}, uris, "nothing added")
	}

	for _, tc := range []struct {
		value any
		want  string
	}{
		{badPromptArgs{}, `mcp: prompt count: argument n is of JSON type [integer]: a prompt's arguments are strings`},
		{badPromptResult{}, `mcp: prompt number: it must return a string, a PromptResult or a *PromptResult (and an error, or not)`},
		{badPromptMap{}, `mcp: prompt tags: its arguments must be one struct of string fields, or none`},
		{badPromptPositional{}, `mcp: prompt two: its arguments must be one struct of string fields, or none`},
		{fixturePrompts{}, `mcp: prompt "code" is registered twice`},
	} {
		s := mcp.New(nil)
		require.NoError(t, s.RegisterPrompts("", fixturePrompts{}))
		assert.EqualError(t, s.RegisterPrompts("", tc.value), tc.want)
		assert.Equal(t, []string{"code", "simple"}, s.Prompts())
	}
}

type badPromptArgs struct{}

func (badPromptArgs) Count(struct {
	N int `json:"n"`
}) string {
	return ""
}

type badPromptResult struct{}

func (badPromptResult) Number() int { return 1 }

type badPromptMap struct{}

func (badPromptMap) Tags(map[string]string) string { return "" }

type badPromptPositional struct{}

func (badPromptPositional) Two(a, b string) string { return a + b }

// ExpandURI encodes as RFC 6570 says, and what it makes matches its
// template back: the read gets the values it was given.
func TestExpandURI(t *testing.T) {
	for _, tc := range []struct {
		template string
		vars     map[string]string
		want     string
	}{
		{"test://template/{id}/data", map[string]string{"id": "123"}, "test://template/123/data"},
		{"test://template/{id}/data", map[string]string{"id": "a b/c?é"}, "test://template/a%20b%2Fc%3F%C3%A9/data"},
		{"test://template/{id}/data", nil, "test://template//data"},
		{"file:///{+path}", map[string]string{"path": "a b/c?x=1#f%41%zz"}, "file:///a%20b/c?x=1#f%41%25zz"},
		{"x://{a}{b.c}", map[string]string{"a": "-._~", "b.c": "!"}, "x://-._~%21"},
	} {
		got, err := mcp.ExpandURI(tc.template, tc.vars)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}

	s := mcp.New(nil)
	require.NoError(t, s.AddResources(mcp.Resource{Template: "test://template/{id}/data", Name: "t",
		Read: func(_ context.Context, _ string, vars map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: vars["id"]}}, nil
		}}))
	uri, err := mcp.ExpandURI("test://template/{id}/data", map[string]string{"id": "a b/c?é"})
	require.NoError(t, err)
	wiretest.Serve(t, s.Handler(), `
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"`+uri+`",`+modernMeta+`},"id":1}
		<-- {"jsonrpc":"2.0","result":{"resultType":"complete","contents":[{"uri":"test://template/a%20b%2Fc%3F%C3%A9/data","text":"a b/c?é"}],"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp.test","version":"(devel)"}}},"id":1}
		--> {"jsonrpc":"2.0","method":"resources/read","params":{"uri":"test://template/%zz/data",`+modernMeta+`},"id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Resource not found","data":{"uri":"test://template/%zz/data"}},"id":2}`, nil)
}

// A server of resources alone, or prompts alone, is served; one of
// nothing is not.
func TestServeFeaturesAlone(t *testing.T) {
	s := mcp.New(nil)
	assert.EqualError(t, s.Serve(context.Background(), strings.NewReader(""), io.Discard, nil), "mcp: nothing to serve: no tool, no resource, no prompt")
	require.NoError(t, s.AddResources(mcp.Resource{URI: "test://a", Name: "a", Read: read("a")}))
	assert.NoError(t, s.Serve(context.Background(), strings.NewReader(""), io.Discard, nil))
	s = mcp.New(nil)
	require.NoError(t, s.RegisterPrompts("", more{}))
	assert.NoError(t, s.Serve(context.Background(), strings.NewReader(""), io.Discard, nil))
}

// FuzzExpandURI: what ExpandURI makes of a value matches its template
// back, and the read gets the value, for a level 1 variable ({v}) between
// any literals; no URI read panics or is answered InternalError.
func FuzzExpandURI(f *testing.F) {
	for _, seed := range [][2]string{{"x://", "a b"}, {"test://template/", "é/?#%zz"}, {"", ""}, {"a{", "x"}, {"%41", "%41"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, prefix, value string) {
		if !utf8.ValidString(prefix) || !utf8.ValidString(value) {
			return // JSON carries no such URI
		}
		template := prefix + "{v}/end"
		uri, err := mcp.ExpandURI(template, map[string]string{"v": value})
		if err != nil {
			return // prefix holds a brace: not a template
		}
		s := mcp.New(nil)
		require.NoError(t, s.AddResources(mcp.Resource{Template: template, Name: "t",
			Read: func(_ context.Context, _ string, vars map[string]string) ([]mcp.ResourceContents, error) {
				if vars["v"] != value {
					t.Errorf("read %q, want %q", vars["v"], value)
				}
				return nil, nil
			}}))
		req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read",
			"params": map[string]any{"uri": uri, "_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": mcp.Latest, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}})
		require.NoError(t, err)
		var out strings.Builder
		require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(string(req)+"\n"), &out, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()}))
		if len(uri) <= mcp.MaxURI && !strings.Contains(out.String(), `"contents":[]`) {
			t.Fatalf("%q (%q) read as %s", uri, value, out.String())
		}
	})
}

// Over Streamable HTTP, in 2026-07-28, resources/read's Mcp-Name is its
// uri, prompts/get's its name; the other methods of the features are
// served; a legacy session reads and subscribes as on a stream.
func TestFeaturesHTTP(t *testing.T) {
	s := newFeatures(t)
	h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		_ = h.Close()
	})
	const serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"kit","version":"1.0.0"}}`
	read := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://static-text",` + modernMeta + `}}`
	get := `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"simple",` + modernMeta + `}}`
	for _, x := range []exchange{
		{body: read, header: modernHeaders("resources/read", "test://static-text"), status: 200,
			want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"hello"}],"ttlMs":0,"cacheScope":"public",` + serverInfo + `},"id":1}`)},
		{body: read, header: modernHeaders("resources/read", "test://static-binary"), status: 400,
			want: refusal(-32020, `Header mismatch: Mcp-Name header value "test://static-binary" does not match body value params.uri`, "", "1")},
		{body: get, header: modernHeaders("prompts/get", "simple"), status: 200,
			want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"simple"}}],` + serverInfo + `},"id":2}`)},
		{body: `{"jsonrpc":"2.0","id":3,"method":"resources/templates/list","params":{` + modernMeta + `}}`, header: modernHeaders("resources/templates/list", ""), status: 200,
			want: streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","resourceTemplates":[{"uriTemplate":"file:///{+path}","name":"files"},{"uriTemplate":"test://template/{id}/data","name":"template","title":"Data","mimeType":"application/json"}],"ttlMs":0,"cacheScope":"public",` + serverInfo + `},"id":3}`)},
		{body: `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"test://static-text",` + modernMeta + `}}`, header: modernHeaders("resources/subscribe", ""), status: 404,
			want: refusal(-32601, "Method not found", "", "4")},
	} {
		check(t, srv.URL, x)
	}

	resp := check(t, srv.URL, exchange{body: initBody, status: 200,
		want: `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}` + "\n"})
	sid := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id")}
	check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://static-text"}}`, header: sid, status: 200,
		want: answered(1, `{"jsonrpc":"2.0","result":{},"id":2}`)})
	check(t, srv.URL, exchange{body: `{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"7"}}}`, header: sid, status: 200,
		want: answered(2, `{"jsonrpc":"2.0","result":{"completion":{"values":["|test://template/{id}/data|id|7|map[]"],"total":1,"hasMore":false}},"id":3}`)})
}

// A legacy session whose client stops reading costs one goroutine, and is
// owed at most one notification per list (resources, prompts) and per
// resource it subscribed to, however many changes and updates come (what
// it is owed when its connection ends is dropped).
func TestAttackFeaturesStalled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := stalledFeatures(t)
		c.Send(t, legacyInit)
		synctest.Wait()
		// 4 MiB to write, more than the writer queues (codec.DefaultMaxPending):
		// every line after it waits for the client to read.
		c.Send(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fill"},"id":9}`)
		synctest.Wait()
		for i, uri := range []string{"test://a", "test://b", "test://c"} {
			c.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":%q},"id":%d}`, uri, i+1))
		}
		synctest.Wait()
		before := runtime.NumGoroutine()
		storm(t, s, false)
		synctest.Wait()
		assert.LessOrEqual(t, runtime.NumGoroutine()-before, 1, "one goroutine tells the session, however many changes")
		lines, err := c.Drain(t)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(lines), 5)
		assert.Equal(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"<4 MiB>"}]},"id":9}`, lines[1])
		told := map[string]int{}
		for _, l := range lines[2:] {
			if strings.Contains(l, `"method":"notifications/`) {
				told[l]++
			}
		}
		for l, n := range told {
			assert.LessOrEqual(t, n, 2, "at most the notification waiting and the one owed: %s", l)
		}
		assert.LessOrEqual(t, len(told), 5, "two lists, three resources")
		assert.NotContains(t, told, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://d"}}`)
	})
}

// What a session subscribes to is bounded in bytes too, all its URIs
// together (MaxSubscriptionBytes), and so is a listen's
// resourceSubscriptions (issue 23, defect 9: 1,000 URIs of 8 KiB in each
// of 128 sessions held 865 MB).
func TestSubscriptionBytesBound(t *testing.T) {
	s := newFeatures(t)
	uri := func(i int) string {
		return fmt.Sprintf("test://%d/%s", i, strings.Repeat("u", 8000-len(fmt.Sprintf("test://%d/", i))))
	}
	fits := mcp.MaxSubscriptionBytes / 8000
	var tr strings.Builder
	tr.WriteString("--> " + legacyInit + "\n<-- IGNORED\n")
	for i := range fits {
		fmt.Fprintf(&tr, `--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":%q},"id":%d}`+"\n", uri(i), i+1)
		fmt.Fprintf(&tr, `<-- {"jsonrpc":"2.0","result":{},"id":%d}`+"\n", i+1)
	}
	var listed []string
	for i := range fits + 1 {
		listed = append(listed, fmt.Sprintf("%q", uri(i)))
	}
	in, want := wiretest.Split(tr.String() + `
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"` + uri(fits) + `"},"id":"a"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"max","param":"65536","message":"a session subscribes to at most 65536 bytes of URIs: unsubscribe from one first"}]},"id":"a"}
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"` + uri(0) + `"},"id":"b"}
		<-- {"jsonrpc":"2.0","result":{},"id":"b"}
		--> {"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":"` + uri(0) + `"},"id":"c"}
		<-- {"jsonrpc":"2.0","result":{},"id":"c"}
		--> {"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"` + uri(fits) + `"},"id":"d"}
		<-- {"jsonrpc":"2.0","result":{},"id":"d"}
		--> {"jsonrpc":"2.0","method":"subscriptions/listen","params":{` + modernMeta + `,"notifications":{"resourceSubscriptions":[` + strings.Join(listed, ",") + `]}},"id":"e"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"notifications.resourceSubscriptions","rule":"max","param":"65536","message":"notifications.resourceSubscriptions must hold at most 65536 bytes of URIs"}]},"id":"e"}`)
	var out strings.Builder
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, s.Handler(), &rpc.Options{Sequential: true, Logger: wiretest.Quiet()}))
	got := wiretest.Lines(t, out.String())
	require.Len(t, got, len(want))
	assert.Equal(t, want[1:], got[1:])
}
