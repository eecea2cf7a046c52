package toolrpc_test

// The documentation cannot go stale: every fenced code block of README.md
// and docs/*.md is compiled or run by TestDocsCodeBlocks, and every
// relative link resolves (TestDocsLinks). The convention, by the block's
// language and an HTML comment on the line just before its fence:
//
//   - <!-- file: PATH --> before any block: the block is the file PATH (from
//     the module root) byte for byte; the build compiles it, its tests run it.
//   - ```go whose text starts with "package ": a complete file, compiled
//     (go vet) in a directory of its own inside the module.
//   - <!-- snippet --> before a ```go block: statements, compiled as the body
//     of func snippet(ctx context.Context) (err error), in a file importing
//     the packages of snippetImports (each used, so a snippet need not use
//     it).
//   - ```sh whose lines start with "$ ": a transcript. Each command is
//     `echo 'LINE' | go run ./examples/X [flags]` or
//     `printf '%s\n' 'LINE' 'LINE'... | go run ./examples/X [flags]`; the
//     lines after it, up to the next command, are exactly what it writes to
//     standard output. With <!-- abridged --> before the block, "..."
//     stands for anything and a line that starts with a space continues the
//     line before it.
//   - <!-- commands --> before a ```sh block: commands, not run; each
//     `go run ./PATH [flags]` must name a package whose usage (-h) lists
//     each flag, and each `go test ... ./PATH/...` or `cd PATH` an existing
//     directory.
//   - ```json: valid JSON.
//   - ```jsonrpc: a wire transcript, "--> " a line the peer sends, "<-- "
//     one it gets back, run against the spec handler of helpers_test.go
//     (the specification's examples and the probe.* methods) by
//     wiretest.Steps, so the order of the lines is checked too. Before it,
//     <!-- wire: OPTION ... --> sets options: MaxFrameSize=N, or lsp (LSP
//     framing; \r\n in a line is CR LF, and the lines are bytes, not
//     lines).
//   - Nothing else is allowed: a block of another kind fails the test,
//     unless it is marked <!-- not tested: REASON -->; so does an indented
//     code block (TestDocsNoIndentedCode), which could hold nothing marked.
//
// The README's quick start has its own, stricter test (TestReadmeQuickStart).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/rpc"
)

// docBlock is a fenced code block of a documentation page.
type docBlock struct {
	page, lang, mark, text string
	line                   int // of the opening fence
}

// docFence matches a fenced code block and the HTML comment before it.
var docFence = regexp.MustCompile("(?ms)(?:^<!-- ([^\n]*?) -->\n)?^```(\\w*)\n(.*?)^```$")

// docPages are the pages whose blocks and links are tested.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(pages), 5, "docs/ has a page per topic")
	return append([]string{"README.md"}, pages...)
}

