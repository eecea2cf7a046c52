package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the calculator")
	}
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, nil))
	got := regexp.MustCompile(`pid \d+`).ReplaceAllString(out.String(), "pid N")
	assert.Equal(t, `building the calculator...
started calculator (pid N)
subtract [42, 23] = 19
batch: sum = 7, get_data = [hello 5], divide by zero: error -32602 "Invalid params", data [{"field":"b","rule":"ne","param":"0","message":"b must not be 0"}]
  count: 1 of 3
  count: 2 of 3
  count: 3 of 3
count returned 3
  long count: 1 of 1000, cancelling
long count: context canceled
the server exited with status 0
`, got)
}
