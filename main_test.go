package toolrpc_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them, and
// removes the programs built for them. Run with TOOLRPC_TEST_SERVER set to
// the name of one of servers, the test binary is instead that tool server.
func TestMain(m *testing.M) {
	if name := os.Getenv(serverEnv); name != "" {
		servers[name]()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if built.dir != "" {
			_ = os.RemoveAll(built.dir)
		}
		os.Exit(code)
	}))
}
