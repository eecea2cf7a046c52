package schema_test

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/toolrpc/toolrpc/schema"
)

type DivideParams struct {
	A float64 `json:"a" jsonschema:"the dividend"`
	B float64 `json:"b" validate:"ne=0" jsonschema:"the divisor"`
}

func Example() {
	s, err := schema.New(nil).For(reflect.TypeFor[DivideParams]())
	if err != nil {
		panic(err)
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "$schema": "https://json-schema.org/draft/2020-12/schema",
	//   "type": "object",
	//   "properties": {
	//     "a": {
	//       "description": "the dividend",
	//       "type": "number"
	//     },
	//     "b": {
	//       "description": "the divisor",
	//       "type": "number",
	//       "not": {
	//         "const": 0
	//       }
	//     }
	//   },
	//   "required": [
	//     "b"
	//   ],
	//   "additionalProperties": false
	// }
}

type SearchParams struct {
	Query string   `json:"query" validate:"required,max=200"`
	Limit int      `json:"limit" validate:"omitempty,min=1,max=50"`
	Tags  []string `json:"tags" validate:"omitempty,max=5,dive,alphanum"`
	Since string   `json:"since" validate:"omitempty,datetime=2006-01-02"`
}

func ExampleGenerator_For() {
	s, _ := schema.New(nil).For(reflect.TypeFor[SearchParams]())
	b, _ := json.Marshal(s.Properties["limit"])
	fmt.Println("limit:", string(b))
	b, _ = json.Marshal(s.Properties["tags"])
	fmt.Println("tags: ", string(b))
	b, _ = json.Marshal(s.Properties["since"])
	fmt.Println("since:", string(b))
	fmt.Println("required:", s.Required)
	// Output:
	// limit: {"type":"integer","minimum":0,"maximum":50}
	// tags:  {"type":["array","null"],"items":{"type":"string","pattern":"^[a-zA-Z0-9]+$"},"maxItems":5}
	// since: {"anyOf":[{"const":""},{"type":"string","format":"date"}],"x-validate":"datetime=2006-01-02"}
	// required: [query]
}

// Priority is written as a word, which its UnmarshalJSON reads.
type Priority int

func (p *Priority) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"low"`:
		*p = 1
	case `"high"`:
		*p = 2
	case "null":
	default:
		return fmt.Errorf("priority %s: want low or high", b)
	}
	return nil
}

// JSONSchema says so. Which values UnmarshalJSON makes zero, and so what
// required leaves out beyond an absent member, the schema cannot know: it
// names the rule in x-validate.
func (Priority) JSONSchema() *schema.Schema {
	return &schema.Schema{Enum: []json.RawMessage{[]byte(`"low"`), []byte(`"high"`)}}
}

type TaskParams struct {
	Priority Priority `json:"priority" validate:"required"`
}

func ExampleProvider() {
	s, _ := schema.New(nil).For(reflect.TypeFor[TaskParams]())
	b, _ := json.Marshal(s.Properties["priority"])
	fmt.Println(string(b), s.Required)
	// Output:
	// {"enum":["low","high"],"x-validate":"required"} [priority]
}
