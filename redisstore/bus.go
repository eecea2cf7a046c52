package redisstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/toolrpc/toolrpc/mcp"
)

// DefaultChannel is the Redis channel a Bus publishes on and subscribes
// to, unless BusOptions.Channel names another.
const DefaultChannel = "toolrpc:mcp:events"

// DefaultMaxEventBytes bounds an event on the channel, as JSON, unless
// BusOptions.MaxEventBytes sets another bound: an mcp.Event whose URI has
// mcp.MaxURI bytes, each escaped in JSON to six ("\u0000"), fits.
const DefaultMaxEventBytes = 64 << 10

// MaxChannel is the longest channel name, in bytes, a Bus accepts.
const MaxChannel = 256

// minEventBytes is the least MaxEventBytes may be: an event of a list
// changed, with its origin, fits.
const minEventBytes = 256

// DefaultPingAfter is how long a subscription may receive nothing before
// the Bus sends PING, unless BusOptions.PingAfter sets another time.
const DefaultPingAfter = 5 * time.Second

// subscribeTimeout bounds the wait for Redis's confirmation of a
// SUBSCRIBE.
const subscribeTimeout = 5 * time.Second

// The waits between two attempts to subscribe again, after the
// subscription was lost: from the least, doubled after each attempt that
// fails, up to the most.
const (
	leastBackoff = 50 * time.Millisecond
	mostBackoff  = 2 * time.Second
)

// BusOptions configure a Bus; the zero value, or nil, is the defaults.
type BusOptions struct {
	// Channel is the Redis channel (DefaultChannel if empty): the
	// instances of one server share it, and nothing else publishes on it.
	// At most MaxChannel bytes of UTF-8, no space or control character.
	Channel string
	// MaxEventBytes bounds an event, as JSON (DefaultMaxEventBytes if
	// zero; at least 256): Publish refuses a longer one, and a longer one
	// received is dropped.
	MaxEventBytes int
	// PingAfter is how long the subscription may receive nothing before
	// the Bus sends PING (DefaultPingAfter if zero; at least 10 ms): with
	// nothing received for as long again, the connection is taken for
	// dead (a network cut sends no word) and the subscription made anew.
	PingAfter time.Duration
	// Logger (nil: slog.Default()) is told, at Warn, of each message on
	// the channel that is dropped (too long, or no event) and of a lost
	// subscription; at Info, of a subscription made again; at Debug, of
	// each attempt to subscribe again that failed. A message's content is
	// never logged.
	Logger *slog.Logger
}

// A Bus is an mcp.Bus on Redis's publish/subscribe: Publish is a PUBLISH
// of the event's JSON on the channel, Subscribe a SUBSCRIBE to it. Its
// methods may be called concurrently; it holds no connection of its own
// but the client's, and needs no closing.
type Bus struct {
	client  redis.UniversalClient
	channel string
	max     int
	ping    time.Duration
	logger  *slog.Logger
}

var _ mcp.Bus = (*Bus)(nil)

// NewBus returns a Bus on client, which it does not close. It fails if
// opts are not valid; it does not reach Redis.
func NewBus(client redis.UniversalClient, opts *BusOptions) (*Bus, error) {
	if client == nil {
		return nil, errors.New("redisstore: no Redis client")
	}
	var o BusOptions
	if opts != nil {
		o = *opts
	}
	b := &Bus{
		client:  client,
		channel: cmp.Or(o.Channel, DefaultChannel),
		max:     cmp.Or(o.MaxEventBytes, DefaultMaxEventBytes),
		ping:    cmp.Or(o.PingAfter, DefaultPingAfter),
		logger:  cmp.Or(o.Logger, slog.Default()),
	}
	if err := validChannel(b.channel); err != nil {
		return nil, err
	}
	if b.max < minEventBytes {
		return nil, fmt.Errorf("redisstore: MaxEventBytes %d is less than %d", b.max, minEventBytes)
	}
	if b.ping < 10*time.Millisecond {
		return nil, fmt.Errorf("redisstore: PingAfter %v is less than 10ms", b.ping)
	}
	return b, nil
}

// validChannel says why name is no channel a Bus accepts.
func validChannel(name string) error {
	if len(name) > MaxChannel {
		return fmt.Errorf("redisstore: the channel has %d bytes, more than %d", len(name), MaxChannel)
	}
	if !utf8.ValidString(name) {
		return errors.New("redisstore: the channel is not UTF-8")
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("redisstore: the channel has the character %U", r)
		}
	}
	return nil
}

// Channel returns the Redis channel b publishes on and subscribes to.
func (b *Bus) Channel() string { return b.channel }

