package toolrpc_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/examples/calculator/calc"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// block is a fenced code block of the README.
type block struct{ lang, text string }

// fence matches a fenced code block: its language and its text.
var fence = regexp.MustCompile("(?ms)^```(\\w*)\n(.*?)^```$")

// The README's quick start is the first thing a newcomer reads, and it
// cannot drift from the code: its Go program is examples/quickstart/main.go
// byte for byte (which the build compiles and this test runs), what it
// shows the program answer is what the program answers, and the install
// line and the two commands are there.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	sections := strings.Split(string(readme), "\n## ")
	require.Greater(t, len(sections), 1)
	quickStart := sections[1]
	require.True(t, strings.HasPrefix(quickStart, "Quick start\n"), "the README's first section is the quick start")

	var blocks []block
	for _, m := range fence.FindAllStringSubmatch(quickStart, -1) {
		blocks = append(blocks, block{m[1], m[2]})
	}
	require.Len(t, blocks, 4, "install, program, what it answers, the two commands")

	assert.Equal(t, block{"sh", "go get github.com/toolrpc/toolrpc\n"}, blocks[0], "the install line, with the module path")

	program, err := os.ReadFile("examples/quickstart/main.go")
	require.NoError(t, err)
	assert.Equal(t, block{"go", string(program)}, blocks[1], "the program is examples/quickstart/main.go")
	assert.Regexp(t, "\nfunc main\\(\\) \\{\n\t[^\n]+\n\\}\n$", blocks[1].text, "main is three lines")

	assert.Equal(t, "sh", blocks[2].lang)
	bin := binary(t, "./examples/quickstart")
	command := regexp.MustCompile(`^\$ echo '(.*)' \| go run \./examples/quickstart$`)
	var ran int
	lines := strings.Split(strings.TrimSuffix(blocks[2].text, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		m := command.FindStringSubmatch(lines[i])
		require.NotNil(t, m, "a command: %q", lines[i])
		var want []string
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") {
			i++
			want = append(want, lines[i])
		}
		cmd := exec.Command(bin)
		cmd.Stdin = strings.NewReader(m[1] + "\n")
		out, err := cmd.Output()
		require.NoError(t, err, "%s", lines[i])
		assert.Equal(t, strings.Join(want, "\n")+"\n", string(out), "what %q answers", m[1])
		ran++
	}
	assert.Equal(t, 2, ran)

	assert.Equal(t, block{"sh", "" +
		"go run ./examples/demo     # a transcript of the wire: calls, errors, a batch, progress\n" +
		"go test -race ./...        # every test, with the race detector\n"}, blocks[3], "the two commands")
}

// TestDocsRules holds the table of rules of docs/tools-and-schemas.md: each row's params,
// sent to the calculator, are answered -32602 with exactly the row's data,
// and the method's published params schema holds, at the row's JSON
// Pointer, exactly the row's value.
func TestDocsRules(t *testing.T) {
	readme, err := os.ReadFile("docs/tools-and-schemas.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `(\\w+)` \\| `([^`]+)` \\| .+ \\| `(/[^`]*)`: `([^`]+)` \\| `(\\[.*\\])` \\|$")
	rows := row.FindAllStringSubmatch(string(readme), -1)
	require.Len(t, rows, 8, "the rows of the table")

	srv := calc.Server()
	srv.Logger = slog.New(slog.DiscardHandler)
	h, err := srv.Handler(&calc.Calculator{})
	require.NoError(t, err)
	svc := service.New(&service.Options{Names: service.SnakeCase})
	require.NoError(t, svc.Register("", &calc.Calculator{}))
	for _, r := range rows {
		method, params, pointer, value, data := r[1], r[2], r[3], r[4], r[5]
		t.Run(method+" "+params, func(t *testing.T) {
			_, err := h.Handle(context.Background(), &rpc.Request{ID: json.RawMessage("1"), Method: method, Params: json.RawMessage(params)})
			var e *rpc.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, rpc.InvalidParams, e.Code)
			got, err := json.Marshal(e.Data)
			require.NoError(t, err)
			assert.Equal(t, data, string(got))

			m, ok := svc.Method(method)
			require.True(t, ok)
			doc, err := json.Marshal(m.Params)
			require.NoError(t, err)
			var node any
			require.NoError(t, json.Unmarshal(doc, &node))
			for _, step := range strings.Split(pointer, "/")[1:] {
				obj, ok := node.(map[string]any)
				require.True(t, ok, "%s: %s is not an object in %s", pointer, step, doc)
				node, ok = obj[step]
				require.True(t, ok, "%s: no %s in %s", pointer, step, doc)
			}
			at, err := json.Marshal(node)
			require.NoError(t, err)
			assert.JSONEq(t, value, string(at), "%s in %s", pointer, doc)
		})
	}
}
