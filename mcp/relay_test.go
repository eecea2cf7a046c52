package mcp_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
)

// memBus is a Bus in memory, for the tests: every event published is
// delivered to every subscriber.
type memBus struct {
	mu   sync.Mutex
	subs map[chan mcp.Event]bool
}

func newMemBus() *memBus { return &memBus{subs: map[chan mcp.Event]bool{}} }

func (b *memBus) Publish(ctx context.Context, e mcp.Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		ch <- e
	}
	return nil
}

func (b *memBus) Subscribe(ctx context.Context, deliver func(mcp.Event)) error {
	ch := make(chan mcp.Event, 64)
	b.mu.Lock()
	b.subs[ch] = true
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-ch:
			deliver(e)
		}
	}
}

// stdioSession serves s on a pipe, initialized as a legacy session, and
// returns what the client writes, what it reads, and how to end it; in
// a synctest bubble.
func stdioSession(t *testing.T, s *mcp.Server) (input io.WriteCloser, out *wiretest.Buffer, end func()) {
	t.Helper()
	in, input := io.Pipe()
	out = &wiretest.Buffer{}
	served := make(chan error, 1)
	go func() {
		served <- rpc.Serve(context.Background(), in, out, s.Handler(), &rpc.Options{Logger: wiretest.Quiet()})
	}()
	wiretest.Send(t, input, legacyInit)
	synctest.Wait() // answered: requests run concurrently
	wiretest.Send(t, input, initialized)
	synctest.Wait()
	return input, out, func() {
		require.NoError(t, input.Close())
		require.NoError(t, <-served)
	}
}

// Two instances of one server relaying on one bus: a resource updated,
// and a list changed, on one is told to the sessions of the other (once,
// and to its own sessions once: no echo); an instance's own list is not
// changed by another's; what the bus delivers that is no event is
// dropped, with a warning.
func TestRelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bus := newMemBus()
		a, b := newFeatures(t), newFeatures(t)
		ctx, cancel := context.WithCancel(context.Background())
		var logs bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&logs, nil))
		relays := make(chan error, 2)
		for _, s := range []*mcp.Server{a, b} {
			go func() { relays <- s.Relay(ctx, bus, logger) }()
		}
		synctest.Wait()
		assert.EqualError(t, a.Relay(ctx, bus, logger), "mcp: the Server relays on a bus already")

		inA, outA, endA := stdioSession(t, a)
		inB, outB, endB := stdioSession(t, b)
		for _, in := range []io.Writer{inA, inB} {
			wiretest.Send(t, in, `{"jsonrpc":"2.0","method":"resources/subscribe","params":{"uri":"test://static-text"},"id":2}`)
		}
		synctest.Wait()
		a.ResourceUpdated("test://static-text")
		require.NoError(t, a.Register("more", more{}))
		require.NoError(t, a.AddResources(mcp.Resource{URI: "test://new", Name: "new", Read: read("new")}))
		synctest.Wait()
		const (
			subscribed = `{"jsonrpc":"2.0","result":{},"id":2}`
			updated    = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://static-text"}}`
			tools      = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
			resources  = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`
		)
		for name, out := range map[string]*wiretest.Buffer{"a": outA, "b": outB} {
			lines := wiretest.Lines(t, out.String())[1:] // after initialize's answer
			assert.ElementsMatch(t, []string{subscribed, updated, tools, resources}, lines, name)
		}
		assert.NotContains(t, b.Tools(), "more.another", "b's own tools are its own")
		assert.Contains(t, a.Tools(), "more.another")

		for _, e := range []mcp.Event{{Kind: "nonsense"}, {Kind: mcp.EventUpdated}, {Kind: mcp.EventUpdated, URI: strings.Repeat("x", mcp.MaxURI+1)}} {
			require.NoError(t, bus.Publish(ctx, e))
		}
		synctest.Wait()
		assert.Len(t, wiretest.Lines(t, outB.String()), 5, "nothing more told")
		assert.Equal(t, 6, strings.Count(logs.String(), "the bus delivered what is no event"), "by a and b each")

		endA()
		endB()
		cancel()
		assert.ErrorIs(t, <-relays, context.Canceled)
		assert.ErrorIs(t, <-relays, context.Canceled)
		require.NoError(t, a.Register("after", extra{}), "alone again")
	})
}

// blockedBus is a bus whose Publish waits for its context.
type blockedBus struct{ memBus }

func (*blockedBus) Publish(ctx context.Context, e mcp.Event) error {
	<-ctx.Done()
	return ctx.Err()
}

// A bus that does not take what is published costs a bounded queue:
// ResourceUpdated never waits for it, events past RelayQueue are
// dropped, and each Publish ends by its timeout, logged.
func TestRelayNeverWaitsForTheBus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bus := &blockedBus{memBus: *newMemBus()}
		s := newFeatures(t)
		ctx, cancel := context.WithCancel(context.Background())
		var logs bytes.Buffer
		relayed := make(chan error, 1)
		go func() { relayed <- s.Relay(ctx, bus, slog.New(slog.NewTextHandler(&logs, nil))) }()
		synctest.Wait()
		for range 3 * mcp.RelayQueue { // never waits: the test's end says so
			s.ResourceUpdated("test://static-text")
		}
		time.Sleep(6 * time.Second) // the first Publish's timeout, 5 s, has passed
		synctest.Wait()
		assert.Equal(t, 1, strings.Count(logs.String(), "could not be published"), "after its timeout only")
		cancel()
		assert.ErrorIs(t, <-relayed, context.Canceled)
	})
}
