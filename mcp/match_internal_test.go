package mcp

import (
	"strings"
	"testing"
)

// FuzzMayMatch: the test of a template's literals that comes before its
// regexp never refuses a URI the regexp matches, for templates of two
// variables, of either level, between and around any literals.
func FuzzMayMatch(f *testing.F) {
	for _, seed := range [][4]string{
		{"a", "a", "", "aa"}, {"", "ab", "ab", "abab"}, {"x://", ".", "", "x://1.2.3"},
		{"p", "/s", "", "p/s"}, {"ab", "", "ba", "aba"}, {"%41", "%", "", "%41%41%"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], false, true)
	}
	f.Fuzz(func(t *testing.T, pre, mid, post, uri string, plusA, plusB bool) {
		if strings.ContainsAny(pre+mid+post, "{}") {
			return
		}
		v := func(name string, plus bool) string {
			if plus {
				return "{+" + name + "}"
			}
			return "{" + name + "}"
		}
		tmpl, err := parseTemplate(pre + v("a", plusA) + mid + v("b", plusB) + post)
		if err != nil {
			return // not valid UTF-8
		}
		if tmpl.re.MatchString(uri) && !mayMatch(tmpl.parts, uri) {
			t.Fatalf("%q matches %s, but its literals were refused", uri, tmpl.re)
		}
	})
}