// docBlocks are the fenced code blocks of page.
func docBlocks(t *testing.T, page string) []docBlock {
	t.Helper()
	text, err := os.ReadFile(page)
	require.NoError(t, err)
	var blocks []docBlock
	for _, m := range docFence.FindAllSubmatchIndex(text, -1) {
		b := docBlock{page: page, lang: string(text[m[4]:m[5]]), text: string(text[m[6]:m[7]]),
			line: 1 + bytes.Count(text[:m[4]], []byte("\n"))}
		if m[2] >= 0 {
			b.mark = string(text[m[2]:m[3]])
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// snippetImports are the packages a snippet may use.
var snippetImports = map[string]string{
	"context":                               "context.Background",
	"errors":                                "errors.Is",
	"fmt":                                   "fmt.Println",
	"log/slog":                              "slog.New",
	"net/http":                              "http.NewServeMux",
	"os/exec":                               "exec.Command",
	"time":                                  "time.Second",
	"github.com/toolrpc/toolrpc":            "toolrpc.Main",
	"github.com/toolrpc/toolrpc/rpc":        "rpc.Serve",
	"github.com/toolrpc/toolrpc/service":    "service.New",
	"github.com/toolrpc/toolrpc/middleware": "middleware.Default",
	"github.com/toolrpc/toolrpc/mcp":        "mcp.New",
	"github.com/toolrpc/toolrpc/auth":       "auth.IdentityFrom",
	"github.com/toolrpc/toolrpc/auth/jwt":   "jwt.NewVerifier",
	"github.com/toolrpc/toolrpc/examples/calculator/calc": "calc.Server",
}

// snippetFile is the Go file a snippet is compiled in.
func snippetFile(body string) string {
	var b strings.Builder
	b.WriteString("package snippet\n\nimport (\n")
	for path := range snippetImports {
		fmt.Fprintf(&b, "\t%q\n", path)
	}
	b.WriteString(")\n\nvar (\n")
	for _, use := range snippetImports {
		fmt.Fprintf(&b, "\t_ = %s\n", use)
	}
	b.WriteString(")\n\nfunc snippet(ctx context.Context) (err error) {\n")
	b.WriteString(body)
	b.WriteString("\treturn err\n}\n")
	return b.String()
}

// transcriptCommand is a transcript's command: its input lines, the
// package it runs and its flags.
var transcriptCommand = regexp.MustCompile(`^\$ (?:echo|printf '%s\\n') ((?:'[^']*' ?)+)\| go run (\./examples/\w+)((?: -[\w-]+(?: [\w:]+)?)*)$`)

// quoted matches one single-quoted argument.
var quoted = regexp.MustCompile(`'([^']*)'`)

func TestDocsCodeBlocks(t *testing.T) {
	// The complete files and the snippets are compiled at once, each in a
	// directory of its own inside the module, so that its imports resolve.
	root, err := os.MkdirTemp(".", ".docs-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	var compiled []string          // ./dir of each
	where := map[string]docBlock{} // dir -> its block
	compile := func(b docBlock, file string) {
		dir := filepath.Join(root, fmt.Sprintf("b%d", len(compiled)))
		require.NoError(t, os.Mkdir(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(file), 0o644))
		compiled = append(compiled, "./"+filepath.ToSlash(dir))
		where[filepath.Base(dir)] = b
	}

	var ran int
	for _, page := range docPages(t) {
		for _, b := range docBlocks(t, page) {
			name := fmt.Sprintf("%s:%d", b.page, b.line)
			switch {
			case strings.HasPrefix(b.mark, "not tested: "):
				require.NotEmpty(t, strings.TrimPrefix(b.mark, "not tested: "), "%s: the reason", name)
			case strings.HasPrefix(b.mark, "file: "):
				want, err := os.ReadFile(strings.TrimPrefix(b.mark, "file: "))
				require.NoError(t, err, name)
				assert.Equal(t, string(want), b.text, "%s is %s byte for byte", name, b.mark)
			case b.lang == "go" && b.mark == "snippet":
				compile(b, snippetFile(b.text))
			case b.lang == "go" && b.mark == "" && strings.HasPrefix(b.text, "package "):
				compile(b, b.text)
			case b.lang == "sh" && b.mark == "commands":
				checkCommands(t, name, b.text)
			case b.lang == "sh" && (b.mark == "" || b.mark == "abridged") && strings.HasPrefix(b.text, "$ "):
				ran += runTranscript(t, name, b.text, b.mark == "abridged")
			case b.lang == "json" && b.mark == "":
				assert.True(t, json.Valid([]byte(b.text)), "%s is valid JSON", name)
			case b.lang == "jsonrpc" && (b.mark == "" || strings.HasPrefix(b.mark, "wire: ")):
				t.Run(name, func(t *testing.T) { runWire(t, b.text, strings.Fields(strings.TrimPrefix(b.mark, "wire: "))) })
			case page == "README.md" && b.lang == "sh" && b.mark == "" && !strings.HasPrefix(b.text, "$ "):
				// The quick start's install line and two commands:
				// TestReadmeQuickStart holds them.
			default:
				t.Errorf("%s: a ```%s block marked %q follows none of the rules of docs_test.go", name, b.lang, b.mark)
			}
		}
	}
	assert.Greater(t, ran, 0, "transcripts were run")
	require.NotEmpty(t, compiled)
	out, err := exec.Command("go", append([]string{"vet"}, compiled...)...).CombinedOutput()
	if err != nil {
		// Name the pages whose blocks failed.
		msg := string(out)
		for dir, b := range where {
			if strings.Contains(msg, "/"+dir+"/") || strings.Contains(msg, "/"+dir+"\n") {
				t.Errorf("%s:%d: this ```go block does not compile", b.page, b.line)
			}
		}
		t.Fatalf("go vet: %v\n%s", err, msg)
	}
}

// runTranscript runs each command of a transcript and compares what it
// writes with the lines after it; it returns the commands run.
func runTranscript(t *testing.T, name, text string, abridged bool) int {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var ran int
	for i := 0; i < len(lines); i++ {
		m := transcriptCommand.FindStringSubmatch(lines[i])
		require.NotNil(t, m, "%s: a command of the form `echo '...' | go run ./examples/X`: %q", name, lines[i])
		var input strings.Builder
		for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
			input.WriteString(q[1] + "\n")
		}
		var want []string
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") {
			i++
			if abridged && strings.HasPrefix(lines[i], " ") && len(want) > 0 {
				want[len(want)-1] += strings.TrimPrefix(lines[i], " ")
				continue
			}
			want = append(want, lines[i])
		}
		cmd := exec.Command(binary(t, m[2]), strings.Fields(m[3])...)
		cmd.Stdin = strings.NewReader(input.String())
		out, err := cmd.Output()
		require.NoError(t, err, "%s: %s", name, lines[i])
		expected := strings.Join(want, "\n") + "\n"
		if abridged {
			pattern := "(?s)^" + strings.ReplaceAll(regexp.QuoteMeta(expected), regexp.QuoteMeta("..."), ".*") + "$"
			assert.Regexp(t, pattern, string(out), "%s: what %q writes", name, m[1])
		} else {
			assert.Equal(t, expected, string(out), "%s: what %q writes", name, m[1])
		}
		ran++
	}
	return ran
}

// usage is the -h output of each package checked, built once.
var usage sync.Map

// checkCommands checks a block of commands that are not run: the packages
// and directories they name exist, and the flags they pass are the
// programs'.
func checkCommands(t *testing.T, name, text string) {
	t.Helper()
	goRun := regexp.MustCompile(`^go run (\./[\w/]+)((?: -[\w-]+(?: [\w:]+)?)*)\s*(?:#.*)?$`)
	goTest := regexp.MustCompile(`^go test .*?(\./[\w/]*?)(?:/\.\.\.)?\s*(?:#.*)?$`)
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		line = strings.TrimSpace(line)
		if m := goRun.FindStringSubmatch(line); m != nil {
			help, ok := usage.Load(m[1])
			if !ok {
				out, _ := exec.Command(binary(t, m[1]), "-h").CombinedOutput() // -h exits 0 or 2
				help, _ = usage.LoadOrStore(m[1], string(out))
			}
			for _, f := range strings.Fields(m[2]) {
				if strings.HasPrefix(f, "-") {
					assert.Contains(t, help, "\n  "+f, "%s: %s has the flag %s", name, m[1], f)
				}
			}
			continue
		}
		if m := goTest.FindStringSubmatch(line); m != nil {
			assert.DirExists(t, m[1], "%s: %s", name, line)
			continue
		}
		t.Errorf("%s: a command docs_test.go does not check: %q", name, line)
	}
}

// docLink matches a Markdown link's target.
var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// heading matches a Markdown heading.
var heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)

