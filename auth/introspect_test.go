package auth_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/auth"
)

// endpoint is an introspection endpoint that answers each token as its
// table says, and lies, hangs, drips or floods for some; it counts what
// it is asked.
type endpoint struct {
	t       *testing.T
	srv     *httptest.Server
	release chan struct{} // closed when the test ends: the hanging ones return
	entered chan struct{} // told when a hanging request has come
	asked   atomic.Int64
	now     int64 // the time of its answers' exp and nbf, in seconds
}

// The answers of the endpoint, by token. exp and nbf are in seconds from
// now: %[1]d is an hour from now, %[2]d an hour ago, %[3]d 30 s from now.
var introspection = map[string]string{
	"active-secret":   `{"active":true,"scope":"mcp read","client_id":"cli","sub":"alice","iss":"https://auth.example.com","exp":%[1]d,"aud":"https://mcp.example.com/mcp","username":"Alice","jti":"j1","nbf":%[2]d}`,
	"minimal-secret":  `{"active":true}`,
	"auds-secret":     `{"active":true,"aud":["a","https://mcp.example.com/mcp"],"exp":%[1]d.5,"sub":null}`,
	"inactive-secret": `{"active":false}`,
	"expired-secret":  `{"active":true,"exp":%[2]d}`,
	"early-secret":    `{"active":true,"nbf":%[1]d}`,
	"skewed-secret":   `{"active":true,"nbf":%[3]d}`,
	"strtrue-secret":  `{"active":"true"}`,
	"noactive-secret": `{"scope":"mcp"}`,
	"garbage-secret":  `<html>hello</html>`,
	"null-secret":     `null`,
	"array-secret":    `[{"active":true}]`,
	"scopes-secret":   `{"active":true,"scope":["mcp"]}`,
	"strexp-secret":   `{"active":true,"exp":"tomorrow"}`,
	"bigexp-secret":   `{"active":true,"exp":1e300}`,
	"negexp-secret":   `{"active":true,"exp":-1}`,
	"numaud-secret":   `{"active":true,"aud":5}`,
	"numsub-secret":   `{"active":true,"sub":5}`,
	"trunc-secret":    `{"active":true,"scope":"mc`,
	"spaces-secret":   "{\"active\":true,\"scope\":\"  mcp  read \\u00a0admin\\tx\\u2003write\\ny \"}",
	"twice-secret":    `{"active":false,"scope":"mcp","active":true}`,
}

func newEndpoint(t *testing.T) *endpoint {
	e := &endpoint{t: t, release: make(chan struct{}), entered: make(chan struct{}, 8), now: time.Now().Unix()}
	mux := http.NewServeMux()
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		t.Error("a redirect was followed")
	})
	mux.HandleFunc("/introspect", func(w http.ResponseWriter, r *http.Request) {
		e.asked.Add(1)
		id, secret, ok := r.BasicAuth()
		if r.Method != "POST" || !ok || id != "rs%3A1" || secret != "s%2B%26cret" ||
			r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.Header.Get("Accept") != "application/json" ||
			r.PostFormValue("token_type_hint") != "access_token" {
			t.Errorf("the request: %s %v %v", r.Method, r.Header, r.PostForm)
			w.WriteHeader(400)
			return
		}
		token := r.PostFormValue("token")
		now := e.now
		switch token {
		case "hang-secret":
			e.entered <- struct{}{}
			<-e.release
			return
		case "drip-secret":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"active":true,"scope":"`)
			for {
				w.(http.Flusher).Flush()
				select {
				case <-e.release:
					return
				case <-r.Context().Done():
					return
				case <-time.After(time.Millisecond):
					fmt.Fprint(w, "x")
				}
			}
		case "huge-secret":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"active":true,"scope":"`)
			chunk := strings.Repeat("x", 64<<10)
			for range 160 { // 10 MiB
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			fmt.Fprint(w, `"}`)
		case "atbound-secret", "pastbound-secret":
			doc := `{"active":true}`
			n := auth.DefaultIntrospectionBytes - len(doc)
			if token == "pastbound-secret" {
				n++
			}
			fmt.Fprint(w, strings.Repeat(" ", n)+doc)
		case "500-secret":
			w.WriteHeader(500)
			fmt.Fprint(w, `{"active":true}`)
		case "reflect-secret":
			// A broken endpoint that writes the token and the request's
			// credentials back in its header: net/http quotes the line in
			// its error.
			hj, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			fmt.Fprintf(hj, "HTTP/1.1 200 OK\r\nX: %s\r\n%s %s\r\n\r\n", r.Header.Get("Authorization"), token, r.Header.Get("Authorization"))
			_ = hj.Close()
			return
		case "401-secret":
			w.WriteHeader(401)
		case "redirect-secret":
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		default:
			answer, ok := introspection[token]
			if !ok {
				answer = `{"active":false}`
			}
			w.Header().Set("Content-Type", "application/json")
			if strings.Contains(answer, "%[") {
				answer = fmt.Sprintf(answer, now+3600, now-3600, now+30)
			}
			fmt.Fprint(w, answer)
		}
	})
	e.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(e.release)
		e.srv.Close()
	})
	return e
}

