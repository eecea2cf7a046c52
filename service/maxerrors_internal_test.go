package service

import (
	"testing"

	"github.com/toolrpc/toolrpc/internal/bind"
)

// TestMaxFieldErrors: decoding reports as many problems as an answer lists.
func TestMaxFieldErrors(t *testing.T) {
	if bind.MaxErrors != MaxFieldErrors {
		t.Fatalf("bind.MaxErrors %d, MaxFieldErrors %d", bind.MaxErrors, MaxFieldErrors)
	}
}
