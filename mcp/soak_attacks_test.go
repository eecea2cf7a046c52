package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The attackers of the HTTP soak: each of issue 23's defects in small
// form, run in a loop against one server or both until the soak ends.
// What an attack gets is counted by outcome; an attack whose bound has a
// fixed answer (a 403, a 408, a field's refusal) and gets another breaks
// the soak.

// soakConfig is how hard the attackers press where the soak met the last
// defects of issue 23 (TestHTTPSoakPressed).
type soakConfig struct {
	// withheld is what each withheld chunked body sends before it stops,
	// and withholders how many are sent to each server at once.
	// TestHTTPSoak: two of 2 MiB, a quarter of MaxQueueBytes together.
	// Together at the bound they held every other body out, 503, until
	// MinUploadRate cut them (10 s plus a second per 16 KiB they sent, 68
	// minutes for 64 MiB); now short bodies pass beside them, and they
	// are cut 10 s after they stop (rpchttp.TestAttackWithheldBodiesHoldTheBudget).
	withheld, withholders int
	// freshSessions has each attack round open a session of its own;
	// otherwise each attacking goroutine keeps one (opening another when
	// it is evicted), and the initialize flood alone fills the table.
	// Used sessions that crowd the table left an honest newcomer, never
	// used between its initialize and its next request, the first to be
	// evicted, until mcp.TestAttackInitializeFloodEndsTheFloodersSessions.
	freshSessions bool
}

// soakAttack is one kind of attack: a round, made by so many goroutines
// in a loop, pause apart.
type soakAttack struct {
	name       string
	goroutines int
	pause      time.Duration
	// round makes one attack, and returns what it got, or an error when
	// a bound did not hold (taken only while the soak runs).
	round func(ctx context.Context, at *attackerState) (outcome string, err error)
}

// attackerState is what one attacking goroutine keeps between rounds.
type attackerState struct {
	hc    *http.Client
	fresh bool   // soakConfig.freshSessions
	sid   string // its legacy session, once opened
	id    int    // the last request id it used in it
}

// next is a request id the attacker's session has not used: a call of an
// earlier round may still run there (detached).
func (at *attackerState) next() int {
	at.id++
	return at.id
}

// session returns the attacker's legacy session of revision (its client
// capabilities given, JSON), opening one unless it has one (or it opens
// one each round), or "" and the outcome of a round that could not.
func (at *attackerState) session(ctx context.Context, url, revision, capabilities string) (string, string, error) {
	if at.sid != "" && !at.fresh {
		return at.sid, "", nil
	}
	sid, out, err := attackSession(ctx, at.hc, url, revision, capabilities)
	at.sid, at.id = sid, 1
	return sid, out, err
}

// evicted is the outcome of a round whose session is gone (status 404):
// the next round opens another.
func (at *attackerState) evicted() (string, error) {
	at.sid = ""
	return "session evicted", nil
}

// primedOnly is the event stream of a legacy session's POST that ended
// after its priming event, of the stream of got.
func primedOnly(got string) string {
	return "id: " + streamNo(got) + "-0\nretry: 1000\ndata: \n\n"
}

// sessionGone reports whether the session of the headers in is gone: a
// ping with them is answered 404.
func sessionGone(ctx context.Context, url string, hc *http.Client, in map[string]string) bool {
	status, _, _, err := soakHTTP{url, hc}.post(ctx, in, `{"jsonrpc":"2.0","id":0,"method":"ping"}`)
	return err == nil && status == http.StatusNotFound
}

// soakAttacks are the attacks against the soak's servers, and what they
// got.
type soakAttacks struct {
	list  []soakAttack
	fresh bool // soakConfig.freshSessions

	mu       sync.Mutex
	outcomes map[string]map[string]int // attack, outcome: rounds
	broken   []string                  // the first few bounds that did not hold
	nBroken  int
}

