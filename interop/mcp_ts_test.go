package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official MCP TypeScript SDK's client (@modelcontextprotocol/sdk
// 1.32.2, installed by `npm ci` in ts/) runs ts/client.mjs against the
// built examples/mcp over stdio: see the script for what it checks. It is
// skipped without node, or before npm ci, except in CI (CI set), where
// that fails it.
func TestTypeScriptSDKClient(t *testing.T) {
	// In CI (.ci/run sets nothing up to skip), a missing client is a failure.
	missing := t.Skip
	if os.Getenv("CI") != "" {
		missing = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node")
	}
	if _, err := os.Stat("ts/node_modules/@modelcontextprotocol/sdk"); err != nil {
		missing("run npm ci in interop/ts first")
	}
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "mcp")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/toolrpc/toolrpc/examples/mcp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.CommandContext(testContext(t), node, "ts/client.mjs", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
}
