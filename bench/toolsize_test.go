package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	toolmcp "github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/service"
)

// The notes server: four tools, as a newcomer wrote them (issue 21), once
// with package mcp and once with the official Go SDK, the same names,
// descriptions and argument rules on both sides, each tool answering text
// (no outputSchema on either side).

// Notes is the notes server for package mcp: its validate tags are the
// rules, and the published schema says them.
type Notes struct{}

// AddNoteArgs are add_note's arguments.
type AddNoteArgs struct {
	Title string   `json:"title" validate:"required" jsonschema:"the note's title"`
	Body  string   `json:"body,omitempty" jsonschema:"the note's text"`
	Tags  []string `json:"tags,omitempty" validate:"max=5,unique" jsonschema:"labels, at most 5, no repeats"`
}

// ListNotesArgs are list_notes' arguments.
type ListNotesArgs struct {
	Tag   string `json:"tag,omitempty" jsonschema:"only the notes with this tag"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,min=1,max=100" jsonschema:"at most this many notes (default 10)"`
}

// NoteID are the arguments of get_note and delete_note.
type NoteID struct {
	ID int `json:"id" validate:"min=1" jsonschema:"the note's id"`
}

// MethodDocs describes the tools.
func (Notes) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{
		"AddNote":    {Description: notesDocs["add_note"]},
		"ListNotes":  {Description: notesDocs["list_notes"]},
		"GetNote":    {Description: notesDocs["get_note"]},
		"DeleteNote": {Description: notesDocs["delete_note"]},
	}
}

var notesDocs = map[string]string{
	"add_note":    "Adds a note and returns its id.",
	"list_notes":  "Lists the notes, newest first.",
	"get_note":    "Returns the note with this id.",
	"delete_note": "Deletes the note with this id.",
}

// AddNote adds a note.
func (Notes) AddNote(AddNoteArgs) string { return "1" }

// ListNotes lists the notes.
func (Notes) ListNotes(ListNotesArgs) string { return "" }

// GetNote returns a note.
func (Notes) GetNote(NoteID) string { return "" }

// DeleteNote deletes a note.
func (Notes) DeleteNote(NoteID) string { return "" }

// sdkNotes are the Go SDK's notes tools: their schemas inferred from the
// same structs (the SDK reads the jsonschema tag as a description), and,
// for the SDK to check what our validate tags check, the rules added by
// hand where exact says so (the SDK does not read validate tags).
func sdkNotes(t testing.TB, exact bool) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1.0.0"},
		&sdk.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	schemaOf := func(v any, rules func(*jsonschema.Schema)) *jsonschema.Schema {
		var s *jsonschema.Schema
		var err error
		switch v.(type) {
		case AddNoteArgs:
			s, err = jsonschema.For[AddNoteArgs](nil)
		case ListNotesArgs:
			s, err = jsonschema.For[ListNotesArgs](nil)
		default:
			s, err = jsonschema.For[NoteID](nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if exact {
			rules(s)
		}
		return s
	}
	ptr := func(f float64) *float64 { return &f }
	add := schemaOf(AddNoteArgs{}, func(s *jsonschema.Schema) {
		s.Properties["title"].MinLength = jsonschema.Ptr(1)
		s.Properties["tags"].MaxItems = jsonschema.Ptr(5)
		s.Properties["tags"].UniqueItems = true
	})
	list := schemaOf(ListNotesArgs{}, func(s *jsonschema.Schema) {
		s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = ptr(1), ptr(100)
	})
	id := func() *jsonschema.Schema {
		return schemaOf(NoteID{}, func(s *jsonschema.Schema) { s.Properties["id"].Minimum = ptr(1) })
	}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "add_note", Description: notesDocs["add_note"], InputSchema: add},
		func(context.Context, *sdk.CallToolRequest, AddNoteArgs) (*sdk.CallToolResult, any, error) {
			return text("1"), nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "list_notes", Description: notesDocs["list_notes"], InputSchema: list},
		func(context.Context, *sdk.CallToolRequest, ListNotesArgs) (*sdk.CallToolResult, any, error) {
			return text(""), nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "get_note", Description: notesDocs["get_note"], InputSchema: id()},
		func(context.Context, *sdk.CallToolRequest, NoteID) (*sdk.CallToolResult, any, error) {
			return text(""), nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "delete_note", Description: notesDocs["delete_note"], InputSchema: id()},
		func(context.Context, *sdk.CallToolRequest, NoteID) (*sdk.CallToolResult, any, error) {
			return text(""), nil, nil
		})
	return srv
}

// toolsList is the tools array of the tools/list answer of the server
// that serve runs on r and w, after an initialize (2025-11-25).
func toolsList(t testing.TB, serve func(r io.ReadCloser, w io.WriteCloser) func()) json.RawMessage {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	wait := serve(inR, outW)
	defer func() {
		inW.Close()
		outR.Close()
		wait()
	}()
	lines := bufio.NewReader(outR)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id string) []byte {
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(line), `"id":`+id) {
				return line
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	answer("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var reply struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer("2"), &reply); err != nil {
		t.Fatal(err)
	}
	return reply.Result.Tools
}

// TestToolsListSize prints the bytes of the notes server's tools array
// from package mcp and from the Go SDK (with the rules added by hand, and
// as inferred alone), and fails if ours is the larger (issue 21: a tool
// list is sent to a model with every prompt).
func TestToolsListSize(t *testing.T) {
	ours := toolsList(t, func(r io.ReadCloser, w io.WriteCloser) func() {
		s := toolmcp.New(&toolmcp.Options{Name: "notes", Version: "1.0.0", Service: service.Options{Names: service.SnakeCase}})
		if err := s.Register("", Notes{}); err != nil {
			t.Fatal(err)
		}
		return goWait(func() { _ = s.Serve(context.Background(), r, w, toolrpcOptions()) })
	})
	sdkServe := func(exact bool) func(r io.ReadCloser, w io.WriteCloser) func() {
		return func(r io.ReadCloser, w io.WriteCloser) func() {
			srv := sdkNotes(t, exact)
			return goWait(func() { _ = srv.Run(context.Background(), &sdk.IOTransport{Reader: r, Writer: w}) })
		}
	}
	theirs := toolsList(t, sdkServe(true))
	inferred := toolsList(t, sdkServe(false))
	fmt.Printf("tools/list tools array, notes server (4 tools):\n")
	fmt.Printf("  toolrpc mcp                      %5d bytes\n", len(ours))
	fmt.Printf("  go-sdk, the same rules by hand   %5d bytes\n", len(theirs))
	fmt.Printf("  go-sdk, inferred only (no rules) %5d bytes\n", len(inferred))
	if testing.Verbose() {
		fmt.Printf("toolrpc: %s\ngo-sdk:  %s\n", ours, theirs)
	}
	if len(ours) > len(theirs) {
		t.Errorf("toolrpc's tools array is %d bytes, the Go SDK's %d", len(ours), len(theirs))
	}
}
