// Package schema computes JSON Schema 2020-12 from Go types and their
// validate tags.
package schema
