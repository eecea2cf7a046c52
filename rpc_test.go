package toolrpc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

func TestSpecExamples(t *testing.T) {
	for _, ex := range wiretest.SpecExamples {
		t.Run(ex.Name, func(t *testing.T) {
			wiretest.Serve(t, newSpecHandler(), ex.Transcript, nil)
		})
	}
}

func TestSpecNotificationsAreHandledInOrder(t *testing.T) {
	h := newSpecHandler()
	wiretest.Serve(t, h, `
		--> {"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}
		--> {"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}
		<-- {"jsonrpc":"2.0","result":19,"id":1}
		--> {"jsonrpc": "2.0", "method": "foobar"}
		--> [{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]}, {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]`, nil)
	assert.Equal(t, []string{"update [1,2,3,4,5]", "foobar", "notify_sum [1,2,4]", "notify_hello [7]"}, h.log())
}

// The stream goes on after every kind of bad line.
func TestErrorStream(t *testing.T) {
	wiretest.Serve(t, newSpecHandler(), `
		--> {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}
		<-- {"jsonrpc":"2.0","result":19,"id":1}
		--> {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2
		<-- {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}
		--> {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":3}
		<-- {"jsonrpc":"2.0","result":19,"id":3}
		--> {"jsonrpc":"2.0","params":[42,23],"id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"method is required"}},"id":4}
		--> {"jsonrpc":"2.0","method":"subtract","params":[1,1],"id":5}
		<-- {"jsonrpc":"2.0","result":0,"id":5}`, nil)
}

// Ids are echoed byte for byte and compared as raw tokens.
func TestIDs(t *testing.T) {
	wiretest.Serve(t, newSpecHandler(), `
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":12345678901234567890}
		<-- {"jsonrpc":"2.0","result":1,"id":12345678901234567890}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1.0}
		<-- {"jsonrpc":"2.0","result":1,"id":1.0}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":-1.5e+300}
		<-- {"jsonrpc":"2.0","result":1,"id":-1.5e+300}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"é"}
		<-- {"jsonrpc":"2.0","result":1,"id":"é"}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":"\u00e9\"\\\n"}
		<-- {"jsonrpc":"2.0","result":1,"id":"\u00e9\"\\\n"}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":0}
		<-- {"jsonrpc":"2.0","result":1,"id":0}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":""}
		<-- {"jsonrpc":"2.0","result":1,"id":""}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":null}
		<-- {"jsonrpc":"2.0","result":1,"id":null}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":  7  }
		<-- {"jsonrpc":"2.0","result":1,"id":7}`, nil)
}

func TestDuplicateIDInFlight(t *testing.T) {
	var out wiretest.Buffer
	h, pw, done := servePiped(t, context.Background(), &out, &rpc.Options{Logger: wiretest.Quiet()}, 1)
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"probe.wait","id":7}`)
	assert.Equal(t, "7", <-h.start)
	// 7 is in flight: the same id again is refused, as are 7.0's twins only
	// if byte-identical ("7.0" is another id).
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"sum","params":[1],"id":7}`)
	wiretest.WaitForLines(t, &out, 1)
	wiretest.Send(t, pw, `[{"jsonrpc":"2.0","method":"sum","params":[2],"id":8},{"jsonrpc":"2.0","method":"sum","params":[3],"id":8}]`)
	wiretest.WaitForLines(t, &out, 2)
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"sum","params":[4],"id":7.0}`)
	wiretest.WaitForLines(t, &out, 3)
	close(h.gate)
	wiretest.WaitForLines(t, &out, 4)
	// Once answered, the id is free again.
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"sum","params":[5],"id":7}`)
	require.NoError(t, pw.Close())
	require.NoError(t, <-done)
	assert.Equal(t, []string{
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id already in use by a request in flight"}},"id":7}`,
		`[{"jsonrpc":"2.0","result":2,"id":8},{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"id already in use by a request in flight"}},"id":8}]`,
		`{"jsonrpc":"2.0","result":4,"id":7.0}`,
		`{"jsonrpc":"2.0","result":"released","id":7}`,
		`{"jsonrpc":"2.0","result":5,"id":7}`,
	}, wiretest.Lines(t, out.String()))
}

