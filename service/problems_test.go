package service_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// Note is the params of Notes.Add: validated, with a nested struct.
type Note struct {
	Title string   `json:"title" validate:"required"`
	Tags  []string `json:"tags" validate:"max=5"`
	Pages int      `json:"pages" validate:"gte=0"`
	Meta  NoteMeta `json:"meta"`
}

// NoteMeta is nested in a Note.
type NoteMeta struct {
	Author string `json:"author" validate:"max=3"`
	Year   int    `json:"year"`
}

// Notes serves Add.
type Notes struct{}

// Add takes a Note.
func (Notes) Add(n Note) int { return len(n.Tags) }

// Many takes many fields, for the bound.
func (Notes) Many(m map[string]int) int { return len(m) }

// One answer lists every problem of named params: each unknown member,
// each one given twice, each value of the wrong type or out of range,
// nested ones too, in the order of the input, and then what validation
// finds in the members that decoded (not in those already at fault).
func TestEveryProblemListed(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Notes{}))
	six := `["a","b","c","d","e","f"]`
	// 150 unknown members and a missing title: 100 listed, 51 counted.
	many := make([]string, 150)
	for k := range many {
		many[k] = fmt.Sprintf(`"x%d":1`, k)
	}
	more := make([]string, 0, service.MaxFieldErrors+1)
	for k := range service.MaxFieldErrors {
		more = append(more, entry(fmt.Sprintf("x%d", k), "unknown", "", fmt.Sprintf(`unknown field \"x%d\"`, k)))
	}
	more = append(more, entry("", "more", "51", "51 more problems not listed"))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"add","params":{"title":"","tags":`+six+`,"colour":1},"id":1}
		<-- `+invalid(1,
		entry("colour", "unknown", "", `unknown field \"colour\"`),
		entry("title", "required", "", "title is required"),
		entry("tags", "max", "5", "tags must be at most 5 items long"))+`
		--> {"jsonrpc":"2.0","method":"add","params":{"colour":1,"title":"t","pages":"2","meta":{"year":2.5,"author":"abcd","x":1},"tags":[1]},"id":2}
		<-- `+invalid(2,
		entry("colour", "unknown", "", `unknown field \"colour\"`),
		entry("pages", "type", "integer", "expected an integer, got a string"),
		entry("meta.year", "type", "integer", "expected an integer, got 2.5"),
		entry("meta.x", "unknown", "", `unknown field \"x\"`),
		entry("tags[0]", "type", "string", "expected a string, got a number"))+`
		--> {"jsonrpc":"2.0","method":"add","params":{"title":"t","title":"u","pages":-1},"id":3}
		<-- `+invalid(3,
		entry("title", "duplicate", "", `member \"title\" given more than once`),
		entry("pages", "gte", "0", "pages must be at least 0"))+`
		--> {"jsonrpc":"2.0","method":"add","params":{"title":"t","meta":{"author":"abcd"}},"id":4}
		<-- `+invalid(4, entry("meta.author", "max", "3", "meta.author must be at most 3 characters long"))+`
		--> {"jsonrpc":"2.0","method":"add","params":{"colour":1},"id":5}
		<-- `+invalid(5,
		entry("colour", "unknown", "", `unknown field \"colour\"`),
		entry("title", "required", "", "title is required"))+`
		--> {"jsonrpc":"2.0","method":"add","params":{`+strings.Join(many, ",")+`},"id":6}
		<-- `+invalid(6, more...)+`
		--> {"jsonrpc":"2.0","method":"add","params":["t",[1],"x",{}],"id":7}
		<-- `+invalid(7, entry("tags[0]", "type", "string", "expected a string, got a number")), nil)
}

// An array longer than its field's max is refused as it always was, and
// costs no more than max+1 decoded values: Add's tags (max=5) sent a
// million strings allocate what six do, within 64 KiB (issue 23: arguments
// were decoded whole before validation).
func TestALongArrayIsRefusedWithoutBeingDecoded(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", Notes{}))
	tags := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(`"tag",`, n), ",") + "]" }
	want := invalid(1, entry("tags", "max", "5", "tags must be at most 5 items long"))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"add","params":{"title":"t","tags":`+tags(1_000_000)+`},"id":1}
		<-- `+want, nil)

	call := func(n int) func() {
		req := &rpc.Request{ID: []byte("1"), Method: "add", Params: []byte(`{"title":"t","tags":` + tags(n) + `}`)}
		return func() {
			if _, err := svc.Handle(context.Background(), req); err == nil {
				t.Fatal("accepted")
			}
		}
	}
	six, million := wiretest.Allocated(call(6)), wiretest.Allocated(call(1_000_000))
	t.Logf("allocated for 6 tags: %d B; for a million: %d B", six, million)
	// Decoded whole, a million tags are 16 MB of string headers alone.
	assert.Less(t, million, six+64<<10, "a million tags cost what six do")
}

// unnamedParams declares its methods' params as unnamed struct types.
type unnamedParams struct{}

// Stats takes an unnamed struct.
func (unnamedParams) Stats(p struct {
	Values []float64 `json:"values" validate:"required,min=1,max=3"`
	Meta   struct {
		Author string `json:"author" validate:"max=3"`
	} `json:"meta"`
}) int {
	return len(p.Values)
}

// Batch takes a slice of them.
func (unnamedParams) Batch(items []struct {
	Qty int `json:"qty" validate:"min=1"`
}) int {
	return len(items)
}

// A problem of params declared as an unnamed struct type names its field,
// as one of a named type does (the validator gives such a struct no name
// of its own: "values must be at most 3 items long" was "params must be
// at most 3 items long", field "").
func TestUnnamedParamsNameTheirFields(t *testing.T) {
	svc := service.New(nil)
	require.NoError(t, svc.Register("", unnamedParams{}))
	wiretest.Serve(t, svc, `
		--> {"jsonrpc":"2.0","method":"stats","params":{"values":[1,2,3,4]},"id":1}
		<-- `+invalid(1, entry("values", "max", "3", "values must be at most 3 items long"))+`
		--> {"jsonrpc":"2.0","method":"stats","params":{"values":[]},"id":2}
		<-- `+invalid(2, entry("values", "min", "1", "values must be at least 1 items long"))+`
		--> {"jsonrpc":"2.0","method":"stats","params":{"values":[1],"meta":{"author":"abcd"}},"id":3}
		<-- `+invalid(3, entry("meta.author", "max", "3", "meta.author must be at most 3 characters long"))+`
		--> {"jsonrpc":"2.0","method":"batch","params":[{"qty":1},{"qty":0}],"id":4}
		<-- `+invalid(4, entry("[1].qty", "min", "1", "[1].qty must be at least 1"))+`
		--> {"jsonrpc":"2.0","method":"stats","params":{"values":[1]},"id":5}
		<-- {"jsonrpc":"2.0","result":1,"id":5}`, nil)
}
