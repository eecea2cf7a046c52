package redisstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/redisstore"
)

// Each instance of a server relays on a Bus over its own client, to the
// Redis (single, Sentinel or Cluster) they share; redisAddr is where it
// listens, such as "127.0.0.1:6379".
func ExampleNewBus() {
	client := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{redisAddr}})
	defer client.Close()
	bus, err := redisstore.NewBus(client, nil) // channel "toolrpc:mcp:events"
	if err != nil {
		log.Fatal(err)
	}
	s := mcp.New(&mcp.Options{Name: "kit", Version: "1.0.0"})
	ctx, cancel := context.WithCancel(context.Background())
	relayed := make(chan error, 1)
	go func() { relayed <- s.Relay(ctx, bus, nil) }()

	// Serve s; what it is told (s.ResourceUpdated, s.Register, ...) now
	// reaches the clients of every instance. An event, by hand:
	err = bus.Publish(ctx, mcp.Event{Origin: "example", Kind: mcp.EventTools})
	fmt.Println("published:", err)

	cancel()
	fmt.Println("relay:", <-relayed)
	// Output:
	// published: <nil>
	// relay: context canceled
}
