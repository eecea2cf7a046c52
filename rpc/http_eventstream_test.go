package rpc

import (
	"context"
	"github.com/toolrpc/toolrpc/internal/wiretest/httprec"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// Options.EventStreamAfter: a request from a client that accepts events
// is answered as an event stream even when its calls notify nothing (the
// answer its only event), unless the answer is an error that comes first
// and the client accepts JSON; a client that accepts JSON alone gets JSON;
// notifications alone get 202.
func TestHTTPEventStreamAfter(t *testing.T) {
	const (
		both  = "application/json, text/event-stream"
		echo  = `{"jsonrpc":"2.0","method":"echo","params":[1],"id":1}`
		echod = `{"jsonrpc":"2.0","result":[1],"id":1}`
		fail  = `{"jsonrpc":"2.0","error":{"code":-32099,"message":"nope"},"id":1}`
	)
	for _, tc := range []struct {
		name, accept, frame string
		after               time.Duration
		status              int
		typ, want           string
	}{
		{"a result", both, echo, time.Minute, 200, "text/event-stream", "data: " + echod + "\n\n"},
		{"events alone", "text/event-stream", echo, time.Minute, 200, "text/event-stream", "data: " + echod + "\n\n"},
		{"JSON alone", "application/json", echo, time.Minute, 200, "application/json", echod + "\n"},
		{"an error first", both, `{"jsonrpc":"2.0","method":"fail","id":1}`, time.Minute, 200, "application/json", fail + "\n"},
		{"an error, events alone", "text/event-stream", `{"jsonrpc":"2.0","method":"fail","id":1}`, time.Minute, 200, "text/event-stream", "data: " + fail + "\n\n"},
		{"a notification before", both, `{"jsonrpc":"2.0","method":"note","id":1}`, time.Minute, 200, "text/event-stream",
			"data: " + `{"jsonrpc":"2.0","method":"note","params":{"n":1}}` + "\n\ndata: " + `{"jsonrpc":"2.0","result":"ok","id":1}` + "\n\n"},
		{"a batch", both, `[` + echo + `]`, time.Minute, 200, "text/event-stream", "data: [" + echod + "]\n\n"},
		{"notifications alone", both, `{"jsonrpc":"2.0","method":"echo"}`, time.Minute, 202, "", ""},
		{"not set", both, echo, 0, 200, "application/json", echod + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHTTPHandler(context.Background(), HandlerFunc(frameHandler), &Options{Logger: slog.New(slog.DiscardHandler), EventStreamAfter: tc.after})
			defer h.Close()
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.frame))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", tc.accept)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, tc.status, w.Code)
			assert.Equal(t, tc.typ, w.Header().Get("Content-Type"))
			assert.Equal(t, tc.want, w.Body.String())
		})
	}
}

// state reads what a recorder holds.
func state(r *httprec.Recorder) (status, flushes int, body string) {
	return r.Status(), r.Flushes(), r.String()
}

// A long request's event stream opens (its header written and flushed)
// once it has gone EventStreamAfter with nothing written, before its
// answer; a notification's, however long, is still answered 202.
func TestHTTPEventStreamOpensAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		handler := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			<-release
			return "done", nil
		})
		h := NewHTTPHandler(context.Background(), handler, &Options{Logger: slog.New(slog.DiscardHandler), EventStreamAfter: 5 * time.Second})
		defer h.Close()
		serve := func(frame string) (*httprec.Recorder, chan struct{}) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(frame))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			w := httprec.New()
			done := make(chan struct{})
			go func() {
				defer close(done)
				h.ServeHTTP(w, r)
			}()
			return w, done
		}
		w, done := serve(`{"jsonrpc":"2.0","method":"long","id":1}`)
		wn, doneN := serve(`{"jsonrpc":"2.0","method":"long"}`)
		time.Sleep(5*time.Second - time.Nanosecond)
		synctest.Wait()
		status, flushes, _ := state(w)
		assert.Equal(t, 0, status, "nothing yet")
		assert.Equal(t, 0, flushes)
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		status, flushes, body := state(w)
		assert.Equal(t, 200, status, "the stream is open")
		assert.Equal(t, 1, flushes)
		assert.Equal(t, "", body)
		assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
		status, _, _ = state(wn)
		assert.Equal(t, 0, status, "a notification's answer waits: 202")
		close(release)
		<-done
		<-doneN
		_, _, body = state(w)
		assert.Equal(t, "data: "+`{"jsonrpc":"2.0","result":"done","id":1}`+"\n\n", body)
		status, _, body = state(wn)
		assert.Equal(t, 202, status)
		assert.Equal(t, "", body)
	})
}
