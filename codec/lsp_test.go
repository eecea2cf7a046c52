package codec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wire"
)

// lspHeader is the header block of a message of n bytes, as a Writer of
// LSP framing writes it.
func lspHeader(n int) string { return "Content-Length: " + strconv.Itoa(n) + "\r\n\r\n" }

// lspMsg is body with its LSP header.
func lspMsg(body string) string { return lspHeader(len(body)) + body }

// maxWrite is the most bytes a Writer hands the underlying writer in one
// Write (see package wire).
const maxWrite = 32 << 10

func TestLSPReaderFrames(t *testing.T) {
	long := strings.Repeat("x", 100000)
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty input", "", 0, []string{"EOF"}},
		{"one message", "Content-Length: 2\r\n\r\n{}", 0, []string{"{}", "EOF"}},
		{"two, no newline between", lspMsg(`{"a":1}`) + lspMsg("[1]"), 0, []string{`{"a":1}`, "[1]", "EOF"}},
		{"content type ignored", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}", 0, []string{"{}", "EOF"}},
		{"unknown headers ignored", "X-Thing: 1\r\nContent-Length: 2\r\nY: \r\n\r\n{}", 0, []string{"{}", "EOF"}},
		{"name in any case, spaces around the value", "content-LENGTH:\t 2 \r\n\r\n{}", 0, []string{"{}", "EOF"}},
		{"bare newlines", "Content-Length: 2\n\n{}", 0, []string{"{}", "EOF"}},
		{"empty lines before a block", "\r\n\r\n\nContent-Length: 2\r\n\r\n{}\r\n", 0, []string{"{}", "EOF"}},
		{"a body holds newlines", "Content-Length: 5\r\n\r\n{\n}\r\n", 0, []string{"{\n}\r\n", "EOF"}},
		{"same length twice", "Content-Length: 2\r\nContent-Length: 02\r\n\r\n{}", 0, []string{"{}", "EOF"}},
		{"empty body", "Content-Length: 0\r\n\r\n" + lspMsg("{}"), 0, []string{"", "{}", "EOF"}},
		{"at the limit", lspMsg("12345"), 5, []string{"12345", "EOF"}},
		{"over the limit", lspMsg("123456") + lspMsg("{}"), 5, []string{"TOO LARGE", "{}", "EOF"}},
		{"far over the limit", lspMsg(long) + lspMsg("{}"), 5, []string{"TOO LARGE", "{}", "EOF"}},
		{"over the limit, cut short", "Content-Length: 100\r\n\r\n123456", 5, []string{"TOO LARGE", "EOF"}},
		{"a length no int holds", "Content-Length: 99999999999999999999999999\r\n\r\n{}", 0, []string{"TOO LARGE", "EOF"}},

		{"no length", "Content-Type: x\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: no Content-Length header", "[1]", "EOF"}},
		{"not a number", "Content-Length: two\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"negative", "Content-Length: -2\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"signed", "Content-Length: +2\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"fraction", "Content-Length: 2.0\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"empty value", "Content-Length:\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"two lengths that differ", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: Content-Length given twice with different values", "[1]", "EOF"}},
		{"a bad length then a good one", "Content-Length: x\r\nContent-Length: 2\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"not a header", "hello\r\n" + lspMsg("[1]"), 0, []string{"BAD: a header line is not a header field (name: value)", "[1]", "EOF"}},
		{"a name that is not a token", `{"jsonrpc":"2.0"}` + "\n" + lspMsg("[1]"), 0, []string{"BAD: a header line is not a header field (name: value)", "[1]", "EOF"}},
		{"newline framing", `{"jsonrpc":"2.0","method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"b"}` + "\n", 0, []string{"BAD: a header line is not a header field (name: value)", "EOF"}},
		{"header line too long", "X: " + strings.Repeat("y", MaxHeaderLine) + "\r\n" + lspMsg("[1]"), 0, []string{"BAD: a header line longer than 1024 bytes", "[1]", "EOF"}},
		{"a line at the header limit", "X: " + strings.Repeat("y", MaxHeaderLine-3) + "\r\n" + lspMsg("[1]"), 0, []string{"[1]", "EOF"}},
		{"a length too long", "Content-Length: " + strings.Repeat("1", 2000) + "\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: a header line longer than 1024 bytes", "[1]", "EOF"}},
		{"no line end at all", strings.Repeat("z", 5000), 0, []string{"BAD: a header line longer than 1024 bytes", "EOF"}},
		{"too many headers", strings.Repeat("X: 1\r\n", MaxHeaders) + "Content-Length: 2\r\n\r\n{}" + lspMsg("[1]"), 0, []string{"BAD: more than 32 header lines", "[1]", "EOF"}},
		{"as many headers as allowed", strings.Repeat("X: 1\r\n", MaxHeaders-1) + "Content-Length: 2\r\n\r\n{}", 0, []string{"{}", "EOF"}},
		{"a false start in a string", "Content-Length: x\r\n\r\n" + `{"a":"Content-Length: 3"}` + lspMsg("[1]"), 0, []string{"BAD: Content-Length is not a decimal number of bytes", "BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"resync finds any case", "Content-Length: x\r\n\r\n{}content-length: 3\r\n\r\n[1]", 0, []string{"BAD: Content-Length is not a decimal number of bytes", "[1]", "EOF"}},
		{"nothing to resync to", "Content-Length: x\r\n\r\n{}{}{}", 0, []string{"BAD: Content-Length is not a decimal number of bytes", "EOF"}},

		{"end inside a header", "Content-Length: 2\r\n", 0, []string{"BAD: input ended inside a header block", "EOF"}},
		{"end inside a header line", "Content-Len", 0, []string{"BAD: input ended inside a header block", "EOF"}},
		{"end inside a body", "Content-Length: 10\r\n\r\n{}", 0, []string{"BAD: input ended inside a message body", "EOF"}},
		{"end after a body", lspMsg("{}") + "\r\n", 0, []string{"{}", "EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, readAll(NewLSPReader(strings.NewReader(tt.in), tt.max)))
			// The same a byte at a time: nothing depends on where reads end.
			assert.Equal(t, tt.want, readAll(NewLSPReader(iotest.OneByteReader(strings.NewReader(tt.in)), tt.max)))
		})
	}
}

func TestLSPReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := NewLSPReader(io.MultiReader(strings.NewReader(lspMsg("{}")+"Content-Length: 5\r\n\r\n{"), iotest.ErrReader(boom)), 0)
	assert.Equal(t, []string{"{}", "error: boom"}, readAll(r))
}

// A body over the limit is skipped as it is read, never held.
func TestLSPReaderSkipsWithoutHoldingTheBody(t *testing.T) {
	const limit = 1 << 20
	const size = 256 << 20
	body := &endless{n: size}
	r := NewLSPReader(io.MultiReader(strings.NewReader(lspHeader(size)), body, strings.NewReader(lspMsg("{}"))), limit)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	assert.Equal(t, []string{"TOO LARGE", "{}", "EOF"}, readAll(r))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*limit),
		"skipping 256 MiB allocated more than a few buffers of the limit")
}

// Resynchronising holds no more than a buffer, however far it skips.
func TestLSPReaderResyncsWithoutHolding(t *testing.T) {
	body := &endless{n: 64 << 20}
	r := NewLSPReader(io.MultiReader(strings.NewReader("Content-Length: x\r\n\r\n"), body, strings.NewReader(lspMsg("{}"))), 0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	assert.Equal(t, []string{"BAD: Content-Length is not a decimal number of bytes", "{}", "EOF"}, readAll(r))
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
}

func TestLSPReaderAllocatesNothingPerFrame(t *testing.T) {
	in := strings.Repeat(lspMsg(`{"jsonrpc":"2.0","method":"a"}`), 200)
	r := NewLSPReader(strings.NewReader(in), 0)
	_, err := r.ReadFrame()
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() { _, _ = r.ReadFrame() })
	assert.Zero(t, allocs)
}

// A message withdrawn goes with its header: what is written still parses.
func TestLSPWriterWithdraw(t *testing.T) {
	g := newGatedWriter()
	w := wire.NewLSPWriter(g)
	ctx := context.Background()
	_, err := w.Enqueue(ctx, []byte(`1`))
	require.NoError(t, err)
	<-g.entered
	second, err := w.Enqueue(ctx, []byte(`22`))
	require.NoError(t, err)
	_, err = w.Enqueue(ctx, []byte(`333`))
	require.NoError(t, err)
	assert.True(t, w.Withdraw(second))
	close(g.gate)
	require.NoError(t, w.Flush(ctx))
	assert.Equal(t, lspMsg("1")+lspMsg("333"), g.String())
	assert.Equal(t, []string{"1", "333", "EOF"}, readAll(NewLSPReader(strings.NewReader(g.String()), 0)))
}

