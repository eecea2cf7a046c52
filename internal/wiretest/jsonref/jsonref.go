// Package jsonref is the reference JSON grammar that toolrpc's tests hold
// its scanners and encoders to. It imports nothing of toolrpc, so that the
// tests of the packages wiretest builds on (codec, internal/scan) can use
// it as well as those above.
package jsonref

import (
	"encoding/json"
	"unicode/utf8"
)

// Valid reports whether b is one JSON text as RFC 8259 has it:
// encoding/json's grammar, plus the rule that the text is UTF-8, which
// encoding/json does not check.
func Valid(b []byte) bool { return json.Valid(b) && utf8.Valid(b) }
