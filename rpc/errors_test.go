package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// An empty message is the code's own, what JSON-RPC 2.0 (section 5.1) sets
// its range aside for when the code is none of the named ones.
func TestNewErrorDefaultMessage(t *testing.T) {
	assert.Equal(t, "Server error", rpc.NewError(-32044, "").Message, "NewError's default message")
	assert.Equal(t, &rpc.Error{Code: rpc.InvalidParams, Message: "Invalid params"}, rpc.NewError(rpc.InvalidParams, ""))
	assert.Equal(t, &rpc.Error{Code: 7, Message: "x 2"}, rpc.Errorf(7, "x %d", 2))
}

// A handler answers with an error object by returning an [rpc.Error]: its
// code, message and data go out as they are; any other error is an
// InternalError naming its Go type.
func ExampleNewError() {
	divide := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		switch string(req.Params) {
		case "[1,0]":
			return nil, rpc.NewError(rpc.InvalidParams, "b must not be 0")
		case "[]":
			return nil, rpc.NewError(rpc.InvalidParams, "").WithData(map[string]int{"want": 2, "got": 0})
		case "[1]":
			return nil, fmt.Errorf("dividing: %w", rpc.Errorf(-1001, "%d param of 2", 1))
		}
		return nil, errors.New("not implemented")
	})
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"divide","params":[1,0],"id":1}
{"jsonrpc":"2.0","method":"divide","params":[],"id":2}
{"jsonrpc":"2.0","method":"divide","params":[1],"id":3}
{"jsonrpc":"2.0","method":"divide","params":[4,2],"id":4}
`)
	var out bytes.Buffer
	if err := rpc.Serve(context.Background(), in, &out, divide, &rpc.Options{Sequential: true}); err != nil {
		panic(err)
	}
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"b must not be 0"},"id":1}
	// {"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":{"got":0,"want":2}},"id":2}
	// {"jsonrpc":"2.0","error":{"code":-1001,"message":"1 param of 2"},"id":3}
	// {"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"exception":"*errors.errorString","message":"not implemented"}},"id":4}
}

// A call of ours answered with an error response returns an *rpc.Error;
// the data of an InternalError decodes into an codec.InternalErrorData, that
// of an InvalidRequest into an codec.InvalidRequestData.
func TestCallErrorsUnderRPCNames(t *testing.T) {
	h := rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
		if req.Method == "plain" {
			return nil, errors.New("disk full")
		}
		return nil, rpc.Errorf(rpc.InvalidRequest, "Invalid Request").WithData(codec.InvalidRequestData{Reason: "a rule"})
	})
	p := wiretest.NewPair(h, nil, nil, nil)
	defer p.Close(t)

	var e *rpc.Error
	require.ErrorAs(t, p.Client.Call(context.Background(), "plain", nil, nil), &e)
	assert.Equal(t, rpc.InternalError, e.Code)
	assert.Equal(t, "Internal error", e.Message)
	var exc codec.InternalErrorData
	require.NoError(t, json.Unmarshal(e.Data.(json.RawMessage), &exc))
	assert.Equal(t, codec.InternalErrorData{Exception: "*errors.errorString", Message: "disk full"}, exc)

	require.ErrorAs(t, p.Client.Call(context.Background(), "invalid", nil, nil), &e)
	assert.Equal(t, rpc.InvalidRequest, e.Code)
	var why codec.InvalidRequestData
	require.NoError(t, json.Unmarshal(e.Data.(json.RawMessage), &why))
	assert.Equal(t, "a rule", why.Reason)
	assert.Equal(t, "jsonrpc error -32600: Invalid Request: a rule", e.Error())
}

// ErrorFor maps a handler's error to the answer: a context error once the
// context ended — context.Canceled, context.DeadlineExceeded, or the
// context's cause wrapped, as fmt.Errorf("...: %w", context.Cause(ctx))
// makes — is said by the cause; anything else is what it was.
func TestErrorFor(t *testing.T) {
	ended := func(cause error) context.Context {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		return ctx
	}
	live := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want *rpc.Error // nil: none
	}{
		{"no error", live, nil, nil},
		{"no error, the peer cancelled", ended(rpc.ErrCancelled), nil, nil},
		{"the peer cancelled: ctx.Err()", ended(rpc.ErrCancelled), context.Canceled, rpc.NewError(-32800, "")},
		{"the peer cancelled: the cause wrapped", ended(rpc.ErrCancelled),
			fmt.Errorf("reading: %w", rpc.ErrCancelled), rpc.NewError(-32800, "")},
		{"shutting down: the cause wrapped", ended(rpc.ErrShutdown),
			fmt.Errorf("reading: %w", rpc.ErrShutdown), rpc.NewError(-32000, "")},
		{"shutting down: ctx.Err()", ended(rpc.ErrShutdown), context.Canceled, rpc.NewError(-32000, "")},
		{"a cause of the handler's own", ended(errors.New("mine")), context.Canceled,
			rpc.NewError(-32603, "").WithData(map[string]string{"exception": "*errors.errorString", "message": "context canceled"})},
		{"the cause while the context lives", live, rpc.ErrCancelled,
			rpc.NewError(-32603, "").WithData(map[string]string{"exception": "*errors.errorString", "message": "rpc: cancelled by the peer"})},
		{"an error object", ended(rpc.ErrCancelled), rpc.NewError(-32050, "gave up"), rpc.NewError(-32050, "gave up")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rpc.ErrorFor(tt.ctx, tt.err)
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			want, err := json.Marshal(tt.want)
			require.NoError(t, err)
			have, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(have))
		})
	}
}
