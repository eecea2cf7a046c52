package toolrpc_test

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc"
	"github.com/toolrpc/toolrpc/middleware"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// Shelf is a tool that keeps a list of books.
type Shelf struct {
	mu    sync.Mutex
	books []string
}

// AddBook adds a book and returns how many there are.
func (s *Shelf) AddBook(title string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.books = append(s.books, title)
	return len(s.books)
}

// ListBooks returns the books.
func (s *Shelf) ListBooks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.books
}

// A Server configures the front door: here a namespace, snake_case names,
// a logger, the connection's concurrency and a time limit for every call.
// Its Main would serve the shelf on standard input and output; its Handler
// serves it anywhere, here on a few lines in memory, as a test would.
func ExampleServer() {
	server := &toolrpc.Server{
		Namespace:  "shelf",
		Logger:     slog.New(slog.NewTextHandler(os.Stderr, nil)),
		Service:    service.Options{Names: service.SnakeCase},
		RPC:        rpc.Options{Concurrency: 8},
		Middleware: []middleware.Middleware{middleware.Timeout(10 * time.Second)},
	}
	// In a tool server: server.Main(&Shelf{})
	h, err := server.Handler(&Shelf{})
	if err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"shelf.add_book","params":["Middlemarch"],"id":1}
{"jsonrpc":"2.0","method":"shelf.list_books","id":2}
{"jsonrpc":"2.0","method":"shelf.remove_book","params":["Middlemarch"],"id":3}
`)
	err = rpc.Serve(context.Background(), in, os.Stdout, h, &rpc.Options{Sequential: true, Logger: server.Logger})
	if err != nil {
		panic(err)
	}
	// Output:
	// {"jsonrpc":"2.0","result":1,"id":1}
	// {"jsonrpc":"2.0","result":["Middlemarch"],"id":2}
	// {"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}
}
