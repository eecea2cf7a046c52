package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// probe is a handler with a method per behaviour under test.
var probe = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "ok":
		return "fine", nil
	case "panic":
		panic("boom")
	case "panic-error":
		panic(errors.New("bad state"))
	case "fail":
		return nil, errors.New("disk full")
	case "invalid":
		return nil, rpc.NewError(codec.InvalidParams, "")
	case "count":
		var p struct{ N int }
		_ = json.Unmarshal(req.Params, &p)
		for i := 1; i <= p.N; i++ {
			if err := middleware.ReportProgress(ctx, float64(i), float64(p.N), ""); err != nil {
				return nil, err
			}
		}
		return p.N, nil
	case "steps":
		// Reports with messages, one that does not increase, one unknown total.
		_ = middleware.ReportProgress(ctx, 1, 4, "reading")
		if err := middleware.ReportProgress(ctx, 1, 4, "again"); !errors.Is(err, middleware.ErrProgressNotIncreasing) {
			return nil, err
		}
		_ = middleware.ReportProgress(ctx, 2, 0, "")
		_ = middleware.ReportProgress(ctx, 4, 4, "done")
		return "ok", nil
	case "wait":
		<-ctx.Done()
		return nil, ctx.Err()
	case "announced-wait":
		// Says it started, so that a test cancels it running, not queued.
		_ = rpc.Notify(ctx, "started", nil)
		<-ctx.Done()
		return nil, ctx.Err()
	case "stubborn":
		// Ignores its context. Only TestTimeout calls it, in a synctest
		// bubble, where this sleep is on the bubble's clock: it ends after
		// the 10 ms deadline, always, and costs no real time.
		time.Sleep(30 * time.Millisecond)
		return "late", nil
	case "trace":
		return middleware.TraceID(ctx), nil
	}
	return nil, rpc.NewError(codec.MethodNotFound, "")
})

func TestRecover(t *testing.T) {
	var logs wiretest.Logs
	h := middleware.Recover(logs.Logger())(probe)
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"panic","id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":1}
		--> {"jsonrpc":"2.0","method":"panic-error","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"bad state"}},"id":2}
		--> {"jsonrpc":"2.0","method":"panic"}
		--> {"jsonrpc":"2.0","method":"ok","id":3}
		<-- {"jsonrpc":"2.0","result":"fine","id":3}`, nil)
	recs := logs.Records(t)
	require.Len(t, recs, 3, "each panic logged, the notification's too")
	for _, r := range recs {
		assert.Equal(t, "rpc: handler panicked", r["msg"])
		assert.Contains(t, r["stack"], "middleware_test.go", "the stack is logged")
	}
	assert.Equal(t, "1", recs[0]["id"])
	assert.NotContains(t, recs[2], "id", "a notification has no id")
}

func TestProgress(t *testing.T) {
	tests := []struct {
		name       string
		opts       *middleware.ProgressOptions
		transcript string
	}{
		{"with a token", nil, `
			--> {"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":"t1"}},"id":1}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":2}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":2}}
			<-- {"jsonrpc":"2.0","result":2,"id":1}
			--> {"jsonrpc":"2.0","method":"count","params":{"n":1,"_meta":{"progressToken":7}},"id":2}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":1}}
			<-- {"jsonrpc":"2.0","result":1,"id":2}`},
		{"without a token: none (MCP)", nil, `
			--> {"jsonrpc":"2.0","method":"count","params":{"n":2},"id":1}
			<-- {"jsonrpc":"2.0","result":2,"id":1}
			--> {"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":{}}},"id":2}
			<-- {"jsonrpc":"2.0","result":2,"id":2}`},
		{"a token longer than MaxProgressToken: none", nil, `
			--> {"jsonrpc":"2.0","method":"count","params":{"n":1,"_meta":{"progressToken":"` + strings.Repeat("t", middleware.MaxProgressToken-2) + `"}},"id":1}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + strings.Repeat("t", middleware.MaxProgressToken-2) + `","progress":1,"total":1}}
			<-- {"jsonrpc":"2.0","result":1,"id":1}
			--> {"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":"` + strings.Repeat("t", middleware.MaxProgressToken-1) + `"}},"id":2}
			<-- {"jsonrpc":"2.0","result":2,"id":2}`},
		{"without a token: the request id", &middleware.ProgressOptions{UseRequestID: true}, `
			--> {"jsonrpc":"2.0","method":"count","params":{"n":2},"id":"r9"}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"r9","progress":1,"total":2}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"r9","progress":2,"total":2}}
			<-- {"jsonrpc":"2.0","result":2,"id":"r9"}
			--> {"jsonrpc":"2.0","method":"count","params":{"n":1,"_meta":{"progressToken":"mine"}},"id":2}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mine","progress":1,"total":1}}
			<-- {"jsonrpc":"2.0","result":1,"id":2}`},
		{"messages, unknown totals, progress that must increase", nil, `
			--> {"jsonrpc":"2.0","method":"steps","params":{"_meta":{"progressToken":"s"}},"id":1}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"s","progress":1,"total":4,"message":"reading"}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"s","progress":2}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"s","progress":4,"total":4,"message":"done"}}
			<-- {"jsonrpc":"2.0","result":"ok","id":1}`},
		{"rate limited: the first and the completing report", &middleware.ProgressOptions{MinInterval: time.Hour}, `
			--> {"jsonrpc":"2.0","method":"count","params":{"n":5,"_meta":{"progressToken":"t"}},"id":1}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":5}}
			<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":5,"total":5}}
			<-- {"jsonrpc":"2.0","result":5,"id":1}`},
		{"LSP's $/progress", middleware.LSPProgress(), `
			--> {"jsonrpc":"2.0","method":"count","params":{"n":3,"workDoneToken":"w"},"id":1}
			<-- {"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{"kind":"begin","percentage":33}}}
			<-- {"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{"kind":"report","percentage":66}}}
			<-- {"jsonrpc":"2.0","method":"$/progress","params":{"token":"w","value":{"kind":"end"}}}
			<-- {"jsonrpc":"2.0","result":3,"id":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wiretest.Serve(t, middleware.Progress(tt.opts)(probe), tt.transcript, nil)
		})
	}
}

func TestProgressAfterTheResponseIsDropped(t *testing.T) {
	late := make(chan context.Context, 1)
	h := middleware.Progress(nil)(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		late <- ctx
		return "ok", nil
	}))
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":"t"}},"id":1}
		<-- {"jsonrpc":"2.0","result":"ok","id":1}`, nil)
	assert.ErrorIs(t, middleware.ReportProgress(<-late, 1, 2, ""), rpc.ErrAnswered)
}

