package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"

	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// logKey is the context key of the log level a call's client asked for.
type logKey struct{}

// withLogLevel returns ctx carrying level, the index in logLevels of the
// least severe level the client wants; -1 wants none.
func withLogLevel(ctx context.Context, level int) context.Context {
	if level < 0 {
		return ctx
	}
	return context.WithValue(ctx, logKey{}, level)
}

// Logger returns the logger a tool logs through, given the context of its
// call: every record goes to the connection's logger
// (rpc.LoggerFromContext), and, when the client asked for log messages
// (logging/setLevel in a legacy session; io.modelcontextprotocol/logLevel
// in a modern request's _meta), each record at or above the level it asked
// for is sent to it too, as notifications/message, before the call's
// answer. The record's message and attributes are its data (a JSON
// object, of at most [MaxLogData] bytes); slog's levels map to the protocol's: Debug to debug, Info to
// info, Info+2 to notice, Warn to warning, Error to error, Error+4 to
// critical, Error+8 to alert, Error+12 and above to emergency.
func Logger(ctx context.Context) *slog.Logger {
	base := rpc.LoggerFromContext(ctx)
	level, ok := ctx.Value(logKey{}).(int)
	if !ok {
		return base
	}
	n := &notifier{ctx: ctx, min: level}
	n.json = dataHandler(&n.buf)
	return slog.New(&logHandler{base: base.Handler(), n: n, json: n.json})
}

// dataHandler writes records to w as the data of notifications/message:
// JSON objects of their message and attributes.
func dataHandler(w io.Writer) slog.Handler {
	return slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: slog.LevelDebug - 100,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
				return slog.Attr{}
			}
			return a
		},
	})
}

// mcpLevel is the index in logLevels of the protocol's level for l.
func mcpLevel(l slog.Level) int {
	switch {
	case l < slog.LevelInfo:
		return 0
	case l < slog.LevelInfo+2:
		return 1
	case l < slog.LevelWarn:
		return 2
	case l < slog.LevelError:
		return 3
	}
	return min(4+int(l-slog.LevelError)/4, len(logLevels)-1)
}

// notifier sends a call's records to its client.
type notifier struct {
	ctx  context.Context
	min  int
	mu   sync.Mutex
	buf  bytes.Buffer
	json slog.Handler
}

// logHandler is Logger's handler: base, and the client for records at or
// above its level.
type logHandler struct {
	base slog.Handler
	n    *notifier
	json slog.Handler // n.json with this handler's attributes and groups
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return mcpLevel(l) >= h.n.min || h.base.Enabled(ctx, l)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.base.Enabled(ctx, r.Level) {
		err = h.base.Handle(ctx, r)
	}
	level := mcpLevel(r.Level)
	if level < h.n.min {
		return err
	}
	h.n.mu.Lock()
	h.n.buf.Reset()
	jerr := h.json.Handle(ctx, r)
	data := bytes.TrimSuffix(h.n.buf.Bytes(), []byte("\n"))
	if len(data) > MaxLogData {
		data = truncated(r.Message, len(data))
	} else {
		data = slices.Clone(data)
	}
	h.n.mu.Unlock()
	if jerr != nil {
		return jerr
	}
	if nerr := rpc.Notify(h.n.ctx, notifyMessage, logMessage{Level: logLevels[level], Data: data}); err == nil {
		err = nerr
	}
	return err
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{base: h.base.WithAttrs(attrs), n: h.n, json: h.json.WithAttrs(attrs)}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{base: h.base.WithGroup(name), n: h.n, json: h.json.WithGroup(name)}
}

// MaxLogData is the most bytes of data a notifications/message holds: a
// record whose JSON is longer (a tool may log what the model sent it) is
// sent as {"msg": its message, shortened to MaxErrorText, "truncated": the
// length of its JSON}. The connection's logger gets the record whole.
const MaxLogData = 16 << 10

// truncated is the data of a record whose JSON, of n bytes, is longer
// than MaxLogData.
func truncated(msg string, n int) json.RawMessage {
	b := jsonx.AppendString([]byte(`{"msg":`), jsonx.Shorten(msg, MaxErrorText))
	b = append(b, `,"truncated":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '}')
}

// logMessage is the params of notifications/message.
type logMessage struct {
	Level string          `json:"level"`
	Data  json.RawMessage `json:"data"`
}

// setLevel answers logging/setLevel: the session's calls send records at
// or above level to the client from now on.
func (c *session) setLevel(r revision, params json.RawMessage) (any, error) {
	var level string
	v := jsonx.Member(params, "level")
	if v == nil || json.Unmarshal(v, &level) != nil || !slices.Contains(logLevels, level) {
		return nil, invalid(&service.FieldError{Field: "level", Rule: "oneof",
			Param: "debug info notice warning error critical alert emergency", Message: "level must be one of the protocol's"})
	}
	c.mu.Lock()
	c.state.logLevel = slices.Index(logLevels, level)
	c.mu.Unlock()
	return c.s.result(r, nil), nil
}
