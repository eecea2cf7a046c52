package rpc_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/toolrpc/toolrpc/rpc"
)

// A lone request over HTTP runs in its request's goroutine, and sees its
// client go away however it looks at its context: waiting on Done, asking
// Err only (after the client is gone), or through a context derived from
// it; the cause wraps ErrCancelled and the request's, as by the peer.
func TestHTTPLoneCallSeesItsClientGo(t *testing.T) {
	looks := map[string]func(ctx context.Context, gone <-chan struct{}) context.Context{
		"Done": func(ctx context.Context, _ <-chan struct{}) context.Context {
			<-ctx.Done()
			return ctx
		},
		"Err alone": func(ctx context.Context, gone <-chan struct{}) context.Context {
			<-gone
			if ctx.Err() == nil {
				return nil
			}
			return ctx
		},
		"a derived context": func(ctx context.Context, _ <-chan struct{}) context.Context {
			derived, cancel := context.WithCancel(ctx)
			defer cancel()
			<-derived.Done()
			return ctx
		},
	}
	for name, look := range looks {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				started, gone := make(chan struct{}), make(chan struct{})
				seen := make(chan context.Context, 1)
				h := rpc.NewHTTPHandler(context.Background(), rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
					close(started)
					seen <- look(ctx, gone)
					return nil, nil
				}), &rpc.Options{Logger: quiet})
				defer h.Close()
				ctx, cancel := context.WithCancel(context.Background())
				req := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(`{"jsonrpc":"2.0","method":"m","id":1}`))
				req.Header.Set("Content-Type", jsonType)
				served := make(chan struct{})
				go func() {
					h.ServeHTTP(httptest.NewRecorder(), req)
					close(served)
				}()
				<-started
				cancel() // the client goes away
				close(gone)
				callCtx := <-seen
				if assert.NotNil(t, callCtx, "the call's context is not done") {
					assert.ErrorIs(t, callCtx.Err(), context.Canceled)
					assert.ErrorIs(t, context.Cause(callCtx), context.Canceled)
					assert.ErrorIs(t, context.Cause(callCtx), rpc.ErrCancelled, "as by the peer")
				}
				<-served
			})
		})
	}
}
