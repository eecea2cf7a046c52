package interop

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/wiretest"
	"github.com/toolrpc/toolrpc/mcp"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/service"
)

// serveWatched serves s over a pair of pipes, returning the client's ends;
// acked.seen is closed once the server writes a listen's acknowledgment,
// served gets what Serve returns.
func serveWatched(ctx context.Context, s *mcp.Server) (cr *io.PipeReader, cw *io.PipeWriter, acked *watchWriter, served chan error) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	acked = &watchWriter{w: sw, needle: []byte(`"notifications/subscriptions/acknowledged"`), seen: make(chan struct{})}
	served = make(chan error, 1)
	go func() {
		served <- s.Serve(ctx, sr, acked, &rpc.Options{Logger: discard})
		sw.Close()
	}()
	return cr, cw, acked, served
}

// featurePrompts are the prompts of the features' interop test.
type featurePrompts struct{}

type greetArgs struct {
	Name  string `json:"name" validate:"required" jsonschema:"who to greet"`
	Style string `json:"style,omitempty"`
}

func (featurePrompts) Greet(a greetArgs) *mcp.PromptResult {
	return &mcp.PromptResult{Description: "a greeting", Messages: []mcp.PromptMessage{
		{Content: mcp.TextContent{Text: "Greet " + a.Name}},
		{Role: "assistant", Content: mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: "hello"}}},
		{Content: mcp.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}},
	}}
}

func (featurePrompts) MethodDocs() map[string]service.MethodDoc {
	return map[string]service.MethodDoc{"Greet": {Title: "Greeting", Description: "Greets someone."}}
}

// featureServer is a server of resources, a template, prompts and
// completion.
func featureServer(t *testing.T) *mcp.Server {
	s := mcp.New(&mcp.Options{Name: "features", Version: "1.0.0"})
	text := func(body string) func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
		return func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: body}}, nil
		}
	}
	require.NoError(t, s.AddResources(
		mcp.Resource{URI: "test://static-text", Name: "static-text", Title: "Static", MIMEType: "text/plain", Read: text("hello")},
		mcp.Resource{URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png",
			Read: func(context.Context, string, map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Blob: []byte{1, 2, 3}}}, nil
			}},
		mcp.Resource{Template: "test://template/{id}/data", Name: "template", MIMEType: "application/json",
			Read: func(_ context.Context, _ string, vars map[string]string) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Text: fmt.Sprintf(`{"id":%q}`, vars["id"])}}, nil
			}},
	))
	require.NoError(t, s.RegisterPrompts("", featurePrompts{}))
	s.SetCompletion(func(_ context.Context, req mcp.CompleteRequest) ([]string, error) {
		var out []string
		for _, v := range []string{"ada", "alan", "grace"} {
			if strings.HasPrefix(v, req.Value) {
				out = append(out, req.Prompt+req.Template+":"+v)
			}
		}
		return out, nil
	})
	return s
}

