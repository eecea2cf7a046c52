package jsonx

import "github.com/toolrpc/toolrpc/internal/wiretest/jsonref"

// validJSON is the reference grammar the encoder is held to, shared with the
// other packages' tests.
var validJSON = jsonref.Valid

// jsonSeeds are fuzzing seeds: valid and invalid JSON texts.
var jsonSeeds = []string{
	`0`, `-1.5e10`, `01`, `true`, `nul`, `""`, `"a\"b\u00e9"`, "\"\xff\"", `[]`, `{}`, `[1,]`,
	` { "a" : [ 1 , 2 ] } `, `{"a":1}}`, "\ufeff{}", `[1] [2]`,
}
