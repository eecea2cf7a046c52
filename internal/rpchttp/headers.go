package rpchttp

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// IsJSON reports whether the Content-Type headers (values) say
// application/json: one header, one well-formed media type, and no charset
// other than UTF-8, JSON's (RFC 8259).
func IsJSON(values []string) bool {
	if len(values) != 1 {
		return false
	}
	switch values[0] { // the usual ones, without parsing
	case "application/json", "application/json; charset=utf-8", "application/json;charset=utf-8":
		return true
	}
	t, params, err := mime.ParseMediaType(values[0])
	if err != nil || t != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// Accepted reads Accept headers: whether application/json and whether
// text/event-stream may answer. No Accept header accepts anything, and
// gets JSON. Each type is judged by the most specific media range that
// matches it (RFC 9110, 12.5.1): application/json, then application/*,
// then */* for JSON; text/event-stream, then text/* for events (*/* alone
// asks for no event stream: it gets JSON). A range whose q is 0 refuses
// its type; a malformed range, or one with a malformed q, is ignored.
func Accepted(values []string) (json, sse bool) {
	if len(values) == 0 {
		return true, false
	}
	if len(values) == 1 { // the usual ones, without parsing
		switch values[0] {
		case "application/json", "*/*":
			return true, false
		case "application/json, text/event-stream", "text/event-stream, application/json":
			return true, true
		case "text/event-stream":
			return false, true
		}
	}
	json, sse, sseRank := acceptRanks(values)
	return json, sse && sseRank > 1
}

// AcceptsEventStream reports whether Accept headers values allow
// text/event-stream, by the same reading as the handler's (RFC 9110,
// 12.5.1: the most specific range that matches it decides, a q of 0
// refuses), but with */* allowing it too and no header allowing
// anything: for a transport that prefers an event stream where the client
// takes one (MCP's Streamable HTTP).
func AcceptsEventStream(values []string) bool {
	if len(values) == 0 {
		return true
	}
	if len(values) == 1 {
		switch values[0] {
		case "*/*", "text/event-stream", "application/json, text/event-stream", "text/event-stream, application/json":
			return true
		case "application/json":
			return false
		}
	}
	_, sse, sseRank := acceptRanks(values)
	return sse && sseRank > 0
}

// acceptRanks reads Accept headers values: whether application/json and
// whether text/event-stream are accepted, each by the most specific range
// that matches it, and how specific the one for text/event-stream was (3:
// text/event-stream, 2: text/*, 1: */*, 0: none).
func acceptRanks(values []string) (json, sse bool, sseRank int) {
	jsonRank := 0
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			ok, valid := qAccepts(params)
			if !valid {
				continue
			}
			rank := 3
			switch t {
			case "application/json", "text/event-stream":
			case "application/*", "text/*":
				rank = 2
			case "*/*":
				rank = 1
			default:
				continue
			}
			switch t {
			case "application/json", "application/*", "*/*":
				if rank > jsonRank {
					jsonRank, json = rank, ok
				}
			}
			switch t {
			case "text/event-stream", "text/*", "*/*":
				if rank > sseRank {
					sseRank, sse = rank, ok
				}
			}
		}
	}
	return json, sse, sseRank
}

// qAccepts reads a media range's q parameter (RFC 9110, 12.4.2): whether
// it accepts (a q of 1 when absent), and whether q is well formed.
func qAccepts(params map[string]string) (accepts, valid bool) {
	q, ok := params["q"]
	if !ok {
		return true, true
	}
	if len(q) == 0 || len(q) > 5 || !(q[0] == '0' || q[0] == '1') || (len(q) > 1 && q[1] != '.') {
		return false, false
	}
	for _, c := range q[min(2, len(q)):] {
		if c < '0' || c > '9' || (q[0] == '1' && c != '0') {
			return false, false
		}
	}
	return strings.Trim(q, "0.") != "", true
}

// hostAllowed reports whether a request with Host host, which came on a
// connection to local (nil when unknown), may be served (see
// rpc.Options.AllowedHosts).
func (g *Gate) hostAllowed(host string, local net.Addr) bool {
	name := hostName(host)
	for _, h := range g.hosts {
		if h == "*" || strings.EqualFold(h, name) {
			return true
		}
	}
	if IsLoopbackName(name) {
		return true
	}
	// Another name: answered where the connection is not to loopback and
	// no list was given.
	return len(g.hosts) == 0 && !onLoopback(local)
}

// hostName is a Host header's name, without its port and an IPv6
// address's brackets; it allocates nothing (net.SplitHostPort makes an
// error of a Host without a port).
func hostName(host string) string {
	if strings.HasPrefix(host, "[") {
		if i := strings.IndexByte(host, ']'); i > 0 && (i == len(host)-1 || host[i+1] == ':') {
			return host[1:i]
		}
		return host // not a bracketed address and a port: no name of ours
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && strings.IndexByte(host, ':') == i {
		return host[:i]
	}
	return host
}

// IsLoopbackName reports whether a host name (no port, no brackets) is
// loopback's. Only what can be an address is parsed as one: a name's
// failed parse would allocate its error.
func IsLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	if name == "" || !(name[0] >= '0' && name[0] <= '9' || strings.IndexByte(name, ':') >= 0) {
		return false
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.IsLoopback()
}

// onLoopback reports whether local, the address a request came to, is a
// TCP address on loopback (net/http's Server always says; a Unix socket,
// which no browser reaches, or a handler called without a server, is not).
func onLoopback(local net.Addr) bool {
	tcp, ok := local.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// localAddr is the address r came to, or nil.
func localAddr(r *http.Request) net.Addr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return a
}

// originAllowed reports whether a request with the Origin headers values
// may be served (see rpc.Options.AllowedOrigins). Several Origin headers
// are refused: a browser sends one.
func (g *Gate) originAllowed(values []string) bool {
	switch len(values) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	origin := values[0]
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" {
		switch u.Hostname() {
		case "localhost", "127.0.0.1", "::1":
			return true
		}
	}
	for _, o := range g.origins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}
