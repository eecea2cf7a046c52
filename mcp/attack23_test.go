package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

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
		rig := func(t *testing.T) (open func(client string, use bool) string, alive func(client, sid string) bool) {
			h := newSteps(t).NewHTTPHandler(context.Background(), &mcp.HTTPOptions{
				MaxSessions: 2, ClientKey: k.key, RPC: rpc.Options{Logger: wiretest.Quiet()}})
			t.Cleanup(func() { h.Close() })
			serve := func(client, body, sid string) *httptest.ResponseRecorder {
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
			return open, alive
		}
		const attacker, honest = "192.0.2.66", "198.51.100.7"
		t.Run(k.name+": newcomer", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				open, alive := rig(t)
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
				open, alive := rig(t)
				honestSid := open(honest, true) // an honest client, in use, idle between calls
				for range 4 {                   // initialize+ping pairs of the attacker's
					open(attacker, true)
				}
				assert.True(t, alive(honest, honestSid), "an honest session in use outlives an initialize loop")
			})
		})
		t.Run(k.name+": one client", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				open, alive := rig(t)
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