// Publish sends e, as JSON, to every Bus subscribed to the channel, by
// ctx's end: it returns ctx's error then, whatever the client's own
// timeouts (the command may still reach Redis, and e be delivered, when
// ctx ended while Redis had yet to answer). An event longer than
// MaxEventBytes is an error, and nothing is sent.
func (b *Bus) Publish(ctx context.Context, e mcp.Event) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return fmt.Errorf("redisstore: %w", err)
	}
	msg := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(msg) > b.max {
		return fmt.Errorf("redisstore: the event has %d bytes, more than %d", len(msg), b.max)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- b.client.Publish(ctx, b.channel, msg).Err() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("redisstore: PUBLISH: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Subscribe subscribes to the channel and, once Redis has confirmed it,
// calls deliver with every event received, in order, one at a time, until
// ctx ends; then it returns ctx's error. A message that is longer than
// MaxEventBytes, or no event (not a JSON object with an origin and a
// kind), is dropped, and logged.
//
// If the first subscription fails (Redis unreachable, refusing), Subscribe
// returns why. A subscription lost later (Redis restarted, the
// connection cut, or silent for twice PingAfter) is made again, on a new
// connection, until ctx ends: what is published meanwhile is not
// delivered. Subscribe returns an error then only if the client is
// closed.
func (b *Bus) Subscribe(ctx context.Context, deliver func(mcp.Event)) error {
	ps, err := b.subscribe(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	backoff := leastBackoff
	for {
		err := b.receive(ctx, ps, deliver)
		ps.Close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, redis.ErrClosed) {
			return fmt.Errorf("redisstore: the subscription: %w", err)
		}
		b.logger.Warn("redisstore: the subscription to the channel was lost; subscribing again", "channel", b.channel, "error", err)
		for {
			if !sleep(ctx, backoff) {
				return ctx.Err()
			}
			ps, err = b.subscribe(ctx)
			if err == nil {
				backoff = leastBackoff
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, redis.ErrClosed) {
				return err
			}
			backoff = min(2*backoff, mostBackoff)
			b.logger.Debug("redisstore: subscribing again failed", "channel", b.channel, "error", err, "next_in", backoff)
		}
		b.logger.Info("redisstore: subscribed to the channel again", "channel", b.channel)
	}
}

// sleep waits d, or until ctx ends: it says whether ctx goes on.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// subscribe subscribes to the channel on a new connection, and waits for
// Redis's confirmation, within ctx and subscribeTimeout, whatever the
// client's own timeouts: a SUBSCRIBE still under way when ctx ends is
// left to end by them, and its connection closed.
func (b *Bus) subscribe(ctx context.Context) (*redis.PubSub, error) {
	ctx, cancel := context.WithTimeout(ctx, subscribeTimeout)
	defer cancel()
	type result struct {
		ps  *redis.PubSub
		err error
	}
	done := make(chan result, 1)
	go func() {
		ps, err := b.trySubscribe(ctx)
		done <- result{ps, err}
	}()
	select {
	case r := <-done:
		return r.ps, r.err
	case <-ctx.Done():
		go func() { // the client's timeouts end it
			if r := <-done; r.ps != nil {
				r.ps.Close()
			}
		}()
		return nil, fmt.Errorf("redisstore: SUBSCRIBE %s: %w", b.channel, ctx.Err())
	}
}

// trySubscribe is subscribe's work.
func (b *Bus) trySubscribe(ctx context.Context) (*redis.PubSub, error) {
	ps := b.client.Subscribe(ctx) // no channel yet: no connection
	err := ps.Subscribe(ctx, b.channel)
	for err == nil {
		var msg any
		msg, err = ps.Receive(ctx)
		if s, ok := msg.(*redis.Subscription); ok && s.Kind == "subscribe" && s.Channel == b.channel {
			return ps, nil
		}
	}
	ps.Close()
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return nil, fmt.Errorf("redisstore: SUBSCRIBE %s: %w", b.channel, err)
}

// receive delivers what ps receives until ctx ends or ps fails: it
// returns why.
func (b *Bus) receive(ctx context.Context, ps *redis.PubSub, deliver func(mcp.Event)) error {
	stop := context.AfterFunc(ctx, func() { ps.Close() }) // ends the wait below
	defer stop()
	pinged := false
	for {
		msg, err := ps.ReceiveTimeout(ctx, b.ping)
		var ne net.Error
		switch {
		case err == nil:
			pinged = false
		case errors.As(err, &ne) && ne.Timeout() && !pinged:
			pinged = true
			if err := ps.Ping(ctx); err != nil {
				return err
			}
			continue
		case errors.As(err, &ne) && ne.Timeout():
			return fmt.Errorf("redisstore: nothing from Redis in %v, not even an answer to PING", 2*b.ping)
		default:
			return err
		}
		if m, ok := msg.(*redis.Message); ok && m.Channel == b.channel {
			if e, ok := b.decode(m.Payload); ok {
				deliver(e)
			}
		}
	}
}

// decode returns the event payload is, or logs why it is none.
func (b *Bus) decode(payload string) (mcp.Event, bool) {
	if len(payload) > b.max {
		b.logger.Warn("redisstore: a message on the channel was dropped: too long", "channel", b.channel, "bytes", len(payload), "max", b.max)
		return mcp.Event{}, false
	}
	var e mcp.Event
	err := json.Unmarshal([]byte(payload), &e)
	if err == nil && (e.Origin == "" || e.Kind == "") {
		err = errors.New("no origin or no kind")
	}
	if err != nil {
		b.logger.Warn("redisstore: a message on the channel was dropped: no event", "channel", b.channel, "bytes", len(payload), "error", err)
		return mcp.Event{}, false
	}
	return e, true
}
