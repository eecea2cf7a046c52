package schema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// anchorName is the syntax of an $anchor (JSON Schema 2020-12, Core,
// 8.2.2): a plain name fragment.
var anchorName = regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`)

// checkAnchors checks the anchors and references of document doc: each
// $anchor a plain name that no other schema of the document has, each $ref
// a fragment of the document ("#", "#/..." or "#" + one of its anchors).
// Only a Provider's schema can fail it: the generator makes neither.
func checkAnchors(doc *Schema) error {
	anchors := map[string]bool{}
	var refs []string
	var err error
	var visit func(s *Schema)
	visit = func(s *Schema) {
		if s == nil || err != nil {
			return
		}
		if a := s.Anchor; a != "" {
			switch {
			case !anchorName.MatchString(a):
				err = fmt.Errorf("$anchor %q is not a plain name (%s)", a, anchorName)
			case anchors[a]:
				err = fmt.Errorf("$anchor %q names two schemas of the document (a Provider's schema with an anchor is used twice?)", a)
			}
			anchors[a] = true
		}
		if s.Ref != "" {
			refs = append(refs, s.Ref)
		}
		for _, c := range children(s) {
			visit(c)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Defs)) {
			visit(s.Defs[k])
		}
	}
	visit(doc)
	if err != nil {
		return err
	}
	for _, r := range refs {
		switch {
		case !strings.HasPrefix(r, "#"):
			return fmt.Errorf("$ref %q is not in the document: a schema is self-contained", r)
		case r == "#" || strings.HasPrefix(r, "#/") || anchors[r[1:]]:
		default:
			return fmt.Errorf("$ref %q names no $anchor of the document", r)
		}
	}
	return nil
}
