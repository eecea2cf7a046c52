package rpc_test

import (
	"context"
	"testing"

	"github.com/toolrpc/toolrpc/internal/wiretest"
)

// BenchmarkClient is our client calling our server over io.Pipe: one call
// at a time, and 16 goroutines calling at once.
func BenchmarkClient(b *testing.B) {
	b.Run("sequential", func(b *testing.B) {
		p := wiretest.NewPair(newArith(), nil, nil, nil)
		ctx := context.Background()
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