// newSoakAttacks makes the attacks against ss, pressing as cfg says.
func newSoakAttacks(ss *soakServers, cfg soakConfig) *soakAttacks {
	a := struct{ mcpAddr, rpcAddr string }{ss.mcpSrv.Listener.Addr().String(), ss.rpcSrv.Listener.Addr().String()}
	type round = func(context.Context, *attackerState) (string, error)
	both := func(f func(ctx context.Context, hc *http.Client, addr, url string) (string, error)) []round {
		return []round{
			func(ctx context.Context, at *attackerState) (string, error) {
				return f(ctx, at.hc, a.mcpAddr, ss.mcpSrv.URL)
			},
			func(ctx context.Context, at *attackerState) (string, error) {
				return f(ctx, at.hc, a.rpcAddr, ss.rpcSrv.URL)
			},
		}
	}
	s := &soakAttacks{outcomes: map[string]map[string]int{}, fresh: cfg.freshSessions}
	add := func(name string, goroutines int, pause time.Duration, rounds ...round) {
		for i, r := range rounds {
			n := name
			if len(rounds) == 2 {
				n += [...]string{" (MCP)", " (rpc)"}[i]
			}
			s.list = append(s.list, soakAttack{name: n, goroutines: goroutines, pause: pause, round: r})
		}
	}
	const tick = 20 * time.Millisecond

	// 1. A body announced at 64 MiB, of which a byte comes.
	add("slow announced body", 2, 0, both(func(ctx context.Context, _ *http.Client, addr, _ string) (string, error) {
		return rawRound(ctx, addr, []string{"Content-Length: " + fmt.Sprint(64<<20)}, "{", nil, "408")
	})...)
	// 2. A chunked body whose last chunk never comes.
	add("chunked body withheld", cfg.withholders, tick, both(func(ctx context.Context, _ *http.Client, addr, _ string) (string, error) {
		// 408 once MinUploadRate cuts it; 503 when the bodies being
		// served would pass their bound (in TestHTTPSoakPressed).
		return rawRound(ctx, addr, []string{"Transfer-Encoding: chunked"}, "", func(w io.Writer) error {
			for sent := 0; sent < cfg.withheld; {
				n := min(32<<10, cfg.withheld-sent)
				if _, err := fmt.Fprintf(w, "%x\r\n%s\r\n", n, strings.Repeat(" ", n)); err != nil {
					return err
				}
				sent += n
			}
			return nil
		}, "408", "503")
	})...)
	// 3. Event streams asked for and never read: spew's 1 KiB progress
	// reports (4 MiB of them), in both eras and over rpc.
	unread := func(ctx context.Context, addr string, header []string, body string) (string, error) {
		conn, done, err := rawConn(ctx, addr)
		if err != nil {
			return "", err
		}
		defer done()
		_ = conn.(*net.TCPConn).SetReadBuffer(4 << 10)
		if err := writeRequest(conn, header, body); err != nil {
			return "write failed", nil
		}
		pause(ctx, 2*time.Second)
		return "held 2s unread", nil
	}
	const spewArgs = `{"n":4096}`
	add("event stream never read (2026-07-28)", 1, 0, func(ctx context.Context, _ *attackerState) (string, error) {
		return unread(ctx, a.mcpAddr, headerLines(modernHeaders("tools/call", "spew")),
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"spew","arguments":`+spewArgs+`,"_meta":{"progressToken":1,`+soakModernMeta+`}}}`)
	})
	add("event stream never read (legacy)", 1, 0, func(ctx context.Context, at *attackerState) (string, error) {
		sid, out, err := at.session(ctx, ss.mcpSrv.URL, "2025-11-25", "{}")
		if sid == "" {
			return out, err
		}
		// A session's POST stream is pumped from the events held for
		// resumption (ReplayBytes), under the pump's own write deadline.
		return unread(ctx, a.mcpAddr, []string{"Mcp-Session-Id: " + sid, "Mcp-Protocol-Version: 2025-11-25"},
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"spew","arguments":%s,"_meta":{"progressToken":1}}}`, at.next(), spewArgs))
	})
	add("event stream never read (rpc)", 1, 0, func(ctx context.Context, _ *attackerState) (string, error) {
		return unread(ctx, a.rpcAddr, []string{"Accept: text/event-stream"},
			`{"jsonrpc":"2.0","id":1,"method":"spew","params":{"n":4096,"_meta":{"progressToken":1}}}`)
	})
	// 4. Huge ids (256 KiB): a ping of a legacy session (its answer an
	// event larger than ReplayBytes), read or not; an rpc call.
	// Made each round (the live heap measured is the servers'), and each
	// its own: a call of an earlier round may still be in flight.
	hugeID := func(n int) string { return fmt.Sprintf(`"%d%s"`, n, strings.Repeat("i", 256<<10)) }
	add("huge id (legacy)", 1, tick, func(ctx context.Context, at *attackerState) (string, error) {
		sid, out, err := at.session(ctx, ss.mcpSrv.URL, "2025-11-25", "{}")
		if sid == "" {
			return out, err
		}
		in := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
		n := at.next()
		id := hugeID(n)
		ping := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
		if n%2 == 0 { // half of the pings' answers are never read
			switch out, err := rawRound(ctx, a.mcpAddr, headerLines(in), ping, nil, "200", "404", "503"); out {
			case "404":
				return at.evicted()
			case "200":
				return "unread", nil
			default:
				return out, err
			}
		}
		status, _, got, err := soakHTTP{ss.mcpSrv.URL, at.hc}.post(ctx, in, ping)
		// The answer's event, larger than ReplayBytes, may have made the
		// bound drop the priming event before the connection took it.
		answer := `{"jsonrpc":"2.0","result":{},"id":` + id + `}`
		no, _, _ := strings.Cut(strings.TrimPrefix(got, "id: "), "-")
		switch {
		case err != nil:
			return "cut", nil
		case status == 404:
			return at.evicted()
		case status == 503 && got == soakBusy:
			return "503", nil // see fixed
		case status != 200 || got != legacyEvents(no, answer) && got != "id: "+no+"-1\ndata: "+answer+"\n\n":
			return fmt.Sprint(status), fmt.Errorf("ping with a huge id: %d %.200q", status, got)
		}
		return "answered", nil
	})
	add("huge id (rpc)", 1, tick, func(ctx context.Context, at *attackerState) (string, error) {
		id := hugeID(at.next())
		status, _, got, err := soakHTTP{ss.rpcSrv.URL, at.hc}.post(ctx, nil, `{"jsonrpc":"2.0","id":`+id+`,"method":"echo","params":{"s":"x"}}`)
		return fixed(err, status, got, 200, `{"jsonrpc":"2.0","result":"x","id":`+id+"}\n")
	})
	// 5 and 9. A session's subscriptions to their bound
	// (MaxSubscriptionBytes: eight URIs of 8,000 bytes), the ninth
	// refused; then unsubscribed, for the next round.
	add("subscriptions to the bound", 1, tick, func(ctx context.Context, at *attackerState) (string, error) {
		sid, out, err := at.session(ctx, ss.mcpSrv.URL, "2025-11-25", "{}")
		if sid == "" {
			return out, err
		}
		in := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
		uri := func(i int) string {
			u := fmt.Sprintf("soak://%d/", i)
			return u + strings.Repeat("u", 8000-len(u))
		}
		call := func(method string, i int, want string) (string, error) {
			id := at.next()
			status, _, got, err := soakHTTP{ss.mcpSrv.URL, at.hc}.post(ctx, in, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"uri":%q}}`, id, method, uri(i)))
			switch {
			case err != nil:
				at.sid = "" // subscribed to what it cannot tell: the next round starts afresh
				return "cut", nil
			case status == 404:
				return at.evicted()
			case status == 200 && got == primedOnly(got) && sessionGone(ctx, ss.mcpSrv.URL, at.hc, in):
				// Its session, busy, was ended by a newcomer's initialize:
				// the attackers hold the most sessions.
				return at.evicted()
			case status != 200 || got != legacyEvents(streamNo(got), fmt.Sprintf(want, id)):
				at.sid = ""
				return fmt.Sprint(status), fmt.Errorf("%s %d: %d %.300q", method, i, status, got)
			}
			return "", nil
		}
		for i := range 9 {
			want := `{"jsonrpc":"2.0","result":{},"id":%d}`
			if i == 8 {
				want = `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"uri","rule":"max","param":"65536","message":"a session subscribes to at most 65536 bytes of URIs: unsubscribe from one first"}]},"id":%d}`
			}
			if out, err := call("resources/subscribe", i, want); out != "" {
				return out, err
			}
		}
		for i := range 8 {
			if out, err := call("resources/unsubscribe", i, `{"jsonrpc":"2.0","result":{},"id":%d}`); out != "" {
				return out, err
			}
		}
		return "ninth refused", nil
	})
	// 6. Calls that outlive their connection: a tool that elicits, whose
	// client hangs up once asked; a 2025-03-26 batch of sleeps, and a
	// 2026-07-28 and an rpc sleep, whose clients hang up at once.
	add("elicit, then hang up", 2, tick, func(ctx context.Context, at *attackerState) (string, error) {
		sid, out, err := at.session(ctx, ss.mcpSrv.URL, "2025-11-25", `{"elicitation":{}}`)
		if sid == "" {
			return out, err
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // hangs up
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ss.mcpSrv.URL,
			strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"form"}}`, at.next())))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := at.hc.Do(req)
		if err != nil {
			return "cut", nil
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case 404:
			return at.evicted()
		case 503: // the session's calls waiting for its slots are at their bound
			return "503", nil
		}
		lines := bufio.NewReader(resp.Body)
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				return "cut", nil
			}
			if strings.Contains(line, `"method":"elicitation/create"`) {
				return "asked, hung up", nil
			}
		}
	})
	sleeps := func(at *attackerState) string {
		var b strings.Builder
		b.WriteString("[")
		for i := range 16 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000}}}`, at.next())
		}
		return b.String() + "]"
	}
	add("batch of sleeps, then hang up (2025-03-26)", 2, tick, func(ctx context.Context, at *attackerState) (string, error) {
		sid, out, err := at.session(ctx, ss.mcpSrv.URL, "2025-03-26", "{}")
		if sid == "" {
			return out, err
		}
		return hangUp(ctx, a.mcpAddr, []string{"Mcp-Session-Id: " + sid}, sleeps(at))
	})
	add("sleep, then hang up", 1, tick,
		func(ctx context.Context, _ *attackerState) (string, error) {
			return hangUp(ctx, a.mcpAddr, headerLines(modernHeaders("tools/call", "sleep")),
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000},"_meta":{`+soakModernMeta+`}}}`)
		},
		func(ctx context.Context, _ *attackerState) (string, error) {
			return hangUp(ctx, a.rpcAddr, nil, `{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":60000}}`)
		})
	// 7. Sessions opened, never used: two goroutines, a tick apart
	// (up to 100 a second, 64 fill the table in well under one).
	add("initialize flood", 2, tick, func(ctx context.Context, at *attackerState) (string, error) {
		_, out, err := attackSession(ctx, at.hc, ss.mcpSrv.URL, "2025-11-25", "{}")
		return out, err
	})
	// 8. Progress with long tokens, the client gone at once: over
	// MaxProgressToken (8 KiB: no reports), and at it (1 KiB: reports
	// held for resumption, within ReplayBytes).
	add("long progress token, then hang up", 1, tick, func(ctx context.Context, at *attackerState) (string, error) {
		sid, out, err := at.session(ctx, ss.mcpSrv.URL, "2025-11-25", "{}")
		if sid == "" {
			return out, err
		}
		count := func(token int, meta string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{"n":1000},"_meta":{"progressToken":"%s"%s}}}`,
				at.next(), strings.Repeat("t", token-2), meta)
		}
		in := []string{"Mcp-Session-Id: " + sid, "Mcp-Protocol-Version: 2025-11-25"}
		for _, r := range []struct {
			header []string
			body   string
		}{
			{in, count(8<<10, "")},
			{in, count(1<<10, "")},
			{headerLines(modernHeaders("tools/call", "count")), count(8<<10, ","+soakModernMeta)},
		} {
			if out, err := hangUp(ctx, a.mcpAddr, r.header, r.body); out != "hung up" {
				return out, err
			}
		}
		return "hung up", nil
	})
	// 10. Arguments far past their field's bound: stats takes at most
	// 10,000 values, and is sent 50,000.
	values := func() string { return `{"values":[` + strings.Repeat("1,", 50_000-1) + `1]}` }
	add("long arguments", 1, tick,
		func(ctx context.Context, at *attackerState) (string, error) {
			status, _, got, err := soakHTTP{ss.mcpSrv.URL, at.hc}.post(ctx, modernHeaders("tools/call", "stats"),
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stats","arguments":`+values()+`,"_meta":{`+soakModernMeta+`}}}`)
			return fixed(err, status, got, 200, streamed(`{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"Invalid arguments:\n- values must be at most 10000 items long"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"soak","version":"1.0.0"}}},"id":1}`))
		},
		func(ctx context.Context, at *attackerState) (string, error) {
			status, _, got, err := soakHTTP{ss.rpcSrv.URL, at.hc}.post(ctx, nil, `{"jsonrpc":"2.0","id":1,"method":"stats","params":`+values()+`}`)
			return fixed(err, status, got, 200, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":[{"field":"values","rule":"max","param":"10000","message":"values must be at most 10000 items long"}]},"id":1}`+"\n")
		})
	// 11. A Host that names no host of ours (DNS rebinding, no Origin).
	add("bad Host", 1, tick, both(func(ctx context.Context, hc *http.Client, _, url string) (string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Host = "evil.example"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			return fixed(err, 0, "", 0, "")
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return fixed(err, resp.StatusCode, string(b), 403, invalid("the Host is not allowed"))
	})...)
	// Cancellations of ids the attacker never used (those the honest
	// clients use): accepted, and reaching no other client's call.
	cancels := func(url string, header map[string]string, cancel string) round {
		return func(ctx context.Context, at *attackerState) (string, error) {
			for id := 1; id <= 8; id++ {
				status, _, got, err := soakHTTP{url, at.hc}.post(ctx, header, fmt.Sprintf(cancel, id))
				if out, err := fixed(err, status, got, 202, ""); out != "as bound" {
					return out, err
				}
			}
			return "as bound", nil
		}
	}
	add("cancel unknown ids", 1, tick,
		cancels(ss.mcpSrv.URL, map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`),
		cancels(ss.rpcSrv.URL, nil, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%d}}`))
	return s
}