func TestHandlerErrors(t *testing.T) {
	wiretest.Serve(t, newSpecHandler(), `
		--> {"jsonrpc":"2.0","method":"probe.fail","id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"disk full"}},"id":1}
		--> {"jsonrpc":"2.0","method":"probe.fail-coded","id":2}
		<-- {"jsonrpc":"2.0","error":{"code":-1234,"message":"quota exceeded","data":{"retry":5}},"id":2}
		--> {"jsonrpc":"2.0","method":"probe.panic","id":3}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"string","message":"boom"}},"id":3}
		--> {"jsonrpc":"2.0","method":"probe.panicerr","id":4}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*fmt.wrapError","message":"wrapped: unexpected EOF"}},"id":4}
		--> {"jsonrpc":"2.0","method":"probe.bad-result","id":5}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"json.RawMessage","message":"codec: invalid JSON value"}},"id":5}
		--> {"jsonrpc":"2.0","method":"probe.unencodable","id":6}
		<-- {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"func()","message":"json: unsupported type: func()"}},"id":6}
		--> {"jsonrpc":"2.0","method":"echo","params":{ "spaced" : [ 1, 2 ] , "html":"<&>" },"id":7}
		<-- {"jsonrpc":"2.0","result":{"spaced":[1,2],"html":"<&>"},"id":7}
		--> {"jsonrpc":"2.0","method":"probe.raw-newline","id":8}
		<-- {"jsonrpc":"2.0","result":{"a":[1,2],"b":"x\ny"},"id":8}
		--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":9}
		<-- {"jsonrpc":"2.0","result":1,"id":9}`, nil)
}

func TestNotificationsBeforeTheirResponse(t *testing.T) {
	for _, sequential := range []bool{true, false} {
		t.Run(fmt.Sprintf("sequential=%v", sequential), func(t *testing.T) {
			wiretest.Serve(t, newSpecHandler(), `
				--> {"jsonrpc":"2.0","method":"probe.progress","id":1}
				<-- {"jsonrpc":"2.0","method":"progress","params":{"done":1,"total":2}}
				<-- {"jsonrpc":"2.0","method":"progress","params":{"done":2,"total":2}}
				<-- {"jsonrpc":"2.0","result":"done","id":1}`, &rpc.Options{Sequential: sequential})
		})
	}
}

func TestNotifyOutsideACall(t *testing.T) {
	assert.ErrorIs(t, rpc.Notify(context.Background(), "x", nil), rpc.ErrNoCall)
	assert.Nil(t, rpc.RequestFromContext(context.Background()))
	assert.Nil(t, rpc.ConnFromContext(context.Background()))
}

func TestNotifyAfterTheResponseIsDropped(t *testing.T) {
	var late context.Context
	var out bytes.Buffer
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		late = ctx
		return "ok", nil
	})
	in := `{"jsonrpc":"2.0","method":"m","id":1}` + "\n"
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, &rpc.Options{Logger: wiretest.Quiet()}))
	assert.ErrorIs(t, rpc.Notify(late, "progress", []int{1}), rpc.ErrAnswered)
	assert.Equal(t, `{"jsonrpc":"2.0","result":"ok","id":1}`+"\n", out.String())
}

// countingParams counts how often it is encoded.
type countingParams struct{ n *atomic.Int32 }

func (p countingParams) MarshalJSON() ([]byte, error) {
	p.n.Add(1)
	return []byte(`{}`), nil
}