func TestReportProgressWithoutTheMiddleware(t *testing.T) {
	assert.ErrorIs(t, middleware.ReportProgress(context.Background(), 1, 2, ""), middleware.ErrNoReporter)
}

// TestTimeout runs in a synctest bubble: its clock moves only when every
// goroutine of the connection is blocked, so "ok" always beats the 10 ms
// deadline and "wait" and "stubborn" always reach it, however loaded the
// machine.
func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wiretest.Serve(t, middleware.Timeout(10*time.Millisecond)(probe), `
			--> {"jsonrpc":"2.0","method":"wait","id":1}
			<-- {"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeout":"10ms"}},"id":1}
			--> {"jsonrpc":"2.0","method":"stubborn","id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeout":"10ms"}},"id":2}
			--> {"jsonrpc":"2.0","method":"ok","id":3}
			<-- {"jsonrpc":"2.0","result":"fine","id":3}`, nil)
	})
}

func TestTimeoutLeavesThePeersCancellationAlone(t *testing.T) {
	wiretest.Steps(t, middleware.Timeout(time.Hour)(probe), `
		--> {"jsonrpc":"2.0","method":"wait","id":1}
		--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
		<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`, nil)
}

// A progress report waits for room in an output the peer does not read
// only as long as the call's context lets it: when the call times out
// (Timeout) or the peer cancels it, ReportProgress returns ctx.Err(), the
// report is not written, and the call is answered after the reports
// queued before. (It waited with no context: the call was never answered.)
func TestProgressEndsWithTheCallsContext(t *testing.T) {
	reports := []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":3,"message":"<4 MiB>"}}`,
	}
	tests := []struct {
		name   string
		end    func(t *testing.T, s *wiretest.Stalled)
		err    error
		answer string
	}{
		{
			name: "the call times out", err: context.DeadlineExceeded,
			end:    func(*testing.T, *wiretest.Stalled) { time.Sleep(time.Second) }, // the bubble's clock
			answer: `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Request timed out","data":{"timeout":"1s"}},"id":1}`,
		},
		{
			name: "the peer cancels the call", err: context.Canceled,
			end: func(t *testing.T, s *wiretest.Stalled) {
				s.Send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
			},
			answer: `{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				waited := make(chan error, 1)
				h := middleware.Chain(middleware.Timeout(time.Second), middleware.Progress(nil))(
					rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
						// The first is being written, blocked; the second fills
						// the room behind it; the third waits for room.
						if err := middleware.ReportProgress(ctx, 1, 3, ""); err != nil {
							return nil, err
						}
						if err := middleware.ReportProgress(ctx, 2, 3, wiretest.Fill()); err != nil {
							return nil, err
						}
						err := middleware.ReportProgress(ctx, 3, 3, "")
						waited <- err
						return nil, err
					}))
				s := wiretest.NewStalled(context.Background(), h, nil)
				s.Send(t, `{"jsonrpc":"2.0","method":"work","params":{"_meta":{"progressToken":"t"}},"id":1}`)
				synctest.Wait() // the third report waits for room in the output
				tt.end(t, s)
				synctest.Wait()
				if err, ok := wiretest.Ready(t, waited, "ReportProgress to return from its wait once the call's context ended"); ok {
					assert.ErrorIs(t, err, tt.err)
				}
				lines, served := s.Drain(t)
				assert.Equal(t, append(reports, tt.answer), lines)
				assert.NoError(t, served)
			})
		})
	}
}

func TestLogging(t *testing.T) {
	var logs wiretest.Logs
	logger := logs.Logger()
	h := middleware.Chain(middleware.Recover(slog.New(slog.DiscardHandler)), middleware.Correlation(),
		middleware.Logging(&middleware.LoggingOptions{Logger: logger, ResultLevel: slog.LevelInfo}))(probe)
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"ok","id":1}
		<-- {"jsonrpc":"2.0","result":"fine","id":1}
		--> {"jsonrpc":"2.0","method":"invalid","id":"two"}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":"two"}
		--> {"jsonrpc":"2.0","method":"fail","params":{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},"id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"disk full"}},"id":3}
		--> {"jsonrpc":"2.0","method":"panic","id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":4}
		--> {"jsonrpc":"2.0","method":"ok"}`, nil)
	recs := logs.Records(t)
	require.Len(t, recs, 5)
	want := []struct {
		level, msg, method, id, outcome string
		code                            float64
	}{
		{"INFO", "rpc call", "ok", "1", "result", 0},
		{"WARN", "rpc call", "invalid", `"two"`, "error", -32602},
		{"ERROR", "rpc call", "fail", "3", "error", -32603},
		{"ERROR", "rpc call", "panic", "4", "panic", 0},
		{"INFO", "rpc notification", "ok", "", "result", 0},
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for i, w := range want {
		r := recs[i]
		assert.Equal(t, w.level, r["level"], i)
		assert.Equal(t, w.msg, r["msg"], i)
		assert.Equal(t, w.outcome, r["outcome"], i)
		assert.Equal(t, w.method, r["method"], i)
		if w.id != "" {
			assert.Equal(t, w.id, r["id"], i)
		} else {
			assert.NotContains(t, r, "id", i)
		}
		if w.code != 0 {
			assert.Equal(t, w.code, r["code"], i)
		}
		assert.Contains(t, r, "duration", i)
		assert.Regexp(t, hex32, r["trace_id"], i)
	}
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", recs[2]["trace_id"], "the caller's trace context is carried")
	assert.NotEqual(t, recs[0]["trace_id"], recs[1]["trace_id"], "a trace id is minted per call")
}

func TestCorrelation(t *testing.T) {
	tests := []struct {
		name, traceparent string
		kept              bool
	}{
		{"valid", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true},
		{"future version with more fields", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", true},
		{"version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"version 00 with more fields", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", false},
		{"zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},
		{"zero parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false},
		{"upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false},
		{"short", "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", false},
	}
	h := middleware.Correlation()(probe)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta, _ := json.Marshal(map[string]string{"traceparent": tt.traceparent})
			got, err := h.Handle(context.Background(), &rpc.Request{Method: "trace", ID: json.RawMessage(`1`), Meta: meta})
			require.NoError(t, err)
			assert.Regexp(t, `^[0-9a-f]{32}$`, got)
			assert.Equal(t, tt.kept, got == strings.Split(tt.traceparent, "-")[1])
		})
	}
	assert.Empty(t, middleware.TraceID(context.Background()))
}

func TestChainOrder(t *testing.T) {
	var order []string
	mark := func(name string) middleware.Middleware {
		return func(next rpc.Handler) rpc.Handler {
			return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				order = append(order, name+" in")
				defer func() { order = append(order, name+" out") }()
				return next.Handle(ctx, req)
			})
		}
	}
	h := middleware.Chain(mark("a"), mark("b"), mark("c"))(probe)
	_, _ = h.Handle(context.Background(), &rpc.Request{Method: "ok", ID: json.RawMessage(`1`)})
	assert.Equal(t, []string{"a in", "b in", "c in", "c out", "b out", "a out"}, order)
}

