package toolrpc_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
