package toolrpc_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc"
	"github.com/toolrpc/toolrpc/service"
)

// ServeListener serves the values over HTTP until its context ends, lets
// the call under way end (its context cancelled) and returns the cause;
// a value that cannot be served fails it at once and closes the listener.
func TestServeListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &toolrpc.Server{Logger: slog.New(slog.DiscardHandler), Service: service.Options{SkipUnservable: true}}
	ctx, cancel := context.WithCancelCause(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeListener(ctx, ln, probe{}) }()

	post := func(body string) (int, string) {
		resp, err := http.Post("http://"+ln.Addr().String(), "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, body := post(`{"jsonrpc":"2.0","method":"echo","params":["hi"],"id":1}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"jsonrpc":"2.0","result":"hi","id":1}`+"\n", body)

	// A call under way, seen started through its event stream.
	req, err := http.NewRequest("POST", "http://"+ln.Addr().String(), strings.NewReader(`{"jsonrpc":"2.0","method":"wait","id":2}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	started, err := events.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, `data: {"jsonrpc":"2.0","method":"started"}`+"\n", started)

	stop := errors.New("stop")
	cancel(stop)
	assert.ErrorIs(t, <-served, stop)
	rest, err := io.ReadAll(events)
	require.NoError(t, err)
	assert.Equal(t, "\n"+`data: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Server shutting down"},"id":2}`+"\n\n", string(rest))

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.Error(t, new(toolrpc.Server).ServeListener(context.Background(), ln, probe{}), "Skipped cannot be served")
	_, err = ln.Accept()
	assert.ErrorIs(t, err, net.ErrClosed, "the listener is closed")
}
