package interop

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
	"github.com/toolrpc/toolrpc/auth/jwt"
	"github.com/toolrpc/toolrpc/interop/authserver"
)

// toolrpc's JWT verifier against a real authorization server (zitadel's
// op) that rotates its signing key: the key set is found through the
// server's metadata; a token of a new key makes the verifier fetch the
// set again and is accepted; once the old key is dropped from the set,
// and the set fetched anew, its tokens are refused.
func TestJWTVerifierAcrossKeyRotation(t *testing.T) {
	as, err := authserver.Start(t.Context(), &authserver.Config{Scopes: []string{"mcp"}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, as.Close()) })
	const resource = "http://127.0.0.1:1/mcp"
	v, err := jwt.NewVerifier(&jwt.Options{Issuer: as.Issuer(), Client: as.Client(), MinRefreshInterval: time.Nanosecond})
	require.NoError(t, err)
	issue := func() string {
		token, err := as.ClientCredentialsToken(t.Context(), authserver.MachineClientID, authserver.MachineSecret, []string{"mcp"}, resource)
		require.NoError(t, err)
		return token
	}
	verify := func(token string) (*auth.Identity, error) { return v.Verify(t.Context(), token) }

	t1 := issue()
	id, err := verify(t1)
	require.NoError(t, err)
	assert.Equal(t, as.Issuer(), id.Issuer)
	assert.Equal(t, authserver.MachineClientID, id.Subject)
	assert.Equal(t, []string{"mcp"}, id.Scopes)
	assert.Contains(t, id.Audience, resource)

	_, err = as.Rotate(true) // the old key kept in the set
	require.NoError(t, err)
	t2 := issue()
	_, err = verify(t2)
	require.NoError(t, err, "a new kid: the set fetched again")
	_, err = verify(t1)
	require.NoError(t, err, "the old key is still in the set")

	_, err = as.Rotate(false) // the old keys dropped
	require.NoError(t, err)
	t3 := issue()
	_, err = verify(t3)
	require.NoError(t, err)
	for _, old := range []string{t1, t2} {
		_, err = verify(old)
		assert.ErrorIs(t, err, auth.ErrInvalidToken, "its key left the set")
	}
}
