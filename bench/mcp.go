package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"strconv"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/examples/mcp/tools"
	toolmcp "github.com/toolrpc/toolrpc/mcp"
)

// The MCP contestants: servers of the tools add ({a, b} numbers, both
// required; the text of their sum) and echo ({text} string, required; the
// text itself), over the same pipes as the JSON-RPC contestants, driven by
// the same driver. Each answers tools/call with a result whose first
// content block is {"type":"text","text":...}.

var mcpContestants = []*contestant{
	{name: "toolrpc-mcp", mcp: true, serve: serveToolrpcMCP},
	{name: "toolrpc-mcp-modern", mcp: true, modern: true, serve: serveToolrpcMCP},
	{name: "mcp-go", mcp: true, serve: serveMCPGo},
	{name: "go-sdk", mcp: true, serve: serveGoSDK},
	{name: "floor-mcp", mcp: true, serve: func(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
		return goWait(func() { floorMCP(r, w) })
	}},
}

func init() { contestants = append(contestants, mcpContestants...) }

// --- toolrpc: package mcp ----------------------------------------------------

// MCPEcho is the echo tool, beside the example server's tools (add, count,
// sleep, stats: examples/mcp/tools), registered as they are.
type MCPEcho struct{}

// EchoToolParams are echo's arguments.
type EchoToolParams struct {
	Text string `json:"text" validate:"required" jsonschema:"the text to echo"`
}

// Echo returns the text.
func (MCPEcho) Echo(p EchoToolParams) string { return p.Text }

// serveToolrpcMCP serves the example server's tools and echo with package
// mcp as mcp.Main does (mcp.New, Register, Serve; here on the pipes, not
// stdin and stdout), its connection logging as our JSON-RPC contestant's
// does (quietLogger), and 128 MiB frames.
func serveToolrpcMCP(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	s := toolmcp.New(&toolmcp.Options{Name: "bench", Version: "1.0.0"})
	for _, v := range []any{tools.Tools{}, MCPEcho{}} {
		if err := s.Register("", v); err != nil {
			panic(err)
		}
	}
	return goWait(func() { _ = s.Serve(context.Background(), r, w, toolrpcOptions()) })
}

// --- github.com/mark3labs/mcp-go ---------------------------------------------

// mcpgoAdd and mcpgoEcho are the arguments of mcp-go's typed handlers.
type mcpgoAdd struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type mcpgoEcho struct {
	Text string `json:"text"`
}

// serveMCPGo serves add and echo with mcp-go's MCPServer (tools declared
// with NewTool, required numbers and string; typed handlers that bind the
// arguments) and its stdio server's Listen on the pipes, its error log
// discarded. Input validation against the schema is off, mcp-go's default
// (WithInputSchemaValidation turns it on).
func serveMCPGo(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	s := mcpgoserver.NewMCPServer("bench", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("add", mcpgo.WithDescription("Adds two numbers, a and b, and returns their sum."),
		mcpgo.WithNumber("a", mcpgo.Required(), mcpgo.Description("the first addend")),
		mcpgo.WithNumber("b", mcpgo.Required(), mcpgo.Description("the second addend"))),
		mcpgo.NewTypedToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, p mcpgoAdd) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strconv.FormatFloat(p.A+p.B, 'g', -1, 64)), nil
		}))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("Returns the text."),
		mcpgo.WithString("text", mcpgo.Required(), mcpgo.Description("the text to echo"))),
		mcpgo.NewTypedToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, p mcpgoEcho) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(p.Text), nil
		}))
	stdio := mcpgoserver.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(io.Discard, "", 0))
	return goWait(func() { _ = stdio.Listen(context.Background(), r, w) })
}

// --- github.com/modelcontextprotocol/go-sdk ----------------------------------

// sdkAdd and sdkEcho are the In types of the Go SDK's typed tools: their
// schemas are inferred (members without omitempty are required) and the
// arguments validated against them.
type sdkAdd struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type sdkEcho struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// serveGoSDK serves add and echo with the official Go SDK: NewServer,
// AddTool with typed handlers (Out any: no outputSchema), and Run over an
// IOTransport on the pipes (what StdioTransport is on stdin and stdout),
// its line limit raised from 16 MiB to 128 MiB as ours is.
func serveGoSDK(r io.ReadCloser, w io.WriteCloser, _ []byte) func() {
	srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1.0.0"},
		&sdk.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	sdk.AddTool(srv, &sdk.Tool{Name: "add", Description: "Adds two numbers, a and b, and returns their sum."},
		func(_ context.Context, _ *sdk.CallToolRequest, p sdkAdd) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.FormatFloat(p.A+p.B, 'g', -1, 64)}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Returns the text."},
		func(_ context.Context, _ *sdk.CallToolRequest, p sdkEcho) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: p.Text}}}, nil, nil
		})
	t := &sdk.IOTransport{Reader: r, Writer: w, MaxLineLength: maxLine}
	return goWait(func() { _ = srv.Run(context.Background(), t) })
}

