package loadquery

import (
	"fmt"
	"strings"
)

// Kind is what a field holds; it decides which operators, intervals and summaries apply.
type Kind int

// The kinds of a field.
const (
	String  Kind = iota + 1 // text; compared case-insensitively
	Number                  // any Go integer or float (also json.Number)
	Boolean                 // bool
	Date                    // a date-time: the API's wire string or a time.Time
	Object                  // a nested object: only its simple subfields are usable outside select
	List                    // an array: usable only in select
)

func (k Kind) simple() bool { return k >= String && k <= Date }

func (k Kind) String() string {
	switch k {
	case String:
		return "string"
	case Number:
		return "number"
	case Boolean:
		return "boolean"
	case Date:
		return "date"
	case Object:
		return "object"
	case List:
		return "list"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Field describes one field of a resource's records.
//
// Get reads the field from a record and returns its value as the API shows it, or nil for null.
// Every Get receives the whole record, also the Get of a subfield, so a subfield reads straight
// through (guarding a nil parent itself). Values by kind:
//
//   - String: string (or any type whose underlying type is string).
//   - Number: any integer or float type, or json.Number.
//   - Boolean: bool.
//   - Date: the wire string `yyyy-MM-ddTHH:mm:ss.fff` with or without a trailing Z (a string
//     without offset is read as UTC), or a time.Time.
//   - Object, List: any value encoding/json can write; it is only copied into select results.
//
// A pointer to any of these is read through (a nil pointer is null). Returning a pointer into the
// record (&r.Description) instead of the value avoids boxing a string on every read, which is the
// fast path for big catalogs.
type Field[T any] struct {
	Name   string      // the JSON name, for example "createdAt"; matched case-insensitively
	Kind   Kind        // what the field holds
	Get    func(T) any // reads the value from a record; nil means null
	Fields []Field[T]  // the subfields of an Object (for example country.id)
}

// Schema is the set of fields of one resource, built once with NewSchema and safe for concurrent
// use.
type Schema[T any] struct {
	fields []Field[T]
	index  map[string]*resolved[T] // lower-cased dotted path -> field
}

// resolved is one addressable field: a top-level field or a subfield at any depth.
type resolved[T any] struct {
	path  []string // canonical names, root first
	kind  Kind
	get   func(T) any
	label string // canonical dotted path
}

// NewSchema indexes the fields of a resource. It panics on a programming error: an empty or
// duplicate name (names are compared case-insensitively), a name with a dot, a field without Get,
// an unknown kind, or subfields on a field that is not an Object.
func NewSchema[T any](fields ...Field[T]) Schema[T] {
	s := Schema[T]{fields: fields, index: map[string]*resolved[T]{}}
	var add func(prefix []string, fs []Field[T])
	add = func(prefix []string, fs []Field[T]) {
		for _, f := range fs {
			if f.Name == "" || strings.Contains(f.Name, ".") {
				panic(fmt.Sprintf("loadquery: invalid field name %q", f.Name))
			}
			if f.Get == nil {
				panic(fmt.Sprintf("loadquery: field %q has no Get", f.Name))
			}
			if f.Kind < String || f.Kind > List {
				panic(fmt.Sprintf("loadquery: field %q has an unknown kind", f.Name))
			}
			if len(f.Fields) > 0 && f.Kind != Object {
				panic(fmt.Sprintf("loadquery: field %q has subfields but is a %s", f.Name, f.Kind))
			}
			path := append(append([]string(nil), prefix...), f.Name)
			label := strings.Join(path, ".")
			key := strings.ToLower(label)
			if _, dup := s.index[key]; dup {
				panic(fmt.Sprintf("loadquery: duplicate field %q", label))
			}
			s.index[key] = &resolved[T]{path: path, kind: f.Kind, get: f.Get, label: label}
			add(path, f.Fields)
		}
	}
	add(nil, fields)
	return s
}

// Fields returns the top-level fields as declared.
func (s Schema[T]) Fields() []Field[T] { return s.fields }

// lookup finds a field by its dotted name, case-insensitively.
func (s Schema[T]) lookup(name string) *resolved[T] {
	if r, ok := s.index[name]; ok {
		return r
	}
	return s.index[strings.ToLower(name)]
}