// A notification of a call whose context is done, or that is answered, is
// not even encoded: a handler that reports in a loop after its client left
// costs nothing per report (issue 23, defect 8).
func TestNotifyOfACallThatIsOverEncodesNothing(t *testing.T) {
	var encoded atomic.Int32
	params := countingParams{&encoded}
	var late context.Context
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		late = ctx
		if req.Method == "cancelled" {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			assert.ErrorIs(t, rpc.Notify(cctx, "progress", params), context.Canceled)
		}
		return "ok", nil
	})
	var out bytes.Buffer
	in := `{"jsonrpc":"2.0","method":"cancelled","id":1}` + "\n"
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, h, &rpc.Options{Logger: wiretest.Quiet()}))
	assert.ErrorIs(t, rpc.Notify(late, "progress", params), rpc.ErrAnswered)
	assert.Zero(t, encoded.Load(), "params encoded")
	assert.Equal(t, `{"jsonrpc":"2.0","result":"ok","id":1}`+"\n", out.String())
}

func TestCancellation(t *testing.T) {
	tests := []struct{ name, transcript string }{
		{"LSP: a running call is answered -32800", `
			--> {"jsonrpc":"2.0","method":"probe.wait","id":1}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
			<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":2}
			<-- {"jsonrpc":"2.0","result":1,"id":2}`},
		{"MCP: a running call gets no answer", `
			--> {"jsonrpc":"2.0","method":"probe.wait","id":"a"}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"user"}}
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":2}
			<-- {"jsonrpc":"2.0","result":1,"id":2}`},
		{"ids are matched as raw tokens", `
			--> {"jsonrpc":"2.0","method":"probe.wait","id":1}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"1"}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1.0}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
			<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`},
		{"unknown, finished and malformed cancellations are ignored", `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1}
			<-- {"jsonrpc":"2.0","result":1,"id":1}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{}}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":[1]}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest"}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"id":1}}
			--> {"jsonrpc":"2.0","method":"sum","params":[2],"id":2}
			<-- {"jsonrpc":"2.0","result":2,"id":2}`},
		{"queued calls cancelled before they start are never run", `
			--> {"jsonrpc":"2.0","method":"probe.wait","id":1}
			--> {"jsonrpc":"2.0","method":"probe.never","id":2}
			--> {"jsonrpc":"2.0","method":"probe.never","id":3}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}
			<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":2}
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
			<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`},
		{"in a batch", `
			--> [{"jsonrpc":"2.0","method":"probe.wait","id":1},{"jsonrpc":"2.0","method":"probe.wait","id":2},{"jsonrpc":"2.0","method":"sum","params":[3],"id":3}]
			--> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
			--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
			<-- [{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1},{"jsonrpc":"2.0","result":3,"id":3}]`},
		{"by a later entry of the same batch", `
			--> [{"jsonrpc":"2.0","method":"probe.never","id":1},{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}},{"jsonrpc":"2.0","method":"sum","params":[1],"id":2}]
			<-- [{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1},{"jsonrpc":"2.0","result":1,"id":2}]
			--> [{"jsonrpc":"2.0","method":"probe.never","id":3},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}},{"jsonrpc":"2.0","method":"sum","params":[2],"id":4}]
			<-- [{"jsonrpc":"2.0","result":2,"id":4}]
			--> [{"jsonrpc":"2.0","method":"probe.never","id":5},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}]
			--> {"jsonrpc":"2.0","method":"sum","params":[3],"id":6}
			<-- {"jsonrpc":"2.0","result":3,"id":6}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newSpecHandler()
			wiretest.Steps(t, h, tt.transcript, &rpc.Options{Sequential: true})
			for _, s := range h.log() {
				assert.NotEqual(t, "probe.never", s, "a call cancelled before it started ran")
			}
		})
	}
}

func TestCancelledContextCause(t *testing.T) {
	causes := make(chan error, 1)
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		_ = rpc.Notify(ctx, "started", nil)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil, ctx.Err()
	})
	wiretest.Steps(t, h, `
		--> {"jsonrpc":"2.0","method":"m","id":1}
		<-- {"jsonrpc":"2.0","method":"started"}
		--> {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
		<-- {"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":1}`, nil)
	assert.ErrorIs(t, <-causes, rpc.ErrCancelled)
}

// At the end of the input, calls under way finish and are answered. In a
// synctest bubble: synctest.Wait tells when the end of the input has been
// read, every call still under way.
func TestEOFDrainsCallsUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out wiretest.Buffer
		h, pw, done := servePiped(t, context.Background(), &out, &rpc.Options{Logger: wiretest.Quiet(), Concurrency: 50}, 50)
		var want []string
		for i := range 50 {
			wiretest.Send(t, pw, fmt.Sprintf(`{"jsonrpc":"2.0","method":"probe.ignore","id":%d}`, i))
			want = append(want, fmt.Sprintf(`{"jsonrpc":"2.0","result":"%d","id":%d}`, i, i))
		}
		for range 50 {
			<-h.start
		}
		require.NoError(t, pw.Close())
		synctest.Wait() // the end of the input is read; every call is under way
		require.Empty(t, done, "Serve returned with calls under way")
		close(h.gate)
		require.NoError(t, wiretest.Receive(t, done, "Serve to return once the calls under way are answered"))
		assert.ElementsMatch(t, want, wiretest.Lines(t, out.String()))
	})
}

func TestSequentialKeepsOrder(t *testing.T) {
	var in strings.Builder
	var want []string
	for i := range 200 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"sum","params":[%d],"id":%d}`+"\n", i, i)
		want = append(want, fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, i, i))
	}
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in.String()), &out, newSpecHandler(),
		&rpc.Options{Logger: wiretest.Quiet(), Sequential: true}))
	assert.Equal(t, want, wiretest.Lines(t, out.String()))
}

