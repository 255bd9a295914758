package trigger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
)

// Fixture is a sequence of API requests (steps) whose parameters and paths may use the answers
// of the steps before them: the shape of the Stripe CLI's fixtures (docs/guides/developer.md,
// "Fixtures"; an example in docs/examples/fixture.json).
//
//	{"fixtures": [
//	  {"name": "invoice", "path": "/api/v4/invoices", "method": "post", "params": {...}},
//	  {"name": "cancel", "path": "/api/v4/invoices", "method": "delete",
//	   "params": {"id": "${invoice:id}", "cancellationReasonCode": "02"}}]}
//
// A reference is ${STEP:PATH} (PATH in the answer's data of an earlier step: id,
// responses[0].invoiceUuid), ${.env:NAME} (an environment variable; ${.env:NAME|default}) or
// ${.caller:PATH} (the person of the API key, as GET /api/v4/people/<id> answers it). A string
// that is one reference takes the value's JSON type (a number stays a number); within longer
// text the value is written as text. The params of a GET are its query; of any other method,
// its JSON body.
type Fixture struct {
	Meta     json.RawMessage `json:"_meta,omitempty"`
	Fixtures []Step          `json:"fixtures"`
}

// Step is one request of a fixture.
type Step struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// StepResult is one step as it ran: its request and the answer's data.
type StepResult struct {
	Name   string          `json:"name"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Data   json.RawMessage `json:"data"`
}

var (
	stepName  = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	reference = regexp.MustCompile(`\$\{([^:{}]+):([^{}|]*)(?:\|([^{}]*))?\}`)
	methods   = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
)

// readFixture reads a fixture file and checks it (checkFixture).
func readFixture(path string) (*Fixture, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parseFixture(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// parseFixture decodes a fixture (unknown fields refused, so a misspelt "parmas" is said) and
// checks it.
func parseFixture(raw []byte) (*Fixture, error) {
	var f struct {
		Meta     json.RawMessage `json:"_meta"`
		Fixtures []struct {
			Name   string          `json:"name"`
			Path   string          `json:"path"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"fixtures"`
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a fixture: %v", err)
	}
	out := &Fixture{Meta: f.Meta}
	for _, s := range f.Fixtures {
		st := Step{Name: s.Name, Path: s.Path, Method: s.Method}
		if len(s.Params) > 0 {
			v, err := decodeJSON(s.Params)
			if err != nil {
				return nil, fmt.Errorf("step %q: params: %v", s.Name, err)
			}
			st.Params = v
		}
		out.Fixtures = append(out.Fixtures, st)
	}
	return out, checkFixture(out)
}

// checkFixture checks what can be checked before anything is sent: names (unique, letters,
// digits, - and _), methods, paths, and that every reference names a step before its own (or
// .env, .caller) with a path that reads.
func checkFixture(f *Fixture) error {
	if len(f.Fixtures) == 0 {
		return fmt.Errorf(`no steps: "fixtures" is empty`)
	}
	var seen []string
	for i, s := range f.Fixtures {
		where := fmt.Sprintf("step %d (%q)", i+1, s.Name)
		if !stepName.MatchString(s.Name) {
			return fmt.Errorf("%s: a name is letters, digits, - and _", where)
		}
		if slices.Contains(seen, s.Name) {
			return fmt.Errorf("%s: another step has that name", where)
		}
		if !slices.Contains(methods, strings.ToUpper(s.Method)) {
			return fmt.Errorf("%s: method %q: use get, post, put, patch or delete", where, s.Method)
		}
		if !strings.HasPrefix(s.Path, "/") {
			return fmt.Errorf("%s: path %q: give the API's path, such as /api/v4/invoices", where, s.Path)
		}
		var refs []string
		refs = append(refs, reference.FindAllString(s.Path, -1)...)
		walkStrings(s.Params, func(v string) { refs = append(refs, reference.FindAllString(v, -1)...) })
		for _, ref := range refs {
			m := reference.FindStringSubmatch(ref)
			if _, err := parsePath(m[2]); err != nil && m[1] != ".env" {
				return fmt.Errorf("%s: %s: %v", where, ref, err)
			}
			switch {
			case m[1] == ".env" || m[1] == ".caller":
			case m[1] == s.Name:
				return fmt.Errorf("%s: %s refers to its own step; a step reads only the answers before it", where, ref)
			case !slices.Contains(seen, m[1]):
				return fmt.Errorf("%s: %s: no step before this one is named %q", where, ref, m[1])
			}
		}
		seen = append(seen, s.Name)
	}
	return nil
}

// walkStrings calls fn with every string of a decoded JSON value, keys aside.
func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	}
}

// runner runs the steps of a fixture, one at a time, keeping each answer for the references of
// the steps after it.
type runner struct {
	client  *api.Client
	answers map[string]any
	getenv  func(string) (string, bool)
	caller  func(context.Context) (any, error)
}

// resolveText replaces the references within s by their values as text; escape, when set, is
// applied to each value (a path's segments).
func (r *runner) resolveText(ctx context.Context, s string, escape func(string) string) (string, error) {
	var err error
	out := reference.ReplaceAllStringFunc(s, func(ref string) string {
		v, e := r.value(ctx, reference.FindStringSubmatch(ref))
		if e != nil {
			err = e
			return ""
		}
		t := jsonText(v)
		if escape != nil {
			t = escape(t)
		}
		return t
	})
	return out, err
}

// resolve is a copy of v with every reference replaced: a string that is one reference becomes
// its value, with its JSON type.
func (r *runner) resolve(ctx context.Context, v any) (any, error) {
	switch x := v.(type) {
	case string:
		if m := reference.FindStringSubmatch(x); m != nil && m[0] == x {
			return r.value(ctx, m)
		}
		return r.resolveText(ctx, x, nil)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			rv, err := r.resolve(ctx, e)
			if err != nil {
				return nil, err
			}
			out[k] = rv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			rv, err := r.resolve(ctx, e)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	}
	return v, nil
}

// value is the value of one reference (m: the whole, the name, the path, the default).
func (r *runner) value(ctx context.Context, m []string) (any, error) {
	name, path, def := m[1], m[2], m[3]
	hasDefault := strings.Contains(m[0], "|")
	if name == ".env" {
		if v, ok := r.getenv(path); ok && v != "" {
			return v, nil
		}
		if hasDefault {
			return def, nil
		}
		return nil, fmt.Errorf("%s: the environment variable %s is not set", m[0], path)
	}
	var root any
	if name == ".caller" {
		var err error
		if root, err = r.caller(ctx); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if root, ok = r.answers[name]; !ok {
			return nil, fmt.Errorf("%s: step %q has not run", m[0], name)
		}
	}
	segs, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	v, ok := lookup(root, segs)
	if !ok || v == nil {
		if hasDefault {
			return def, nil
		}
		what := "the answer of step " + name
		if name == ".caller" {
			what = "your person (GET /api/v4/people/<id>)"
		}
		return nil, fmt.Errorf("%s: %s has no %s", m[0], what, path)
	}
	return v, nil
}

// StepError is a step the API refused: which step, its request, and the API's error. It does
// not unwrap to the *api.Error, so that the step is printed with the API's lines.
type StepError struct {
	Step, Method, Path string
	Err                error
}

func (e *StepError) Error() string {
	var lines []string
	if ae, ok := e.Err.(*api.Error); ok && ae.Status != 0 {
		lines = ae.Lines()
	} else {
		lines = []string{e.Err.Error()}
	}
	return fmt.Sprintf("step %s (%s %s) failed:\n  %s", e.Step, e.Method, e.Path, strings.Join(lines, "\n  "))
}

// run sends one step and keeps its answer; it answers the step as sent and its data.
func (r *runner) run(ctx context.Context, s Step) (StepResult, error) {
	method := strings.ToUpper(s.Method)
	path, err := r.resolveText(ctx, s.Path, url.PathEscape)
	res := StepResult{Name: s.Name, Method: method, Path: path}
	if err != nil {
		return res, &StepError{Step: s.Name, Method: method, Path: s.Path, Err: err}
	}
	params, err := r.resolve(ctx, s.Params)
	if err != nil {
		return res, &StepError{Step: s.Name, Method: method, Path: path, Err: err}
	}
	var query url.Values
	var body any
	if method == "GET" {
		if params != nil {
			obj, ok := params.(map[string]any)
			if !ok {
				return res, &StepError{Step: s.Name, Method: method, Path: path, Err: fmt.Errorf("the params of a GET are an object (its query)")}
			}
			query = url.Values{}
			for k, v := range obj {
				query.Set(k, jsonText(v))
			}
		}
	} else if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return res, err
		}
		body = json.RawMessage(b)
	}
	var data json.RawMessage
	if err := r.client.Do(ctx, method, path, query, body, &data); err != nil {
		return res, &StepError{Step: s.Name, Method: method, Path: path, Err: err}
	}
	res.Data = data
	var v any
	if len(data) > 0 {
		if v, err = decodeJSON(data); err != nil {
			return res, err
		}
	}
	r.answers[s.Name] = v
	return res, nil
}

// edit is one --add, --override or --remove: a change to the params of one step.
type edit struct {
	op    string // add, override, remove
	arg   string // as given
	step  string // "" for the first step
	path  []segment
	value string
}

// parseEdit reads [STEP:]PATH=VALUE (add, override) or [STEP:]PATH (remove).
func parseEdit(op, arg string) (edit, error) {
	e := edit{op: op, arg: arg}
	target := arg
	if op != "remove" {
		var ok bool
		target, e.value, ok = strings.Cut(arg, "=")
		if !ok {
			return e, fmt.Errorf("--%s %s: give [STEP:]PATH=VALUE, such as invoice:series=F", op, arg)
		}
	}
	if step, p, ok := strings.Cut(target, ":"); ok {
		e.step, target = step, p
	}
	segs, err := parsePath(target)
	if err != nil || len(segs) == 0 {
		if err == nil {
			err = fmt.Errorf("no path")
		}
		return e, fmt.Errorf("--%s %s: %v", op, arg, err)
	}
	e.path = segs
	return e, nil
}

// editValue is the value of an --add or --override: text that is JSON is that JSON (2, true,
// null, "quoted", {"a":1}), any other text is a string; an --override of a string keeps a
// string (tin=XAXX010101000, zipCode=01000).
func editValue(text string, old any, overriding bool) any {
	if _, isString := old.(string); overriding && isString {
		return text
	}
	if v, err := decodeJSON([]byte(text)); err == nil {
		return v
	}
	return text
}

// applyEdits changes the params of the steps: --add only where nothing is, --override only
// where something is, --remove only what is there, so that a misspelt path is said, not sent.
func applyEdits(f *Fixture, edits []edit) error {
	for _, e := range edits {
		i := 0
		if e.step != "" {
			i = slices.IndexFunc(f.Fixtures, func(s Step) bool { return s.Name == e.step })
			if i < 0 {
				var names []string
				for _, s := range f.Fixtures {
					names = append(names, s.Name)
				}
				return fmt.Errorf("--%s %s: no step %q; the steps are %s", e.op, e.arg, e.step, strings.Join(names, ", "))
			}
		}
		s := &f.Fixtures[i]
		old, exists := lookup(s.Params, e.path)
		where := fmt.Sprintf("%s of step %s", pathText(e.path), s.Name)
		switch e.op {
		case "add":
			if exists {
				return fmt.Errorf("--add %s: %s is already %s; use --override", e.arg, where, jsonText(old))
			}
		case "override":
			if !exists {
				return fmt.Errorf("--override %s: %s is not set; use --add", e.arg, where)
			}
		case "remove":
			if !exists || !removeAt(&s.Params, e.path) {
				return fmt.Errorf("--remove %s: %s is not set", e.arg, where)
			}
			continue
		}
		if err := setAt(&s.Params, e.path, editValue(e.value, old, e.op == "override")); err != nil {
			return fmt.Errorf("--%s %s: %v", e.op, e.arg, err)
		}
	}
	return nil
}
