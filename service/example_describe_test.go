package service_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolrpc/toolrpc/service"
)

// Thermostat documents its methods in Go, next to them: MethodDocs is
// keyed by Go method name, checked at registration, and not served.
type Thermostat struct{}

// SetParams are set's params.
type SetParams struct {
	Celsius float64 `json:"celsius" validate:"gte=5,lte=30" jsonschema:"the target temperature"`
}

func (Thermostat) Set(p SetParams) error { return nil }

func (Thermostat) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{
		"Set": {Title: "Set the temperature", Description: "Sets the target temperature, in degrees Celsius."},
	}
}

func ExampleDocumented() {
	svc := service.New(nil)
	if err := svc.Register("", Thermostat{}); err != nil {
		panic(err)
	}
	for _, m := range svc.Describe() {
		params, _ := json.MarshalIndent(m.Params, "", "  ")
		fmt.Printf("%s (%s): %s\n%s\n", m.Name, m.ParamStructure, m.Description, params)
	}
	// Output:
	// set (either): Sets the target temperature, in degrees Celsius.
	// {
	//   "$schema": "https://json-schema.org/draft/2020-12/schema",
	//   "type": "object",
	//   "properties": {
	//     "celsius": {
	//       "description": "the target temperature",
	//       "type": "number",
	//       "minimum": 5,
	//       "maximum": 30
	//     }
	//   },
	//   "required": [
	//     "celsius"
	//   ],
	//   "additionalProperties": false
	// }
}