func TestFrameLimits(t *testing.T) {
	big := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 16<<20) + `"],"id":1}`
	t.Run("a 16 MiB request is served", func(t *testing.T) {
		var out bytes.Buffer
		in := big + "\n" + `{"jsonrpc":"2.0","method":"sum","params":[1],"id":2}` + "\n"
		require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, newSpecHandler(),
			&rpc.Options{Logger: wiretest.Quiet(), Sequential: true}))
		got := wiretest.Lines(t, out.String())
		require.Len(t, got, 2)
		assert.True(t, got[0] == `{"jsonrpc":"2.0","result":["`+strings.Repeat("x", 16<<20)+`"],"id":1}`)
		assert.Equal(t, `{"jsonrpc":"2.0","result":1,"id":2}`, got[1])
	})
	t.Run("a frame over the limit is answered and skipped", func(t *testing.T) {
		wiretest.Serve(t, newSpecHandler(), `
			--> {"jsonrpc":"2.0","method":"sum","params":[1],"id":1}
			<-- {"jsonrpc":"2.0","result":1,"id":1}
			--> {"jsonrpc":"2.0","method":"sum","params":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"id":2}
			<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"frame larger than the limit of 100 bytes"}},"id":null}
			--> {"jsonrpc":"2.0","method":"sum","params":[2],"id":3}
			<-- {"jsonrpc":"2.0","result":2,"id":3}`, &rpc.Options{Sequential: true, MaxFrameSize: 100})
	})
	t.Run("batch and depth limits", func(t *testing.T) {
		wiretest.Serve(t, newSpecHandler(), `
			--> [{"jsonrpc":"2.0","method":"sum","params":[1],"id":1},{"jsonrpc":"2.0","method":"sum","params":[1],"id":2},{"jsonrpc":"2.0","method":"sum","params":[1],"id":3}]
			<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"batch longer than the limit of 2 entries"}},"id":null}
			--> {"jsonrpc":"2.0","method":"echo","params":[[[1]]],"id":4}
			<-- {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"nested more than 3 levels deep"}},"id":null}
			--> {"jsonrpc":"2.0","method":"echo","params":[[1]],"id":5}
			<-- {"jsonrpc":"2.0","result":[[1]],"id":5}`, &rpc.Options{Sequential: true, MaxBatch: 2, MaxDepth: 3})
	})
}

