package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/toolrpc/toolrpc/rpc"
)

// FuzzHTTP drives HTTPHandler.ServeHTTP with fuzzed method, Content-Type,
// Accept and body, and checks what any request gets: a status of the
// documented set; for an answer (200, application/json) one line of JSON,
// a response or an array of them; for events (200, text/event-stream)
// well-formed "data: JSON\n\n" events, notifications and at most one
// answer, last; for 202 nothing; for a refusal the JSON-RPC error naming
// it. Never a panic, never a use of the response after ServeHTTP returned.
func FuzzHTTP(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add("POST", jsonType, "", []byte(s))
		f.Add("POST", "application/json; charset=utf-8", sseType, []byte(s))
		f.Add("POST", jsonType, jsonType+", "+sseType, []byte(s))
	}
	f.Add("GET", "", "", []byte(nil))
	f.Add("POST", "text/plain", "*/*", []byte(`{"jsonrpc":"2.0","method":"ok","id":1}`))
	f.Add("POST", jsonType, "text/html;q=0.5, application/json;q=0", []byte(`{"jsonrpc":"2.0","method":"ok","id":1}`))
	f.Add("POST", jsonType, "text/*", []byte(`[{"jsonrpc":"2.0","method":"notify","id":1},{"jsonrpc":"2.0","method":"notify"}]`))
	f.Add("POST", jsonType, sseType, []byte(strings.Repeat(" ", fuzzMaxFrameSize+1)))
	f.Fuzz(func(t *testing.T, method, ctype, accept string, body []byte) {
		var rec *guardWriter
		synctest.Test(t, func(t *testing.T) {
			h := rpc.NewHTTPHandler(context.Background(), fuzzHandler, &rpc.Options{
				Logger:       quiet,
				MaxFrameSize: fuzzMaxFrameSize,
				MaxBatch:     fuzzMaxBatch,
				MaxDepth:     fuzzMaxDepth,
				Concurrency:  4,
			})
			r, err := http.NewRequest("POST", "/", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			r.Method = method // any token, as a server may see
			r.Header.Set("Content-Type", ctype)
			if accept != "" {
				r.Header.Set("Accept", accept)
			}
			rec = &guardWriter{rec: httptest.NewRecorder(), late: new(atomic.Int32)}
			h.ServeHTTP(rec, r)
			rec.returned.Store(true)
			synctest.Wait()
			if err := h.Close(); err != nil {
				t.Fatal(err)
			}
		})
		if n := rec.late.Load(); n > 0 {
			t.Fatalf("%d uses of the response after ServeHTTP returned", n)
		}
		checkHTTPReply(t, rec.rec.Code, rec.rec.Header(), rec.rec.Body.Bytes())
	})
}

// checkHTTPReply checks a response of HTTPHandler: see FuzzHTTP.
func checkHTTPReply(t *testing.T, status int, h http.Header, body []byte) {
	t.Helper()
	ctype := h.Get("Content-Type")
	switch status {
	case 200:
	case 202:
		if len(body) != 0 || ctype != "" {
			t.Fatalf("202 with %q, %q", ctype, body)
		}
		return
	case 400, 405, 406, 408, 413, 415, 503:
		var e struct {
			JSONRPC string          `json:"jsonrpc"`
			Error   *rpc.Error      `json:"error"`
			ID      json.RawMessage `json:"id"`
		}
		if ctype != jsonType || json.Unmarshal(body, &e) != nil || e.JSONRPC != "2.0" || e.Error == nil ||
			e.Error.Code != rpc.InvalidRequest || string(e.ID) != "null" || !bytes.HasSuffix(body, []byte("}\n")) {
			t.Fatalf("%d with %q, %q: not a JSON-RPC refusal", status, ctype, body)
		}
		if status == 405 && h.Get("Allow") != "POST" {
			t.Fatalf("405 with Allow %q", h.Get("Allow"))
		}
		return
	default:
		t.Fatalf("status %d", status)
	}
	switch ctype {
	case jsonType:
		line, ok := bytes.CutSuffix(body, []byte("\n"))
		if !ok || bytes.ContainsAny(line, "\r\n") || !isAnswer(line) {
			t.Fatalf("200 JSON %q: not one answer line", body)
		}
	case sseType:
		if h.Get("Cache-Control") != "no-cache" {
			t.Fatalf("events with Cache-Control %q", h.Get("Cache-Control"))
		}
		events, ok := bytes.CutSuffix(body, []byte("\n\n"))
		if !ok {
			t.Fatalf("events %q: not ended by a blank line", body)
		}
		all := bytes.Split(events, []byte("\n\n"))
		for i, ev := range all {
			data, ok := bytes.CutPrefix(ev, []byte("data: "))
			switch {
			case !ok || bytes.ContainsAny(data, "\r\n"):
				t.Fatalf("event %q of %q: not one data line", ev, body)
			case isNotification(data):
			case !isAnswer(data) || i != len(all)-1:
				t.Fatalf("event %q of %q: not a notification, nor the answer last", ev, body)
			}
		}
	default:
		t.Fatalf("200 with Content-Type %q", ctype)
	}
}

// isAnswer reports whether b is a response, or a non-empty array of them.
func isAnswer(b []byte) bool {
	var batch []json.RawMessage
	if json.Unmarshal(b, &batch) == nil {
		for _, m := range batch {
			if !isResponse(m) {
				return false
			}
		}
		return len(batch) > 0
	}
	return isResponse(b)
}

// members returns b's members if it is a JSON-RPC 2.0 object.
func members(b []byte) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	return m, json.Unmarshal(b, &m) == nil && string(m["jsonrpc"]) == `"2.0"`
}

// isResponse reports whether b is a response: an id, and a result or an
// error.
func isResponse(b []byte) bool {
	m, ok := members(b)
	_, id := m["id"]
	_, result := m["result"]
	_, err := m["error"]
	_, method := m["method"]
	return ok && id && result != err && !method
}

// isNotification reports whether b is a notification.
func isNotification(b []byte) bool {
	m, ok := members(b)
	_, id := m["id"]
	_, method := m["method"]
	return ok && method && !id
}
