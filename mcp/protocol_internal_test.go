package mcp

import (
	"slices"
	"testing"
)

// The method tables hold what their readers need: every request a client
// sends has a handler and a revision, every request a server sends names
// the capability it needs; the Mcp-Name members are the params members
// the transport reads (readEnvelope).
func TestMethodTables(t *testing.T) {
	for name, m := range serverMethods {
		switch {
		case m.name != name:
			t.Errorf("serverMethods[%q] is %q", name, m.name)
		case m.revs == 0 || m.revs&^allRevs != 0:
			t.Errorf("%s: revisions %b", name, m.revs)
		case !m.notification && m.serve == nil:
			t.Errorf("%s: a request with no handler", name)
		case m.nameMember != "" && (m.notification || !slices.Contains(paramsMembers, m.nameMember)):
			t.Errorf("%s: Mcp-Name member %q, not one readEnvelope reads", name, m.nameMember)
		case m.capability != "" || m.declared != nil:
			t.Errorf("%s: a client's request needs no capability of the client", name)
		}
	}
	for name, m := range clientMethods {
		switch {
		case m.name != name:
			t.Errorf("clientMethods[%q] is %q", name, m.name)
		case m.revs == 0 || m.revs&^allRevs != 0:
			t.Errorf("%s: revisions %b", name, m.revs)
		case m.serve != nil || m.nameMember != "" || m.argHeaders || m.opens || m.unversioned:
			t.Errorf("%s: a server's method holds what only a client's has", name)
		case !m.notification && (m.capability == "" || m.declared == nil):
			t.Errorf("%s: a server's request names no capability", name)
		}
	}
	var all revSet
	for i, r := range revisions {
		if r.bit == 0 || all&r.bit != 0 {
			t.Errorf("revision %s: bit %b", r.name, r.bit)
		}
		all |= r.bit
		if got, ok := revisionOf(r.name); !ok || got != revisions[i] {
			t.Errorf("revisionOf(%q) = %v, %t", r.name, got, ok)
		}
	}
	if all != allRevs {
		t.Errorf("the revisions' bits are %b, allRevs %b", all, allRevs)
	}
}