func TestFramingRules(t *testing.T) {
	in := "\r\n\n   \n" +
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}` + "\r\n" +
		"\t\n" +
		`{"jsonrpc":"2.0","method":"sum","params":[2],"id":2}` // no final newline
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in), &out, newSpecHandler(),
		&rpc.Options{Logger: wiretest.Quiet(), Sequential: true}))
	assert.Equal(t, `{"jsonrpc":"2.0","result":1,"id":1}`+"\n"+`{"jsonrpc":"2.0","result":2,"id":2}`+"\n", out.String())
}

// servePiped serves a specHandler over a pipe, writing to w, with room on
// its start channel for starts calls: it returns the handler, the pipe to
// send on, and the channel Serve's result arrives on.
func servePiped(t *testing.T, ctx context.Context, w io.Writer, opts *rpc.Options, starts int) (*specHandler, *io.PipeWriter, <-chan error) {
	t.Helper()
	h := newSpecHandler()
	h.start = make(chan string, starts)
	pr, pw := io.Pipe()
	t.Cleanup(func() { _ = pr.Close() })
	done := make(chan error, 1)
	go func() { done <- rpc.Serve(ctx, pr, w, h, opts) }()
	return h, pw, done
}

// serveWaiting serves as servePiped does, sends a probe.wait call with id 1
// and returns once that call runs.
func serveWaiting(t *testing.T, ctx context.Context, w io.Writer, opts *rpc.Options) (*specHandler, *io.PipeWriter, <-chan error) {
	t.Helper()
	h, pw, done := servePiped(t, ctx, w, opts, 1)
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"probe.wait","id":1}`)
	<-h.start
	return h, pw, done
}

// serveReturns waits for Serve's result on done, which must be want; why
// says what should have made it return.
func serveReturns(t *testing.T, done <-chan error, want error, why string) {
	t.Helper()
	assert.ErrorIs(t, wiretest.Receive(t, done, "Serve to return after "+why), want)
}

func TestShutdownOnContextCancel(t *testing.T) {
	var out wiretest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	_, _, done := serveWaiting(t, ctx, &out, &rpc.Options{Logger: wiretest.Quiet()})
	cancel()
	serveReturns(t, done, context.Canceled, "its context was cancelled")
	assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":1}`}, wiretest.Lines(t, out.String()))
}

// TestShutdownGraceForAHandlerThatIgnoresItsContext runs in a synctest
// bubble: the grace passes on the bubble's clock, and synctest.Wait tells
// when the late handler and all that follows it are done.
func TestShutdownGraceForAHandlerThatIgnoresItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out wiretest.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		h, pw, done := serveWaiting(t, ctx, &out, &rpc.Options{Logger: wiretest.Quiet(), ShutdownGrace: 50 * time.Millisecond})
		wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"probe.ignore","id":2}`)
		<-h.start
		cancel()
		serveReturns(t, done, context.Canceled, "the grace period")
		close(h.gate)   // probe.ignore returns now, after Serve: nothing more is written
		synctest.Wait() // probe.ignore has returned, and whatever follows it is done
		assert.Equal(t, []string{`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":1}`}, wiretest.Lines(t, out.String()))
	})
}

func TestWriteErrorShutsDown(t *testing.T) {
	epipe := errors.New("broken pipe")
	_, pw, done := serveWaiting(t, context.Background(), &failingWriter{err: epipe}, &rpc.Options{Logger: wiretest.Quiet()})
	wiretest.Send(t, pw, `{"jsonrpc":"2.0","method":"sum","params":[1],"id":2}`)
	serveReturns(t, done, epipe, "its output failed")
}

