package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// exampleServe serves s on one connection, a legacy session of
// 2025-11-25 that sends requests (after its initialize) and prints what
// the server writes, but the initialize result.
func exampleServe(s *mcp.Server, requests ...string) {
	in := `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":0}` + "\n"
	for i, r := range requests {
		in += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, i+1, r) + "\n"
	}
	var out strings.Builder
	if err := rpc.Serve(context.Background(), strings.NewReader(in), &out, s.Handler(), &rpc.Options{Sequential: true}); err != nil {
		fmt.Println(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		fmt.Println(line)
	}
}

// png is the bytes of an image, for the examples.
var png = []byte("\x89PNG\r\n\x1a\n")

// Resources: a static text one, a static binary one, a template whose
// variable the read gets, and one the server tells subscribers of when it
// changes (ResourceUpdated).
func ExampleServer_AddResources() {
	s := mcp.New(&mcp.Options{Name: "fixtures", Version: "1.0.0"})
	err := s.AddResources(
		mcp.Resource{URI: "test://static-text", Name: "static-text", MIMEType: "text/plain",
			Read: func(ctx context.Context, uri string, _ map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Text: "This is the content of the static text resource."}}, nil
			}},
		mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png",
			Read: func(ctx context.Context, uri string, _ map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Blob: png}}, nil
			}},
		mcp.Resource{Template: "test://template/{id}/data", Name: "template", MIMEType: "application/json",
			Read: func(ctx context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Text: fmt.Sprintf(`{"id":%q,"templateTest":true}`, vars["id"])}}, nil
			}},
		mcp.Resource{URI: "test://watched-resource", Name: "watched", MIMEType: "text/plain",
			Read: func(ctx context.Context, uri string, _ map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Text: "watched"}}, nil
			}},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	exampleServe(s,
		`"method":"resources/list"`,
		`"method":"resources/templates/list"`,
		`"method":"resources/read","params":{"uri":"test://static-binary"}`,
		`"method":"resources/read","params":{"uri":"test://template/123/data"}`,
		`"method":"resources/read","params":{"uri":"test://nothing"}`,
		`"method":"resources/subscribe","params":{"uri":"test://watched-resource"}`)
	// Output:
	// {"jsonrpc":"2.0","result":{"resources":[{"uri":"test://static-binary","name":"static-binary","mimeType":"image/png"},{"uri":"test://static-text","name":"static-text","mimeType":"text/plain"},{"uri":"test://watched-resource","name":"watched","mimeType":"text/plain"}]},"id":1}
	// {"jsonrpc":"2.0","result":{"resourceTemplates":[{"uriTemplate":"test://template/{id}/data","name":"template","mimeType":"application/json"}]},"id":2}
	// {"jsonrpc":"2.0","result":{"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"iVBORw0KGgo="}]},"id":3}
	// {"jsonrpc":"2.0","result":{"contents":[{"uri":"test://template/123/data","mimeType":"application/json","text":"{\"id\":\"123\",\"templateTest\":true}"}]},"id":4}
	// {"jsonrpc":"2.0","error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://nothing"}},"id":5}
	// {"jsonrpc":"2.0","result":{},"id":6}
}

// Prompts is a value whose methods are prompts.
type Prompts struct{}

// ArgsParams are test_prompt_with_arguments' arguments.
type ArgsParams struct {
	Arg1 string `json:"arg1" validate:"required" jsonschema:"First test argument"`
	Arg2 string `json:"arg2" validate:"required" jsonschema:"Second test argument"`
}

// EmbedParams are test_prompt_with_embedded_resource's arguments.
type EmbedParams struct {
	ResourceURI string `json:"resourceUri" validate:"required" jsonschema:"URI of the resource to embed"`
}

// TestSimplePrompt is a prompt of one user text message.
func (Prompts) TestSimplePrompt() string { return "This is a simple prompt for testing." }

// TestPromptWithArguments uses its arguments.
func (Prompts) TestPromptWithArguments(a ArgsParams) string {
	return fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a.Arg1, a.Arg2)
}

// TestPromptWithEmbeddedResource embeds a resource.
func (Prompts) TestPromptWithEmbeddedResource(a EmbedParams) *mcp.PromptResult {
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{
		{Content: mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: a.ResourceURI, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
		{Content: mcp.TextContent{Text: "Please process the embedded resource above."}},
	}}
}

// TestPromptWithImage shows an image.
func (Prompts) TestPromptWithImage() *mcp.PromptResult {
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{
		{Content: mcp.ImageContent{Data: png, MIMEType: "image/png"}},
		{Content: mcp.TextContent{Text: "Please analyze the image above."}},
	}}
}

func (Prompts) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{"TestSimplePrompt": {Description: "A simple prompt without arguments"}}
}

