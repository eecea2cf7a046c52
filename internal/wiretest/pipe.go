package wiretest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"testing"

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

// Close ends the input, drains the output, and waits for the connection.
func (p *Pipe) Close(tb testing.TB) {
	_ = p.in.Close()
	go func() { _, _ = io.Copy(io.Discard, p.r) }()
	if err := p.Conn.Wait(); err != nil {
		tb.Error(err)
	}
	_ = p.out.Close()
}
