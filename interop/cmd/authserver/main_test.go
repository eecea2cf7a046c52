package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/internal/wiretest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The first line on stdout is the issuer, which serves the metadata;
// closing stdin, or ctx's end, stops the server, and run returns nil.
func TestRun(t *testing.T) {
	for _, how := range []string{"stdin", "signal"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), wiretest.Hang)
			defer cancel()
			stdinR, stdinW := io.Pipe()
			defer func() { _ = stdinW.Close() }()
			stdoutR, stdoutW := io.Pipe()
			var stderr strings.Builder
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"-scopes", "mcp,stats", "-resource", "http://127.0.0.1:1/mcp"}, stdinR, stdoutW, &stderr)
				_ = stdoutW.Close()
			}()
			issuer, err := bufio.NewReader(stdoutR).ReadString('\n')
			require.NoError(t, err)
			issuer = strings.TrimSuffix(issuer, "\n")
			assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, issuer)
			go func() { _, _ = io.Copy(io.Discard, stdoutR) }()

			c := &http.Client{Transport: &http.Transport{}, Timeout: wiretest.Hang}
			resp, err := c.Get(issuer + "/.well-known/oauth-authorization-server")
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
			require.NoError(t, resp.Body.Close())
			c.CloseIdleConnections()
			assert.Equal(t, issuer, doc["issuer"])
			assert.Equal(t, []any{"openid", "profile", "offline_access", "mcp", "stats"}, doc["scopes_supported"])

			if how == "stdin" {
				require.NoError(t, stdinW.Close())
			} else {
				cancel()
			}
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(wiretest.Hang):
				t.Fatal("run did not return")
			}
			assert.Contains(t, stderr.String(), "authserver: serving "+issuer)
			_, err = http.Get(issuer + "/.well-known/oauth-authorization-server")
			assert.Error(t, err, "no longer serving")
		})
	}
}

// Bad flags are an error, and the usage.
func TestRunBadFlags(t *testing.T) {
	var stderr strings.Builder
	err := run(t.Context(), []string{"-nope"}, strings.NewReader(""), io.Discard, &stderr)
	assert.Error(t, err)
	assert.Contains(t, stderr.String(), "-addr")
	err = run(t.Context(), []string{"-resource", "not a url"}, strings.NewReader(""), io.Discard, io.Discard)
	assert.ErrorContains(t, err, `resource "not a url"`)
	err = run(t.Context(), []string{"extra"}, strings.NewReader(""), io.Discard, io.Discard)
	assert.ErrorContains(t, err, "unexpected arguments")
}
