package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// npm's vscode-jsonrpc 10.0.0 (the JSON-RPC library of VS Code's language
// clients, installed by `npm ci` in lsp/) runs lsp/client.mjs against the
// built examples/calculator -framing lsp over stdio: see the script for
// what it checks. It is skipped without node, or before npm ci, except in
// CI (CI set), where that fails it.
func TestVSCodeJSONRPCClient(t *testing.T) {
	// In CI (.ci/run sets nothing up to skip), a missing client is a failure.
	missing := t.Skip
	if os.Getenv("CI") != "" {
		missing = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node")
	}
	if _, err := os.Stat("lsp/node_modules/vscode-jsonrpc"); err != nil {
		missing("run npm ci in interop/lsp first")
	}
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "calculator")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/toolrpc/toolrpc/examples/calculator").CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.CommandContext(testContext(t), node, "lsp/client.mjs", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
}
