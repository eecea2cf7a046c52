package schema

import (
	"fmt"
	"strings"
)

// A step is one element of a validate tag, as validator runs them: left to
// right, stopping at the first that fails, at an omit* that finds nothing
// to check, or at a dive, which hands the rest to each element.
type step struct {
	kind stepKind
	raw  string // as written
	alts []rule // stepRules: one rule, or the alternatives of a|b
	keys []step // stepDive: the rules between keys and endkeys
}

type stepKind uint8

const (
	stepRules stepKind = iota
	stepDive
	stepOmitEmpty
	stepOmitZero
	stepOmitNil
	stepStructOnly    // structonly: the struct's fields are not checked
	stepNoStructLevel // nostructlevel: neither are they
)

// rule is one validation function and its parameter.
type rule struct {
	name, param string
	raw         string // as written
}

// parseTag splits a validate tag into steps, as validator parses it. A tag
// validator would refuse (it panics on them) is an error.
func parseTag(tag string) ([]step, error) {
	if tag == "" {
		return nil, nil
	}
	parts := strings.Split(tag, ",")
	var steps []step
	for i := 0; i < len(parts); i++ {
		t := parts[i]
		switch t {
		case "dive":
			s := step{kind: stepDive, raw: t}
			if i+1 < len(parts) && parts[i+1] == "keys" {
				end := i + 2
				for end < len(parts) && parts[end] != "endkeys" {
					end++
				}
				if end == len(parts) {
					return nil, fmt.Errorf("validate tag %q: keys without endkeys", tag)
				}
				keys, err := parseTag(strings.Join(parts[i+2:end], ","))
				if err != nil {
					return nil, err
				}
				s.keys = keys
				s.raw = strings.Join(parts[i:end+1], ",")
				i = end
			}
			steps = append(steps, s)
		case "keys", "endkeys":
			return nil, fmt.Errorf("validate tag %q: %s must follow dive", tag, t)
		case "omitempty":
			steps = append(steps, step{kind: stepOmitEmpty, raw: t})
		case "omitzero":
			steps = append(steps, step{kind: stepOmitZero, raw: t})
		case "omitnil":
			steps = append(steps, step{kind: stepOmitNil, raw: t})
		case "structonly":
			steps = append(steps, step{kind: stepStructOnly, raw: t})
		case "nostructlevel":
			steps = append(steps, step{kind: stepNoStructLevel, raw: t})
		default:
			s := step{kind: stepRules, raw: t}
			for _, alt := range strings.Split(t, "|") {
				name, param, _ := strings.Cut(alt, "=")
				if name == "" {
					return nil, fmt.Errorf("validate tag %q: an empty rule", tag)
				}
				// As validator does: 0x2C stands for a comma, 0x7C for a bar.
				param = strings.ReplaceAll(strings.ReplaceAll(param, "0x2C", ","), "0x7C", "|")
				s.alts = append(s.alts, rule{name: name, param: param, raw: alt})
			}
			steps = append(steps, s)
		}
	}
	return steps, nil
}

// joinSteps writes steps back as a tag.
func joinSteps(steps []step) string {
	raws := make([]string, len(steps))
	for i, s := range steps {
		raws[i] = s.raw
	}
	return strings.Join(raws, ",")
}
