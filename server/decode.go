package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
)

// MaxBodyBytes is the largest request body accepted (spec 1 §8: up to 10 MB).
const MaxBodyBytes = 10 << 20

// decodeBody reads a JSON body into v, answering the parsing failures of spec 1 §7.5: an empty or
// null body, malformed JSON, a value of another type at its path ($.items[0].quantity). With
// strict, a field the model lacks fails on $.<field>.
func decodeBody(r *http.Request, v any, strict bool) error {
	_, err := decodeBodyRaw(r, v, strict)
	return err
}

// decodeBodyRaw is decodeBody that also gives the body it read (what came before a failure to
// read it), for a second look at a body refused or decoded again.
func decodeBodyRaw(r *http.Request, v any, strict bool) ([]byte, error) {
	raw, err := readBody(r.Body, r.ContentLength)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return raw, &apierr.Error{Status: http.StatusRequestEntityTooLarge, Details: apierr.DetailsBodyTooBig}
		}
		return raw, apierr.BadRequest("No se pudo leer el cuerpo de la petición.")
	}
	return raw, decodeRaw(raw, v, strict)
}

// readBody reads a body to its end, in one buffer of the size it announces (at most
// MaxBodyBytes), grown only if more comes.
func readBody(body io.Reader, announced int64) ([]byte, error) {
	if announced <= 0 || announced > MaxBodyBytes {
		return io.ReadAll(body)
	}
	buf := make([]byte, 0, announced+1) // +1: the Read that finds the end
	for {
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// decodeRaw decodes a body read whole, with decodeBody's answers.
func decodeRaw(raw []byte, v any, strict bool) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return apierr.Invalid(apierr.Parse("$", apierr.BodyRequired, nil))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil {
		off := dec.InputOffset()
		if rest := bytes.TrimLeft(raw[off:], " \t\r\n"); len(rest) > 0 {
			off = int64(len(raw) - len(rest))
			return apierr.Invalid(apierr.Parse("$", fmt.Sprintf("%q is invalid after a single JSON value. Expected end of data.", rest[:1])+position(raw, off, "$"), nil))
		}
		return nil
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return apierr.Invalid(apierr.Parse("$", sentence(strings.TrimPrefix(syntax.Error(), "json: "))+position(raw, syntax.Offset, "$"), nil))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.Invalid(apierr.Parse("$", "Unexpected end of JSON input."+position(raw, int64(len(raw)), "$"), nil))
	case errors.As(err, &typ):
		if typ.Offset == 0 && typ.Field != "" {
			// a value's own UnmarshalJSON refused it (an amount that is no number): the decoder
			// names its field but not where it is
			typ.Offset = offsetOfRefused(raw, typ.Field[strings.LastIndexByte(typ.Field, '.')+1:], typ.Value)
		}
		path := pathAt(raw, typ.Offset)
		return apierr.Invalid(apierr.Parse(path, fmt.Sprintf("The JSON value could not be converted to %s.", jsonKind(typ.Type))+position(raw, typ.Offset, path), nil))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return apierr.Invalid(apierr.Parse("$."+field, "El campo '"+field+"' no existe en este recurso.", nil))
	}
	return apierr.Invalid(apierr.Parse("$", sentence(strings.TrimPrefix(err.Error(), "json: ")), nil))
}

func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// position tells where in the body a problem is, as System.Text.Json does.
func position(raw []byte, off int64, path string) string {
	off = min(max(off, 0), int64(len(raw)))
	line := bytes.Count(raw[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(raw[:off], '\n')) - 1
	return fmt.Sprintf(" Path: %s | LineNumber: %d | BytePositionInLine: %d.", path, line, col)
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// offsetOfRefused is the offset just past the first value under key field of the JSON kind a
// type error names (a string: one that is no number; see api.NumberText), 0 when there is none.
func offsetOfRefused(raw []byte, field, kind string) int64 {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var keys []string // the key of each open object, "" for an array
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			keys = keys[:len(keys)-1]
			expectKey = len(keys) > 0 && keys[len(keys)-1] != "\x00"
			continue
		}
		if expectKey {
			keys[len(keys)-1] = tok.(string)
			expectKey = false
			continue
		}
		key := ""
		if len(keys) > 0 {
			key = keys[len(keys)-1]
		}
		if strings.EqualFold(key, field) {
			switch v := tok.(type) {
			case string:
				if kind == "string" && !api.NumberText(v) {
					return dec.InputOffset()
				}
			case bool:
				if kind == "bool" {
					return dec.InputOffset()
				}
			case json.Delim:
				if (kind == "array" && v == '[') || (kind == "object" && v == '{') {
					return dec.InputOffset()
				}
			}
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '[' {
				keys = append(keys, "\x00")
			} else {
				keys = append(keys, "")
				expectKey = true
			}
			continue
		}
		expectKey = len(keys) > 0 && keys[len(keys)-1] != "\x00"
	}
}

// pathAt returns the JSONPath ($.items[0].quantity) of the value that ends at, or contains,
// byte offset off of a well-formed document.
func pathAt(raw []byte, off int64) string {
	type frame struct {
		array bool
		index int    // array: index of the next value
		key   string // object: key of the current value
	}
	var stack []frame
	render := func() string {
		var b strings.Builder
		b.WriteString("$")
		for _, f := range stack {
			if f.array {
				fmt.Fprintf(&b, "[%d]", f.index)
			} else if isIdent(f.key) {
				b.WriteString("." + f.key)
			} else {
				b.WriteString("['" + strings.ReplaceAll(f.key, "'", "\\'") + "']")
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return "$"
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].array {
				stack[len(stack)-1].index++
			}
			expectKey = len(stack) > 0 && !stack[len(stack)-1].array
			continue
		}
		if expectKey {
			stack[len(stack)-1].key = tok.(string)
			expectKey = false
			continue
		}
		// tok starts a value at the path the stack names.
		if dec.InputOffset() >= off {
			return render()
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: d == '['})
			expectKey = d == '{'
			continue
		}
		if len(stack) > 0 && stack[len(stack)-1].array {
			stack[len(stack)-1].index++
		}
		expectKey = len(stack) > 0 && !stack[len(stack)-1].array
	}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// query reads a query parameter by name, ignoring the case of the name (pageNumber and
