package authserver

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// registration is an RFC 7591 client registration request: the members
// this server reads (the others are ignored).
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// registered is the registration response (RFC 7591 §3.2.1).
type registered struct {
	ClientID              string `json:"client_id"`
	ClientSecret          string `json:"client_secret,omitempty"`
	ClientIDIssuedAt      int64  `json:"client_id_issued_at"`
	ClientSecretExpiresAt *int64 `json:"client_secret_expires_at,omitempty"`
	registration
}

// registrationError is an RFC 7591 §3.2.2 error.
type registrationError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

// register is the dynamic client registration endpoint (RFC 7591), the
// minimum an MCP client needs: it registers a client with the redirect
// URIs given (https, or loopback http on any port), public when
// token_endpoint_auth_method is none, else confidential
// (client_secret_basic, RFC 7591's default, or client_secret_post) with
// a secret that does not expire; grant types authorization_code and
// refresh_token (and client_credentials for a confidential client),
// response type code. No initial access token is asked for; no client
// configuration endpoint (RFC 7592) is offered. The request's body is at
// most 64 KiB, the clients registered at most Config.MaxRegistrations.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		registrationFailed(w, http.StatusBadRequest, "invalid_client_metadata", "the request is not application/json")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRegistrationBytes+1))
	if err != nil || len(body) > maxRegistrationBytes {
		registrationFailed(w, http.StatusBadRequest, "invalid_client_metadata", "the request's body is unreadable or longer than 64 KiB")
		return
	}
	var req registration
	if err := json.Unmarshal(body, &req); err != nil {
		registrationFailed(w, http.StatusBadRequest, "invalid_client_metadata", "the request is not a JSON object of client metadata")
		return
	}
	c, resp, code, why := s.newRegistration(req)
	if code != "" {
		registrationFailed(w, http.StatusBadRequest, code, why)
		return
	}
	if !s.storage.register(c, s.cfg.MaxRegistrations) {
		registrationFailed(w, http.StatusServiceUnavailable, "temporarily_unavailable", "no more clients may register")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(resp)
}

// newRegistration checks req and returns the client it registers and the
// response, or an error code and its description.
func (s *Server) newRegistration(req registration) (Client, *registered, string, string) {
	if len(req.RedirectURIs) == 0 {
		return Client{}, nil, "invalid_redirect_uri", "redirect_uris are required"
	}
	for _, u := range req.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return Client{}, nil, "invalid_redirect_uri", err.Error()
		}
	}
	if req.TokenEndpointAuthMethod == "" {
		req.TokenEndpointAuthMethod = string(oidc.AuthMethodBasic) // RFC 7591 §2
	}
	public := req.TokenEndpointAuthMethod == string(oidc.AuthMethodNone)
	if !public && req.TokenEndpointAuthMethod != string(oidc.AuthMethodBasic) && req.TokenEndpointAuthMethod != string(oidc.AuthMethodPost) {
		return Client{}, nil, "invalid_client_metadata", "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post"
	}
	if req.GrantTypes == nil {
		req.GrantTypes = []string{string(oidc.GrantTypeCode)} // RFC 7591 §2
	}
	cc := false
	for _, g := range req.GrantTypes {
		switch oidc.GrantType(g) {
		case oidc.GrantTypeCode, oidc.GrantTypeRefreshToken:
		case oidc.GrantTypeClientCredentials:
			if public {
				return Client{}, nil, "invalid_client_metadata", "a public client cannot use client_credentials"
			}
			cc = true
		default:
			return Client{}, nil, "invalid_client_metadata", "grant_types may be authorization_code, refresh_token and client_credentials"
		}
	}
	if req.ResponseTypes == nil {
		req.ResponseTypes = []string{string(oidc.ResponseTypeCode)}
	}
	if len(req.ResponseTypes) != 1 || req.ResponseTypes[0] != string(oidc.ResponseTypeCode) {
		return Client{}, nil, "invalid_client_metadata", "response_types may be code alone"
	}
	c := Client{ID: newID(), RedirectURIs: slices.Clone(req.RedirectURIs), ClientCredentials: cc}
	resp := &registered{ClientID: c.ID, ClientIDIssuedAt: time.Now().Unix(), registration: req}
	if !public {
		c.Secret = newID()
		never := int64(0)
		resp.ClientSecret, resp.ClientSecretExpiresAt = c.Secret, &never
	}
	return c, resp, "", ""
}

// checkRedirectURI checks a redirect URI to register: absolute, without
// fragment, https or loopback http (RFC 8252 §7.3; OAuth 2.1 §2.3.1).
func checkRedirectURI(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Fragment != "" {
		return errors.New("a redirect URI must be an absolute URL without fragment")
	}
	if _, loopback := op.HTTPLoopbackOrLocalhost(s); u.Scheme != "https" && !(u.Scheme == "http" && loopback) {
		return errors.New("a redirect URI must be https, or http on a loopback address")
	}
	return nil
}

func registrationFailed(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(registrationError{Error: code, Description: description})
}
