package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/redisstore"
)

// NewBus takes the defaults for what is unset, and refuses options that
// are not valid, without reaching Redis.
func TestNewBus(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer client.Close()
	for _, tc := range []struct {
		name    string
		client  redis.UniversalClient
		opts    *redisstore.BusOptions
		channel string
		err     string
	}{
		{name: "nil options", client: client, channel: "toolrpc:mcp:events"},
		{name: "zero options", client: client, opts: &redisstore.BusOptions{}, channel: "toolrpc:mcp:events"},
		{name: "a channel", client: client, opts: &redisstore.BusOptions{Channel: "app:é:events"}, channel: "app:é:events"},
		{name: "the longest channel", client: client, opts: &redisstore.BusOptions{Channel: strings.Repeat("c", redisstore.MaxChannel)}, channel: strings.Repeat("c", redisstore.MaxChannel)},
		{name: "no client", err: "redisstore: no Redis client"},
		{name: "a channel too long", client: client, opts: &redisstore.BusOptions{Channel: strings.Repeat("c", redisstore.MaxChannel+1)}, err: "redisstore: the channel has 257 bytes, more than 256"},
		{name: "a space", client: client, opts: &redisstore.BusOptions{Channel: "a b"}, err: "redisstore: the channel has the character U+0020"},
		{name: "a control character", client: client, opts: &redisstore.BusOptions{Channel: "a\x00b"}, err: "redisstore: the channel has the character U+0000"},
		{name: "not UTF-8", client: client, opts: &redisstore.BusOptions{Channel: "a\xffb"}, err: "redisstore: the channel is not UTF-8"},
		{name: "events too small", client: client, opts: &redisstore.BusOptions{MaxEventBytes: 255}, err: "redisstore: MaxEventBytes 255 is less than 256"},
		{name: "pings too often", client: client, opts: &redisstore.BusOptions{PingAfter: time.Millisecond}, err: "redisstore: PingAfter 1ms is less than 10ms"},
		{name: "negative", client: client, opts: &redisstore.BusOptions{MaxEventBytes: -1}, err: "redisstore: MaxEventBytes -1 is less than 256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := redisstore.NewBus(tc.client, tc.opts)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				assert.Nil(t, b)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.channel, b.Channel())
		})
	}
}

// The default bound holds the longest event Relay publishes: a URI of
// mcp.MaxURI bytes, each escaped to six in JSON.
func TestDefaultMaxEventBytesHoldsMaxURI(t *testing.T) {
	r := startRedis(t)
	client := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer client.Close()
	bus, err := redisstore.NewBus(client, nil)
	require.NoError(t, err)
	e := mcp.Event{Origin: strings.Repeat("O", 26), Kind: mcp.EventUpdated, URI: strings.Repeat("\x01", mcp.MaxURI)}
	require.NoError(t, bus.Publish(context.Background(), e))
}

// Publish sends the event's JSON, exactly, on the channel (HTML
// characters not escaped); an event past MaxEventBytes is refused and
// nothing is sent; a context ended already sends nothing.
func TestPublishWire(t *testing.T) {
	r := startRedis(t)
	client := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer client.Close()
	bus, err := redisstore.NewBus(client, &redisstore.BusOptions{Channel: "wire", MaxEventBytes: 300})
	require.NoError(t, err)
	ctx := context.Background()
	raw := client.Subscribe(ctx, "wire")
	defer raw.Close()
	_, err = raw.Receive(ctx) // the confirmation
	require.NoError(t, err)

	long := mcp.Event{Origin: "o", Kind: mcp.EventUpdated, URI: "test://" + strings.Repeat("x", 300)}
	assert.EqualError(t, bus.Publish(ctx, long), "redisstore: the event has 347 bytes, more than 300")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, bus.Publish(ended, mcp.Event{Origin: "o", Kind: mcp.EventTools}), context.Canceled)
	require.NoError(t, bus.Publish(ctx, mcp.Event{Origin: "o", Kind: mcp.EventUpdated, URI: "test://a?b=<c>&d"}))
	require.NoError(t, bus.Publish(ctx, mcp.Event{Origin: "o", Kind: mcp.EventTools}))
	for _, want := range []string{
		`{"origin":"o","kind":"updated","uri":"test://a?b=<c>&d"}`,
		`{"origin":"o","kind":"tools"}`,
	} {
		msg, err := raw.ReceiveMessage(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, msg.Payload)
	}
}

