package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

var updateOpenAPI = flag.Bool("update", false, "rewrite docs/openapi.json from the route documentation")

// openAPIFile is the committed copy of the document, from this package's folder.
var openAPIFile = testpaths.Repo("docs", "openapi.json")

// TestOpenAPIRoutes holds the document to the router: every registered pattern is documented
// and every documented pattern is registered.
func TestOpenAPIRoutes(t *testing.T) {
	f := newFixture(t)
	registered := map[string]bool{}
	for _, p := range f.srv.mux.Patterns() {
		if p != "/" { // the catch-all answering 404 and 405
			registered[p] = true
		}
	}
	documented := map[string]bool{}
	for _, d := range routeDocs {
		if documented[d.pattern] {
			t.Errorf("documented twice: %s", d.pattern)
		}
		documented[d.pattern] = true
	}
	var missing, extra []string
	for p := range registered {
		if !documented[p] {
			missing = append(missing, p)
		}
	}
	for p := range documented {
		if !registered[p] {
			extra = append(extra, p)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		t.Errorf("routes not documented (add them to routeDocs in openapi_routes.go):\n  %s", strings.Join(missing, "\n  "))
	}
	if len(extra) > 0 {
		t.Errorf("documented routes the router does not have:\n  %s", strings.Join(extra, "\n  "))
	}
}

// TestOpenAPIFile keeps docs/openapi.json in step with the document; -update rewrites it.
func TestOpenAPIFile(t *testing.T) {
	doc := OpenAPI()
	if *updateOpenAPI {
		if err := os.WriteFile(openAPIFile, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(openAPIFile)
	if err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("%s is not in step with the route documentation (%v): run go test ./server -run OpenAPIFile -update", openAPIFile, err)
	}
}

// TestOpenAPIServed: the document is public, JSON, and the same bytes as OpenAPI().
func TestOpenAPIServed(t *testing.T) {
	f := newFixture(t)
	resp, body := f.raw(OpenAPIPath, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !bytes.Equal(body, OpenAPI()) {
		t.Fatalf("GET %s: %d %s %.200s", OpenAPIPath, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp.Header.Get("RateLimit-Limit") == "" {
		t.Fatal("no RateLimit headers")
	}
}

// TestOpenAPIDocument checks the document's structure: OpenAPI 3.1 fields, every $ref resolves,
// operationIds are unique, each path's parameters are declared in path, and every schema in it
// compiles as JSON Schema 2020-12 (the compiler checks each against the 2020-12 meta-schema).
func TestOpenAPIDocument(t *testing.T) {
	doc := openAPIValue(t)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi: %v", doc["openapi"])
	}
	info, _ := doc["info"].(map[string]any)
	if info["title"] == nil || info["version"] == nil {
		t.Fatalf("info: %v", info)
	}

	// every $ref resolves
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok {
				if _, err := pointer(doc, r); err != nil {
					t.Errorf("%s: $ref %s: %v", at, r, err)
				}
			}
			for k, x := range v {
				walk(x, at+"/"+k)
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(doc, "#")

	methods := []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}
	ids := map[string]string{}
	paths := doc["paths"].(map[string]any)
	for path, item := range paths {
		for m, op := range item.(map[string]any) {
			if !slices.Contains(methods, m) {
				t.Errorf("%s: %q is not a method", path, m)
				continue
			}
			op := op.(map[string]any)
			where := strings.ToUpper(m) + " " + path
			id, _ := op["operationId"].(string)
			if id == "" || ids[id] != "" {
				t.Errorf("%s: operationId %q empty or also on %s", where, id, ids[id])
			}
			ids[id] = where
			var declared []string
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				pm := p.(map[string]any)
				if r, ok := pm["$ref"].(string); ok {
					v, _ := pointer(doc, r)
					pm, _ = v.(map[string]any)
				}
				if pm["in"] == "path" {
					if pm["required"] != true {
						t.Errorf("%s: path parameter %v not required", where, pm["name"])
					}
					declared = append(declared, pm["name"].(string))
				}
			}
			want := pathParams(path)
			slices.Sort(want)
			slices.Sort(declared)
			if !slices.Equal(want, declared) {
				t.Errorf("%s: path parameters %v, declared %v", where, want, declared)
			}
			rs, _ := op["responses"].(map[string]any)
			if len(rs) == 0 {
				t.Errorf("%s: no responses", where)
			}
			for status, r := range rs {
				rm := r.(map[string]any)
				if ref, ok := rm["$ref"].(string); ok {
					v, _ := pointer(doc, ref)
					rm, _ = v.(map[string]any)
				}
				if d, _ := rm["description"].(string); d == "" {
					t.Errorf("%s %s: a response without description", where, status)
				}
			}
			for _, p := range params {
				pm := p.(map[string]any)
				if r, ok := pm["$ref"].(string); ok {
					v, _ := pointer(doc, r)
					pm, _ = v.(map[string]any)
				}
				if !slices.Contains([]any{"query", "header", "path", "cookie"}, pm["in"]) || pm["name"] == "" || pm["schema"] == nil {
					t.Errorf("%s: parameter %v", where, pm)
				}
			}
			for _, tag := range op["tags"].([]any) {
				if !slices.ContainsFunc(doc["tags"].([]any), func(x any) bool { return x.(map[string]any)["name"] == tag }) {
					t.Errorf("%s: tag %v not declared", where, tag)
				}
			}
			if _, ok := op["security"]; !ok {
				t.Errorf("%s: no security", where)
			}
		}
	}

	c := openAPICompiler(t)
	for name := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, err := c.Compile(openAPIURL + "#/components/schemas/" + escapePointer(name)); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
	for _, r := range answerSchemas(t, doc) {
		if _, err := c.Compile(r.loc); err != nil {
			t.Errorf("%s %s: %v", r.pattern, r.status, err)
		}
	}
}

// openAPIURL names the document for the schema compiler.
const openAPIURL = "https://timbra.invalid/openapi.json"

func openAPIValue(t *testing.T) map[string]any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(OpenAPI()))
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

// openAPICompiler is a JSON Schema 2020-12 compiler that holds the document.
func openAPICompiler(t *testing.T) *jsonschema.Compiler {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(openAPIURL, openAPIValue(t)); err != nil {
		t.Fatal(err)
	}
	return c
}

// answerSchema is where the schema of one answer of one route is.
type answerSchema struct {
	pattern, status, media, loc string
}

// answerSchemas are the schemas of every answer of every operation, $refs to shared responses
// followed.
func answerSchemas(t *testing.T, doc map[string]any) []answerSchema {
	t.Helper()
	var out []answerSchema
	for path, item := range doc["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			for status, r := range op.(map[string]any)["responses"].(map[string]any) {
				base := "#/paths/" + escapePointer(path) + "/" + m + "/responses/" + status
				rm := r.(map[string]any)
				if ref, ok := rm["$ref"].(string); ok {
					base = ref
					v, _ := pointer(doc, ref)
					rm = v.(map[string]any)
				}
				content, _ := rm["content"].(map[string]any)
				for media, mt := range content {
					if _, ok := mt.(map[string]any)["schema"]; ok {
						out = append(out, answerSchema{
							pattern: strings.ToUpper(m) + " " + path, status: status, media: media,
							loc: openAPIURL + base + "/content/" + escapePointer(media) + "/schema",
						})
					}
				}
			}
		}
	}
	return out
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// pointer resolves a local reference (#/a/b) in doc.
func pointer(doc any, ref string) (any, error) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("not a local reference")
	}
	v := doc
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if tok == "" && p == "" {
			break
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", tok)
		}
		if v, ok = m[tok]; !ok {
			return nil, fmt.Errorf("no %s", tok)
		}
	}
	return v, nil
}

