package mcp

import "testing"

// normalURI decodes the escapes of unreserved characters alone, and
// leaves a URI without one as it is.
func TestAttack24NormalURI(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "db://a": "db://a", "%": "%", "%7": "%7", "a%7": "a%7", "%zz%41": "%zzA", "%41": "A",
		"x%7e%7E%2d%2E%5f": "x~~-._", "a%2Fb%2f%20%25%3A": "a%2Fb%2f%20%25%3A", "%%41": "%A", "%2541": "%2541", "%61%62c": "abc",
	} {
		if got := normalURI(in); got != want {
			t.Errorf("normalURI(%q) = %q, want %q", in, got, want)
		}
	}
}
