package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// Attack (issue 23 review, defect 7): eviction by recency alone let anyone
// who can initialize end any idle session: a newcomer between its
// initialize and its next request was ended by one initialize of the
// attacker's, and a session in use by MaxSessions initializes each
// followed by a ping. Now a full table ends a session of the client that
// holds the most (the initializing client's own among equals): the
// attacker's initializes end the attacker's sessions. The clients are
// told apart by their address (the default ClientKey) or by a ClientKey
// of the application's.
func TestAttackInitializeFloodEndsTheFloodersSessions(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	keys := []struct {
		name string
		key  func(*http.Request) string
	}{
		{"by address", nil},
		{"by ClientKey", func(r *http.Request) string { return r.Header.Get("X-Client") }},
	}
	for _, k := range keys {
		rig := func(t *testing.T) (open func(client string, use bool) string, alive func(client, sid string) bool,
			serve func(client, body, sid string) *httptest.ResponseRecorder) {
			h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{
				MaxSessions: 2, ClientKey: k.key, RPC: rpc.Options{Logger: wiretest.Quiet()}})
			t.Cleanup(func() { h.Close() })
			serve = func(client, body, sid string) *httptest.ResponseRecorder {
				req := httptest.NewRequest("POST", "/", strings.NewReader(body))
				req.RemoteAddr = client + ":4711"
				req.Header.Set("X-Client", client)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if sid != "" {
					req.Header.Set("Mcp-Session-Id", sid)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			// Once its response is written, a request of a session is
			// counted out in the background: synctest.Wait waits for it.
			alive = func(client, sid string) bool {
				ok := serve(client, ping, sid).Code == 200
				synctest.Wait()
				return ok
			}
			open = func(client string, use bool) string {
				rec := serve(client, initBody, "")
				synctest.Wait()
				require.Equal(t, 200, rec.Code)
				sid := rec.Header().Get("Mcp-Session-Id")
				if use {
					require.True(t, alive(client, sid))
				}
				return sid
			}
			return open, alive, serve
		}
		const attacker, honest = "192.0.2.66", "198.51.100.7"
		t.Run(k.name+": newcomer", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				open, alive, _ := rig(t)
				first := open(attacker, true) // the attacker's sessions fill the table
				open(attacker, true)
				newcomer := open(honest, false) // an honest client initializes, ending one of the attacker's
				open(attacker, false)           // the attacker initializes again before the newcomer's next request
				assert.True(t, alive(honest, newcomer), "a newcomer's session outlives an initialize of an attacker's")
				assert.False(t, alive(attacker, first), "the attacker's least recently used session was ended first")
			})
		})
		t.Run(k.name+": in use", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				open, alive, _ := rig(t)
				honestSid := open(honest, true) // an honest client, in use, idle between calls
				for range 4 {                   // initialize+ping pairs of the attacker's
					open(attacker, true)
				}
				assert.True(t, alive(honest, honestSid), "an honest session in use outlives an initialize loop")
			})
		})
		t.Run(k.name+": busy", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				open, alive, serve := rig(t)
				// The attacker keeps each of its sessions busy: a call that
				// waits for ever.
				held := make(chan int, 2)
				for range 2 {
					sid := open(attacker, true)
					go func() {
						held <- serve(attacker, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold"}}`, sid).Code
					}()
				}
				synctest.Wait()
				newcomer := open(honest, false) // ends one of them, its call cancelled
				assert.Equal(t, 200, <-held, "the call of the session ended is answered on its stream")
				assert.True(t, alive(honest, newcomer))
				// The attacker, holding no more than the newcomer now, is
				// refused: its one session is busy, and the newcomer's holds
				// fewer than it would.
				rec := serve(attacker, initBody, "")
				assert.Equal(t, 503, rec.Code)
				assert.Contains(t, rec.Body.String(), "too many sessions")
				assert.True(t, alive(honest, newcomer))
			})
		})
		t.Run(k.name+": one client", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				open, alive, _ := rig(t)
				a := open(honest, true)
				b := open(honest, false)
				c := open(honest, false) // a client alone: its never-used session goes first
				assert.True(t, alive(honest, a))
				assert.False(t, alive(honest, b))
				assert.True(t, alive(honest, c))
			})
		})
	}
}

