package wiretest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Session is a legacy MCP session (initialize, Mcp-Session-Id) over
// Streamable HTTP, for end-to-end tests of built examples.
type Session struct {
	URL      string       // the endpoint
	ID       string       // its Mcp-Session-Id
	Revision string       // its protocol revision, sent as Mcp-Protocol-Version
	Client   *http.Client // what posts
}

// OpenSession initializes a session of revision (a legacy one, such as
// 2025-11-25) at url with client, and tells the server it is initialized.
func OpenSession(t testing.TB, client *http.Client, url, revision string) *Session {
	t.Helper()
	s := &Session{URL: url, Revision: revision, Client: client}
	resp := s.Post(t, strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"wiretest","version":"1"}}}`, revision)))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	require.Contains(t, string(b), `"protocolVersion":"`+revision+`"`)
	s.ID = resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, s.ID, "a session opened")
	resp = s.Post(t, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	_, err = io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	return s
}

// Post posts body to the session, accepting a JSON answer or events, and
// returns the response, whose body the caller reads and closes.
func (s *Session) Post(t testing.TB, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.ID != "" {
		req.Header.Set("Mcp-Session-Id", s.ID)
		req.Header.Set("Mcp-Protocol-Version", s.Revision)
	}
	resp, err := s.Client.Do(req)
	require.NoError(t, err)
	return resp
}
