package toolotel_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	toolotel "github.com/toolrpc/toolrpc/otel"
	"github.com/toolrpc/toolrpc/rpc"
)

// An MCP server traced: the tracer in Options.Middleware, with MCP set. A
// call whose params._meta holds a traceparent is a child of its caller's
// span.
func ExampleMiddleware_mcp() {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	s := mcp.New(&mcp.Options{
		Name:       "calc",
		Middleware: []middleware.Middleware{toolotel.Middleware(&toolotel.Options{TracerProvider: tp, MCP: true})},
	})
	if err := s.Register("", Tools{}); err != nil {
		panic(err)
	}
	in := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},"id":1}` + "\n"
	err := s.Serve(context.Background(), strings.NewReader(in), os.Stdout, &rpc.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	for _, span := range sr.Ended() {
		fmt.Println(span.Name(), span.SpanKind(), span.Parent().TraceID(), span.Parent().SpanID())
		for _, kv := range span.Attributes() {
			fmt.Printf("  %s=%s\n", kv.Key, kv.Value.String())
		}
	}
	// Output:
	// {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"calc","version":"(devel)"}}},"id":1}
	// tools/call add server 4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7
	//   jsonrpc.request.id=1
	//   mcp.method.name=tools/call
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=add
	//   mcp.protocol.version=2026-07-28
}
