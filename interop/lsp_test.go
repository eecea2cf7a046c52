package interop

import (
	"os/exec"
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
	node, bin := nodeClient(t, "lsp", "vscode-jsonrpc", "calculator")
	out, err := exec.CommandContext(testContext(t), node, "lsp/client.mjs", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
}