// anchor is GitHub's anchor of a heading: lower case, punctuation but
// hyphens and underscores dropped, spaces as hyphens.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the anchors of a page's headings.
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(page)
	require.NoError(t, err)
	// Headings inside code blocks are not headings.
	text = docFence.ReplaceAll(text, nil)
	set := map[string]bool{}
	for _, m := range heading.FindAllSubmatch(text, -1) {
		set[anchor(string(m[1]))] = true
	}
	return set
}

// Every relative link of README.md and docs/*.md names a file that exists,
// and, with a #fragment into a Markdown page, a heading of that page.
func TestDocsLinks(t *testing.T) {
	var checked int
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range docLink.FindAllSubmatch(docFence.ReplaceAll(text, nil), -1) {
			target := string(m[1])
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
				if !assert.FileExists(t, path, "%s links to %s", page, target) {
					continue
				}
			}
			if frag != "" {
				require.True(t, strings.HasSuffix(path, ".md"), "%s: a fragment into a page that is not Markdown: %s", page, target)
				assert.True(t, anchors(t, path)[frag], "%s links to %s: no heading #%s in %s", page, target, frag, path)
			}
			checked++
		}
	}
	assert.Greater(t, checked, 20, "links were checked")
}

// The README is a front door, not a reference.
func TestReadmeIsShort(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.LessOrEqual(t, bytes.Count(readme, []byte("\n")), 300, "README.md's lines")
	for _, page := range docPages(t)[1:] {
		assert.Contains(t, string(readme), "]("+filepath.ToSlash(page)+")", "README's map of the docs names %s", page)
	}
}