// A read error ends the input as its end does: the call under way is
// answered, then Serve returns the error. In a synctest bubble:
// synctest.Wait tells when the error has been read, the call still under
// way.
func TestReadErrorDrainsThenReturnsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("connection reset")
		var out wiretest.Buffer
		h, pw, done := servePiped(t, context.Background(), &out, &rpc.Options{Logger: wiretest.Quiet()}, 1)
		_, err := io.WriteString(pw, `{"jsonrpc":"2.0","method":"probe.ignore","id":1}`+"\n"+`{"jsonrpc":"2.0","met`)
		require.NoError(t, err)
		assert.Equal(t, "1", <-h.start)
		require.NoError(t, pw.CloseWithError(boom))
		synctest.Wait() // the error is read; the call is under way
		require.Empty(t, done, "Serve returned with a call under way")
		close(h.gate)
		assert.ErrorIs(t, wiretest.Receive(t, done, "Serve to return once the call under way is answered"), boom)
		assert.Equal(t, `{"jsonrpc":"2.0","result":"1","id":1}`+"\n", out.String(), "the call read before the error is answered; the partial line is not")
	})
}

func TestNilHandlerAnswersMethodNotFound(t *testing.T) {
	wiretest.Serve(t, nil, `
		--> {"jsonrpc":"2.0","method":"anything","id":1}
		<-- {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`, nil)
}

func TestConcurrentCallsUnderRace(t *testing.T) {
	var in strings.Builder
	want := map[string]bool{}
	for i := range 2000 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"subtract","params":[%d,1],"id":%d}`+"\n", i, i)
		want[fmt.Sprintf(`{"jsonrpc":"2.0","result":%d,"id":%d}`, i-1, i)] = true
		if i%10 == 0 {
			fmt.Fprintf(&in, `[{"jsonrpc":"2.0","method":"sum","params":[%d],"id":"b%d"},{"jsonrpc":"2.0","method":"update"}]`+"\n", i, i)
			want[fmt.Sprintf(`[{"jsonrpc":"2.0","result":%d,"id":"b%d"}]`, i, i)] = true
		}
	}
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in.String()), &out, newSpecHandler(),
		&rpc.Options{Logger: wiretest.Quiet(), Concurrency: 8, QueueSize: 16}))
	got := wiretest.Lines(t, out.String())
	assert.Len(t, got, len(want))
	for _, l := range got {
		assert.True(t, want[l], "unexpected line %s", l)
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	c := rpc.NewConn(context.Background(), pr, io.Discard, newSpecHandler(), &rpc.Options{Logger: wiretest.Quiet()})
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	require.NoError(t, c.Wait())
	assert.ErrorIs(t, c.Notify(context.Background(), "x", nil), rpc.ErrClosed)
}

func TestConnNotify(t *testing.T) {
	var out wiretest.Buffer
	pr, pw := io.Pipe()
	c := rpc.NewConn(context.Background(), pr, &out, nil, &rpc.Options{Logger: wiretest.Quiet()})
	require.NoError(t, c.Notify(context.Background(), "log", map[string]string{"level": "info"}))
	assert.ErrorContains(t, c.Notify(context.Background(), "bad", 5), "params must be an object or an array, not 5")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, c.Notify(ctx, "late", nil), context.Canceled)
	require.NoError(t, pw.Close())
	require.NoError(t, c.Wait())
	assert.Equal(t, `{"jsonrpc":"2.0","method":"log","params":{"level":"info"}}`+"\n", out.String())
}

func TestRequestFromContext(t *testing.T) {
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		got := rpc.RequestFromContext(ctx)
		return map[string]any{
			"same":   got == req,
			"method": got.Method,
			"id":     got.ID,
			"conn":   rpc.ConnFromContext(ctx) != nil,
		}, nil
	})
	wiretest.Serve(t, h, `
		--> {"jsonrpc":"2.0","method":"who","id":"x"}
		<-- {"jsonrpc":"2.0","result":{"conn":true,"id":"x","method":"who","same":true},"id":"x"}`, nil)
}

type failingWriter struct{ err error }

func (f *failingWriter) Write([]byte) (int, error) { return 0, f.err }