// start runs each attack's goroutines until ctx ends, counted in wg.
func (s *soakAttacks) start(ctx context.Context, wg *sync.WaitGroup, hc *http.Client) {
	for _, a := range s.list {
		for range a.goroutines {
			wg.Go(func() {
				at := &attackerState{hc: hc, fresh: s.fresh}
				for ctx.Err() == nil {
					out, err := a.round(ctx, at)
					s.record(ctx, a.name, out, err)
					pause(ctx, a.pause)
				}
			})
		}
	}
}

// record counts an outcome of attack, and a bound that did not hold
// while the soak ran.
func (s *soakAttacks) record(ctx context.Context, attack, outcome string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		outcome, err = "cut by the end", nil
	}
	if s.outcomes[attack] == nil {
		s.outcomes[attack] = map[string]int{}
	}
	s.outcomes[attack][outcome]++
	if err != nil {
		s.nBroken++
		if len(s.broken) < 20 {
			s.broken = append(s.broken, attack+": "+err.Error())
		}
	}
}

// report logs what each attack got.
func (s *soakAttacks) report(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.list {
		var outs []string
		for out, n := range s.outcomes[a.name] {
			outs = append(outs, fmt.Sprintf("%s: %d", out, n))
		}
		slices.Sort(outs)
		t.Logf("attack %-44s %s", a.name, strings.Join(outs, ", "))
	}
}

