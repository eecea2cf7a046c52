package jwt

// An authorization server for the JWT verifier's tests: its metadata, its
// key set, and tokens signed by its keys. Its exported names serve the
// tests of package auth_test too (the end-to-end test, the example).

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/require"
)

// FakeKey is a signing key of a FakeAS.
type FakeKey struct {
	KID  string
	Alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

// public is the key as its key set publishes it.
func (k *FakeKey) public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.KID, Algorithm: string(k.Alg), Use: "sig"}
}

// The tests' keys: RSA is slow to make, so made once.
var (
	rsaKey = sync.OnceValue(func() *rsa.PrivateKey {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		return k
	})
	edKey = sync.OnceValue(func() ed25519.PrivateKey {
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	})
)

// RSAKey returns the RSA key, for alg (RS256, PS256...), named kid.
func RSAKey(kid string, alg jose.SignatureAlgorithm) *FakeKey {
	return &FakeKey{KID: kid, Alg: alg, priv: rsaKey()}
}

// EdKey returns the Ed25519 key, named kid.
func EdKey(kid string) *FakeKey { return &FakeKey{KID: kid, Alg: jose.EdDSA, priv: edKey()} }

// NewECKey returns a new P-256 key named kid.
func NewECKey(kid string) *FakeKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return &FakeKey{KID: kid, Alg: jose.ES256, priv: k}
}

// FakeAS is an authorization server: its metadata (RFC 8414) at its
// well-known URL, its key set at /jwks. Its answers can be changed.
type FakeAS struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []*FakeKey
	jwks    []byte                                            // served instead of keys' set, if not nil
	hostile func(w http.ResponseWriter, r *http.Request) bool // answers first, if set: true if it did
	release chan struct{}                                     // closed as the test ends
	// Fetches counts the requests for the key set, Discoveries those for
	// the metadata.
	Fetches, Discoveries atomic.Int32
}

// NewFakeAS returns an authorization server of keys, closed as t ends.
func NewFakeAS(t testing.TB, keys ...*FakeKey) *FakeAS {
	as := &FakeAS{keys: keys, release: make(chan struct{})}
	as.Server = httptest.NewServer(http.HandlerFunc(as.serve))
	t.Cleanup(as.Close)
	t.Cleanup(func() { close(as.release) }) // first: a handler that blocks ends
	return as
}

// Issuer is the server's issuer identifier.
func (as *FakeAS) Issuer() string { return as.URL }

func (as *FakeAS) serve(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	hostile := as.hostile
	as.mu.Unlock()
	switch r.URL.Path {
	case "/jwks":
		as.Fetches.Add(1)
	case "/.well-known/oauth-authorization-server":
		as.Discoveries.Add(1)
	}
	if hostile != nil && hostile(w, r) {
		return
	}
	switch r.URL.Path {
	case "/jwks":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(as.KeySet())
	case "/.well-known/oauth-authorization-server":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"issuer":"` + as.URL + `","jwks_uri":"` + as.URL + `/jwks","response_types_supported":["code"]}`))
	default:
		http.NotFound(w, r)
	}
}

// KeySet is the key set the server serves.
func (as *FakeAS) KeySet() []byte {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.jwks != nil {
		return as.jwks
	}
	var set jose.JSONWebKeySet
	for _, k := range as.keys {
		set.Keys = append(set.Keys, k.public())
	}
	b, err := json.Marshal(set)
	if err != nil {
		panic(err)
	}
	return b
}

// SetKeys changes the keys the server publishes.
func (as *FakeAS) SetKeys(keys ...*FakeKey) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.keys, as.jwks = keys, nil
}

// SetKeySet makes the server serve jwks as its key set.
func (as *FakeAS) SetKeySet(jwks string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.jwks = []byte(jwks)
}

// SetHostile makes h answer first (nil: none).
func (as *FakeAS) SetHostile(h func(w http.ResponseWriter, r *http.Request) bool) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.hostile = h
}

// Claims returns the claims of a good token of the server: alice's, with
// client cli, for resource, scopes mcp and read, issued now, for an hour.
func (as *FakeAS) Claims() map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": as.URL, "sub": "alice", "client_id": "cli", "aud": "https://mcp.example.com/mcp",
		"scope": "mcp read", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "j-1",
	}
}

// Sign returns a token of claims signed by k, its header with k's kid
// (unless kid is "-") and headers' members.
func Sign(t testing.TB, k *FakeKey, claims map[string]any, headers map[jose.HeaderKey]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if k.KID != "-" {
		opts = opts.WithHeader("kid", k.KID)
	}
	for name, v := range headers {
		opts = opts.WithHeader(name, v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.Alg, Key: k.priv}, opts)
	require.NoError(t, err)
	payload, err := json.Marshal(claims)
	require.NoError(t, err)
	obj, err := signer.Sign(payload)
	require.NoError(t, err)
	token, err := obj.CompactSerialize()
	require.NoError(t, err)
	return token
}

// RawToken returns the token of header and payload (JSON texts, as they
// are) signed by the Ed25519 key: for headers and claims that go-jose
// would not write.
func RawToken(header, payload string) string {
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64([]byte(header)) + "." + b64([]byte(payload))
	return input + "." + b64(ed25519.Sign(edKey(), []byte(input)))
}

// NewFakeVerifier returns a verifier of as's tokens, with opts changed
// by change (if not nil).
func NewFakeVerifier(t testing.TB, as *FakeAS, change func(*Options)) *Verifier {
	t.Helper()
	opts := &Options{Issuer: as.Issuer(), Timeout: 10 * time.Second}
	if change != nil {
		change(opts)
	}
	v, err := NewVerifier(opts)
	require.NoError(t, err)
	return v
}