// introspector returns an introspector of e, opts changed by change.
func (e *endpoint) introspector(change func(*auth.IntrospectionOptions)) *auth.Introspector {
	opts := auth.IntrospectionOptions{Endpoint: e.srv.URL + "/introspect", ClientID: "rs:1", ClientSecret: "s+&cret", Client: e.srv.Client()}
	if change != nil {
		change(&opts)
	}
	v, err := auth.NewIntrospector(&opts)
	require.NoError(e.t, err)
	return v
}

// What the introspector makes of each answer: the identity of an active
// token, ErrInvalidToken for an inactive one (or one the endpoint says is
// active but whose exp or nbf say otherwise), ErrUnavailable for an
// answer that is not an introspection response, a status other than
// 200, a redirect, a body past the bound, an endpoint that hangs or
// drips past the timeout; no error holds the token.
func TestIntrospector(t *testing.T) {
	e := newEndpoint(t)
	hour := time.Unix(e.now+3600, 0)
	tests := []struct {
		token  string
		want   *auth.Identity
		claims map[string]string
		err    error
		text   string // the error's text, after "auth: ..."
	}{
		{token: "active-secret", want: &auth.Identity{Subject: "alice", Issuer: "https://auth.example.com", ClientID: "cli",
			Scopes: []string{"mcp", "read"}, Expiry: hour, Audience: []string{"https://mcp.example.com/mcp"}},
			claims: map[string]string{"username": `"Alice"`, "jti": `"j1"`, "nbf": fmt.Sprint(e.now - 3600)}},
		{token: "minimal-secret", want: &auth.Identity{}},
		{token: "auds-secret", want: &auth.Identity{Audience: []string{"a", "https://mcp.example.com/mcp"}, Expiry: hour.Add(time.Second / 2)}},
		{token: "skewed-secret", want: &auth.Identity{}, claims: map[string]string{"nbf": fmt.Sprint(e.now + 30)}},
		{token: "atbound-secret", want: &auth.Identity{}},
		{token: "spaces-secret", want: &auth.Identity{Scopes: []string{"mcp", "read", "\u00a0admin\tx\u2003write\ny"}}},
		{token: "inactive-secret", err: auth.ErrInvalidToken, text: "invalid token: introspection: the token is not active"},
		{token: "unknown-secret", err: auth.ErrInvalidToken, text: "invalid token: introspection: the token is not active"},
		{token: "expired-secret", err: auth.ErrInvalidToken, text: "invalid token: introspection: the token expired"},
		{token: "early-secret", err: auth.ErrInvalidToken, text: "invalid token: introspection: the token is not valid yet"},
		{token: "strtrue-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "active" is not a boolean`},
		{token: "noactive-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "active" is not a boolean`},
		{token: "garbage-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the response is not a JSON object"},
		{token: "null-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the response is not a JSON object"},
		{token: "array-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the response is not a JSON object"},
		{token: "trunc-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the response is not a JSON object"},
		{token: "twice-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response has two "active" members`},
		{token: "scopes-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "scope" is not a string`},
		{token: "numsub-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "sub" is not a string`},
		{token: "strexp-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "exp" is not a time`},
		{token: "bigexp-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "exp" is not a time`},
		{token: "negexp-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "exp" is not a time`},
		{token: "numaud-secret", err: auth.ErrUnavailable, text: `verifier unavailable: introspection: the response's "aud" is neither a string nor an array of strings`},
		{token: "500-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the endpoint answered 500"},
		{token: "401-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the endpoint answered 401"},
		{token: "redirect-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the endpoint answered 307"},
		{token: "pastbound-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the response is longer than 65536 bytes"},
		{token: "huge-secret", err: auth.ErrUnavailable, text: "verifier unavailable: introspection: the response is longer than 65536 bytes"},
	}
	v := e.introspector(nil)
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			id, err := v.Verify(context.Background(), tt.token)
			if tt.err != nil {
				assert.Nil(t, id)
				assert.ErrorIs(t, err, tt.err)
				assert.EqualError(t, err, "auth: "+tt.text)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.Expiry.UnixNano(), id.Expiry.UnixNano())
			id.Expiry, tt.want.Expiry = time.Time{}, time.Time{}
			var claims map[string]string
			for k, raw := range id.Claims {
				if claims == nil {
					claims = map[string]string{}
				}
				claims[k] = string(raw)
			}
			assert.Equal(t, tt.claims, claims)
			id.Claims = nil
			assert.Equal(t, tt.want, id)
		})
	}
}

// An endpoint that hangs, or drips its body, or a flood that fills every
// slot: the introspection ends at its Timeout, unavailable, never a hang;
// and so does one whose caller gives up.
func TestIntrospectorNeverHangs(t *testing.T) {
	e := newEndpoint(t)
	v := e.introspector(func(o *auth.IntrospectionOptions) { o.Timeout = 50 * time.Millisecond; o.MaxConcurrent = 1 })
	for _, token := range []string{"hang-secret", "drip-secret"} {
		_, err := v.Verify(context.Background(), token)
		assert.ErrorIs(t, err, auth.ErrUnavailable, token)
		assert.ErrorIs(t, err, context.DeadlineExceeded, token)
		assert.NotContains(t, err.Error(), token)
	}

	// One slot, held by a hanging introspection: the next waits for it
	// as long as its context lets it.
	e = newEndpoint(t) // whose entered tells of the one below alone
	one := e.introspector(func(o *auth.IntrospectionOptions) { o.MaxConcurrent = 1; o.Timeout = time.Hour })
	holding, release := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := one.Verify(holding, "hang-secret")
		done <- err
	}()
	<-e.entered
	waiting, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := one.Verify(waiting, "minimal-secret")
	assert.ErrorIs(t, err, auth.ErrUnavailable)
	assert.EqualError(t, err, "auth: verifier unavailable: introspection: waiting for one of 1 introspections under way to end: context deadline exceeded")
	release()
	assert.ErrorIs(t, <-done, context.Canceled)

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = v.Verify(gone, "minimal-secret")
	assert.ErrorIs(t, err, context.Canceled)
}

// An active token is asked about once, then remembered; what a caller
// gets is its own copy.
func TestIntrospectorCache(t *testing.T) {
	e := newEndpoint(t)
	v := e.introspector(nil)
	id, err := v.Verify(context.Background(), "active-secret")
	require.NoError(t, err)
	id.Scopes[0] = "admin"
	id.Audience = append(id.Audience, "x")
	again, err := v.Verify(context.Background(), "active-secret")
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp", "read"}, again.Scopes)
	assert.Equal(t, []string{"https://mcp.example.com/mcp"}, again.Audience)
	assert.Equal(t, int64(1), e.asked.Load())

	for range 2 {
		_, err = v.Verify(context.Background(), "inactive-secret")
		assert.ErrorIs(t, err, auth.ErrInvalidToken)
	}
	assert.Equal(t, int64(3), e.asked.Load(), "an inactive token is not remembered")

	none := e.introspector(func(o *auth.IntrospectionOptions) { o.CacheSize = -1 })
	for range 2 {
		_, err = none.Verify(context.Background(), "active-secret")
		require.NoError(t, err)
	}
	assert.Equal(t, int64(5), e.asked.Load(), "no cache")
}

// Behind a resource server, the introspector's answers are the wire's:
// an active token for this resource reaches the handler, an inactive
// one or one for another resource is 401, an endpoint down is 503.
func TestIntrospectorBehindRequire(t *testing.T) {
	e := newEndpoint(t)
	rs, err := auth.NewResourceServer(&auth.Options{Resource: resource, AuthorizationServers: []string{issuer},
		Verifier: e.introspector(nil), Scopes: []string{"mcp"}, Logger: quiet()})
	require.NoError(t, err)
	h := rs.Require(whoami)
	tests := []struct {
		token  string
		status int
		body   string
	}{
		{"active-secret", 200, "alice cli [mcp read]"},
		{"inactive-secret", 401, ""},
		{"minimal-secret", 401, ""}, // no audience
		{"garbage-secret", 503, ""},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+tt.token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, tt.status, w.Code, tt.token)
		assert.Equal(t, tt.body, w.Body.String(), tt.token)
	}
}

// Options that cannot make an introspector are refused.
func TestNewIntrospectorRefuses(t *testing.T) {
	for _, tt := range []struct {
		opts *auth.IntrospectionOptions
		want string
	}{
		{nil, `auth: Endpoint "" is not an absolute URL with a host`},
		{&auth.IntrospectionOptions{Endpoint: "http://auth.example.com/introspect", ClientID: "a"},
			`auth: Endpoint "http://auth.example.com/introspect" is not https (http is for a loopback host only)`},
		{&auth.IntrospectionOptions{Endpoint: "https://auth.example.com/introspect"},
			`auth: no ClientID: the introspection endpoint needs this server's credentials`},
	} {
		v, err := auth.NewIntrospector(tt.opts)
		assert.Nil(t, v)
		assert.EqualError(t, err, tt.want)
	}
}

// quiet is a logger that drops everything.
func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// An endpoint that writes the token, or this server's credentials, back
// where net/http quotes it in its error: the error, logged, holds
// neither; it is still ErrUnavailable, and 503 behind Require.
func TestIntrospectorRedacts(t *testing.T) {
	e := newEndpoint(t)
	v := e.introspector(nil)
	_, err := v.Verify(context.Background(), "reflect-secret")
	require.ErrorIs(t, err, auth.ErrUnavailable)
	assert.EqualError(t, err, `auth: verifier unavailable: introspection: Post "`+e.srv.URL+`/introspect": net/http: HTTP/1.x transport connection broken: `+
		`malformed MIME header: missing colon: "[token] Basic [credentials]"`)
	for _, secret := range []string{"reflect-secret", "s%2B%26cret", "s+&cret", "cnMlM0ExOnMlMkIlMjZjcmV0"} {
		assert.NotContains(t, err.Error(), secret)
	}
}

// However many tokens come at once, at most MaxConcurrent introspections
// are under way: the endpoint lets none go until MaxConcurrent are in,
// and sees never one more.
func TestIntrospectorBoundsConcurrency(t *testing.T) {
	const slots, tokens = 4, 64
	var in, most atomic.Int64
	full := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := in.Add(1)
		defer in.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == slots {
			once.Do(func() { close(full) })
		}
		<-full
		fmt.Fprint(w, `{"active":true}`)
	}))
	defer srv.Close()
	v, err := auth.NewIntrospector(&auth.IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", Client: srv.Client(),
		MaxConcurrent: slots, Timeout: time.Hour})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range tokens {
		wg.Go(func() {
			_, err := v.Verify(context.Background(), fmt.Sprint("token-", i))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Equal(t, int64(slots), most.Load())
}