// The official Go SDK's client (v1.8.0) against resources, prompts and
// completion served by package mcp, in both eras: it lists and reads the
// resources (text, binary, through a template), lists the templates, lists
// and gets the prompts (text, an embedded resource, an image), sees a
// missing argument and an unknown resource as errors, completes a prompt's
// argument and a template's variable, and subscribes to a resource
// (resources/subscribe in the legacy era, subscriptions/listen in the
// modern one), hearing of its update.
func TestGoSDKClientFeatures(t *testing.T) {
	for _, version := range []string{mcp.Latest, mcp.LatestLegacy} {
		t.Run(version, func(t *testing.T) {
			checkLeaks(t)
			ctx := testContext(t)
			s := featureServer(t)
			cr, cw, acked, served := serveWatched(ctx, s)
			updated := make(chan string, 4)
			client := sdk.NewClient(&sdk.Implementation{Name: "interop", Version: "1.0.0"}, &sdk.ClientOptions{
				Logger: discard,
				ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
					updated <- req.Params.URI
				},
			})
			cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)

			resources, err := cs.ListResources(ctx, nil)
			require.NoError(t, err)
			require.Len(t, resources.Resources, 2)
			assert.Equal(t, "test://static-binary", resources.Resources[0].URI)
			assert.Equal(t, &sdk.Resource{URI: "test://static-text", Name: "static-text", Title: "Static", MIMEType: "text/plain"}, resources.Resources[1])
			templates, err := cs.ListResourceTemplates(ctx, nil)
			require.NoError(t, err)
			require.Len(t, templates.ResourceTemplates, 1)
			assert.Equal(t, "test://template/{id}/data", templates.ResourceTemplates[0].URITemplate)

			read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://static-text"})
			require.NoError(t, err)
			assert.Equal(t, "hello", read.Contents[0].Text)
			assert.Equal(t, "text/plain", read.Contents[0].MIMEType)
			read, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://static-binary"})
			require.NoError(t, err)
			assert.Equal(t, []byte{1, 2, 3}, read.Contents[0].Blob)
			read, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://template/42/data"})
			require.NoError(t, err)
			assert.Equal(t, `{"id":"42"}`, read.Contents[0].Text)
			assert.Equal(t, "test://template/42/data", read.Contents[0].URI)
			_, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "test://nothing"})
			assert.ErrorContains(t, err, "Resource not found")

			prompts, err := cs.ListPrompts(ctx, nil)
			require.NoError(t, err)
			require.Len(t, prompts.Prompts, 1)
			assert.Equal(t, &sdk.Prompt{Name: "greet", Title: "Greeting", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{
				{Name: "name", Description: "who to greet", Required: true}, {Name: "style"}}}, prompts.Prompts[0])
			got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
			require.NoError(t, err)
			assert.Equal(t, "a greeting", got.Description)
			require.Len(t, got.Messages, 3)
			assert.Equal(t, sdk.Role("user"), got.Messages[0].Role)
			assert.Equal(t, "Greet Ada", got.Messages[0].Content.(*sdk.TextContent).Text)
			assert.Equal(t, sdk.Role("assistant"), got.Messages[1].Role)
			assert.Equal(t, "hello", got.Messages[1].Content.(*sdk.EmbeddedResource).Resource.Text)
			assert.Equal(t, []byte{1, 2, 3}, got.Messages[2].Content.(*sdk.ImageContent).Data)
			_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "greet"})
			assert.ErrorContains(t, err, "Invalid params", "name is required (-32602)")
			_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "nope"})
			assert.ErrorContains(t, err, "Unknown prompt: nope")

			done, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "greet"},
				Argument: sdk.CompleteParamsArgument{Name: "name", Value: "a"}})
			require.NoError(t, err)
			assert.Equal(t, sdk.CompletionResultDetails{Values: []string{"greet:ada", "greet:alan"}, Total: 2}, done.Completion)
			done, err = cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"},
				Argument: sdk.CompleteParamsArgument{Name: "id", Value: "g"}})
			require.NoError(t, err)
			assert.Equal(t, []string{"test://template/{id}/data:grace"}, done.Completion.Values)

			subscribed := make(chan error, 1)
			if version == mcp.Latest {
				// Subscribe opens a subscriptions/listen, answered when
				// Unsubscribe cancels it.
				go func() { subscribed <- cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "test://static-text"}) }()
				wiretest.Receive(t, acked.seen, "the listen's acknowledgment")
			} else {
				require.NoError(t, cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "test://static-text"}))
			}
			s.ResourceUpdated("test://static-binary")
			s.ResourceUpdated("test://static-text")
			assert.Equal(t, "test://static-text", wiretest.Receive(t, updated, "notifications/resources/updated"))
			require.NoError(t, cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: "test://static-text"}))
			if version == mcp.Latest {
				wiretest.Receive(t, subscribed, "the end of the listen")
			}

			require.NoError(t, cs.Close())
			assert.NoError(t, wiretest.Receive(t, served, "the end of serving"))
			assert.Empty(t, updated, "no update but static-text's")
		})
	}
}
