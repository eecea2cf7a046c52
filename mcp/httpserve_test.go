package mcp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// ServeListener serves Streamable HTTP on the listener until its context
// ends, then returns the context's cause; a Server without tools is
// refused before serving.
func TestServeListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- newSteps(t).ServeListener(ctx, ln, &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	}()
	initialize(t, "http://"+ln.Addr().String())
	stop := errors.New("stop")
	cancel(stop)
	assert.ErrorIs(t, wiretest.Receive(t, served, "the end of serving"), stop)

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	assert.EqualError(t, mcp.New(nil).ServeListener(context.Background(), ln, nil), "mcp: nothing to serve: no tool, no resource, no prompt")
	assert.EqualError(t, newSteps(t).ListenAndServe(context.Background(), "8080", nil), `rpc: the address "8080": address 8080: missing port in address`)
}

// A body that cannot be read is answered as rpc.HTTPHandler answers it:
// 400, and the handler serves on.
func TestHTTPBodyUnreadable(t *testing.T) {
	h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
	defer h.Close()
	req := httptest.NewRequest("POST", "/", iotest.TimeoutReader(strings.NewReader(initBody)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, invalid("the body could not be read"), rec.Body.String())
	rec = serveDirect(h, exchange{body: initBody})
	assert.Equal(t, 200, rec.Code)
	assert.Equal(t, initResult, rec.Body.String())
}
