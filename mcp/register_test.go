package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/mcp"
)

type positional struct{}

func (positional) Pair(a, b int) int { return a + b }

type sliceTool struct{}

func (sliceTool) Sum(xs []int) int { return len(xs) }

type one struct{}

func (one) Echo(s map[string]any) int { return len(s) }

type longName struct{}

func (longName) Echo() {}

type badNotes struct{ one }

func (badNotes) Hi() {}

func (badNotes) ToolAnnotations() map[string]mcp.Annotations {
	return map[string]mcp.Annotations{"Hello": {}}
}

type panicNotes struct{}

func (panicNotes) Hi() {}

func (panicNotes) ToolAnnotations() map[string]mcp.Annotations { panic("no notes") }

// Register checks every tool before it adds any: a name the protocol
// refuses (1 to 128 of [A-Za-z0-9_.-]), arguments that are not an object,
// annotations of a method that is no tool, a tool registered twice, and
// everything service checks; the Server keeps the tools it had.
func TestRegisterRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, namespace string
		value           any
		err             string
	}{
		{"a space in the namespace", "my tools", one{}, `mcp: tool name "my tools.echo" holds " ": only A-Z, a-z, 0-9, _, - and . make a tool name`},
		{"a non-ASCII letter", "café", one{}, `mcp: tool name "café.echo" holds "é"`},
		{"a name over 128 bytes", strings.Repeat("n", 124), longName{}, `mcp: tool name "` + strings.Repeat("n", 124) + `.echo" is 129 bytes long: it must be 1 to 128`},
		{"positional params", "", positional{}, "mcp: tool pair: its arguments would be an array, and MCP's are an object"},
		{"a slice param", "", sliceTool{}, "mcp: tool sum: its arguments would be an array"},
		{"annotations of no tool", "", badNotes{}, `mcp: ToolAnnotations annotates "Hello", which is not a tool of mcp_test.badNotes`},
		{"annotations that panic", "", panicNotes{}, "mcp: mcp_test.panicNotes.ToolAnnotations panicked: no notes"},
		{"a value service refuses", "", 42, "mcp: service:"},
		{"a tool registered twice", "", one{}, `mcp: tool "echo" is registered twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.New(nil)
			require.NoError(t, s.Register("", one{}))
			err := s.Register(tc.namespace, tc.value)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			assert.Equal(t, []string{"echo"}, s.Tools())
		})
	}
}

// A tool name of exactly 128 bytes, of every allowed character, is taken.
func TestRegisterTakesEveryValidName(t *testing.T) {
	s := mcp.New(nil)
	ns := "Az09_-." + strings.Repeat("x", 128-len("Az09_-.")-len(".echo"))
	require.NoError(t, s.Register(ns, longName{}))
	assert.Equal(t, []string{ns + ".echo"}, s.Tools())
}

// Serving a Server without tools is an error.
func TestServeWithoutTools(t *testing.T) {
	err := mcp.New(nil).Serve(t.Context(), strings.NewReader(""), nil, nil)
	assert.EqualError(t, err, "mcp: nothing to serve: no tool, no resource, no prompt")
}

// Versions lists the revisions newest first.
func TestVersions(t *testing.T) {
	assert.Equal(t, []string{mcp.Latest, mcp.LatestLegacy, "2025-06-18", "2025-03-26", "2024-11-05"}, mcp.Versions())
}
