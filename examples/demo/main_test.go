package main

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/transcript.golden")

// TestTranscript holds the demo's output to the golden transcript, line for
// line; run with -update after a deliberate change and review the diff.
func TestTranscript(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	if *update {
		require.NoError(t, os.WriteFile("testdata/transcript.golden", out.Bytes(), 0o644))
	}
	want, err := os.ReadFile("testdata/transcript.golden")
	require.NoError(t, err)
	assert.Equal(t, string(want), out.String())
}
