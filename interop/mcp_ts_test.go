package interop

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
)

// nodeClient returns node and the built example (a package of
// examples/) for a Node.js client whose npm packages are installed in dir:
// module, a path under dir/node_modules, says they are. Without node, or
// before npm ci, the test is skipped, except in CI (CI set, as .ci/run
// sets nothing up to skip), where that fails it; -short skips it too.
func nodeClient(t *testing.T, dir, module, example string) (node, bin string) {
	t.Helper()
	missing := t.Skip
	if os.Getenv("CI") != "" {
		missing = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", module)); err != nil {
		missing("run npm ci in interop/" + dir + " first")
	}
	return node, buildExample(t, example)
}

// buildExample builds the example (a package of examples/) into the
// test's temporary directory and returns its path; -short skips the test.
func buildExample(t *testing.T, example string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), example)
	out, err := exec.Command("go", "build", "-o", bin, "github.com/toolrpc/toolrpc/examples/"+example).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// typeScriptSDK is nodeClient for the official MCP TypeScript SDK (ts/)
// and examples/mcp.
func typeScriptSDK(t *testing.T) (node, bin string) {
	t.Helper()
	return nodeClient(t, "ts", "@modelcontextprotocol/sdk", "mcp")
}

// The official MCP TypeScript SDK's client runs ts/client.mjs against the
// built examples/mcp over stdio: see the script for what it checks.
func TestTypeScriptSDKClient(t *testing.T) {
	node, bin := typeScriptSDK(t)
	out, err := exec.CommandContext(testContext(t), node, "ts/client.mjs", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
}

// The official MCP TypeScript SDK's Streamable HTTP client runs
// ts/http_client.mjs against the built examples/mcp -http: a session
// (initialize, its id), the tools' schemas, calls, progress on the call's
// event stream, a cancellation, a validation failure seen as isError, and
// the session's end (DELETE); see the script. The SDK has no stateless
// (2026-07-28) mode: TestGoSDKStreamableHTTP covers that one. The server
// exits 0 at SIGTERM afterwards.
func TestTypeScriptSDKStreamableHTTP(t *testing.T) {
	node, bin := typeScriptSDK(t)
	url, stop := serveHTTP(t, bin)
	out, err := exec.CommandContext(testContext(t), node, "ts/http_client.mjs", url).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
	stop()
}

// progressRuns is how many calls of count TestTypeScriptSDKProgressStdio
// and TestTypeScriptSDKProgressStreamableHTTP make.
const progressRuns = "100"

// The official MCP TypeScript SDK's client calls count (n: 3, with a
// progress token) 100 times over stdio, and each time every progress
// report reaches its onprogress before the result: ts/progress.mjs. This
// client handles the messages read together in one chunk in one go, a
// notification a microtask after a response (typescript-sdk #2580), so the
// server writes a call's response only once the client has read the
// notifications before it (rpc's read wait on a stream transport).
func TestTypeScriptSDKProgressStdio(t *testing.T) {
	node, bin := typeScriptSDK(t)
	out, err := exec.CommandContext(testContext(t), node, "ts/progress.mjs", "stdio", bin, progressRuns).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok "+progressRuns+"\n", string(out))
}

// The same over Streamable HTTP (2025-11-25, a session): each report is an
// event of the call's stream, which this client reads one event at a time.
func TestTypeScriptSDKProgressStreamableHTTP(t *testing.T) {
	node, bin := typeScriptSDK(t)
	url, stop := serveHTTP(t, bin)
	out, err := exec.CommandContext(testContext(t), node, "ts/progress.mjs", "http", url, progressRuns).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok "+progressRuns+"\n", string(out))
	stop()
}

// serveHTTP starts the built example bin with -http on a free port and
// returns its endpoint's URL; stop sends it SIGTERM and checks that it
// exits 0. If the test fails before stop, the server is killed.
func serveHTTP(t *testing.T, bin string) (url string, stop func()) {
	t.Helper()
	base, stop := startExample(t, bin, "-http", "127.0.0.1:0")
	return base + "/mcp", stop
}

// startExample starts the built example bin with args, which make it
// serve HTTP on loopback, and returns the address it logs as its first
// line on stderr (http://127.0.0.1:port); stop sends it SIGTERM and
// checks that it exits 0. At the test's end the process is killed, if
// still running, and waited for; wiretest.Hang bounds its whole life.
func startExample(t *testing.T, bin string, args ...string) (base string, stop func()) {
	t.Helper()
	// Not the test's context: that ends before the cleanups, which stop
	// the process themselves.
	ctx, cancel := context.WithTimeout(context.Background(), wiretest.Hang)
	server := exec.CommandContext(ctx, bin, args...)
	stderr, err := server.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, server.Start())
	first := make(chan string, 1)
	var rest []string // the other lines, once done is closed
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(first)
		lines := bufio.NewScanner(stderr)
		if !lines.Scan() {
			return
		}
		first <- lines.Text()
		for lines.Scan() {
			rest = append(rest, lines.Text())
		}
	}()
	wait := sync.OnceValue(func() error {
		<-done // Wait closes the pipe: read it to its end first
		return server.Wait()
	})
	t.Cleanup(func() { // when the test fails before stop
		_ = server.Process.Kill()
		_ = wait()
		cancel()
	})
	line, ok := <-first
	require.True(t, ok, "the address logged")
	m := regexp.MustCompile(`address=(http://127\.0\.0\.1:\d+)`).FindStringSubmatch(line)
	require.NotNil(t, m, line)
	return m[1], func() {
		t.Helper()
		require.NoError(t, server.Process.Signal(syscall.SIGTERM))
		err := wait()
		assert.NoError(t, err, "%q", rest)
	}
}