// check fails t for each bound that did not hold, and for an attack that
// never made a round.
func (s *soakAttacks) check(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Zero(t, s.nBroken, "bounds that did not hold:\n%s", strings.Join(s.broken, "\n"))
	for _, a := range s.list {
		assert.NotEmpty(t, s.outcomes[a.name], "attack %s", a.name)
	}
}

// pause waits d, or ctx's end.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// fixed is the outcome of an attack whose answer is fixed: "as bound", or
// an error saying what came instead.
func fixed(err error, status int, got string, wantStatus int, want string) (string, error) {
	switch {
	case err != nil:
		return "cut", nil
	case status == 503 && got == soakBusy:
		// A body past 64 KiB while withheld bodies fill MaxQueueBytes
		// (TestHTTPSoakPressed): the bound's own answer.
		return "503", nil
	case status != wantStatus || got != want:
		return fmt.Sprint(status), fmt.Errorf("got %d %.300q, want %d %q", status, got, wantStatus, want)
	}
	return "as bound", nil
}

// soakBusy is the answer to a body that would pass MaxQueueBytes.
const soakBusy = `{"jsonrpc":"2.0","error":{"code":-32002,"message":"Server busy","data":{"reason":"too many request bodies are being served: try again"}},"id":null}` + "\n"

// attackSession opens a legacy session of revision with the client
// capabilities given (JSON), and returns its id, or "" and the outcome of
// a round that could not open one.
func attackSession(ctx context.Context, hc *http.Client, url, revision, capabilities string) (string, string, error) {
	status, hd, got, err := soakHTTP{url, hc}.post(ctx, nil,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+revision+`","capabilities":`+capabilities+`,"clientInfo":{"name":"attacker","version":"1"}}}`)
	switch {
	case err != nil:
		return "", "cut", nil
	case status == http.StatusServiceUnavailable && strings.Contains(string(got), "too many sessions"):
		// Every session busy, none of a client holding two more than the
		// attackers: the flood is refused, as it should be.
		return "", "503", nil
	case status != 200 || hd.Get("Mcp-Session-Id") == "":
		return "", fmt.Sprint(status), fmt.Errorf("initialize: %d %.300q", status, got)
	}
	return hd.Get("Mcp-Session-Id"), "opened", nil
}

