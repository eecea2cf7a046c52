package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/jsonx"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/internal/wiretest/jsonref"
	"github.com/toolrpc/toolrpc/rpc"
)

// The limits FuzzServe serves with: small, so that the fuzzer reaches them.
const (
	fuzzMaxFrameSize = 512
	fuzzMaxBatch     = 4
	fuzzMaxDepth     = 6
)

// fuzzHandler answers at once, never blocking: some methods with a result,
// some with an error, one by panicking, one by notifying the caller first.
var fuzzHandler = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "sum", "subtract", "get_data", "echo", "update", "notify_hello", "notify_sum", "ok":
		if req.Params == nil {
			return true, nil
		}
		return req.Params, nil
	case "err":
		return nil, rpc.NewError(-1, "custom").WithData(req.Params)
	case "fail":
		return nil, errors.New("plain failure")
	case "panic":
		panic("fuzz panic")
	case "notify":
		id := "null"
		if req.ID != nil {
			id = string(req.ID)
		}
		if err := rpc.Notify(ctx, "note", json.RawMessage(`{"for":`+id+`}`)); err != nil {
			return nil, err
		}
		return "noted", nil
	}
	return nil, rpc.NewError(codec.MethodNotFound, "")
})

// fuzzSeeds are inputs the corpus starts from, besides the specification's
// examples: bad inputs of every kind, the handler's methods, cancellations.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","method":"ok","params":[1,2],"id":1}`,
	`{"jsonrpc":"2.0","method":"err","params":{"a":1},"id":"e"}`,
	`{"jsonrpc":"2.0","method":"fail","id":null}`,
	`{"jsonrpc":"2.0","method":"panic","id":-0.5e3}`,
	`{"jsonrpc":"2.0","method":"panic"}`,
	`{"jsonrpc":"2.0","method":"notify","id":7}` + "\n" + `{"jsonrpc":"2.0","method":"notify"}`,
	`{"jsonrpc":"2.0","method":"rpc.ok","id":2}`,
	`{"jsonrpc":"2.0","method":"ok","id":1}` + "\n" + `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
	`{"jsonrpc":"2.0","method":"notify","id":"x"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x","reason":"r"}}`,
	`[{"jsonrpc":"2.0","method":"ok","id":1},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`,
	`[{"jsonrpc":"2.0","method":"ok","id":1},{"jsonrpc":"2.0","method":"ok","id":1}]`,
	`[{"jsonrpc":"2.0","method":"ok","id":1},{"jsonrpc":"2.0","method":"ok","id":2},{"jsonrpc":"2.0","method":"ok","id":3},{"jsonrpc":"2.0","method":"ok","id":4},{"jsonrpc":"2.0","method":"ok","id":5}]`,
	`{"jsonrpc":"2.0","method":"ok","params":[[[[[[1]]]]]],"id":1}`,
	`{"jsonrpc":"2.0","method":"ok","params":{"_meta":{"progressToken":1}},"id":1}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
	`{"jsonrpc":"2.0","result":1,"id":1}` + "\n" + `{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":1}`,
	`{"jsonrpc":"2.0","method":"ok","id":1,"id":2}`,
	`{"jsonrpc":"2.0","method":"ok","params":[1],"extra":1,"id":1}`,
	`{"jsonrpc":"2.0","method":"ok","params":"x","id":1}`,
	`{"jsonrpc":"2.0","method":"ok","params":null}`,
	`{"jsonrpc":2.0,"method":"ok","id":[1]}`,
	`{"jsonrpc":"2\u002e0","m\u0065thod":"\u006fk","id":"\ud800"}`,
	`{"jsonrpc":"2.0","method":"ok","id":123456789012345678901234567890}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"ok\",\"id\":\"\xff\"}",
	"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"ok\",\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"o\x00k\",\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"ok\",\"params\":[\"\t\"],\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"ok\",\"id\":1}\r\n \t\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"ok\",\"id\":2}",
	`{"jsonrpc":"2.0","method":"ok","id":1}{"jsonrpc":"2.0","method":"ok","id":2}`,
	`{"jsonrpc":"2.0","method":"ok","params":[1,`,
	`[]`, `[[]]`, `[1,2,3]`, `{}`, `1`, `"x"`, `null`, `true`,
	`[{"jsonrpc":"2.0","method":"notify_hello"},{"jsonrpc":"2.0","method":"notify_sum"}]`,
	`{"jsonrpc":"2.0","method":"ok","params":["` + strings.Repeat("x", fuzzMaxFrameSize) + `"],"id":1}`,
	strings.Repeat(" ", 2*fuzzMaxFrameSize) + "\n" + `{"jsonrpc":"2.0","method":"ok","id":1}`,
	`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`,
}

func FuzzServe(f *testing.F) {
	for _, ex := range wiretest.SpecExamples {
		in, _ := wiretest.Split(ex.Transcript)
		f.Add([]byte(in), true)
	}
	for i, s := range fuzzSeeds {
		f.Add([]byte(s+"\n"), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, in []byte, sequential bool) { fuzzServe(t, in, sequential, rpc.FramingNewline) })
}

// FuzzServeLSP is FuzzServe with LSP framing: the same input, framed, and
// bad header blocks besides; every response due is written, each a
// well-framed message.
func FuzzServeLSP(f *testing.F) {
	for _, ex := range wiretest.SpecExamples {
		in, _ := wiretest.Split(ex.Transcript)
		f.Add([]byte(lsp(strings.Split(strings.TrimSuffix(in, "\n"), "\n")...)), true)
	}
	for i, s := range fuzzSeeds {
		f.Add([]byte(lsp(strings.Split(s, "\n")...)), i%2 == 0)
	}
	ok := lsp(`{"jsonrpc":"2.0","method":"ok","id":1}`)
	for _, s := range []string{
		"Content-Length: x\r\n\r\n{}" + ok, "Content-Type: a\r\n\r\n{}" + ok, "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + ok,
		"Content-Length: 999\r\n\r\n{}", "content-length: 2\n\n[]", "X\r\n" + ok, strings.Repeat("X: 1\r\n", 40) + ok,
		"Content-Length: x\r\n\r\n{\"a\":\"Content-Length: 3\"}" + ok,
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, sequential bool) { fuzzServe(t, in, sequential, rpc.FramingLSP) })
}

// fuzzServe serves in and checks what was written (checkServed).
func fuzzServe(t *testing.T, in []byte, sequential bool, framing codec.Framing) {
	out := &fuzzWriter{}
	// In a synctest bubble: once Serve has returned, synctest.Wait
	// lets whatever still runs write (a late write is flagged), and
	// the bubble ends only when every goroutine of the connection has.
	synctest.Test(t, func(t *testing.T) {
		opts := &rpc.Options{
			Logger:       quiet,
			Framing:      framing,
			MaxFrameSize: fuzzMaxFrameSize,
			MaxBatch:     fuzzMaxBatch,
			MaxDepth:     fuzzMaxDepth,
			Sequential:   sequential,
			Concurrency:  4,
		}
		done := make(chan error, 1)
		go func() { done <- rpc.Serve(context.Background(), bytes.NewReader(in), out, fuzzHandler, opts) }()
		if err := wiretest.Receive(t, done, "Serve to return at the end of the input"); err != nil {
			t.Fatalf("Serve returned %v", err)
		}
		out.returned.Store(true)
		synctest.Wait()
	})
	checkServed(t, in, out.bytes(), framing)
	if n := out.late.Load(); n > 0 {
		t.Fatalf("%d writes after Serve returned", n)
	}
	if out.overlaps.Load() > 0 {
		t.Fatal("concurrent writes to the output")
	}
}

// fuzzWriter records what is written, and flags writes after Serve returned
// and writes that overlap.
type fuzzWriter struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	writing  atomic.Int32
	returned atomic.Bool
	late     atomic.Int32
	overlaps atomic.Int32
}

func (w *fuzzWriter) Write(p []byte) (int, error) {
	if w.returned.Load() {
		w.late.Add(1)
	}
	if w.writing.Add(1) > 1 {
		w.overlaps.Add(1)
	}
	defer w.writing.Add(-1)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *fuzzWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

// served is what the input asks of the server, as the fuzz target reads it
// with codec.Reader and codec.Decoder.
type served struct {
	want       map[string]int // by id token ("null" too): responses due
	mcpCancels map[string]int // notifications/cancelled {"requestId": X}, by X
	lspCancels map[string]int // $/cancelRequest {"id": X}, by X
	notify     map[string]int // requests for "notify", by id ("null" for notifications too)
}

// readInput classifies the input's frames as the connection must.
func readInput(t *testing.T, in []byte, framing codec.Framing) served {
	s := served{want: map[string]int{}, mcpCancels: map[string]int{}, lspCancels: map[string]int{}, notify: map[string]int{}}
	r := codec.NewReader(bytes.NewReader(in), fuzzMaxFrameSize)
	if framing == rpc.FramingLSP {
		r = codec.NewLSPReader(bytes.NewReader(in), fuzzMaxFrameSize)
	}
	d := codec.Decoder{MaxDepth: fuzzMaxDepth, MaxBatch: fuzzMaxBatch}
	for {
		frame, err := r.ReadFrame()
		var tooLarge *codec.FrameTooLargeError
		var badHeader *codec.HeaderError
		switch {
		case err == io.EOF:
			return s
		case errors.As(err, &tooLarge), errors.As(err, &badHeader):
			s.want["null"]++
			continue
		case err != nil:
			t.Fatalf("reading the input: %v", err)
		}
		msgs, _ := d.Decode(frame)
		for _, m := range msgs {
			id := "null"
			if m.ID != nil {
				id = string(m.ID)
			}
			switch m.Kind {
			case codec.Invalid, codec.Request:
				s.want[id]++
			case codec.Notification:
				switch string(m.Method) {
				case rpc.CancelledNotification:
					if x := jsonx.Member(m.Params, "requestId"); jsonx.IsID(x) {
						s.mcpCancels[string(x)]++
					}
				case rpc.CancelRequest:
					if x := jsonx.Member(m.Params, "id"); jsonx.IsID(x) {
						s.lspCancels[string(x)]++
					}
				}
			}
			if (m.Kind == codec.Request || m.Kind == codec.Notification) && string(m.Method) == "notify" {
				s.notify[id]++
			}
		}
	}
}

// checkServed checks the output against the input: every line one valid
// response (or batch of responses) or notification; one response per
// request or invalid message, by id; notes only for calls of "notify", each
// before a response to its call. With LSP framing, the output's messages
// must read back without a fault, and are checked as lines.
func checkServed(t *testing.T, in, out []byte, framing codec.Framing) {
	s := readInput(t, in, framing)
	if framing == rpc.FramingLSP {
		out = lspToLines(t, out)
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a newline: %q", out)
	}
	got := map[string]int{}       // responses by id
	cancelled := map[string]int{} // -32800 responses by id
	notes := map[string]int{}     // notes by the id they are for
	var awaiting []string         // ids of notes not yet followed by a response
	d := codec.Decoder{MaxDepth: 1 << 20, MaxBatch: 1 << 20}
	for line := range bytes.Lines(out) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if !jsonref.Valid(line) {
			t.Fatalf("output line is not valid JSON: %q\ninput: %q", line, in)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, line); err != nil || !bytes.Equal(compact.Bytes(), line) {
			t.Fatalf("output line is not compact JSON: %q", line)
		}
		msgs, batch := d.Decode(line)
		for _, m := range msgs {
			switch {
			case m.Kind == codec.Notification && !batch:
				if string(m.Method) != "note" {
					t.Fatalf("notification %q: the handler sends only notes", line)
				}
				var p struct{ For json.RawMessage }
				if err := json.Unmarshal(m.Params, &p); err != nil {
					t.Fatalf("note %q: %v", line, err)
				}
				notes[string(p.For)]++
				awaiting = append(awaiting, string(p.For))
			case m.Kind == codec.Response && m.Err == nil:
				id := string(m.ID)
				got[id]++
				if m.Error != nil {
					var e codec.Error
					if err := json.Unmarshal(m.Error, &e); err != nil {
						t.Fatalf("error object of %q: %v", line, err)
					}
					if e.Code == codec.RequestCancelled {
						cancelled[id]++
					}
				}
				for i := 0; i < len(awaiting); i++ {
					if awaiting[i] == id {
						awaiting = append(awaiting[:i], awaiting[i+1:]...)
						i--
					}
				}
			default:
				t.Fatalf("output line is not a response or a notification: %q (%s)\ninput: %q", line, describeKind(m), in)
			}
		}
	}
	for id, n := range s.want {
		// A call the peer cancelled the MCP way may get no answer.
		if g := got[id]; g > n || g < n-s.mcpCancels[id] {
			t.Fatalf("id %s: %d responses for %d requests (%d cancelled by notifications/cancelled)\ninput: %q\noutput: %q",
				id, g, n, s.mcpCancels[id], in, out)
		}
	}
	for id, g := range got {
		if s.want[id] == 0 {
			t.Fatalf("id %s: %d responses, but no such request\ninput: %q\noutput: %q", id, g, in, out)
		}
	}
	for id, n := range cancelled {
		if n > s.lspCancels[id] {
			t.Fatalf("id %s: %d responses -32800, for %d $/cancelRequest\ninput: %q\noutput: %q", id, n, s.lspCancels[id], in, out)
		}
	}
	for id, n := range notes {
		if n > s.notify[id] {
			t.Fatalf("%d notes for id %s, for %d calls of notify\ninput: %q\noutput: %q", n, id, s.notify[id], in, out)
		}
	}
	for _, id := range awaiting {
		// A note is written before its call's response. Notifications (and
		// calls cancelled the MCP way) get none.
		if id != "null" && s.mcpCancels[id] == 0 {
			t.Fatalf("a note for id %s with no response after it\ninput: %q\noutput: %q", id, in, out)
		}
	}
}

// lspToLines reads LSP messages back as lines, failing t at a fault.
func lspToLines(t *testing.T, out []byte) []byte {
	r := codec.NewLSPReader(bytes.NewReader(out), 0)
	var lines []byte
	for {
		frame, err := r.ReadFrame()
		if err == io.EOF {
			return lines
		}
		if err != nil || bytes.IndexByte(frame, '\n') >= 0 {
			t.Fatalf("output is not well framed: %v\noutput: %q", err, out)
		}
		lines = append(append(lines, frame...), '\n')
	}
}

func describeKind(m codec.Message) string {
	if m.Err != nil {
		return fmt.Sprintf("%v: %s", m.Kind, m.Err.Message)
	}
	return m.Kind.String()
}