// What an LSP Writer writes, an LSP Reader reads back, whatever the lines.
func TestLSPRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var lines []string
	var out bytes.Buffer
	w := NewLSPWriter(&out)
	for range 300 {
		line := strings.Repeat(`"Content-Length: 9\r\n\r\n"`, rng.IntN(4)) + strings.Repeat("z", rng.IntN(3*maxWrite))
		lines = append(lines, line)
		require.NoError(t, w.WriteLine([]byte(line)))
	}
	got := readAll(NewLSPReader(&out, 0))
	assert.Equal(t, append(lines, "EOF"), got)
}

// FuzzLSPReader reads any input: no panic, no frame over the limit, every
// frame is a body some header announced, and whatever comes after a
// message that is well formed is read as it was written.
func FuzzLSPReader(f *testing.F) {
	for _, s := range []string{
		lspMsg("{}"), "Content-Length: x\r\n\r\n{}" + lspMsg("[1]"), "content-length: 3\n\n[1]",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "X: 1\r\n\r\n", "\r\n\r\n", "Content-Length: 100\r\n\r\n{}",
		"Content-Length: 99999999999999999999999\r\n\r\n", strings.Repeat("X: 1\r\n", 40),
	} {
		f.Add([]byte(s), uint8(16))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		limit := int(max) + 1
		const tail = `{"tail":true}`
		// A clean message after anything: found again unless the
		// input left a body or a resync open that swallows it.
		r := NewLSPReader(io.MultiReader(bytes.NewReader(in), strings.NewReader(lspMsg(tail))), max32(limit))
		n := 0
		for ; n < 10000; n++ {
			frame, err := r.ReadFrameOwned()
			if err == io.EOF {
				break
			}
			var tooLarge *FrameTooLargeError
			var bad *HeaderError
			switch {
			case err == nil:
				if len(frame) > max32(limit) {
					t.Fatalf("a frame of %d bytes over the limit of %d", len(frame), limit)
				}
			case errors.As(err, &tooLarge), errors.As(err, &bad):
			default:
				t.Fatalf("unexpected error %v", err)
			}
		}
		if n == 10000 {
			t.Fatal("no end")
		}
		// A well-formed stream reads back whole.
		var out bytes.Buffer
		w := NewLSPWriter(&out)
		body := bytes.ReplaceAll(in, []byte{'\n'}, nil)
		require.NoError(t, w.WriteLine(body))
		require.NoError(t, w.WriteLine([]byte(tail)))
		want := []string{string(body), tail, "EOF"}
		if len(body) > 4096 {
			want[0] = "TOO LARGE"
		}
		require.Equal(t, want, readAll(NewLSPReader(&out, 4096)))
	})
}

// max32 keeps a fuzzed limit above the length of the tail message.
func max32(n int) int { return max(n, 32) }

// A header announcing a large body does not make the reader allocate it:
// the buffer grows as the body arrives.
func TestLSPReaderHoldsWhatArrives(t *testing.T) {
	in := "Content-Length: 60000000\r\n\r\n" + strings.Repeat("x", 40000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewLSPReader(strings.NewReader(in), 0)
	_, err := r.ReadFrame()
	runtime.ReadMemStats(&after)
	require.Error(t, err, "the body ends early")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "allocated for 40 KB received")
}

// A message over the limit is reported as soon as its header is read, not
// once its body has come (it may never); the body is skipped after, and
// the next message read.
func TestLSPReaderReportsTooLargeAtOnce(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	r := NewLSPReader(pr, 16)
	go func() { _, _ = io.WriteString(pw, "Content-Length: 1000000\r\n\r\n") }()
	_, err := r.ReadFrame()
	var tooLarge *FrameTooLargeError
	require.ErrorAs(t, err, &tooLarge, "reported before any of the body")
	go func() {
		_, _ = io.WriteString(pw, strings.Repeat("x", 1000000)+"Content-Length: 2\r\n\r\n{}")
		pw.Close()
	}()
	frame, err := r.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "{}", string(frame))
}

// gatedWriter blocks each Write until its gate lets it through; entered
// receives a value as each Write begins.
type gatedWriter struct {
	gate    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	out     bytes.Buffer
}

func newGatedWriter() *gatedWriter {
	return &gatedWriter{gate: make(chan struct{}), entered: make(chan struct{}, 100)}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.Write(p)
}

func (g *gatedWriter) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.String()
}
