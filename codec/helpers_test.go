package codec

import (
	"encoding/json"
	"unicode/utf8"
)

// validJSON is the reference: encoding/json's grammar plus RFC 8259's UTF-8
// rule, which encoding/json does not check.
func validJSON(b []byte) bool { return json.Valid(b) && utf8.Valid(b) }

// jsonSeeds are fuzzing seeds: valid and invalid JSON texts.
var jsonSeeds = []string{
	`0`, `-1.5e10`, `01`, `true`, `nul`, `""`, `"a\"b\u00e9"`, "\"\xff\"", `[]`, `{}`, `[1,]`,
	` { "a" : [ 1 , 2 ] } `, `{"a":1}}`, "\ufeff{}", `[1] [2]`,
}
