package toolrpc_test

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them, and
// removes the calculator binary built for them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if calculator.path != "" {
			_ = os.RemoveAll(filepath.Dir(calculator.path))
		}
		os.Exit(code)
	}))
}
