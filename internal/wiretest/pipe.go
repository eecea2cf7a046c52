package wiretest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/rpc"
)

// Pipe is a connection served over two io.Pipes, driven from the other
// end: requests are written as lines, responses read as lines. It is what
// benchmarks measure a connection with; it allocates nothing per call.
type Pipe struct {
	Conn *rpc.Conn
	in   *io.PipeWriter
	out  *io.PipeReader
	r    *bufio.Reader
}

// NewPipe serves h over a pair of pipes. opts nil means quiet logs and the
// other defaults.
func NewPipe(h rpc.Handler, opts *rpc.Options) *Pipe {
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	return &Pipe{
		Conn: rpc.NewConn(context.Background(), sr, sw, h, options(opts, false)),
		in:   cw,
		out:  cr,
		r:    bufio.NewReaderSize(cr, 64<<10),
	}
}

// Write sends line, which must end with a newline.
func (p *Pipe) Write(line []byte) error {
	_, err := p.in.Write(line)
	return err
}

// ReadLine reads the next line written by the connection, newline
// included. It is valid until the next read.
func (p *Pipe) ReadLine() ([]byte, error) { return p.r.ReadSlice('\n') }

// RoundTrip writes a request line and reads a line back, failing tb if it
// is not want.
func (p *Pipe) RoundTrip(tb testing.TB, req, want []byte) {
	if err := p.Write(req); err != nil {
		tb.Fatal(err)
	}
	line, err := p.ReadLine()
	if err != nil || !bytes.Equal(line, want) {
		tb.Fatalf("got %q, %v; want %q", line, err, want)
	}
}

// BenchRoundTrip measures one call at a time through a Pipe serving h with
// the defaults: req (a line without its newline) written, the line read
// back, which must be want.
func BenchRoundTrip(b *testing.B, h rpc.Handler, req, want string) {
	p := NewPipe(h, nil)
	reqLine, wantLine := []byte(req+"\n"), []byte(want+"\n")
	b.ReportAllocs()
	for b.Loop() {
		p.RoundTrip(b, reqLine, wantLine)
	}
	b.StopTimer()
	p.Close(b)
}

// Close ends the input, drains the output, and waits for the connection.
func (p *Pipe) Close(tb testing.TB) {
	_ = p.in.Close()
	go func() { _, _ = io.Copy(io.Discard, p.r) }()
	if err := p.Conn.Wait(); err != nil {
		tb.Error(err)
	}
	_ = p.out.Close()
}

// Pair connects two connections back to back over io.Pipes: a client and
// a server, each with its handler (nil: none) and options (nil: quiet logs
// and the other defaults).
type Pair struct {
	Client, Server *rpc.Conn
	toServer       *io.PipeWriter // the client's output
	toClient       *io.PipeWriter // the server's output
}

// NewPair starts a client and a server connected to each other.
func NewPair(serverH rpc.Handler, serverOpts *rpc.Options, clientH rpc.Handler, clientOpts *rpc.Options) *Pair {
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	return &Pair{
		Server:   rpc.NewConn(context.Background(), sr, sw, serverH, options(serverOpts, false)),
		Client:   rpc.NewConn(context.Background(), cr, cw, clientH, options(clientOpts, false)),
		toServer: cw,
		toClient: sw,
	}
}

// KillServer cuts both directions at once, as when a server process dies.
func (p *Pair) KillServer() {
	_ = p.toClient.Close()
	_ = p.toServer.CloseWithError(io.ErrClosedPipe)
}

// Close ends a session as a client and server would: the client's output
// ends, the server answers what it read and finishes, its output ends, and
// the client finishes. Both must finish cleanly.
func (p *Pair) Close(tb testing.TB) {
	_ = p.toServer.Close()
	if err := p.Server.Wait(); err != nil {
		tb.Error("server:", err)
	}
	_ = p.toClient.Close()
	if err := p.Client.Wait(); err != nil {
		tb.Error("client:", err)
	}
}

// Fill returns a string that fills a codec.Writer's room for lines waiting
// (codec.DefaultMaxPending): a line holding it, queued behind a blocked
// write, makes the next line wait. Stalled.Drain shows it as "<4 MiB>".
// It is made once, when first asked for.
var Fill = sync.OnceValue(func() string { return strings.Repeat("x", codec.DefaultMaxPending) })

// Stalled is a connection served (rpc.Serve) over io.Pipes by a peer that
// reads nothing of its output until Drain: until then every write to it
// blocks, as against a peer that never reads. It is used inside a
// synctest bubble (synctest.Test), whose clock its connection keeps.
type Stalled struct {
	in     *io.PipeWriter // the connection's input
	out    *io.PipeReader // its output, unread until Drain
	outW   *io.PipeWriter
	served chan error
}

// NewStalled serves h until ctx is done or the input ends. opts nil means
// quiet logs and the other defaults.
func NewStalled(ctx context.Context, h rpc.Handler, opts *rpc.Options) *Stalled {
	sr, in := io.Pipe()
	out, sw := io.Pipe()
	s := &Stalled{in: in, out: out, outW: sw, served: make(chan error, 1)}
	go func() { s.served <- rpc.Serve(ctx, sr, sw, h, options(opts, false)) }()
	return s
}

// Send writes line and a newline to the connection's input.
func (s *Stalled) Send(t testing.TB, line string) {
	t.Helper()
	Send(t, s.in, line)
}

// Drain reads the connection's output at last, ends its input, and returns
// the lines it wrote (without their newlines, however long, Fill shown as
// "<4 MiB>") and what Serve returned.
func (s *Stalled) Drain(t testing.TB) (lines []string, served error) {
	t.Helper()
	read := make(chan []string, 1)
	go func() {
		var lines []string
		r := bufio.NewReader(s.out)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				read <- lines
				return
			}
			lines = append(lines, strings.ReplaceAll(strings.TrimSuffix(line, "\n"), Fill(), "<4 MiB>"))
		}
	}()
	_ = s.in.Close()
	served = Receive(t, s.served, "Serve to return")
	// A write a shutdown gave up on may still be under way: it ends once
	// read, before the output does.
	synctest.Wait()
	_ = s.outW.Close()
	return Receive(t, read, "the end of the output"), served
}