// statusText is used by the recorded answers' test to name a status in failures.
func statusText(code int) string { return fmt.Sprintf("%d %s", code, http.StatusText(code)) }

// TestOpenAPISchemaRules pins how a Go type becomes a schema.
func TestOpenAPISchemaRules(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type Embedded struct {
		E string `json:"e"`
	}
	type sample struct {
		Embedded
		Plain   string            `json:"plain"`
		Opt     string            `json:"opt,omitempty"`
		Ptr     *string           `json:"ptr"`
		List    []inner           `json:"list"`
		Map     map[string]string `json:"map"`
		When    time.Time         `json:"when"`
		Amount  api.Amount        `json:"amount"`
		Any     any               `json:"any"`
		Skipped string            `json:"-"`
		//lint:ignore U1000 the generator must leave an unexported field out
		unexport string
		Inner    *inner `json:"inner"`
	}
	g := newSchemaSet()
	st := reflect.TypeFor[sample]()
	g.collect(st, modeAnswer)
	g.collect(st, modeRequest)
	answer := g.components[g.component(st, modeAnswer)].(map[string]any)
	request := g.components[g.component(st, modeRequest)].(map[string]any)
	if g.name(st, modeRequest) != g.name(st, modeAnswer)+"Request" {
		t.Fatalf("names: %s, %s", g.name(st, modeAnswer), g.name(st, modeRequest))
	}
	got, _ := json.Marshal(answer)
	want := `{"additionalProperties":false,"properties":{"amount":{"description":"An amount: a number, or a string holding one.","type":["number","string","null"]},` +
		`"any":{},"e":{"type":"string"},"inner":{"anyOf":[{"$ref":"#/components/schemas/server.inner"},{"type":"null"}]},` +
		`"list":{"items":{"$ref":"#/components/schemas/server.inner"},"type":["array","null"]},"map":{"additionalProperties":{"type":"string"},"type":["object","null"]},` +
		`"opt":{"type":"string"},"plain":{"type":"string"},"ptr":{"type":["string","null"]},"when":{"format":"date-time","type":"string"}},` +
		`"required":["e","plain","ptr","list","map","when","amount","any","inner"],"type":"object"}`
	if string(got) != want {
		t.Fatalf("answer schema:\n got %s\nwant %s", got, want)
	}
	if _, ok := request["required"]; ok || request["additionalProperties"] != nil {
		t.Fatalf("a request body requires nothing and allows more: %v", request)
	}
	if typeName(reflect.TypeFor[api.PagedList[api.Person]]()) != "PagedListOfPerson" {
		t.Fatalf("generic name: %s", typeName(reflect.TypeFor[api.PagedList[api.Person]]()))
	}
}