// nameAsker's tool asks its client for a name and waits for the answer.
type nameAsker struct{}

// Form elicits a name.
func (nameAsker) Form(ctx context.Context) (string, error) {
	res, err := mcp.Elicit(ctx, &mcp.ElicitParams{Message: "Who?", Fields: []mcp.Field{mcp.StringField{Name: "name"}}})
	if err != nil {
		return "", err
	}
	return res.Action, nil
}

// Attack (issue 23, defect 6): calls waiting for a client that hung up
// held their slots of the handler's concurrency until HTTPOptions.Detached
// (2 min): two sessions' worth of elicitations (SessionConcurrency each,
// half of RPC.Concurrency) kept every other client's requests waiting that
// long. A call waiting for its client now lends its slot of the handler's
// back (its session's own slots stay held, bounding how many of its calls
// wait), and takes one again when the answer comes, or ends without it.
func TestAttackCallsAwaitingAGoneClientHoldNoSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mcp.New(&mcp.Options{Name: "asker", Version: "1"})
		require.NoError(t, s.Register("", nameAsker{}))
		h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Concurrency: 4, Logger: wiretest.Quiet()}})
		defer h.Close()
		post := func(ctx context.Context, sid, body string) *httptest.ResponseRecorder {
			req := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if sid != "" {
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		open := func() string {
			rec := post(context.Background(), "", strings.Replace(initBody, `"capabilities":{}`, `"capabilities":{"elicitation":{}}`, 1))
			require.Equal(t, 200, rec.Code)
			synctest.Wait()
			return rec.Header().Get("Mcp-Session-Id")
		}
		// Two sessions each start two calls (SessionConcurrency: 2), which
		// ask their client; one client hangs up, the other stays.
		form := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"form"}}`
		gone, staying := open(), open()
		hangUp, cancel := context.WithCancel(context.Background())
		answers := make(chan *httptest.ResponseRecorder, 2)
		for i := range 2 {
			go post(hangUp, gone, fmt.Sprintf(form, 10+i))
			go func() { answers <- post(context.Background(), staying, fmt.Sprintf(form, 20+i)) }()
		}
		synctest.Wait()
		require.Equal(t, 4, mcp.Waiting(h), "every call asks its client")
		assert.Zero(t, mcp.SlotsHeld(h), "a call waiting for its client holds no slot of the handler's")
		cancel()
		synctest.Wait()

		// Another client is served at once, not after Detached.
		other := open()
		pinged := make(chan *httptest.ResponseRecorder, 1)
		go func() { pinged <- post(context.Background(), other, `{"jsonrpc":"2.0","id":1,"method":"ping"}`) }()
		synctest.Wait()
		select {
		case rec := <-pinged:
			assert.Contains(t, rec.Body.String(), `data: {"jsonrpc":"2.0","result":{},"id":1}`+"\n")
		default:
			t.Fatal("another client's ping waits for a slot")
		}

		// The staying client answers: its calls take a slot again and end.
		for id := 1; id <= 2; id++ {
			rec := post(context.Background(), staying, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"action":"decline"}}`, id))
			assert.Equal(t, 202, rec.Code)
		}
		for range 2 {
			rec := <-answers
			assert.Contains(t, rec.Body.String(), `"text":"decline"`)
		}
		synctest.Wait()
		assert.Equal(t, 2, mcp.Waiting(h), "the gone client's calls still wait")
		// The gone client's calls end at Detached, counted out.
		time.Sleep(mcp.DefaultDetached + time.Second)
		synctest.Wait()
		assert.Zero(t, mcp.Waiting(h))
		assert.Zero(t, mcp.SlotsHeld(h), "no slot kept, none given back twice")
	})
}
