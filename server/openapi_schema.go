package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
)

// JSON Schema (2020-12, the dialect of OpenAPI 3.1) of the wire types, by reflection over what
// encoding/json does with them:
//   - a field's name is its json tag; "-" and unexported fields are left out; embedded structs
//     without a tag are flattened;
//   - in an answer every field without omitempty is required and no other field may appear; a
//     request body requires nothing (the server answers a missing field with its own 400);
//   - pointers, slices, maps and interfaces may be null (a nil one encodes as null);
//   - time.Time is a date-time string; []byte a base64 string; json.RawMessage and interfaces
//     are any value;
//   - types with their own JSON encoding are described in schemaOverrides;
//   - a field's `doc` tag is its description (timbra's extensions of the official models).

// schemaMode is what a schema describes: an answer (strict) or a request body (lenient).
type schemaMode int

const (
	modeAnswer schemaMode = iota
	modeRequest
)

// schemaOverrides are the types whose JSON is not what reflection sees.
var schemaOverrides = map[reflect.Type]func() map[string]any{
	reflect.TypeFor[api.Decimal](): func() map[string]any {
		return map[string]any{"type": []string{"number", "null"}, "description": "An exact decimal number, written as sent."}
	},
	reflect.TypeFor[api.Amount](): func() map[string]any {
		return map[string]any{"type": []string{"number", "string", "null"}, "description": "An amount: a number, or a string holding one."}
	},
	reflect.TypeFor[json.RawMessage](): func() map[string]any { return map[string]any{} },
	reflect.TypeFor[time.Time](): func() map[string]any {
		return map[string]any{"type": "string", "format": "date-time"}
	},
}

// schemaSet builds the component schemas of the document. A struct reached both as an answer and
// inside a request body gets two components: the request one is named with a "Request" suffix.
type schemaSet struct {
	components map[string]any
	modes      map[reflect.Type]map[schemaMode]bool // filled by collect, before any schema is made
	done       map[schemaKey]string                 // component name of each made schema
}

type schemaKey struct {
	t    reflect.Type
	mode schemaMode
}

func newSchemaSet() *schemaSet {
	return &schemaSet{components: map[string]any{}, modes: map[reflect.Type]map[schemaMode]bool{}, done: map[schemaKey]string{}}
}

// collect records every struct reachable from t in mode, so names can be chosen before schemas
// are made.
func (g *schemaSet) collect(t reflect.Type, mode schemaMode) {
	if t == nil {
		return
	}
	if schemaOverrides[t] != nil {
		return
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		g.collect(t.Elem(), mode)
	case reflect.Map:
		g.collect(t.Elem(), mode)
	case reflect.Struct:
		if g.modes[t] == nil {
			g.modes[t] = map[schemaMode]bool{}
		}
		if g.modes[t][mode] {
			return
		}
		g.modes[t][mode] = true
		for _, f := range jsonFields(t) {
			g.collect(f.typ, mode)
		}
	}
}

// name is the component name of struct t in mode.
func (g *schemaSet) name(t reflect.Type, mode schemaMode) string {
	name := typeName(t)
	if mode == modeRequest && g.modes[t][modeAnswer] {
		name += "Request"
	}
	return name
}

// typeName is a type's component name: its Go name for the api package, package.Name for
// others; a generic instance names its argument (PagedListOfPerson).
func typeName(t reflect.Type) string {
	name := t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		arg := strings.TrimSuffix(name[i+1:], "]")
		arg = arg[strings.LastIndexAny(arg, "./")+1:]
		name = name[:i] + "Of" + arg
	}
	if pkg := t.PkgPath(); pkg != "" && !strings.HasSuffix(pkg, "/api") {
		name = pkg[strings.LastIndexByte(pkg, '/')+1:] + "." + name
	}
	return name
}

// schema is the schema of t in mode: a $ref for a named struct, inline for everything else.
func (g *schemaSet) schema(t reflect.Type, mode schemaMode) map[string]any {
	if t == nil {
		return map[string]any{}
	}
	if o := schemaOverrides[t]; o != nil {
		return o()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(g.schema(t.Elem(), mode))
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": []string{"string", "null"}, "contentEncoding": "base64"}
		}
		return nullable(map[string]any{"type": "array", "items": g.schema(t.Elem(), mode)})
	case reflect.Array:
		return map[string]any{"type": "array", "items": g.schema(t.Elem(), mode), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return nullable(map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem(), mode)})
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		return map[string]any{"$ref": "#/components/schemas/" + g.component(t, mode)}
	}
	panic("openapi: no JSON schema for " + t.String())
}

// component makes the component of struct t in mode (once) and returns its name.
func (g *schemaSet) component(t reflect.Type, mode schemaMode) string {
	k := schemaKey{t, mode}
	if name, ok := g.done[k]; ok {
		return name
	}
	g.collect(t, mode) // a type reached only here (the envelope's parts)
	name := g.name(t, mode)
	g.done[k] = name
	props := map[string]any{}
	required := []string{}
	for _, f := range jsonFields(t) {
		fs := g.schema(f.typ, mode)
		if f.doc != "" {
			fs = describe(fs, f.doc)
		}
		props[f.name] = fs
		if mode == modeAnswer && !f.omitEmpty {
			required = append(required, f.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if mode == modeAnswer {
		s["required"] = required
		s["additionalProperties"] = false
	}
	g.components[name] = s
	return name
}

// nullable lets s also be null.
func nullable(s map[string]any) map[string]any {
	switch typ := s["type"].(type) {
	case string:
		out := clone(s)
		out["type"] = []string{typ, "null"}
		return out
	case []string:
		for _, t := range typ {
			if t == "null" {
				return s
			}
		}
		out := clone(s)
		out["type"] = append(append([]string{}, typ...), "null")
		return out
	}
	if len(s) == 0 { // any value already
		return s
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// describe is schema s with a description (beside a $ref too: OpenAPI 3.1 allows it).
func describe(s map[string]any, doc string) map[string]any {
	out := clone(s)
	out["description"] = doc
	return out
}

// jsonField is one field as encoding/json writes it; doc is its `doc` tag, the description of
// what the official client's model lacks (timbra's extensions).
type jsonField struct {
	name      string
	typ       reflect.Type
	omitEmpty bool
	doc       string
}

// jsonFields are the fields of struct t as encoding/json sees them, in order (embedded structs
// without a name flattened).
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, jsonFields(et)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type, doc: f.Tag.Get("doc"), omitEmpty: strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")})
	}
	return out
}
