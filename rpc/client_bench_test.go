package rpc_test

import (
	"bufio"
	"context"
	"io"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// BenchmarkClient is our client calling our server over io.Pipe: one call
// at a time (with a context that cannot end, and one that can), and 16
// goroutines calling at once.
func BenchmarkClient(b *testing.B) {
	// A context that can end hands the request to the writer: the call
	// never writes in its own goroutine.
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, run := range []struct {
		name string
		ctx  context.Context
	}{{"sequential", context.Background()}, {"sequential-cancellable", cancellable}} {
		ctx := run.ctx
		b.Run(run.name, func(b *testing.B) {
			p := wiretest.NewPair(newArith(), nil, nil, nil)
			params := []int{40, 2}
			b.ReportAllocs()
			for b.Loop() {
				var sum int
				if err := p.Client.Call(ctx, "add", params, &sum); err != nil || sum != 42 {
					b.Fatal(sum, err)
				}
			}
			b.StopTimer()
			p.Close(b)
		})
	}
	b.Run("concurrent-16", func(b *testing.B) {
		p := wiretest.NewPair(newArith(), nil, nil, nil)
		ctx := context.Background()
		b.SetParallelism(8) // 8 x GOMAXPROCS(2) = 16 goroutines
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			params := []int{40, 2}
			for pb.Next() {
				var sum int
				if err := p.Client.Call(ctx, "add", params, &sum); err != nil || sum != 42 {
					b.Error(sum, err)
					return
				}
			}
		})
		b.StopTimer()
		p.Close(b)
	})
}

// BenchmarkErrorWithIDNull is an error response with id null read while
// 4,000 calls of ours await their responses: it can be about none of them
// (no batch under way, and more than one call), so it is dropped. What it
// costs must not grow with the calls awaiting.
func BenchmarkErrorWithIDNull(b *testing.B) {
	const awaiting = 4000
	cr, tw := io.Pipe() // the benchmark writes to the client
	tr, cw := io.Pipe() // the client writes to the benchmark
	c := rpc.NewConn(context.Background(), cr, cw, nil, &rpc.Options{Logger: wiretest.Quiet(), MaxPendingCalls: awaiting})
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, awaiting)
	for range awaiting {
		go func() { errs <- c.Call(ctx, "m", nil, nil) }()
	}
	fromClient := bufio.NewReader(tr)
	for range awaiting { // every call is under way once its line is out
		if _, err := fromClient.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	line := []byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}` + "\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tw.Write(line); err != nil {
			b.Fatal(err)
		}
	}
	// Every line was read; the answer to call 1, read after them, says
	// they were handled.
	if _, err := io.WriteString(tw, `{"jsonrpc":"2.0","result":1,"id":1}`+"\n"); err != nil {
		b.Fatal(err)
	}
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	go func() { _, _ = io.Copy(io.Discard, fromClient) }()
	cancel()
	for range awaiting - 1 {
		<-errs
	}
	_ = tw.Close()
	if err := c.Wait(); err != nil {
		b.Fatal(err)
	}
	_ = cw.Close()
}
