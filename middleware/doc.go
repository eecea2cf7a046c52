// Package middleware wraps [rpc.Handler] values: panic recovery, progress
// notifications, logging, correlation and timeouts, composed with [Chain].
//
// A [Middleware] is a plain func(rpc.Handler) rpc.Handler: Chain(a, b, c)(h)
// is a(b(c(h))), the first outermost. [Default] is the stack a server wants
// with no configuration, and what package toolrpc serves with:
//
//	h := middleware.Default(nil)(svc)
//	err := rpc.ServeStdio(ctx, h, &rpc.StdioOptions{Options: rpc.Options{Logger: logger}})
//
// Default is Chain(Correlation(), Recover(logger), Logging(...),
// Progress(nil)): Recover outermost of everything that runs handler code,
// then Logging, then Progress, all inside Correlation, so that every
// record, a panic's too, carries the call's trace id.
//
// Middleware given no logger logs through the connection's
// ([rpc.LoggerFromContext]): one logger, set once in [rpc.Options], gets
// every record. Package [github.com/toolrpc/toolrpc] does all of the above
// in one call.
//
// # What each puts on the wire
//
// [Recover] answers a panic InternalError (-32603), its data naming the
// panic value's type and holding its text; the stack goes to the log, never
// to the wire, and the connection keeps serving. (The connection itself
// recovers the panic, the one recover of a call; Recover says how it is
// answered and logged.) A notification's panic is
// logged the same way and, like any notification, never answered.
//
//	--> {"jsonrpc":"2.0","method":"panic","id":1}
//	<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":1}
//
// [Timeout] gives each call's context a deadline; a call still running at
// it is answered RequestTimeout (-32001) with data {"timeout": "<d>"},
// whatever its handler returns, when the handler returns (it runs in the
// connection's worker, so the concurrency bound holds).
//
//	<-- {"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeout":"10ms"}},"id":1}
//
// [Progress] lets a handler report progress with [ReportProgress]: each
// report is a notification to the caller, written before the call's
// response (see [rpc.Notify]); one made after the response is not sent
// ([rpc.ErrAnswered]). By default it speaks the Model Context Protocol:
// method notifications/progress, params {"progressToken", "progress",
// "total", "message"} (total and message left out when zero), the token
// taken from params._meta.progressToken (a string or a number). A call
// without a token gets no reports (MCP's rule), unless
// [ProgressOptions.UseRequestID]; progress must increase from report to
// report ([ErrProgressNotIncreasing]); [ProgressOptions.MinInterval]
// rate-limits reports, always letting the one that completes the work
// through. [LSPProgress] speaks the Language Server Protocol's $/progress
// instead.
//
//	--> {"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":"t1"}},"id":1}
//	<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":2}}
//	<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":2}}
//	<-- {"jsonrpc":"2.0","result":2,"id":1}
//
// [Correlation] and [Logging] write nothing to the wire. Correlation gives
// each call a trace id, the W3C trace context's of
// params._meta.traceparent when it is valid, else a new one ([TraceID]
// reads it). Logging writes one record per call when it ends, at a level
// that says how the call went.
package middleware