// Prompts are methods, named as tools are (here in snake_case), their
// arguments the fields of a struct of strings; a missing required one is
// -32602.
func ExampleServer_RegisterPrompts() {
	s := mcp.New(&mcp.Options{Name: "fixtures", Version: "1.0.0", Service: service.Options{Names: service.SnakeCase}})
	if err := s.RegisterPrompts("", Prompts{}); err != nil {
		fmt.Println(err)
		return
	}
	exampleServe(s,
		`"method":"prompts/list"`,
		`"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"hello","arg2":"world"}}`,
		`"method":"prompts/get","params":{"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example"}}`,
		`"method":"prompts/get","params":{"name":"test_prompt_with_image"}`,
		`"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"hello"}}`)
	// Output:
	// {"jsonrpc":"2.0","result":{"prompts":[{"name":"test_prompt_with_arguments","arguments":[{"name":"arg1","description":"First test argument","required":true},{"name":"arg2","description":"Second test argument","required":true}]},{"name":"test_prompt_with_embedded_resource","arguments":[{"name":"resourceUri","description":"URI of the resource to embed","required":true}]},{"name":"test_prompt_with_image"},{"name":"test_simple_prompt","description":"A simple prompt without arguments"}]},"id":1}
	// {"jsonrpc":"2.0","result":{"messages":[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='hello', arg2='world'"}}]},"id":2}
	// {"jsonrpc":"2.0","result":{"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"test://example","mimeType":"text/plain","text":"Embedded resource content for testing."}}},{"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}]},"id":3}
	// {"jsonrpc":"2.0","result":{"messages":[{"role":"user","content":{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}},{"role":"user","content":{"type":"text","text":"Please analyze the image above."}}]},"id":4}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"arg2","rule":"required","message":"arg2 is required"}]},"id":5}
}

// Completion is one function for every prompt argument and template
// variable; the server checks that the reference and the argument exist.
func ExampleServer_SetCompletion() {
	s := mcp.New(&mcp.Options{Name: "fixtures", Version: "1.0.0", Service: service.Options{Names: service.SnakeCase}})
	if err := s.RegisterPrompts("", Prompts{}); err != nil {
		fmt.Println(err)
		return
	}
	s.SetCompletion(func(ctx context.Context, req mcp.CompleteRequest) ([]string, error) {
		var out []string
		for _, v := range []string{"paris", "park", "rome"} {
			if strings.HasPrefix(v, req.Value) {
				out = append(out, v)
			}
		}
		return out, nil
	})
	exampleServe(s,
		`"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"par"}}`,
		`"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg9","value":""}}`)
	// Output:
	// {"jsonrpc":"2.0","result":{"completion":{"values":["paris","park"],"total":2,"hasMore":false}},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"argument.name","rule":"oneof","param":"arg1 arg2","message":"argument arg9 is not one of the reference's"}]},"id":2}
}

func ExampleExpandURI() {
	uri, err := mcp.ExpandURI("file:///{+path}{?}", map[string]string{"path": "a b/c"})
	fmt.Println(uri, err)
	uri, err = mcp.ExpandURI("test://template/{id}/data", map[string]string{"id": "a/b"})
	fmt.Println(uri, err)
	// Output:
	// mcp: resource template "file:///{+path}{?}": {?} is not a variable of RFC 6570 level 1 or 2 ({name} or {+name}, the name of A-Z, a-z, 0-9, _ and .)
	// test://template/a%2Fb/data <nil>
}

// Media is a tool that returns content of several kinds.
type Media struct{}

// Media returns audio, an embedded resource and a link to one.
func (Media) Media() *mcp.ToolResult {
	return &mcp.ToolResult{Content: []mcp.Content{
		mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
		mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: "hi"}},
		mcp.ResourceLink{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png"},
	}}
}

// A tool's result holds images, audio, embedded resources and links to
// resources, without JSON built by hand.
func ExampleToolResult() {
	s := mcp.New(&mcp.Options{Name: "fixtures", Version: "1.0.0"})
	if err := s.Register("", Media{}); err != nil {
		fmt.Println(err)
		return
	}
	exampleServe(s, `"method":"tools/call","params":{"name":"media"}`)
	// Output:
	// {"jsonrpc":"2.0","result":{"content":[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},{"type":"resource","resource":{"uri":"test://static-text","mimeType":"text/plain","text":"hi"}},{"type":"resource_link","uri":"test://static-binary","name":"static-binary","mimeType":"image/png"}]},"id":1}
}

// A tool that asks several things at once (ElicitRequest) reads each
// answer with InputResponse, and checks it against its form with Check,
// as Elicit does itself.
func ExampleElicitParams_Check() {
	form := &mcp.ElicitParams{
		Message:  "Which size?",
		Fields:   []mcp.Field{mcp.EnumField{Name: "size", Values: []string{"S", "M", "L"}}},
		Required: []string{"size"},
	}
	for _, content := range []string{`{"size":"M"}`, `{"size":"XL"}`} {
		res := &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(content)}
		fmt.Println(form.Check(res))
	}
	// Output:
	// <nil>
	// mcp: the answer does not fit the form: field "size" must be one of its values
}
