package rpchttp

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/codec"
)

// A Gate judges a request by the rules rpc's HTTPHandler applies before it
// serves a body (Screen), and reads the body, counting it among the bodies
// being served (ReadBody). rpc.NewHTTPHandler readies one from its
// Options and gives it to a Binder; a Gate is safe for concurrent use.
type Gate struct {
	log      *slog.Logger
	maxFrame int
	origins  []string     // Options.AllowedOrigins
	hosts    []string     // Options.AllowedHosts
	maxHeld  int64        // Options.MaxQueueBytes: the bytes of bodies served at once
	held     atomic.Int64 // the bytes of bodies being served
}

// Init readies g: bodies of at most maxFrame bytes, maxHeld bytes of
// bodies served at once, the Origins and the Hosts allowed beside
// loopback, and failures to read a body logged (Debug) to log.
func (g *Gate) Init(log *slog.Logger, maxFrame int, maxHeld int64, origins, hosts []string) {
	g.log, g.maxFrame, g.maxHeld = log, maxFrame, maxHeld
	g.origins, g.hosts = slices.Clone(origins), slices.Clone(hosts)
}

// MaxFrame is the bound of a body, in bytes.
func (g *Gate) MaxFrame() int { return g.maxFrame }

// Screen judges r by the rules applied before a body is read, answers r
// when it breaks one, and reports whether it broke none: an Origin that is
// not allowed (403), a method other than POST and the methods given (405,
// with Allow), and for a POST a Content-Type other than application/json
// (415), an Accept that allows neither JSON nor events (406), a
// Content-Length over the frame bound (413). A transport that serves more
// than POST on one endpoint (MCP's Streamable HTTP: GET and DELETE too)
// names the other methods.
func (g *Gate) Screen(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	if !g.originAllowed(r.Header.Values("Origin")) {
		Refuse(w, http.StatusForbidden, "the Origin is not allowed")
		return false
	}
	if !g.hostAllowed(r.Host, localAddr(r)) {
		Refuse(w, http.StatusForbidden, "the Host is not allowed")
		return false
	}
	if r.Method != http.MethodPost {
		if slices.Contains(methods, r.Method) {
			return true
		}
		w.Header().Set("Allow", strings.Join(append([]string{http.MethodPost}, methods...), ", "))
		Refuse(w, http.StatusMethodNotAllowed, "the method must be "+strings.Join(append([]string{http.MethodPost}, methods...), " or "))
		return false
	}
	if !IsJSON(r.Header.Values("Content-Type")) {
		Refuse(w, http.StatusUnsupportedMediaType, "the body must be application/json")
		return false
	}
	if json, sse := Accepted(r.Header.Values("Accept")); !json && !sse {
		Refuse(w, http.StatusNotAcceptable, "Accept must allow application/json or text/event-stream")
		return false
	}
	if r.ContentLength > int64(g.maxFrame) {
		g.refuseTooLarge(w) // the body is not read
		return false
	}
	return true
}

// hold counts n bytes of bodies in, unless that passes the bound: a body
// alone is always taken, as the stream's queue always takes a message.
func (g *Gate) hold(n int64) bool {
	if v := g.held.Add(n); v > g.maxHeld && v != n {
		g.held.Add(-n)
		return false
	}
	return true
}

// Release counts held bytes of bodies out, as ReadBody returned them.
func (g *Gate) Release(held int64) { g.held.Add(-held) }

// ReadBody reads r's body, at most the frame bound, counting it among the
// bodies being served until Release is called with held (a body of a
// known length is counted before it is read, one of an unknown length
// once it is), and reports whether it could; when it could not, it has
// answered r: 503 ServerBusy past the bound, 413 for a longer body, 408
// when the server's ReadTimeout ended it, 400 when it could not be read
// (shorter than its Content-Length, the client gone).
func (g *Gate) ReadBody(w http.ResponseWriter, r *http.Request) (body []byte, held int64, ok bool) {
	held = r.ContentLength
	if held >= 0 && !g.hold(held) {
		Busy(w)
		return nil, 0, false
	}
	body, ok = g.readBody(w, r)
	switch {
	case !ok && held >= 0:
		g.Release(held)
		return nil, 0, false
	case !ok:
		return nil, 0, false
	case held < 0:
		held = int64(len(body))
		if !g.hold(held) {
			Busy(w)
			return nil, 0, false
		}
	}
	return body, held, true
}

// readBody reads r's body; see ReadBody. A short body of a known length
// within the limit is read into a buffer of that length, with no limiting
// reader (net/http's body ends there); a longer one grows as it comes, so
// that a client that announces much and sends little is not given it all
// at once.
func (g *Gate) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if n := r.ContentLength; n >= 0 && n <= min(int64(g.maxFrame), presizedBody) {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, g.bodyFailed(w, err)
		}
		return body, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(g.maxFrame)))
	if err == nil {
		return body, true
	}
	return nil, g.bodyFailed(w, err)
}

// presizedBody is the longest body of a known length read into a buffer
// made to measure before it comes.
const presizedBody = 64 << 10

// bodyFailed answers a request whose body could not be read (err), and
// returns false.
func (g *Gate) bodyFailed(w http.ResponseWriter, err error) bool {
	var maxBytes *http.MaxBytesError // here: errors.As makes them escape
	var netErr net.Error
	switch {
	case errors.As(err, &maxBytes):
		g.refuseTooLarge(w)
	case errors.As(err, &netErr) && netErr.Timeout():
		g.log.Debug("rpc: reading a request body timed out", "error", err)
		Refuse(w, http.StatusRequestTimeout, "the body was not received in time")
	default:
		// The client is gone (then nobody reads this), or its body is
		// shorter than its Content-Length.
		g.log.Debug("rpc: reading a request body failed", "error", err)
		Refuse(w, http.StatusBadRequest, "the body could not be read")
	}
	return false
}

// refuseTooLarge answers a request whose body is over the frame limit.
func (g *Gate) refuseTooLarge(w http.ResponseWriter) {
	Refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("frame larger than the limit of %d bytes", g.maxFrame))
}

// jsonContentType is the Content-Type of a JSON answer, one slice for all
// responses, never written (net/http only reads it): Header().Set would
// make one each time.
var jsonContentType = []string{"application/json"}

// SetJSON sets the Content-Type of a JSON answer.
func SetJSON(h http.Header) { h["Content-Type"] = jsonContentType }

// Fail answers a request that is not served with status and the JSON-RPC
// error e, answering id (nil: null).
func Fail(w http.ResponseWriter, status int, id []byte, e *codec.Error) {
	line, _ := codec.AppendErrorResponse(nil, id, e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(line, '\n'))
}

// Refuse answers a request that is not served with status and an
// InvalidRequest naming the rule it broke.
func Refuse(w http.ResponseWriter, status int, reason string) {
	Fail(w, status, nil, &codec.Error{Code: codec.InvalidRequest, Message: "Invalid Request", Data: codec.InvalidRequestData{Reason: reason}})
}

// Busy answers a request that the bound on bodies held refuses: 503,
// ServerBusy, id null, with a Retry-After.
func Busy(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	Fail(w, http.StatusServiceUnavailable, nil, &codec.Error{Code: codec.ServerBusy, Message: codec.ServerBusy.String(),
		Data: codec.InvalidRequestData{Reason: "too many request bodies are being served: try again"}})
}
