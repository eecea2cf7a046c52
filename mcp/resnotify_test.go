package mcp_test

import (
	"context"
	"io"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
)

// initialized is a legacy client's notifications/initialized: the session
// is told of changes from then on.
const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// event is event n of the server stream 1 (the session's first), whose
// data is line.
func event(n int, line string) string {
	return "id: 1-" + strconv.Itoa(n) + "\ndata: " + line + "\n\n"
}

// A legacy Streamable HTTP session is told on its server stream (GET) what
// its capabilities promise: the updates of the resources it subscribed to
// (resources/subscribe), until it unsubscribes; resources and templates
// added and removed (notifications/resources/list_changed); prompts
// registered and removed (notifications/prompts/list_changed).
func TestHTTPResourceNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFeatures(t)
		h := s.NewHTTPHandler(context.Background(), &mcp.HTTPOptions{RPC: rpc.Options{Logger: wiretest.Quiet()}})
		defer h.Close()
		rec := serveDirect(h, exchange{body: initBody})
		require.Equal(t, 200, rec.Code, rec.Body.String())
		assert.Equal(t, `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":1}`+"\n",
			rec.Body.String())
		r := &sseRig{t: t, s: s, h: h, sid: rec.Header().Get("Mcp-Session-Id")}
		post := func(body string) string {
			rec := serveDirect(h, exchange{body: body, header: map[string]string{"Mcp-Session-Id": r.sid}})
			return strconv.Itoa(rec.Code) + " " + rec.Body.String()
		}
		assert.Equal(t, "202 ", post(initialized))
		w, leave, done := r.get("")
		synctest.Wait()
		stream := priming
		assert.Equal(t, stream, w.String())

		assert.Equal(t, "200 "+answered(2, `{"jsonrpc":"2.0","result":{},"id":2}`),
			post(`{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://static-text"},"id":2}`))
		s.ResourceUpdated("test://other")
		s.ResourceUpdated("test://static-text")
		synctest.Wait()
		stream += event(1, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://static-text"}}`)
		assert.Equal(t, stream, w.String())

		require.NoError(t, s.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("new")}))
		synctest.Wait()
		stream += event(2, `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
		assert.Equal(t, stream, w.String())
		assert.Equal(t, 1, s.RemoveResources("test://new"))
		synctest.Wait()
		stream += event(3, `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
		assert.Equal(t, stream, w.String())

		require.NoError(t, s.RegisterPrompts("more", more{}))
		synctest.Wait()
		stream += event(4, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)
		assert.Equal(t, stream, w.String())
		assert.Equal(t, 1, s.RemovePrompts("more.another"))
		synctest.Wait()
		stream += event(5, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)
		assert.Equal(t, stream, w.String())

		assert.Equal(t, "200 "+answered(3, `{"jsonrpc":"2.0","result":{},"id":3}`),
			post(`{"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":"test://static-text"},"id":3}`))
		s.ResourceUpdated("test://static-text")
		require.NoError(t, s.Register("more", extra{}))
		synctest.Wait()
		stream += event(6, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
		assert.Equal(t, stream, w.String(), "no update after the unsubscribe")
		leave()
		<-done
	})
}

// A legacy session is told of changes once the lifecycle allows it: the
// server sends nothing but pings and logging before the client's
// notifications/initialized (2025-11-25, Lifecycle), so a change that
// comes after initialize is handled, before its response is written, is
// told after notifications/initialized, never before the response, and
// not lost.
func TestToldOnceInitialized(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answered, release := make(chan struct{}), make(chan struct{})
		hold := func(next rpc.Handler) rpc.Handler {
			return rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
				res, err := next.Handle(ctx, req)
				if req.Method == "initialize" {
					close(answered)
					<-release // the response is not written yet
				}
				return res, err
			})
		}
		s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0", Middleware: []middleware.Middleware{hold}})
		require.NoError(t, s.Register("", extra{}))
		in, input := io.Pipe()
		var out wiretest.Buffer
		served := make(chan error, 1)
		go func() {
			served <- rpc.Serve(context.Background(), in, &out, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
		}()
		told := func() []string {
			synctest.Wait()
			return wiretest.Lines(t, out.String())
		}
		const (
			response = `{"jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"kit","version":"1.0.0"}},"id":0}`
			changed  = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
		)
		wiretest.Send(t, input, legacyInit)
		<-answered
		require.NoError(t, s.Register("more", more{}))
		assert.Empty(t, told(), "not before the initialize response")
		close(release)
		assert.Equal(t, []string{response}, told(), "not before notifications/initialized")
		wiretest.Send(t, input, initialized)
		assert.Equal(t, []string{response, changed}, told(), "told once initialized")
		require.NoError(t, s.Register("again", more{}))
		assert.Equal(t, []string{response, changed, changed}, told())
		require.NoError(t, input.Close())
		require.NoError(t, <-served)
	})
}

// An unsubscribe answered while ResourceUpdated is under way is never
// followed by the update: the session's subscription is checked, and the
// update queued, at once under its lock, so the unsubscribe comes before
// both or after both (and then takes back the update not yet written).
func TestUnsubscribeDuringUpdate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newFeatures(t)
		var out wiretest.Buffer
		input, served := serveSynctest(context.Background(), s, &out)
		told := func() []string {
			synctest.Wait()
			return wiretest.Lines(t, out.String())
		}
		wiretest.Send(t, input, legacyInit)
		wiretest.Send(t, input, initialized)
		wiretest.Send(t, input, `{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://static-text"},"id":1}`)
		require.Len(t, told(), 2)
		mcp.OnUpdate(s, func() {
			wiretest.Send(t, input, `{"jsonrpc":"2.0","method":"resources/unsubscribe","params":{"uri":"test://static-text"},"id":2}`)
			require.Len(t, told(), 3, "the unsubscribe is answered")
		})
		s.ResourceUpdated("test://static-text")
		require.NoError(t, s.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("new")}))
		assert.Equal(t, []string{
			`{"jsonrpc":"2.0","result":{},"id":2}`,
			`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`,
		}, told()[2:], "no update after the unsubscribe's answer")
		require.NoError(t, input.Close())
		require.NoError(t, <-served)
	})
}
