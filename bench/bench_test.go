package main

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// callsFor is how many ops the harness test makes of each workload: enough
// to go round the pipelined ids twice (so ids are reused), a few of the
// others (from every HTTP client).
func callsFor(w *workload) int {
	if w.http {
		return 3*w.clients + 1 // every client calls, some once more
	}
	switch w.kind {
	case kindPipelined:
		return 2*pipelineDepth + 7
	case kindLine:
		return 1
	}
	return 3
}

// TestHarness runs every contestant on every workload it supports and
// checks every answer (the driver does): the harness works, and so does
// every contestant.
func TestHarness(t *testing.T) {
	for _, w := range workloads {
		for _, c := range contestants {
			if ok, _ := c.supports(w); !ok {
				continue
			}
			t.Run(w.key+"/"+c.name, func(t *testing.T) {
				if testing.Short() && w.key == "line64MiB" && c.peer {
					t.Skip("-short: the 64 MiB line is checked against toolrpc and the floors only")
				}
				if w.kind == kindLine {
					t.Parallel() // the huge lines, two at a time once the rest is done
				}
				r, err := newRunner(c, w, 20*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				defer r.close()
				if err := r.run(callsFor(w)); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestPeak checks that the heap sampler sees the 1 MiB echo: toolrpc and
// floor-json (and, over MCP, toolrpc-mcp and floor-mcp) must hold at least
// the payload at some point.
func TestPeak(t *testing.T) {
	for _, tc := range []struct{ name, workload string }{
		{"toolrpc", "echo1MiB"}, {"floor-json", "echo1MiB"},
		{"toolrpc-mcp", "mcp-echo1MiB"}, {"floor-mcp", "mcp-echo1MiB"},
	} {
		name := tc.name
		heap, live, err := measurePeak(contestantByName(name), workloadByKey(tc.workload), 3)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: peak heap +%.1f MiB, peak live +%.1f MiB", name, float64(heap)/(1<<20), float64(live)/(1<<20))
		if heap < echoSize {
			t.Errorf("%s: peak heap +%d bytes, less than the payload", name, heap)
		}
	}
}

// TestCheckTool holds the driver's check of an MCP tool result: the first
// content block's text, byte for byte, and no isError; and it allocates
// nothing.
func TestCheckTool(t *testing.T) {
	const head = `{"jsonrpc":"2.0","id":7,"result":`
	for _, tc := range []struct {
		result string
		ok     bool
	}{
		{`{"content":[{"type":"text","text":"42"}]}`, true},
		{` { "resultType" : "complete" , "content" : [ { "text" : "42" , "type" : "text" } , {"type":"text","text":"x"} ] , "isError" : false , "_meta" : {} } `, true},
		{`{"content":[{"type":"text","text":"42"}],"structuredContent":{"a":"}"}}`, true},
		{`{"content":[{"type":"text","text":"42"}],"isError":true}`, false},
		{`{"content":[{"type":"text","text":"43"}]}`, false},
		{`{"content":[{"type":"text","text":42}]}`, false},
		{`{"content":[{"type":"image","text":"42"}]}`, false},
		{`{"content":[{"type":"text","text":"x"},{"type":"text","text":"42"}]}`, false},
		{`{"content":[]}`, false},
		{`{"content":{"type":"text","text":"42"}}`, false},
		{`{}`, false},
		{`42`, false},
	} {
		line := []byte(head + tc.result + "}")
		var r response
		if _, err := parseResponse(line, 0, &r); err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if err := r.checkTool([]byte("7"), []byte(`"42"`)); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.result, err, tc.ok)
		}
	}
	line := []byte(head + `{"content":[{"type":"text","text":"42"}]}}`)
	id, want := []byte("7"), []byte(`"42"`)
	var r response
	if allocs := testing.AllocsPerRun(100, func() {
		if _, err := parseResponse(line, 0, &r); err != nil {
			t.Fatal(err)
		}
		if err := r.checkTool(id, want); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per check", allocs)
	}
}

// TestNotApplicable holds the reasons given for the n/a cells: the peers
// fail these workloads when driven anyway.
func TestNotApplicable(t *testing.T) {
	for _, tc := range []struct{ contestant, workload string }{
		{"sourcegraph", "batch"},
		{"x-exp", "batch"},
		{"geth", "named"},
	} {
		t.Run(tc.workload+"/"+tc.contestant, func(t *testing.T) {
			c, w := contestantByName(tc.contestant), workloadByKey(tc.workload)
			if ok, _ := c.supports(w); ok {
				t.Fatalf("%s is not marked n/a for %s", c.name, w.key)
			}
			s := newSession(c, w, time.Second) // x-exp never answers: the watchdog ends it
			defer s.close()
			err := s.run(1)
			if err == nil {
				t.Fatalf("%s answered %s: it is not n/a", c.name, w.key)
			}
			t.Logf("as expected: %v", err)
		})
	}
}

// TestDriverAllocatesNothing drives floor-io, which allocates nothing per
// line: whatever is allocated per call is the driver's, and must be
// nothing.
func TestDriverAllocatesNothing(t *testing.T) {
	for _, key := range []string{"pingpong", "named", "pipelined", "batch", "echo1MiB"} {
		w := workloadByKey(key)
		t.Run(key, func(t *testing.T) {
			s := newSession(contestantByName("floor-io"), w, 20*time.Second)
			defer s.close()
			n := 2000
			switch w.kind {
			case kindPipelined:
				n = 3 * pipelineDepth
			case kindEcho:
				n = 1000
			}
			if err := s.run(n); err != nil { // warm up: buffers grow
				t.Fatal(err)
			}
			// The count is the whole process's: the runtime's own work
			// (timers, the GC, which a 1 GiB echo run wakes often) may
			// allocate meanwhile. Such strays come and go; an allocation of
			// the driver's comes with every call. So the least of a few
			// measurements is the driver's: a per-call allocation shows in
			// each (n of them at least), strays in some.
			const stray, attempts = 20, 5
			least := uint64(math.MaxUint64)
			for range attempts {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				if err := s.run(n); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				least = min(least, after.Mallocs-before.Mallocs)
				if least <= stray {
					break
				}
			}
			if perCall := float64(max(least, stray)-stray) / float64(n*w.callsPerOp); perCall > 0.01 {
				t.Errorf("%d allocations over %d calls (the least of %d runs)", least, n*w.callsPerOp, attempts)
			}
		})
	}
}

func TestParseResponse(t *testing.T) {
	for _, tc := range []struct {
		in, id, result, err string
		fail                bool
	}{
		{in: `{"jsonrpc":"2.0","result":42,"id":1}`, id: "1", result: "42"},
		{in: ` { "id" : 7 , "jsonrpc" : "2.0" , "result" : {"a":[1,{"b":"}"}]} } `, id: "7", result: `{"a":[1,{"b":"}"}]}`},
		{in: `{"jsonrpc":"2.0","result":"a\"b\\","id":"x\\"}`, id: `"x\\"`, result: `"a\"b\\"`},
		{in: `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`, id: "null", err: `{"code":-32600,"message":"Invalid Request"}`},
		{in: `{"jsonrpc":"2.0","result":"unterminated}`, fail: true},
		{in: `[1]`, fail: true},
		{in: `{"id":1,}`, fail: true},
	} {
		var r response
		end, err := parseResponse([]byte(tc.in), 0, &r)
		if tc.fail {
			if err == nil {
				t.Errorf("%s: no error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if string(r.id) != tc.id || string(r.result) != tc.result || string(r.err) != tc.err || !r.version {
			t.Errorf("%s: id %s result %s error %s version %v", tc.in, r.id, r.result, r.err, r.version)
		}
		if strings.TrimSpace(tc.in[end:]) != "" {
			t.Errorf("%s: stopped at %d", tc.in, end)
		}
	}
}

// The benchmarks measure one cell each, for profiling, e.g.
//
//	go test -run XXX -bench 'Pingpong/toolrpc$' -cpuprofile cpu.out
//
// ns/op is per op (a batch op is 100 calls); ns/call is per call.

func BenchmarkPingpong(b *testing.B)  { benchWorkload(b, "pingpong") }
func BenchmarkNamed(b *testing.B)     { benchWorkload(b, "named") }
func BenchmarkPipelined(b *testing.B) { benchWorkload(b, "pipelined") }
func BenchmarkBatch(b *testing.B)     { benchWorkload(b, "batch") }
func BenchmarkEcho1MiB(b *testing.B)  { benchWorkload(b, "echo1MiB") }
func BenchmarkLine16MiB(b *testing.B) { benchWorkload(b, "line16MiB") }
func BenchmarkLine64MiB(b *testing.B) { benchWorkload(b, "line64MiB") }
func BenchmarkMCPAdd(b *testing.B)    { benchWorkload(b, "mcp-add") }
func BenchmarkMCPEcho(b *testing.B)   { benchWorkload(b, "mcp-echo1MiB") }
func BenchmarkHTTPSum(b *testing.B)   { benchWorkload(b, "http-sum") }
func BenchmarkHTTPSum16(b *testing.B) { benchWorkload(b, "http-sum16") }

func benchWorkload(b *testing.B, key string) {
	w := workloadByKey(key)
	for _, c := range contestants {
		if ok, _ := c.supports(w); !ok {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			r, err := newRunner(c, w, defaultStall)
			if err != nil {
				b.Fatal(err)
			}
			defer r.close()
			if err := r.run(1); err != nil { // warm up
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if err := r.run(b.N); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if w.callsPerOp > 1 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*w.callsPerOp), "ns/call")
			}
		})
	}
}

// TestReadHTTPResponse holds the HTTP driver's reading of a response: a
// Content-Length body and a chunked one, header names in any case, and the
// refusals (another status, another Content-Type, Connection: close, no
// length); and it allocates nothing.
func TestReadHTTPResponse(t *testing.T) {
	const body = `{"jsonrpc":"2.0","id":10000,"result":42}` + "\n"
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 41\r\n\r\n" + body, true},
		{"case", "HTTP/1.1 200 OK\r\ncontent-type: Application/JSON; charset=utf-8\r\ncontent-length: 41\r\n\r\n" + body, true},
		{"chunked", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"14;ext=1\r\n" + body[:20] + "\r\n15\r\n" + body[20:] + "\r\n0\r\nX-Trailer: 1\r\n\r\n", true},
		{"status", "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", false},
		{"type", "HTTP/1.1 200 OK\r\nContent-Type: application/jsonx\r\nContent-Length: 41\r\n\r\n" + body, false},
		{"close", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 41\r\n\r\n" + body, false},
		{"no length", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + body, false},
		{"short", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 42\r\n\r\n" + body, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf []byte
			got, err := readHTTPResponse(bufio.NewReader(strings.NewReader(tc.in)), &buf)
			if !tc.ok {
				if err == nil {
					t.Fatalf("read %q", got)
				}
				return
			}
			if err != nil || string(got) != body {
				t.Fatalf("read %q, %v; want %q", got, err, body)
			}
		})
	}
	in := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 41\r\n\r\n" + body
	rd := strings.NewReader(in)
	br := bufio.NewReader(rd)
	buf := make([]byte, 0, 64)
	id, want := []byte("10000"), []byte("42")
	var r response
	if allocs := testing.AllocsPerRun(100, func() {
		rd.Reset(in)
		br.Reset(rd)
		got, err := readHTTPResponse(br, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkAnswer(got, id, want, &r, false); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per response", allocs)
	}
}

// TestHTTPContestantsServeNetHTTP checks that every HTTP contestant
// answers net/http's own client as it answers the driver: the driver's
// HTTP is plain HTTP/1.1.
func TestHTTPContestantsServeNetHTTP(t *testing.T) {
	for _, c := range httpContestants {
		t.Run(c.name, func(t *testing.T) {
			h, closeH := c.handler()
			defer closeH()
			srv := httptest.NewServer(h)
			defer srv.Close()
			body := requestLine(nil, "7", c.sum, sumParams(false))
			req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			var r response
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %s: %s", resp.Status, got)
			}
			if err := checkAnswer(bytes.TrimSpace(got), []byte("7"), []byte(sumResult), &r, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// handlerWriter is the http.ResponseWriter of BenchmarkHTTPHandler: its
// header map and body buffer are kept from call to call.
type handlerWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *handlerWriter) Header() http.Header { return w.header }
func (w *handlerWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *handlerWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, p...)
	return len(p), nil
}

// BenchmarkHTTPHandler is each HTTP contestant's handler alone, without
// net/http's server, the network or the driver: the request the driver
// sends (as net/http parses it, once), its body read anew each call, the
// answer written to a writer that keeps its buffers. It is the part of an
// http-sum call that differs between contestants, and much steadier than
// the round trip, where net/http, the kernel and the driver take the rest.
func BenchmarkHTTPHandler(b *testing.B) {
	body := requestLine(nil, "10000", "sum", sumParams(false))
	raw := httpRequest(nil, "bench", body)
	for _, c := range httpContestants {
		b.Run(c.name, func(b *testing.B) {
			h, stop := c.handler()
			defer stop()
			req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
			if err != nil {
				b.Fatal(err)
			}
			rd := bytes.NewReader(body)
			req.Body = io.NopCloser(rd)
			w := &handlerWriter{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(body)
				clear(w.header)
				w.status, w.body = 0, w.body[:0]
				h.ServeHTTP(w, req)
				if w.status != http.StatusOK || !bytes.Contains(w.body, []byte(`"result":`+sumResult)) {
					b.Fatalf("%d %q", w.status, w.body)
				}
			}
		})
	}
}

// TestRoundOrder holds the driver's orders to a balanced Latin square: over
// its rows (n for an even n, 2n for an odd one) every row is an order of
// all n contestants, each contestant runs at each place equally often, and
// each runs right after each other one equally often.
func TestRoundOrder(t *testing.T) {
	for n := 1; n <= 9; n++ {
		rows := n
		if n%2 == 1 {
			rows = 2 * n
		}
		place := map[[2]int]int{}   // contestant, place
		follows := map[[2]int]int{} // contestant, the one before it
		for round := range rows {
			order := roundOrder(n, round)
			seen := map[int]bool{}
			for j, c := range order {
				if c < 0 || c >= n || seen[c] {
					t.Fatalf("n=%d round %d: %v is not an order of %d contestants", n, round, order, n)
				}
				seen[c] = true
				place[[2]int{c, j}]++
				if j > 0 {
					follows[[2]int{c, order[j-1]}]++
				}
			}
			if got := roundOrder(n, round+rows); !slices.Equal(got, order) {
				t.Fatalf("n=%d: round %d gives %v, round %d %v", n, round, order, round+rows, got)
			}
		}
		for c := range n {
			for j := range n {
				if place[[2]int{c, j}] != rows/n {
					t.Errorf("n=%d: contestant %d at place %d %d times, want %d", n, c, j, place[[2]int{c, j}], rows/n)
				}
			}
			for b := range n {
				if want := rows / n; b != c && follows[[2]int{c, b}] != want {
					t.Errorf("n=%d: contestant %d right after %d %d times, want %d", n, c, b, follows[[2]int{c, b}], want)
				}
			}
		}
	}
}