// subscribed runs bus.Subscribe until the test's end, sending what it
// delivers on the channel returned; it returns once Redis counts n
// subscribers to the bus's channel.
func subscribed(t *testing.T, bus *redisstore.Bus, admin *redis.Client, n int64) (<-chan mcp.Event, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan mcp.Event, 64)
	done := make(chan error, 1)
	go func() { done <- bus.Subscribe(ctx, func(e mcp.Event) { events <- e }) }()
	subscribers(t, admin, bus.Channel(), n)
	end := sync.OnceValue(func() error {
		cancel()
		return wiretest.Receive(t, done, "Subscribe to return")
	})
	t.Cleanup(func() { _ = end() })
	return events, end
}

// What is on the channel and is no event is dropped, logged without its
// content, and the subscription goes on: events come in the order
// published, the dropped left out.
func TestSubscribeDropsWhatIsNoEvent(t *testing.T) {
	r := startRedis(t)
	client := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer client.Close()
	var logs wiretest.Logs
	bus, err := redisstore.NewBus(client, &redisstore.BusOptions{MaxEventBytes: 300, Logger: logs.Logger()})
	require.NoError(t, err)
	events, end := subscribed(t, bus, client, 1)

	ctx := context.Background()
	secret := "SECRET" + strings.Repeat("s", 300)
	for _, raw := range []string{
		`{"origin":"x","kind":"tools","uri":"` + secret + `"}`, // too long
		"not json " + "SECRET",
		`["SECRET"]`,
		`{"origin":"x"}`,
		`{"kind":"tools"}`,
		`null`,
		`{"origin":1,"kind":"tools"}`,
		`{"origin":"x","kind":"tools"}`,
		`{"origin":"x","kind":"nonsense","extra":true}`, // an event: what kind, Relay says
		`{"origin":"y","kind":"updated","uri":"test://r"}`,
	} {
		require.NoError(t, client.Publish(ctx, bus.Channel(), raw).Err())
	}
	got := wiretest.ReceiveN(t, events, 3, "the events")
	assert.Equal(t, []mcp.Event{
		{Origin: "x", Kind: "tools"},
		{Origin: "x", Kind: "nonsense"},
		{Origin: "y", Kind: "updated", URI: "test://r"},
	}, got)
	assert.ErrorIs(t, end(), context.Canceled)

	var dropped [][2]any
	for _, rec := range logs.Records(t) {
		for k, v := range rec {
			assert.NotContains(t, fmtAny(v), "SECRET", "the record's %s holds the message", k)
		}
		dropped = append(dropped, [2]any{rec["msg"], rec["error"]})
	}
	const tooLong, noEvent = "redisstore: a message on the channel was dropped: too long", "redisstore: a message on the channel was dropped: no event"
	assert.Equal(t, [][2]any{
		{tooLong, nil},
		{noEvent, "invalid character 'o' in literal null (expecting 'u')"},
		{noEvent, "json: cannot unmarshal array into Go value of type mcp.Event"},
		{noEvent, "no origin or no kind"},
		{noEvent, "no origin or no kind"},
		{noEvent, "no origin or no kind"},
		{noEvent, "json: cannot unmarshal number into Go struct field Event.origin of type string"},
	}, dropped)
}

// fmtAny is v as text.
func fmtAny(v any) string { return fmt.Sprint(v) }

// The first subscription failing (nothing listens) is Subscribe's error,
// and nothing is delivered; a context that ends while Redis is being
// reached ends it.
func TestSubscribeUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	client := redis.NewClient(&redis.Options{Addr: addr})
	defer client.Close()
	bus, err := redisstore.NewBus(client, nil)
	require.NoError(t, err)
	err = bus.Subscribe(context.Background(), func(mcp.Event) { t.Error("delivered") })
	assert.ErrorContains(t, err, "redisstore: SUBSCRIBE toolrpc:mcp:events: dial tcp "+addr+": connect: connection refused")

	// A listener that never answers: the context's end ends the wait.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer silent.Close()
	quiet := redis.NewClient(&redis.Options{Addr: silent.Addr().String(), Protocol: 2})
	defer quiet.Close()
	bus, err = redisstore.NewBus(quiet, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = bus.Subscribe(ctx, func(mcp.Event) { t.Error("delivered") })
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	assert.Less(t, time.Since(start), 5*time.Second, "by the context's end, not the client's timeouts")
}
