package toolotel_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolrpc/toolrpc/middleware"
	toolotel "github.com/toolrpc/toolrpc/otel"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// A JSON-RPC service traced: the tracer outermost, then the default stack.
// A real program gives a TracerProvider that exports (OTLP, say); this one
// records the spans in memory to print them.
func ExampleMiddleware() {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	svc := service.New(nil)
	if err := svc.Register("", Calc{}); err != nil {
		panic(err)
	}
	tracer := toolotel.Middleware(&toolotel.Options{
		TracerProvider: tp,
		Methods:        func(m string) bool { _, ok := svc.Method(m); return ok },
	})
	h := middleware.Chain(tracer, middleware.Default(nil))(svc)

	in := `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2,"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},"id":1}
{"jsonrpc":"2.0","method":"divide","id":2}
`
	logger := slog.New(slog.DiscardHandler)
	if err := rpc.Serve(context.Background(), strings.NewReader(in), os.Stdout, h, &rpc.Options{Sequential: true, Logger: logger}); err != nil {
		panic(err)
	}
	for _, s := range sr.Ended() {
		fmt.Println(s.Name(), s.SpanKind(), s.Parent().TraceID(), s.Status().Code)
		for _, kv := range s.Attributes() {
			fmt.Printf("  %s=%s\n", kv.Key, kv.Value.String())
		}
	}
	// Output:
	// {"jsonrpc":"2.0","result":3,"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}
	// add server 4bf92f3577b34da6a3ce929d0e0e4736 Unset
	//   jsonrpc.request.id=1
	//   rpc.system.name=jsonrpc
	//   jsonrpc.protocol.version=2.0
	//   rpc.method=add
	// jsonrpc server 00000000000000000000000000000000 Error
	//   jsonrpc.request.id=2
	//   rpc.system.name=jsonrpc
	//   jsonrpc.protocol.version=2.0
	//   rpc.method=_OTHER
	//   rpc.method_original=divide
	//   rpc.response.status_code=-32601
	//   error.type=-32601
}