// PageNumber are one parameter); the first of the query's pairs that names it, read as
// url.ParseQuery reads pairs (one with a ';' or a bad escape is skipped), without making the
// whole map.
func query(r *http.Request, name string) (string, bool) {
	for rest := r.URL.RawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		k, v, _ := strings.Cut(pair, "=")
		if strings.Contains(pair, ";") || !strings.EqualFold(unescapeOr(k), name) {
			continue
		}
		if v, err := url.QueryUnescape(v); err == nil {
			return v, true
		}
	}
	return "", false
}

// unescapeOr is a query key unescaped, or "" when it cannot be.
func unescapeOr(k string) string {
	if !strings.ContainsAny(k, "%+") {
		return k
	}
	u, err := url.QueryUnescape(k)
	if err != nil {
		return ""
	}
	return u
}

// MaxPageNumber is the largest page number accepted (spec 1 §8).
const MaxPageNumber = 42949672

// paging reads pageNumber and pageSize, with the default and maximum page size of the resource.
// Every problem is one failure, all in one answer.
func paging(r *http.Request, defaultSize, maxSize int) (page, size int, err error) {
	var fs []api.Failure
	page, size = 1, defaultSize
	if v, ok := query(r, "pageNumber"); ok {
		n, err := strconv.ParseInt(v, 10, 32)
		switch {
		case err != nil:
			fs = append(fs, apierr.Parse("PageNumber", "El valor '"+v+"' no es válido para PageNumber.", v))
		case n < 1 || n > MaxPageNumber:
			fs = append(fs, apierr.Field("pageNumber", fmt.Sprintf("'pageNumber' debe estar entre 1 y %d.", MaxPageNumber), n, "", nil))
		default:
			page = int(n)
		}
	}
	if v, ok := query(r, "pageSize"); ok {
		n, err := strconv.ParseInt(v, 10, 32)
		switch {
		case err != nil:
			fs = append(fs, apierr.Parse("PageSize", "El valor '"+v+"' no es válido para PageSize.", v))
		case n < 1 || n > int64(maxSize):
			fs = append(fs, apierr.Field("pageSize", fmt.Sprintf("'pageSize' debe estar entre 1 y %d.", maxSize), n, "", nil))
		default:
			size = int(n)
		}
	}
	if len(fs) > 0 {
		return 0, 0, apierr.Invalid(fs...)
	}
	return page, size, nil
}