func TestDefaultStack(t *testing.T) {
	var logs wiretest.Logs
	wiretest.Serve(t, middleware.Default(logs.Logger())(probe), `
		--> {"jsonrpc":"2.0","method":"count","params":{"n":2,"_meta":{"progressToken":"p"}},"id":1}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2}}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":2,"total":2}}
		<-- {"jsonrpc":"2.0","result":2,"id":1}
		--> {"jsonrpc":"2.0","method":"panic","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":2}
		--> {"jsonrpc":"2.0","method":"ok","id":3}
		<-- {"jsonrpc":"2.0","result":"fine","id":3}`, nil)
	var msgs []string
	for _, r := range logs.Records(t) {
		msgs = append(msgs, r["msg"].(string)+" "+r["method"].(string))
		assert.Contains(t, r, "trace_id")
	}
	assert.Equal(t, []string{"rpc call count", "rpc call panic", "rpc: handler panicked panic", "rpc call ok"}, msgs,
		"Logging (inside Recover) records the panic on its way out; Recover logs it with its stack")
	assert.Equal(t, "DEBUG", logs.Records(t)[0]["level"], "results are logged at Debug by default")
}

// A call the peer cancels with $/cancelRequest while it runs is answered
// -32800 whatever its handler returns, and the log says so: a handler that
// returns the context's cause wrapped (fmt.Errorf with %w of
// context.Cause(ctx)), an error object of its own, a plain error or a
// result. (The log said -32603 Internal error for the first.)
func TestLoggingSaysWhatTheWireSays(t *testing.T) {
	tests := []struct {
		name  string
		ret   func(ctx context.Context) (any, error)
		cause string // "": none recorded
	}{
		{"the context's error", func(ctx context.Context) (any, error) { return nil, ctx.Err() }, "context canceled"},
		{"the cause, wrapped", func(ctx context.Context) (any, error) {
			return nil, fmt.Errorf("reading the notes: %w", context.Cause(ctx))
		}, "reading the notes: rpc: cancelled by the peer"},
		{"an error object", func(context.Context) (any, error) {
			return nil, rpc.NewError(-32050, "gave up")
		}, "jsonrpc error -32050: gave up"},
		{"a plain error", func(context.Context) (any, error) { return nil, errors.New("disk full") }, "disk full"},
		{"a result", func(context.Context) (any, error) { return "done anyway", nil }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs wiretest.Logs
			h := middleware.Logging(&middleware.LoggingOptions{Logger: logs.Logger()})(
				rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					_ = rpc.Notify(ctx, "started", nil)
					<-ctx.Done()
					return tt.ret(ctx)
				}))
			wiretest.Steps(t, h, `
				--> {"jsonrpc":"2.0","method":"work","id":1}
				<-- {"jsonrpc":"2.0","method":"started"}
				--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
				<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`, nil)
			records := logs.Records(t)
			require.Len(t, records, 1)
			r := records[0]
			assert.Equal(t, "INFO", r["level"])
			assert.Equal(t, "error", r["outcome"])
			assert.Equal(t, float64(codec.RequestCancelled), r["code"])
			assert.Equal(t, "Request cancelled", r["error"])
			if tt.cause == "" {
				assert.NotContains(t, r, "cause")
			} else {
				assert.Equal(t, tt.cause, r["cause"])
			}
		})
	}
}

