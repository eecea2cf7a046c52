// Package oauth holds the rules of OAuth's syntax that package auth and
// its verifiers share: what a URL of theirs may be, what a scope-token
// is, and which members of a token's claims an Identity keeps as its
// other claims.
package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/rpchttp"
)

// IsScopeToken reports whether s is a scope-token (RFC 6749 §3.3):
// 1*( %x21 / %x23-5B / %x5D-7E ), which a quoted-string holds as it is.
func IsScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// CheckURL checks that s, the option or value what names, is an absolute
// https URL with a host, no fragment and no user, that a quoted-string
// holds as it is (http is allowed for a loopback host). Its errors have
// no package prefix: the caller adds its own.
func CheckURL(what, s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s %q is not a URL: %w", what, s, err)
	}
	switch {
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		return nil, fmt.Errorf("%s %q is not an absolute URL with a host", what, s)
	case u.Fragment != "" || strings.Contains(s, "#"):
		return nil, fmt.Errorf("%s %q has a fragment", what, s)
	case u.User != nil:
		return nil, fmt.Errorf("%s %q has user information", what, s)
	case !IsScopeToken(s): // printable ASCII, no '"' or '\'
		return nil, fmt.Errorf("%s %q has a character a URL cannot", what, s)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !rpchttp.IsLoopbackName(u.Hostname()) { // the rule rpc.HTTPHandler keeps for Host
			return nil, fmt.Errorf("%s %q is not https (http is for a loopback host only)", what, s)
		}
	default:
		return nil, fmt.Errorf("%s %q is not https", what, s)
	}
	return u, nil
}

// OtherClaims are the members of claims not among known (those an
// Identity has fields for), for Identity.Claims; nil when there are none.
func OtherClaims(claims map[string]json.RawMessage, known map[string]bool) map[string]json.RawMessage {
	var other map[string]json.RawMessage
	for name, raw := range claims {
		if !known[name] {
			if other == nil {
				other = map[string]json.RawMessage{}
			}
			other[name] = raw
		}
	}
	return other
}

// Twice returns the first name that the JSON object body (valid JSON)
// holds twice among its members, if any.
func Twice(body []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		name, _ := t.(string)
		if seen[name] {
			return name, true
		}
		seen[name] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// Optional decodes raw into to if it is a string, leaves to as it is if
// raw is absent or null, and fails otherwise.
func Optional(raw json.RawMessage, to *string) error {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, to)
}

// NumericDate reads a NumericDate (RFC 7519 §2: seconds since the epoch,
// perhaps with a fraction): zero if raw is absent or null, an error if
// it is not a number from 0 to the year 9999.
func NumericDate(raw json.RawMessage) (time.Time, error) {
	if raw == nil || string(raw) == "null" {
		return time.Time{}, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return time.Time{}, err
	}
	if math.IsNaN(f) || f < 0 || f > 253402300799 {
		return time.Time{}, errors.New("out of range")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), nil
}
