package jwt_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/auth/jwt"
	"github.com/toolrpc/toolrpc/mcp"
)

// A resource server that accepts its authorization server's JWT access
// tokens: the key set is found through the issuer's metadata, fetched at
// the first token and kept fresh. Refresh, optional, makes the server
// fail at start rather than answer 503 while the authorization server is
// unreachable.
func ExampleNewVerifier() {
	verifier, err := jwt.NewVerifier(&jwt.Options{
		Issuer: "https://auth.example.com", // tokens' iss, and where /.well-known/oauth-authorization-server is
		Types:  []string{"at+jwt"},         // RFC 9068's alone; the default also takes "JWT" and none
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := verifier.Refresh(ctx); err != nil {
		log.Fatal(err)
	}
	rs, err := auth.NewResourceServer(&auth.Options{
		Resource:             "https://mcp.example.com/mcp", // what the tokens' aud must name
		AuthorizationServers: []string{"https://auth.example.com"},
		Verifier:             verifier,
		Scopes:               []string{"mcp"},
	})
	if err != nil {
		log.Fatal(err)
	}
	s := mcp.New(&mcp.Options{Name: "example", Version: "1"})
	tools := s.NewHTTPHandler(context.Background(), nil)
	defer tools.Close()
	mux := http.NewServeMux()
	mux.Handle(rs.MetadataPath(), rs.Metadata())
	mux.Handle("/mcp", rs.Require(tools))
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}
