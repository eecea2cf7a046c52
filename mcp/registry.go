package mcp

import (
	"fmt"
	"maps"
	"slices"
)

// A catalog is a set of named things at one time (the tools, the prompts,
// the static resources, the resource templates): once published it is
// never modified, so that a request reads it without a lock, whatever
// registration goes on. A change makes the next catalog from it (copy on
// write, under Server.mu) and publishes that one whole, in an
// atomic.Pointer: a reader sees the catalog before a change or after it,
// never part of one. A nil *catalog is an empty one.
type catalog[T any] struct {
	items map[string]T
	names []string // the keys of items, sorted
}

// get returns the item called name, and whether there is one.
func (c *catalog[T]) get(name string) (T, bool) {
	if c == nil {
		var zero T
		return zero, false
	}
	item, ok := c.items[name]
	return item, ok
}

// len is the number of items.
func (c *catalog[T]) len() int {
	if c == nil {
		return 0
	}
	return len(c.names)
}

// sorted returns the names of the items, sorted; the slice is the
// catalog's, not to be modified.
func (c *catalog[T]) sorted() []string {
	if c == nil {
		return nil
	}
	return c.names
}

// with returns a catalog of c's items and added, each called as name says,
// or an error made with dup (a format with one %q for the name) for the
// first of added whose name is taken, by c or by an earlier one of added.
func (c *catalog[T]) with(added []T, name func(T) string, dup string) (*catalog[T], error) {
	next := &catalog[T]{items: make(map[string]T, c.len()+len(added)), names: slices.Grow(slices.Clone(c.sorted()), len(added))}
	if c != nil {
		maps.Copy(next.items, c.items)
	}
	for _, item := range added {
		n := name(item)
		if _, taken := next.items[n]; taken {
			return nil, fmt.Errorf(dup, n)
		}
		next.items[n] = item
		next.names = append(next.names, n)
	}
	slices.Sort(next.names)
	return next, nil
}

// without returns a catalog of c's items but those called one of names,
// and how many of those there were; c itself when there were none.
func (c *catalog[T]) without(names []string) (*catalog[T], int) {
	if c == nil {
		return nil, 0
	}
	next := &catalog[T]{items: maps.Clone(c.items)}
	for _, n := range names {
		delete(next.items, n)
	}
	removed := len(c.items) - len(next.items)
	if removed == 0 {
		return c, 0
	}
	next.names = slices.DeleteFunc(slices.Clone(c.names), func(n string) bool {
		_, kept := next.items[n]
		return !kept
	})
	return next, removed
}