// indentedCode matches an indented code block: a line of four spaces or a
// tab and text, after a blank line.
var indentedCode = regexp.MustCompile("(?m)^\n(?:    |\t)[^ \t\n].*$")

// No page holds an indented code block, which the convention of
// TestDocsCodeBlocks could not see.
func TestDocsNoIndentedCode(t *testing.T) {
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range indentedCode.FindAll(docFence.ReplaceAll(text, nil), -1) {
			t.Errorf("%s: an indented code block, not fenced: %q", page, bytes.TrimSpace(m))
		}
	}
}

// runWire runs a ```jsonrpc block against the spec handler, with the
// options its mark names.
func runWire(t *testing.T, text string, marks []string) {
	opts := rpc.Options{Logger: wiretest.Quiet()}
	lsp := false
	for _, m := range marks {
		switch name, value, _ := strings.Cut(m, "="); name {
		case "lsp":
			lsp = true
		case "MaxFrameSize":
			n, err := strconv.Atoi(value)
			require.NoError(t, err, m)
			opts.MaxFrameSize = n
		case "":
		default:
			t.Fatalf("unknown wire option %q", m)
		}
	}
	if !lsp {
		wiretest.Steps(t, newSpecHandler(), text, &opts)
		return
	}
	// LSP framing: the transcript's lines are messages, \r\n written out.
	var in, want strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.ReplaceAll(strings.TrimSpace(line), `\r\n`, "\r\n")
		switch {
		case strings.HasPrefix(line, "--> "):
			in.WriteString(strings.TrimPrefix(line, "--> "))
		case strings.HasPrefix(line, "<-- "):
			want.WriteString(strings.TrimPrefix(line, "<-- "))
		default:
			t.Fatalf("not a transcript line: %q", line)
		}
	}
	opts.Framing = rpc.FramingLSP
	opts.Sequential = true
	var out bytes.Buffer
	require.NoError(t, rpc.Serve(context.Background(), strings.NewReader(in.String()), &out, newSpecHandler(), &opts))
	assert.Equal(t, want.String(), out.String())
}

// The transcripts of the package docs (go doc) are run too, as ```jsonrpc
// blocks are: each run of "-->"/"<--" lines of rpc/doc.go.
func TestPackageDocTranscripts(t *testing.T) {
	src, err := os.ReadFile("rpc/doc.go")
	require.NoError(t, err)
	var runs []string
	var cur []string
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimPrefix(strings.TrimPrefix(line, "//"), "\t")
		if strings.HasPrefix(line, "--> ") || strings.HasPrefix(line, "<-- ") {
			cur = append(cur, line)
			continue
		}
		if len(cur) > 0 {
			runs = append(runs, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	require.NotEmpty(t, runs, "rpc/doc.go shows transcripts")
	for i, tr := range runs {
		t.Run(fmt.Sprint(i), func(t *testing.T) { runWire(t, tr, nil) })
	}
}