// --- floor-mcp: a hand-written stdlib MCP loop --------------------------------

// floorMCPVersions are the legacy revisions floor-mcp negotiates.
var floorMCPVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// floorMCPTools is floor-mcp's tools/list answer, written once.
var floorMCPTools = json.RawMessage(`{"tools":[` +
	`{"name":"add","description":"Adds two numbers, a and b, and returns their sum.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}},` +
	`{"name":"echo","description":"Returns the text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`)

type floorMCPInit struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      floorMCPInfo   `json:"serverInfo"`
}

type floorMCPInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type floorMCPText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type floorMCPResult struct {
	Content []floorMCPText `json:"content"`
	IsError bool           `json:"isError,omitempty"`
}

// floorMCP is the simplest stdlib MCP server, as floor-json is for
// JSON-RPC: a bufio.Scanner line, json.Unmarshal into floorRequest,
// notifications dropped, a switch on the method (initialize, ping,
// tools/list, tools/call), for tools/call json.Unmarshal of the name and
// arguments and of the arguments into the tool's struct, the result
// envelope json.Marshal-ed, the line written. No validation, no batches
// (2025-11-25 has none), no cancellation, no concurrency.
func floorMCP(r io.Reader, w io.Writer) {
	sc := newLineScanner(r)
	for sc.Scan() {
		var req floorRequest
		var resp floorResponse
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			resp = floorParseError()
		} else {
			if req.ID == nil {
				continue // a notification: notifications/initialized and the like
			}
			resp = floorMCPAnswer(&req)
		}
		out, _ := json.Marshal(&resp)
		out = append(out, '\n')
		if _, err := w.Write(out); err != nil {
			return
		}
	}
}

func floorMCPAnswer(req *floorRequest) floorResponse {
	resp := floorResponse{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			resp.Error = &floorError{-32602, "Invalid params"}
			break
		}
		version := floorMCPVersions[0]
		for _, v := range floorMCPVersions {
			if v == p.ProtocolVersion {
				version = v
			}
		}
		resp.Result = floorMCPInit{ProtocolVersion: version, Capabilities: map[string]any{"tools": struct{}{}},
			ServerInfo: floorMCPInfo{"floor-mcp", "1.0.0"}}
	case "ping":
		resp.Result = struct{}{}
	case "tools/list":
		resp.Result = floorMCPTools
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			resp.Error = &floorError{-32602, "Invalid params"}
			break
		}
		var text string
		var err error
		switch p.Name {
		case "add":
			var a struct {
				A float64 `json:"a"`
				B float64 `json:"b"`
			}
			err = json.Unmarshal(p.Arguments, &a)
			text = strconv.FormatFloat(a.A+a.B, 'g', -1, 64)
		case "echo":
			var a struct {
				Text string `json:"text"`
			}
			err = json.Unmarshal(p.Arguments, &a)
			text = a.Text
		default:
			resp.Error = &floorError{-32602, "Unknown tool: " + p.Name}
			return resp
		}
		if err != nil {
			resp.Result = floorMCPResult{Content: []floorMCPText{{"text", err.Error()}}, IsError: true}
			break
		}
		resp.Result = floorMCPResult{Content: []floorMCPText{{"text", text}}}
	default:
		resp.Error = &floorError{-32601, "Method not found"}
	}
	return resp
}

// mcpWant is the text block an MCP workload's calls must answer with: a
// raw JSON string.
func mcpWant(w *workload) []byte {
	if w.kind == kindEcho {
		return quoted(payload(echoSize))
	}
	return []byte(`"` + sumResult + `"`)
}

// mcpArgs are the arguments of an MCP workload's calls, and its tool.
func mcpArgs(w *workload, want []byte) (tool string, args []byte) {
	if w.kind == kindEcho {
		args = make([]byte, 0, len(want)+16)
		args = append(append(append(args, `{"text":`...), want...), '}')
		return "echo", args
	}
	return "add", bytes.Clone(sumParams(true))
}