func TestLoggingLevels(t *testing.T) {
	var logs wiretest.Logs
	h := middleware.Logging(&middleware.LoggingOptions{Logger: logs.Logger()})(probe)
	wiretest.Steps(t, h, `
		--> {"jsonrpc":"2.0","method":"ok","id":1}
		<-- {"jsonrpc":"2.0","result":"fine","id":1}
		--> {"jsonrpc":"2.0","method":"nope","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}
		--> {"jsonrpc":"2.0","method":"announced-wait","id":3}
		<-- {"jsonrpc":"2.0","method":"started"}
		--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}
		<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":3}
		--> {"jsonrpc":"2.0","method":"fail","id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"disk full"}},"id":4}
		--> {"jsonrpc":"2.0","method":"announced-wait","id":5}
		<-- {"jsonrpc":"2.0","method":"started"}
		--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}
		--> {"jsonrpc":"2.0","method":"notifications/initialized"}
		--> {"jsonrpc":"2.0","method":"fail"}
		--> {"jsonrpc":"2.0","method":"invalid","id":6}
		<-- {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"},"id":6}`, nil)
	type record struct {
		level, method, outcome string
		code                   float64 // 0: none
		cause                  string  // "": none
	}
	var got []record
	for _, r := range logs.Records(t) {
		code, _ := r["code"].(float64)
		cause, _ := r["cause"].(string)
		got = append(got, record{r["level"].(string), r["method"].(string), r["outcome"].(string), code, cause})
	}
	// In any order: the call cancelled by notifications/cancelled ends
	// while the notifications after it are handled.
	assert.ElementsMatch(t, []record{
		{"DEBUG", "ok", "result", 0, ""},
		{"WARN", "nope", "error", -32601, ""},
		{"INFO", "announced-wait", "error", -32800, "context canceled"},
		{"ERROR", "fail", "error", -32603, "disk full"},
		// Cancelled by notifications/cancelled: nothing was answered, so
		// no code is recorded.
		{"INFO", "announced-wait", "cancelled", 0, ""},
		// A notification nobody handles is no failure: Debug.
		{"DEBUG", "notifications/initialized", "error", -32601, ""},
		{"ERROR", "fail", "error", -32603, "disk full"},
		{"WARN", "invalid", "error", -32602, ""},
	}, got)
}

