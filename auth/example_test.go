package auth_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/mcp"
)

// Tools are the example's tools: whoami.
type Tools struct{}

// Whoami returns the caller's subject, or why it may not know it.
func (Tools) Whoami(ctx context.Context) (string, error) {
	if err := auth.RequireScopes(ctx, "profile"); err != nil {
		return "", err
	}
	return auth.IdentityFrom(ctx).Subject, nil
}

// A protected MCP server: the metadata at its well-known path, the
// Streamable HTTP endpoint behind Require. A real server's Verifier is
// an Introspector (or a JWT verifier) of its authorization server.
func Example() {
	verifier := auth.VerifierFunc(func(ctx context.Context, token string) (*auth.Identity, error) {
		if token != "let-me-in" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.Identity{Subject: "alice", Scopes: []string{"mcp", "profile"}, Audience: []string{"https://mcp.example.com/mcp"}}, nil
	})
	rs, err := auth.NewResourceServer(&auth.Options{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		Verifier:             verifier,
		Scopes:               []string{"mcp"},
	})
	if err != nil {
		log.Fatal(err)
	}
	s := mcp.New(&mcp.Options{Name: "example", Version: "1"})
	if err := s.Register("", Tools{}); err != nil {
		log.Fatal(err)
	}
	tools := s.NewHTTPHandler(context.Background(), nil)
	defer tools.Close()

	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.Metadata())
	mux.Handle("/mcp", rs.Require(tools))
	srv := httptest.NewServer(mux) // in production: http.ListenAndServe behind TLS
	defer srv.Close()

	for _, token := range []string{"", "let-me-in"} {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami",`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "whoami")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		fmt.Println(strings.TrimSpace(fmt.Sprint(resp.StatusCode, " ", resp.Header.Get("WWW-Authenticate"))))
		fmt.Print(string(body))
	}
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"
	// 200
	// {"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":"alice"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1"}}},"id":1}
}