// rawConn dials addr; ctx's end, or done, closes the connection.
func rawConn(ctx context.Context, addr string) (net.Conn, func(), error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	return conn, func() { stop(); _ = conn.Close() }, nil
}

// headerLines are the headers of h as lines of a request.
func headerLines(h map[string]string) []string {
	var lines []string
	for k, v := range h {
		lines = append(lines, k+": "+v)
	}
	return lines
}

// writeRequest writes a POST of body (its Content-Length set unless the
// headers say Transfer-Encoding), to loopback, accepting JSON and events
// unless the headers give an Accept.
func writeRequest(w io.Writer, header []string, body string) error {
	var b strings.Builder
	b.WriteString("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n")
	length, accept := true, true
	for _, h := range header {
		length = length && !strings.HasPrefix(h, "Transfer-Encoding:") && !strings.HasPrefix(h, "Content-Length:")
		accept = accept && !strings.HasPrefix(h, "Accept:")
		b.WriteString(h + "\r\n")
	}
	if accept {
		b.WriteString("Accept: application/json, text/event-stream\r\n")
	}
	if length {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	_, err := io.WriteString(w, b.String())
	return err
}

// rawRound writes a request (then what more sends) on a connection of its
// own and reads the status of its response: an error unless it is one of
// want. The round lasts until the response comes or the soak ends.
func rawRound(ctx context.Context, addr string, header []string, body string, more func(io.Writer) error, want ...string) (string, error) {
	conn, done, err := rawConn(ctx, addr)
	if err != nil {
		return "", err
	}
	defer done()
	if err := writeRequest(conn, header, body); err != nil {
		return "write failed", nil
	}
	if more != nil {
		if err := more(conn); err != nil {
			return "write failed", nil
		}
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "cut", nil
	}
	_, status, _ := strings.Cut(strings.TrimSpace(line), " ")
	status, _, _ = strings.Cut(status, " ")
	if !slices.Contains(want, status) {
		return status, fmt.Errorf("%q, want %v", line, want)
	}
	return status, nil
}

// hangUp writes a request on a connection of its own, and closes it at
// once.
func hangUp(ctx context.Context, addr string, header []string, body string) (string, error) {
	conn, done, err := rawConn(ctx, addr)
	if err != nil {
		return "", err
	}
	defer done()
	if err := writeRequest(conn, header, body); err != nil {
		return "write failed", nil
	}
	return "hung up", nil
}
