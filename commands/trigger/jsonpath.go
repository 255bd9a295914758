package trigger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A path names a place in a JSON value: keys joined by dots, list items by [n]:
// recipient.tin, items[0].discount, responses[0].invoiceUuid. Keys are exact (case matters).

// segment is one step of a path: a key of an object, or the index of a list item.
type segment struct {
	key   string
	index int // -1 for a key
}

// parsePath reads a path; the empty path is the whole value.
func parsePath(p string) ([]segment, error) {
	var out []segment
	rest := p
	for rest != "" {
		switch {
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: a [ without its ]", p)
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: [%s] is not a list index (0, 1, …)", p, rest[1:end])
			}
			out = append(out, segment{index: n})
			rest = rest[end+1:]
			if strings.HasPrefix(rest, ".") {
				rest = rest[1:]
				if rest == "" || rest[0] == '.' || rest[0] == '[' {
					return nil, fmt.Errorf("path %q: a key is missing after a dot", p)
				}
			}
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("path %q: a key is missing", p)
			}
			out = append(out, segment{key: rest[:end], index: -1})
			rest = rest[end:]
			if strings.HasPrefix(rest, ".") {
				rest = rest[1:]
				if rest == "" || rest[0] == '.' || rest[0] == '[' {
					return nil, fmt.Errorf("path %q: a key is missing after a dot", p)
				}
			}
		}
	}
	return out, nil
}

func (s segment) String() string {
	if s.index >= 0 {
		return "[" + strconv.Itoa(s.index) + "]"
	}
	return s.key
}

func pathText(segs []segment) string {
	var b strings.Builder
	for i, s := range segs {
		if i > 0 && s.index < 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// lookup finds the value at a path of v (decoded with decodeJSON).
func lookup(v any, segs []segment) (any, bool) {
	for _, s := range segs {
		switch x := v.(type) {
		case map[string]any:
			if s.index >= 0 {
				return nil, false
			}
			var ok bool
			if v, ok = x[s.key]; !ok {
				return nil, false
			}
		case []any:
			if s.index < 0 || s.index >= len(x) {
				return nil, false
			}
			v = x[s.index]
		default:
			return nil, false
		}
	}
	return v, true
}

// setAt puts val at a path of *root, making the objects and lists on the way that are missing
// (a list item may be added at the list's end: items[1] of a list of one).
func setAt(root *any, segs []segment, val any) error {
	if len(segs) == 0 {
		*root = val
		return nil
	}
	s := segs[0]
	switch x := (*root).(type) {
	case nil:
		var item any
		if err := setAt(&item, segs[1:], val); err != nil {
			return err
		}
		if s.index > 0 {
			return fmt.Errorf("%s: the list is empty; add item [0] first", s)
		}
		if s.index == 0 {
			*root = []any{item}
		} else {
			*root = map[string]any{s.key: item}
		}
		return nil
	case map[string]any:
		if s.index >= 0 {
			return fmt.Errorf("%s: an object has no items (use a key)", s)
		}
		item := x[s.key]
		err := setAt(&item, segs[1:], val)
		x[s.key] = item
		return err
	case []any:
		if s.index < 0 {
			return fmt.Errorf("%s: a list has no keys (use [n])", s.key)
		}
		if s.index > len(x) {
			return fmt.Errorf("[%d]: the list has %d items", s.index, len(x))
		}
		if s.index == len(x) {
			var item any
			err := setAt(&item, segs[1:], val)
			*root = append(x, item)
			return err
		}
		return setAt(&x[s.index], segs[1:], val)
	default:
		return fmt.Errorf("%s: what is there (%s) is not an object or a list", s, jsonText(x))
	}
}

// removeAt deletes what is at a path of *root (a list item: the items after it move up); it
// answers whether something was there.
func removeAt(root *any, segs []segment) bool {
	if len(segs) == 0 {
		return false
	}
	parent, ok := lookup(*root, segs[:len(segs)-1])
	if !ok {
		return false
	}
	last := segs[len(segs)-1]
	switch x := parent.(type) {
	case map[string]any:
		if _, ok := x[last.key]; !ok || last.index >= 0 {
			return false
		}
		delete(x, last.key)
		return true
	case []any:
		if last.index < 0 || last.index >= len(x) {
			return false
		}
		shorter := append(x[:last.index:last.index], x[last.index+1:]...)
		if len(segs) == 1 {
			*root = shorter
			return true
		}
		return setAt(root, segs[:len(segs)-1], shorter) == nil
	}
	return false
}

// decodeJSON decodes JSON keeping numbers as they are written (json.Number).
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// jsonText is v as JSON text (a string as it is, without quotes).
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
