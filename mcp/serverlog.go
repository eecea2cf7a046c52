package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sync"
)

// maxQueuedLogs is how many Server.Logger messages a session holds for a
// client that takes them slowly; past it the newest are dropped.
const maxQueuedLogs = 64

// Logger returns a logger whose records are log messages not tied to any
// request: each goes, as notifications/message, to every legacy session
// whose client asked for messages at its level or above
// (logging/setLevel), on the session's connection (stdio), or on its
// server stream over Streamable HTTP (GET; held for the next one while
// none is open). Data and levels are as [Logger]'s. A session holds at most
// 64 messages for a client that takes them slowly; past it, newer ones are
// dropped for it. The records go nowhere else: join it with a logger of
// yours with slog.NewMultiHandler to keep them.
func (s *Server) Logger() *slog.Logger {
	h := &serverLog{s: s, mu: &sync.Mutex{}, buf: &bytes.Buffer{}}
	h.json = dataHandler(h.buf)
	return slog.New(h)
}

// serverLog is Server.Logger's handler.
type serverLog struct {
	s    *Server
	mu   *sync.Mutex // guards buf, shared by the handlers WithAttrs and WithGroup make
	buf  *bytes.Buffer
	json slog.Handler // writes to buf
}

func (h *serverLog) Enabled(context.Context, slog.Level) bool { return true }

func (h *serverLog) Handle(ctx context.Context, r slog.Record) error {
	level := mcpLevel(r.Level)
	h.mu.Lock()
	h.buf.Reset()
	err := h.json.Handle(ctx, r)
	data := bytes.TrimSuffix(h.buf.Bytes(), []byte("\n"))
	if len(data) > MaxLogData {
		data = truncated(r.Message, len(data))
	} else {
		data = slices.Clone(data)
	}
	h.mu.Unlock()
	if err != nil {
		return err
	}
	msg := logMessage{Level: logLevels[level], Data: data}
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	for c, p := range h.s.sessions {
		c.tellLog(p, level, msg)
	}
	return nil
}

func (h *serverLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &serverLog{s: h.s, mu: h.mu, buf: h.buf, json: h.json.WithAttrs(attrs)}
}

func (h *serverLog) WithGroup(name string) slog.Handler {
	return &serverLog{s: h.s, mu: h.mu, buf: h.buf, json: h.json.WithGroup(name)}
}

// tellLog sends msg, of level, to the session's client if it asked for
// it: queued, and sent by one goroutine at a time, so that a client that
// stops reading costs one goroutine and maxQueuedLogs messages.
func (c *session) tellLog(p peer, level int, msg logMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state.logLevel < 0 || level < c.state.logLevel || len(c.logs) >= maxQueuedLogs {
		return
	}
	c.logs = append(c.logs, msg)
	if c.logging {
		return
	}
	c.logging = true
	go func() {
		for {
			c.mu.Lock()
			if len(c.logs) == 0 {
				c.logging = false
				c.mu.Unlock()
				return
			}
			next := c.logs[0]
			c.logs = c.logs[1:]
			c.mu.Unlock()
			_ = p.Notify(context.Background(), notifyMessage, next)
		}
	}()
}
