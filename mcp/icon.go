package mcp

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/rpchttp"
)

// An Icon is an image a client may show for the server, a tool, a prompt
// or a resource (the protocol's Icon, 2025-11-25 and later; earlier
// revisions have none, and are sent none).
type Icon struct {
	// Src is the image: an https URL, or a data: URI of the image itself
	// (base64). Required. Clients SHOULD fetch only from trusted origins
	// and take care with SVG, which may hold script.
	Src string `json:"src"`
	// MIMEType overrides the type the source gives, if it gives none or a
	// generic one: image/png, image/jpeg, image/svg+xml, image/webp...
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are the sizes it may be shown at: "48x48", "96x96", or "any"
	// for a scalable one. None: any.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is the background it is made for: "light", "dark", or ""
	// for either.
	Theme string `json:"theme,omitempty"`
}

// Iconed is implemented by a registered value whose tools have icons.
// ToolIcons is called once, at registration; its keys are Go method names,
// as Annotated's are, each must name a tool of the value, and each icon
// must be valid (see Icon); it is not a tool itself.
type Iconed interface {
	ToolIcons() map[string][]Icon
}

// IconedPrompts is [Iconed] for a value registered by
// [Server.RegisterPrompts].
type IconedPrompts interface {
	PromptIcons() map[string][]Icon
}

// checkIcons reports the first icon of icons, those of what, that is not
// valid: a Src that is neither an https URL (http for a loopback host
// only) nor a data: URI of an image, a Theme that is not "light" or
// "dark", an empty size.
func checkIcons(what string, icons []Icon) error {
	for i, ic := range icons {
		if err := checkIconSrc(ic.Src); err != nil {
			return fmt.Errorf("mcp: icon %d of %s: %w", i, what, err)
		}
		switch ic.Theme {
		case "", "light", "dark":
		default:
			return fmt.Errorf("mcp: icon %d of %s: theme %q is neither light nor dark", i, what, ic.Theme)
		}
		for _, size := range ic.Sizes {
			if size == "" || strings.ContainsAny(size, " \t\r\n") {
				return fmt.Errorf("mcp: icon %d of %s: size %q is not WxH or any", i, what, size)
			}
		}
	}
	return nil
}

// checkIconSrc reports a Src that is neither an https URL nor a data URI
// of an image.
func checkIconSrc(src string) error {
	if media, ok := strings.CutPrefix(src, "data:"); ok {
		if !strings.HasPrefix(media, "image/") || !strings.Contains(media, ",") {
			return fmt.Errorf("src is a data: URI of no image")
		}
		return nil
	}
	u, err := url.Parse(src)
	if err != nil || u.Host == "" {
		return fmt.Errorf("src %q is neither an https URL nor a data: URI", src)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !rpchttp.IsLoopbackName(u.Hostname())) {
		return fmt.Errorf("src %q is not https", src)
	}
	return nil
}

// iconsOf returns what the method of value (called name) gives, checked:
// by Go method name, the icons of each.
func iconsOf(value any, name string, method func() map[string][]Icon) (map[string][]Icon, error) {
	icons, err := declared(value, name, method)
	if err != nil {
		return nil, err
	}
	for _, goName := range slices.Sorted(maps.Keys(icons)) {
		list := icons[goName]
		if err := checkIcons(goName, list); err != nil {
			return nil, err
		}
	}
	return icons, nil
}

// toolIconsOf returns the icons of value's tools, if it has any.
func toolIconsOf(value any) (map[string][]Icon, error) {
	if ic, ok := value.(Iconed); ok {
		return iconsOf(value, "ToolIcons", ic.ToolIcons)
	}
	return nil, nil
}

// promptIconsOf returns the icons of value's prompts, if it has any.
func promptIconsOf(value any) (map[string][]Icon, error) {
	if ic, ok := value.(IconedPrompts); ok {
		return iconsOf(value, "PromptIcons", ic.PromptIcons)
	}
	return nil, nil
}
