package mcp

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"time"

	"github.com/toolrpc/toolrpc/internal/jsonx"
)

// An Event is what a Server tells the other instances of itself through
// a Bus (Relay): one of its lists changed, or a resource was updated.
type Event struct {
	// Origin names the Server that told it (a random name of its own),
	// so that a Server's events coming back to it are not told twice.
	Origin string `json:"origin"`
	// Kind is EventTools, EventPrompts, EventResources or EventUpdated.
	Kind string `json:"kind"`
	// URI is the updated resource's (EventUpdated): at most MaxURI bytes.
	URI string `json:"uri,omitempty"`
}

// The kinds of Event.
const (
	EventTools     = "tools"     // the tools changed: notifications/tools/list_changed
	EventPrompts   = "prompts"   // the prompts changed: notifications/prompts/list_changed
	EventResources = "resources" // the resources changed: notifications/resources/list_changed
	EventUpdated   = "updated"   // ResourceUpdated(URI): notifications/resources/updated
)

// A Bus carries Events between the instances of one server (the same
// tools, behind one load balancer), so that what one is told reaches the
// legacy sessions and the subscriptions/listen calls every other one
// serves. Module github.com/toolrpc/toolrpc/redisstore has one on Redis's
// publish/subscribe. Its methods are called concurrently.
type Bus interface {
	// Publish sends e to every Server subscribed, itself included, by
	// ctx's end.
	Publish(ctx context.Context, e Event) error
	// Subscribe calls deliver with every Event published from the time
	// it is subscribed (it returns nothing before), in the order
	// published, one at a time, until ctx ends; it returns then, or when
	// the bus fails for good, with the reason.
	Subscribe(ctx context.Context, deliver func(Event)) error
}

// RelayQueue bounds the Events a Server holds for its Bus, waiting to be
// published: one more is dropped, and logged, rather than wait (what
// tells it, such as ResourceUpdated, never blocks on the bus).
const RelayQueue = 1024

// relayTimeout bounds one Publish.
const relayTimeout = 5 * time.Second

// relay is a Server's link to its Bus, while Relay runs.
type relay struct {
	origin string
	out    chan Event
}

// Relay links s to the other instances of itself on bus until ctx ends:
// what s is told (a tool, prompt or resource added or removed,
// ResourceUpdated) is published, and what the others publish is told to
// the legacy sessions and subscriptions/listen calls s serves, as if it
// had been told it; a change of a list does not change s's own list (each
// instance registers its own tools). It returns ctx's error when ctx
// ends, or the bus's when its subscription fails (then s is alone again:
// call Relay anew); a Server relays on one bus at a time. logger (nil:
// slog.Default()) gets a warning for each event that could not be
// published, and for each the bus delivered that was not one.
func (s *Server) Relay(ctx context.Context, bus Bus, logger *slog.Logger) error {
	logger = cmp.Or(logger, slog.Default())
	r := &relay{origin: rand.Text(), out: make(chan Event, RelayQueue)}
	s.mu.Lock()
	if s.relay != nil {
		s.mu.Unlock()
		return errors.New("mcp: the Server relays on a bus already")
	}
	s.relay = r
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.relay = nil
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	published := make(chan struct{})
	go func() {
		defer close(published)
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-r.out:
				pctx, stop := context.WithTimeout(ctx, relayTimeout)
				if err := bus.Publish(pctx, e); err != nil && ctx.Err() == nil {
					logger.Warn("mcp: an event could not be published", "kind", e.Kind, "error", err)
				}
				stop()
			}
		}
	}()
	err := bus.Subscribe(ctx, func(e Event) { s.deliver(r, e, logger) })
	cancel()
	<-published
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// publish queues e for the bus, if s relays; s.mu is held.
func (s *Server) publish(kind, uri string) {
	if s.relay == nil {
		return
	}
	select {
	case s.relay.out <- Event{Origin: s.relay.origin, Kind: kind, URI: uri}:
	default: // the bus is that far behind: this instance's own clients were told
	}
}

// deliver tells s's clients what another instance published.
func (s *Server) deliver(r *relay, e Event, logger *slog.Logger) {
	if e.Origin == r.origin {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case EventTools:
		s.toolsChanged()
	case EventPrompts:
		s.announce(notifyPromptsChanged, kindPrompts)
	case EventResources:
		s.announce(notifyResourcesChanged, kindResources)
	case EventUpdated:
		if e.URI != "" && len(e.URI) <= MaxURI {
			s.updated(e.URI)
			return
		}
		fallthrough
	default:
		logger.Warn("mcp: the bus delivered what is no event", "kind", jsonx.Shorten(e.Kind, 64), "uri_bytes", len(e.URI))
	}
}
