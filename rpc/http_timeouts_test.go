package rpc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// rawPost writes to conn, in a goroutine (a net.Pipe's write waits for
// the server to read), a POST whose header announces length and whose
// body so far is body, with the headers given (each "Name: value").
func rawPost(conn net.Conn, length int, body string, headers ...string) {
	go func() {
		h := ""
		for _, x := range headers {
			h += x + "\r\n"
		}
		_, _ = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s", h, length, body)
	}()
}

// readAnswer reads conn's response in a goroutine, as "status body", or
// the error that ended it.
func readAnswer(conn net.Conn) <-chan string {
	c := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			c <- err.Error()
			return
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			c <- err.Error()
			return
		}
		c <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	return c
}

// At the defaults (MaxQueueBytes, MinUploadRate), in fake time: four
// clients that announce 64 MiB and send one byte hold a byte each, not
// the budget, so that an honest request is served beside them at once;
// each is answered 408 once it has sent nothing for the grace, 10 s after
// its byte (before the 10.03 s its rate allows: 10 s and a second per
// 16 KiB of its 512-byte buffer), and its connection closed (issue 23,
// defect 1: every other request got 503 for 119 s, again every 2
// minutes).
func TestHTTPSlowBodiesAtTheDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := wiretest.NewPipeServer(t, newHostileServer(t, newHostileMethods(), nil))
		var answers []<-chan string
		for range 4 {
			conn := srv.Dial()
			defer conn.Close()
			rawPost(conn, 64<<20, "{")
			answers = append(answers, readAnswer(conn))
		}
		synctest.Wait()

		honest := srv.Dial()
		defer honest.Close()
		body := `{"jsonrpc":"2.0","method":"echo","id":1}`
		rawPost(honest, len(body), body)
		assert.Equal(t, `200 {"jsonrpc":"2.0","result":null,"id":1}`+"\n", <-readAnswer(honest), "served at once")

		time.Sleep(10*time.Second - time.Millisecond) // the grace (rpchttp.UploadGrace)
		synctest.Wait()
		for _, a := range answers {
			assert.Empty(t, a, "within the grace")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		for _, a := range answers {
			select {
			case got := <-a:
				assert.Equal(t, `408 {"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"reason":"the body was not received in time"}},"id":null}`+"\n", got)
			default:
				t.Error("not answered at 10 s")
			}
		}
	})
}

// At the default WriteTimeout (30 s), in fake time: a client that asks
// for an event stream and never reads holds the only worker until the
// write it does not take times out; then the call's notifications fail
// (ErrClosed), the call returns, and the request waiting is served
// (issue 23, defect 3: such clients held every worker for as long as
// they liked).
func TestHTTPWriteTimeoutAtTheDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newHostileMethods()
		srv := wiretest.NewPipeServer(t, newHostileServer(t, m, &rpc.Options{Concurrency: 1}))
		stalled := srv.Dial()
		defer stalled.Close()
		body := `{"jsonrpc":"2.0","method":"stream","id":1}`
		rawPost(stalled, len(body), body, "Accept: text/event-stream")
		synctest.Wait()

		next := srv.Dial()
		defer next.Close()
		body = `{"jsonrpc":"2.0","method":"echo","id":2}`
		rawPost(next, len(body), body)
		answer := readAnswer(next)
		time.Sleep(rpc.DefaultWriteTimeout - time.Millisecond)
		synctest.Wait()
		assert.Empty(t, answer, "the worker is held within the timeout")
		assert.Empty(t, m.streamed)

		time.Sleep(time.Millisecond)
		synctest.Wait()
		require.Len(t, m.streamed, 1, "the stream ended at the timeout")
		// The write timed out (ErrClosed), or net/http saw the connection
		// fail first and cancelled the request (context.Canceled).
		err := <-m.streamed
		assert.True(t, errors.Is(err, rpc.ErrClosed) || errors.Is(err, context.Canceled), "%v", err)
		assert.Equal(t, `200 {"jsonrpc":"2.0","result":null,"id":2}`+"\n", <-answer, "the worker is free")
	})
}
