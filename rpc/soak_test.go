package rpc_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/toolrpc/toolrpc/codec"
	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// The soak: how many calls, how often to sample, from how many goroutines,
// and how much growth between the first and the last sample fails it.
const (
	soakCalls          = 1_000_000
	soakSampleEvery    = 100_000
	soakCallers        = 8
	soakMaxGoroutines  = 4       // more goroutines than at the first sample
	soakMaxHeapGrowth  = 4 << 20 // bytes of live heap more than at the first sample
	soakCancelEvery    = 1000    // one call in so many is cancelled by its caller
	soakFailEvery      = 10      // one call in so many is answered with an error
	soakNotifyEvery    = 100     // one call in so many is preceded by a notification
	soakCancelDeadline = time.Millisecond
)

// soakHandler echoes, fails, or waits for its context to end.
var soakHandler = rpc.HandlerFunc(func(ctx context.Context, req *rpc.Request) (any, error) {
	switch req.Method {
	case "echo":
		return req.Params, nil
	case "fail":
		return nil, rpc.NewError(-1, "soak failure")
	case "wait":
		<-ctx.Done()
		return nil, ctx.Err()
	case "note":
		return nil, nil
	}
	return nil, rpc.NewError(codec.MethodNotFound, "")
})

type soakSample struct {
	calls      int
	goroutines int
	heapAlloc  uint64 // live heap after a GC
	heapInuse  uint64
}

func takeSoakSample(calls int) soakSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return soakSample{calls: calls, goroutines: runtime.NumGoroutine(), heapAlloc: ms.HeapAlloc, heapInuse: ms.HeapInuse}
}

// soakCall makes call number i from the client, and checks its outcome.
func soakCall(b *testing.B, client *rpc.Conn, i int) {
	ctx := context.Background()
	switch {
	case i%soakCancelEvery == soakCancelEvery-1:
		// The caller gives up: the server is told ($/cancelRequest), the
		// late response dropped.
		ctx, cancel := context.WithTimeout(ctx, soakCancelDeadline)
		defer cancel()
		if err := client.Call(ctx, "wait", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
			b.Errorf("call %d (cancelled): %v", i, err)
		}
	case i%soakFailEvery == 0:
		var e *codec.Error
		if err := client.Call(ctx, "fail", []int{i}, nil); !errors.As(err, &e) || e.Code != -1 {
			b.Errorf("call %d (failing): %v", i, err)
		}
	default:
		if i%soakNotifyEvery == 1 {
			if err := client.Notify(ctx, "note", []int{i}); err != nil {
				b.Errorf("notification %d: %v", i, err)
			}
		}
		var got []int
		if err := client.Call(ctx, "echo", []int{i}, &got); err != nil || len(got) != 1 || got[0] != i {
			b.Errorf("call %d: %v, %v", i, got, err)
		}
	}
}

// BenchmarkSoak makes 1,000,000 calls through a client and a server
// connected over io.Pipe, from several goroutines, and samples the goroutine
// count and the live heap every 100,000 calls: both must stay flat.
//
//	go test -run XXX -bench Soak -benchtime 1x ./rpc
func BenchmarkSoak(b *testing.B) {
	for b.Loop() {
		soak(b)
	}
}

func soak(b *testing.B) {
	pair := wiretest.NewPair(soakHandler, nil, nil, nil)
	var samples []soakSample
	start := time.Now()
	for done := 0; done < soakCalls; done += soakSampleEvery {
		var wg sync.WaitGroup
		for g := range soakCallers {
			wg.Go(func() {
				for i := done + g; i < done+soakSampleEvery; i += soakCallers {
					soakCall(b, pair.Client, i)
				}
			})
		}
		wg.Wait()
		samples = append(samples, takeSoakSample(done+soakSampleEvery))
	}
	elapsed := time.Since(start)
	pair.Close(b)

	first, last := samples[0], samples[len(samples)-1]
	maxGoroutines := 0
	for _, s := range samples {
		b.Logf("after %7d calls: %3d goroutines, live heap %8d bytes (in use %8d)",
			s.calls, s.goroutines, s.heapAlloc, s.heapInuse)
		maxGoroutines = max(maxGoroutines, s.goroutines)
	}
	growth := int64(last.heapAlloc) - int64(first.heapAlloc)
	b.Logf("%d calls in %v (%.0f calls/s)", soakCalls, elapsed.Round(time.Millisecond), soakCalls/elapsed.Seconds())
	b.ReportMetric(float64(maxGoroutines), "goroutines-max")
	b.ReportMetric(float64(growth), "heap-growth-bytes")
	if d := last.goroutines - first.goroutines; d > soakMaxGoroutines {
		b.Errorf("goroutines grew by %d, from %d to %d", d, first.goroutines, last.goroutines)
	}
	if growth > soakMaxHeapGrowth {
		b.Errorf("live heap grew by %d bytes, from %d to %d", growth, first.heapAlloc, last.heapAlloc)
	}
}