// A notification no method handles is logged once, at Debug, by the
// default stack and the connection together (MCP clients send
// notifications/initialized to every server).
func TestUnhandledNotificationIsLoggedOnceAtDebug(t *testing.T) {
	var logs wiretest.Logs
	wiretest.Serve(t, middleware.Default(logs.Logger())(probe), `
		--> {"jsonrpc":"2.0","method":"notifications/initialized"}
		--> {"jsonrpc":"2.0","method":"ok","id":1}
		<-- {"jsonrpc":"2.0","result":"fine","id":1}`, &rpc.Options{Sequential: true, Logger: logs.Logger()})
	var notes []map[string]any
	for _, r := range logs.Records(t) {
		if r["method"] == "notifications/initialized" || strings.Contains(r["msg"].(string), "notification") {
			notes = append(notes, r)
		}
	}
	require.Len(t, notes, 1, "one record of the notification: %v", notes)
	assert.Equal(t, "DEBUG", notes[0]["level"])
	assert.Equal(t, "rpc notification", notes[0]["msg"])
	assert.Equal(t, float64(-32601), notes[0]["code"])
}

// A handler that calls another handler with its own context: the inner
// call gets state of its own, not the outer call's.
func TestStateIsPerRequest(t *testing.T) {
	inner := middleware.Default(slog.New(slog.DiscardHandler))(probe)
	outer := middleware.Default(slog.New(slog.DiscardHandler))(rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		outerTrace := middleware.TraceID(ctx)
		// The inner request carries no progress token: its reports are not
		// sent, though the outer call's token is "o".
		innerReq := &rpc.Request{ID: json.RawMessage(`"inner"`), Method: "count", Params: json.RawMessage(`{"N":2}`)}
		if _, err := inner.Handle(ctx, innerReq); err != nil {
			return nil, err
		}
		if err := middleware.ReportProgress(ctx, 1, 1, "outer"); err != nil {
			return nil, err
		}
		return outerTrace == middleware.TraceID(ctx), nil
	}))
	wiretest.Serve(t, outer, `
		--> {"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":"o"}},"id":1}
		<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"o","progress":1,"total":1,"message":"outer"}}
		<-- {"jsonrpc":"2.0","result":true,"id":1}`, nil)
}

// alias passes a copy of the request on, as a middleware renaming methods
// would.
func alias(next rpc.Handler) rpc.Handler {
	return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		c := *req
		if c.Method == "alias-count" {
			c.Method = "count"
		}
		return next.Handle(ctx, &c)
	})
}

// The trace id and the reporter are found through a middleware that
// passes a copy of the request on, whichever side of it they were set up.
func TestStateAcrossACopiedRequest(t *testing.T) {
	const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	tracer := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if err := middleware.ReportProgress(ctx, 1, 1, ""); err != nil {
			return nil, err
		}
		return middleware.TraceID(ctx), nil
	})
	for name, h := range map[string]rpc.Handler{
		"correlation outside": middleware.Chain(middleware.Correlation(), alias, middleware.Progress(nil))(tracer),
		"progress outside":    middleware.Chain(middleware.Progress(nil), alias, middleware.Correlation())(tracer),
	} {
		t.Run(name, func(t *testing.T) {
			wiretest.Serve(t, h, `
				--> {"jsonrpc":"2.0","method":"m","params":{"_meta":{"progressToken":"p","traceparent":"`+traceparent+`"}},"id":1}
				<-- {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":1}}
				<-- {"jsonrpc":"2.0","result":"0af7651916cd43dd8448eb211c80319c","id":1}`, nil)
		})
	}
}
