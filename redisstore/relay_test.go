package redisstore_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/redisstore"
	"github.com/toolrpc/toolrpc/rpc"
)

// kit is the tools of the instances.
type kit struct{}

// Hello greets.
func (kit) Hello() string { return "hello" }

// more is a tool registered while the instances run.
type more struct{}

// Another is another tool.
func (more) Another() string { return "another" }

// The lines of the wire.
const (
	initialize   = `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}},"id":0}`
	initialized  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	subscribe    = `{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://r"},"id":1}`
	subscribedOK = `{"jsonrpc":"2.0","result":{},"id":1}`
	updated      = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://r"}}`
	tools        = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	resources    = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`
)

// newInstance is one instance of the server: the kit's tools, and one
// resource, test://r.
func newInstance(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	require.NoError(t, s.Register("", kit{}))
	require.NoError(t, s.AddResources(mcp.Resource{URI: "test://r", Name: "r",
		Read: func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "r"}}, nil
		}}))
	return s
}

// session is a legacy session of a server over stdio pipes.
type session struct {
	in  io.WriteCloser
	out *wiretest.Buffer
}

// openSession serves s on pipes, initialized, subscribed to test://r,
// until the test's end.
func openSession(t *testing.T, s *mcp.Server) *session {
	t.Helper()
	in, input := io.Pipe()
	out := &wiretest.Buffer{}
	served := make(chan error, 1)
	go func() {
		served <- rpc.Serve(context.Background(), in, out, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
	}()
	t.Cleanup(func() {
		require.NoError(t, input.Close())
		require.NoError(t, wiretest.Receive(t, served, "Serve to return"))
	})
	wiretest.Send(t, input, initialize)
	wiretest.WaitForLines(t, out, 1)
	wiretest.Send(t, input, initialized)
	wiretest.Send(t, input, subscribe)
	wiretest.WaitForLines(t, out, 2)
	return &session{in: input, out: out}
}

// told waits until the session was told n lines, after initialize's
// answer, and returns them.
func (s *session) told(t *testing.T, n int) []string {
	t.Helper()
	wiretest.WaitForLines(t, s.out, n+1)
	return wiretest.Lines(t, s.out.String())[1:]
}

// instances is two instances, A and B, each relaying on a Bus of its own,
// over a client of its own, to one Redis; a session of each, subscribed
// to test://r; and a third client, admin.
type instances struct {
	redis  *redisServer
	a, b   *mcp.Server
	busA   *redisstore.Bus
	sa, sb *session
	admin  *redis.Client
	logs   wiretest.Logs
	end    func() // ends the relays, checking that each returned ctx's error
}

func newInstances(t *testing.T, opts redisstore.BusOptions) *instances {
	t.Helper()
	in := &instances{redis: startRedis(t), a: newInstance(t), b: newInstance(t)}
	in.admin = redis.NewClient(&redis.Options{Addr: in.redis.Addr()})
	t.Cleanup(func() { in.admin.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	relays := make(chan error, 2)
	opts.Logger = in.logs.Logger()
	for _, s := range []*mcp.Server{in.a, in.b} {
		client := redis.NewClient(&redis.Options{Addr: in.redis.Addr()})
		t.Cleanup(func() { client.Close() })
		bus, err := redisstore.NewBus(client, &opts)
		require.NoError(t, err)
		if s == in.a {
			in.busA = bus
		}
		go func() { relays <- s.Relay(ctx, bus, in.logs.Logger()) }()
	}
	in.end = sync.OnceFunc(func() {
		cancel()
		for _, err := range wiretest.ReceiveN(t, relays, 2, "the relays to return") {
			assert.ErrorIs(t, err, context.Canceled)
		}
	})
	t.Cleanup(in.end)
	subscribers(t, in.admin, in.busA.Channel(), 2)
	in.sa, in.sb = openSession(t, in.a), openSession(t, in.b)
	return in
}

// sentinel has A tell what ends what a test awaits: B's session, and
// A's, are told it after what A told before (the bus keeps the order).
func (in *instances) sentinel(t *testing.T) {
	t.Helper()
	require.NoError(t, in.a.AddResources(mcp.Resource{URI: "test://sentinel", Name: "sentinel",
		Read: func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) { return nil, nil }}))
}

// Two instances of one server on one Redis: a resource updated on A, and
// a tool registered on A, are told to B's session, once each, and to A's
// once each (A's own events, back from Redis, are not told again); B's
// own tools stay its own.
func TestRelayAcrossInstances(t *testing.T) {
	in := newInstances(t, redisstore.BusOptions{})
	in.a.ResourceUpdated("test://r")
	require.NoError(t, in.a.Register("more", more{}))
	in.sentinel(t)
	for name, s := range map[string]*session{"a": in.sa, "b": in.sb} {
		assert.ElementsMatch(t, []string{subscribedOK, updated, tools, resources}, s.told(t, 4), name)
	}
	assert.NotContains(t, in.b.Tools(), "more.another")
	in.end()
	assert.Len(t, wiretest.Lines(t, in.sb.out.String()), 5, "nothing more told")
	assert.Empty(t, in.logs.Records(t), "nothing logged")
}

// Messages on the channel that are no events, or too long, published by
// another client, are dropped, each with a warning; the relays go on.
func TestRelayDropsWhatIsNoEvent(t *testing.T) {
	in := newInstances(t, redisstore.BusOptions{MaxEventBytes: 512})
	ctx := context.Background()
	for _, raw := range []string{
		"garbage",
		`{"origin":"intruder","kind":"updated","uri":"test://r` + strings.Repeat("x", 512) + `"}`,
		`{"origin":"intruder"}`,
		`{"origin":"intruder","kind":"nonsense"}`, // an event to the bus, none to Relay
	} {
		require.NoError(t, in.admin.Publish(ctx, in.busA.Channel(), raw).Err())
	}
	in.a.ResourceUpdated("test://r")
	in.sentinel(t)
	for name, s := range map[string]*session{"a": in.sa, "b": in.sb} {
		assert.ElementsMatch(t, []string{subscribedOK, updated, resources}, s.told(t, 3), name)
	}
	in.end()
	var msgs []string
	for _, r := range in.logs.Records(t) {
		msgs = append(msgs, r["msg"].(string))
	}
	const noEvent, tooLong, relayed = "redisstore: a message on the channel was dropped: no event",
		"redisstore: a message on the channel was dropped: too long", "mcp: the bus delivered what is no event"
	assert.ElementsMatch(t, []string{noEvent, noEvent, tooLong, tooLong, noEvent, noEvent, relayed, relayed}, msgs, "by each instance")
}

// Redis frozen (SIGSTOP), then killed (SIGKILL) and started again on its
// port: Publish fails by its context's end, whatever the client's
// timeouts (one that reached the frozen Redis is published when it
// thaws); each relay subscribes again, once Redis is back, and events
// flow again; the relays end with their context.
func TestRelayAcrossRedisRestart(t *testing.T) {
	in := newInstances(t, redisstore.BusOptions{})
	ctx := context.Background()
	// An event of another instance's, told by B and by A.
	event := mcp.Event{Origin: "another", Kind: mcp.EventUpdated, URI: "test://r"}

	in.redis.signal(syscall.SIGSTOP)
	pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	start := time.Now()
	err := in.busA.Publish(pctx, event)
	took := time.Since(start)
	cancel()
	in.redis.signal(syscall.SIGCONT)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, took, 2*time.Second, "by the context's end: the client's read timeout is 3 s")
	for name, s := range map[string]*session{"a": in.sa, "b": in.sb} {
		assert.Equal(t, []string{subscribedOK, updated}, s.told(t, 2), name)
	}

	in.redis.kill()
	pctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
	start = time.Now()
	err = in.busA.Publish(pctx, event)
	took = time.Since(start)
	cancel()
	assert.Error(t, err)
	assert.Less(t, took, 2*time.Second, "by the context's end")

	in.redis.start()
	subscribers(t, in.admin, in.busA.Channel(), 2) // each relay, subscribed again
	in.a.ResourceUpdated("test://r")
	require.NoError(t, in.a.Register("more", more{}))
	in.sentinel(t)
	for name, s := range map[string]*session{"a": in.sa, "b": in.sb} {
		told := s.told(t, 5)
		assert.Equal(t, []string{subscribedOK, updated}, told[:2], name)
		assert.ElementsMatch(t, []string{updated, tools, resources}, told[2:], name)
	}
	in.end()
	var lost, again int
	for _, r := range in.logs.Records(t) {
		switch r["msg"] {
		case "redisstore: the subscription to the channel was lost; subscribing again":
			lost++
		case "redisstore: subscribed to the channel again":
			again++
		}
	}
	assert.Equal(t, 2, lost, "once by each relay")
	assert.Equal(t, 2, again, "once by each relay")
}

// pings is how many PINGs Redis has answered since its statistics were
// reset.
func pings(t *testing.T, admin *redis.Client) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	info, err := admin.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(info, "\r\n") {
		if rest, ok := strings.CutPrefix(line, "cmdstat_ping:calls="); ok {
			n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
			return n
		}
	}
	return 0
}

// count is how many records logs holds with message msg.
func count(t *testing.T, logs *wiretest.Logs, msg string) int {
	t.Helper()
	return len(logs.Messages(t, msg))
}

// A subscription that receives nothing for PingAfter sends PING, and is
// kept while Redis answers; Redis frozen (SIGSTOP: no word on the
// connection, as when the network is cut), it is taken for dead after
// twice PingAfter and made anew, which succeeds once Redis thaws; events
// flow again.
func TestRelayAcrossASilentRedis(t *testing.T) {
	in := newInstances(t, redisstore.BusOptions{PingAfter: 250 * time.Millisecond})
	const lost, again = "redisstore: the subscription to the channel was lost; subscribing again", "redisstore: subscribed to the channel again"
	require.NoError(t, in.admin.ConfigResetStat(context.Background()).Err())
	eventually(t, "each relay pings twice", func() bool { return pings(t, in.admin) >= 4 })
	assert.Zero(t, count(t, &in.logs, lost), "kept while Redis answers")

	in.redis.signal(syscall.SIGSTOP)
	eventually(t, "each relay's subscription taken for dead", func() bool { return count(t, &in.logs, lost) == 2 })
	in.redis.signal(syscall.SIGCONT)
	for _, r := range in.logs.Messages(t, lost) {
		assert.Equal(t, "redisstore: nothing from Redis in 500ms, not even an answer to PING", r["error"])
	}
	eventually(t, "each relay subscribed again", func() bool { return count(t, &in.logs, again) == 2 })
	subscribers(t, in.admin, in.busA.Channel(), 2)

	in.a.ResourceUpdated("test://r")
	in.sentinel(t)
	for name, s := range map[string]*session{"a": in.sa, "b": in.sb} {
		assert.ElementsMatch(t, []string{subscribedOK, updated, resources}, s.told(t, 3), name)
	}
	in.end()
	assert.Equal(t, 2, count(t, &in.logs, lost), "once by each relay")
}
