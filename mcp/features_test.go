package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

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

// newFeatures returns a Server of a tool, the fixture resources, prompts
// and completion, two to a page.
func newFeatures(t testing.TB) *mcp.Server {
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0", PageSize: 2})
	require.NoError(t, s.Register("", extra{}))
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
	return s
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
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"style","rule":"type","param":"string","message":"expected a string, got a number"}]},"id":23}
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
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"","rule":"type","param":"CompleteRequest","message":"params must be a completion request: ref {type, name or uri}, argument {name, value}, context {arguments: an object of strings}"}]},"id":35}
		--> {"jsonrpc":"2.0","method":"completion/complete","params":{},"id":36}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"ref","rule":"required","message":"ref is required"},{"field":"argument","rule":"required","message":"argument's name and value are required"}]},"id":36}`, nil)
}

// The same in 2026-07-28, where every result carries resultType and the
// server's identity, lists and resources/read ttlMs and cacheScope; a URI
// nothing serves is -32602 (the 2026-07-28 rule, SEP-2164); subscribe and
// unsubscribe are gone (subscriptions/listen instead); a missing required
// prompt argument is -32602. Then 2025-03-26, before titles: none in the
// lists.
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
		<-- {"jsonrpc":"2.0","result":{"description":"code in go","messages":[{"role":"assistant","content":{"type":"text","text":"I write go"}},{"role":"user","content":{"type":"resource_link","uri":"test://static-text","name":"static-text","title":"T"}},{"role":"user","content":{"type":"audio","data":"CQ==","mimeType":"audio/wav"}}]},"id":20}`, nil)
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
