package rpchttp

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/codec"
)

// A Gate judges a request by the rules rpc's HTTPHandler applies before it
// serves a body (Screen), and reads the body, counting it among the bodies
// being served (ReadBody). rpc.NewHTTPHandler readies one from its
// Options and gives it to a Binder; a Gate is safe for concurrent use.
type Gate struct {
	log      *slog.Logger
	maxFrame int
	origins  []string // Options.AllowedOrigins
	hosts    []string // Options.AllowedHosts
	minRate  int      // Options.MinUploadRate: bytes a second, after grace; 0: none
	grace    time.Duration
	maxHeld  int64        // Options.MaxQueueBytes: the bytes of bodies served at once
	held     atomic.Int64 // the bytes of bodies being served
}

// Limits are what a Gate lets through, from rpc.Options.
type Limits struct {
	MaxFrame int           // the most bytes of a body
	MaxHeld  int64         // the most bytes of bodies served at once
	Origins  []string      // the Origins allowed beside loopback
	Hosts    []string      // the Hosts allowed beside loopback's
	MinRate  int           // the slowest upload, in bytes a second after Grace; 0: none
	Grace    time.Duration // how long a body may take before MinRate applies; 0: UploadGrace
}

// UploadGrace is how long a body may take before Limits.MinRate applies:
// its bytes must have come by UploadGrace plus one second per MinRate
// bytes.
const UploadGrace = 10 * time.Second

// Init readies g with l, failures to read a body logged (Debug) to log.
func (g *Gate) Init(log *slog.Logger, l Limits) {
	g.log, g.maxFrame, g.maxHeld, g.minRate = log, l.MaxFrame, l.MaxHeld, max(l.MinRate, 0)
	g.grace = cmp.Or(l.Grace, UploadGrace)
	g.origins, g.hosts = slices.Clone(l.Origins), slices.Clone(l.Hosts)
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

// smallBody is how much of a body may be held past the bound, in the
// headroom of an eighth of it: a short request (most are) is served
// while long bodies fill the bound.
const smallBody = 64 << 10

// hold counts n more bytes of a body of which mine are counted already,
// unless that passes the bound: what one body alone holds is always
// taken, as the stream's queue always takes a message alone, and the
// first smallBody bytes of a body may go past the bound by an eighth of
// it, so that bodies that fill it (and stall, until the grace cuts them)
// do not lock out the short requests of everyone else.
func (g *Gate) hold(n, mine int64) bool {
	bound := g.maxHeld
	if mine+n <= smallBody {
		bound += g.maxHeld / 8
	}
	if v := g.held.Add(n); v > bound && v != mine+n {
		g.held.Add(-n)
		return false
	}
	return true
}

// Release counts held bytes of bodies out, as ReadBody returned them.
func (g *Gate) Release(held int64) { g.held.Add(-held) }

// ReadBody reads r's body, at most the frame bound, counting its bytes
// among the bodies being served as they come, until Release is called
// with held, and reports whether it could; when it could not, it has
// answered r: 503 ServerBusy once the bytes of the bodies being served
// would pass their bound, 413 for a longer body, 408 when the body came
// slower than Limits.MinRate (or the server's ReadTimeout ended it), 400
// when it could not be read (shorter than its Content-Length, the client
// gone). Only what has come is counted: a client that announces 64 MiB
// and sends one byte holds one byte.
func (g *Gate) ReadBody(w http.ResponseWriter, r *http.Request) (body []byte, held int64, ok bool) {
	body, held, err := g.readCounted(w, r)
	if err != nil {
		g.Release(held)
		if err == errBusy {
			Busy(w)
			return nil, 0, false
		}
		return nil, 0, g.bodyFailed(w, err)
	}
	return body, held, true
}

// grow makes room in a full body buffer: it doubles what came (at most
// twice the bytes counted are allocated), but never past a body's length
// when it is known (announced), so that a body that comes whole fills its
// buffer exactly.
func grow(body []byte, announced int64) []byte {
	n := max(2*len(body), 512)
	switch {
	case announced > int64(len(body)):
		n = int(min(int64(n), announced))
	}
	grown := make([]byte, len(body), n)
	copy(grown, body)
	return grown
}

// errBusy is readCounted's error when the bodies being served would pass
// their bound.
var errBusy = errors.New("rpchttp: the bodies being served are at their bound")

// readChunk is the most readCounted reads at once: what may come in one
// read before it is counted.
const readChunk = 32 << 10

// readCounted reads a body that is long or of unknown length, a chunk at
// a time, counting each chunk in as it comes (held: what is counted, also
// on error), its buffer doubling with what came, never sized by what was
// announced; each read ends by the time the body's bytes so far allow
// (the grace plus a second per MinRate bytes), and within the grace of
// the read before: a body that stalls holds what it sent no longer than
// that, however much it sent at first.
func (g *Gate) readCounted(w http.ResponseWriter, r *http.Request) (body []byte, held int64, err error) {
	start := time.Now()
	var src io.Reader = r.Body // a known length within the bound ends there
	if r.ContentLength < 0 || r.ContentLength > int64(g.maxFrame) {
		src = http.MaxBytesReader(w, r.Body, int64(g.maxFrame))
	}
	var d readDeadliner
	if g.minRate > 0 {
		if d = readDeadlinerOf(w); d != nil {
			defer func() { _ = d.SetReadDeadline(time.Time{}) }() // the rest of the exchange is not an upload
		}
	}
	for {
		if r.ContentLength >= 0 && int64(len(body)) >= r.ContentLength {
			// All that was announced came (net/http's body ends there).
			if body == nil {
				body = []byte{} // an empty body is not none
			}
			return body, held, nil
		}
		if len(body) == cap(body) {
			body = grow(body, r.ContentLength)
		}
		free := body[len(body):min(cap(body), len(body)+readChunk)]
		if d != nil {
			allowed := g.grace + time.Duration(int64(len(body)+len(free))*int64(time.Second)/int64(g.minRate))
			deadline := start.Add(allowed)
			if stall := time.Now().Add(g.grace); stall.Before(deadline) {
				deadline = stall
			}
			_ = d.SetReadDeadline(deadline)
		}
		n, rerr := src.Read(free)
		if n > 0 {
			if !g.hold(int64(n), held) {
				return nil, held, errBusy
			}
			held += int64(n)
			body = body[:len(body)+n]
		}
		switch {
		case rerr == io.EOF:
			return body, held, nil
		case rerr != nil:
			return nil, held, rerr
		}
	}
}

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
		// The rest of the body is not read: the connection closes, and the
		// answer goes out first (net/http would try to read on, and drop
		// it, for a short body).
		w.Header().Set("Connection", "close")
		Refuse(w, http.StatusRequestTimeout, "the body was not received in time")
		_ = http.NewResponseController(w).Flush()
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

// readDeadliner is a ResponseWriter that can bound the reads of its
// request's body (net/http's own can).
type readDeadliner interface{ SetReadDeadline(time.Time) error }

// readDeadlinerOf is w, or the ResponseWriter it wraps (Unwrap), that can
// bound its body's reads; nil when none can (a recorder), which
// http.ResponseController would make an error of each time.
func readDeadlinerOf(w http.ResponseWriter) readDeadliner {
	for {
		switch v := w.(type) {
		case readDeadliner:
			return v
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
}
