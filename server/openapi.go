package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/timbra-mx/timbra/internal/api"
)

// The OpenAPI 3.1 document of the whole API, served at GET /api/v4/openapi.json and kept in
// docs/openapi.json. It is built from routeDocs (openapi_routes.go), one entry per pattern of the
// route table, and from the wire types by reflection (openapi_schema.go). Tests hold it to the
// router (every route documented, every documented route registered) and to real answers
// (every body valid against the schema of its route and status).

// OpenAPIPath is where the server serves its OpenAPI document.
const OpenAPIPath = "/api/v4/openapi.json"

// security is who may call a route.
type security int

const (
	secAPI      security = iota // X-TENANT-KEY and X-API-KEY (spec 1 §5)
	secOperator                 // Authorization: Bearer <operator token>
	secPublic                   // no credentials
)

// routeDoc documents one route of the table.
type routeDoc struct {
	pattern string // "METHOD /path", exactly as registered
	summary string
	tag     string
	sec     security
	body    reflect.Type // the JSON request body; nil when the route reads none
	status  int          // the success status; 0 means 200
	data    reflect.Type // data of the success envelope; nil when the route has no success answer
	bare    bool         // the success answer is data itself, without the envelope (load queries)
	media   string       // a success answer that is not JSON: its media type ("" when JSON)
	errors  []int        // statuses besides those every route of its security and body answers
	query   []queryParam
	notes   string // the operation's description

	deprecated bool // a discontinued endpoint: it answers only errors
}

// queryParam is a query parameter of a route (names are matched without regard to case).
type queryParam struct {
	name, desc string
	typ        string // JSON type: "string" (default), "integer", "boolean"
}

// OpenAPI returns the document (JSON, indented), built once.
func OpenAPI() []byte {
	doc, err := openAPIDoc()
	if err != nil {
		panic(err) // the table is static: a failure is a programming error, caught by the tests
	}
	return doc
}

var openAPIDoc = sync.OnceValues(func() ([]byte, error) {
	b, err := json.MarshalIndent(buildOpenAPI(routeDocs), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return append(b, '\n'), nil
})

// serveOpenAPI answers the document (public; counted as an anonymous request).
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	if !s.limit(w, r, "addr:"+clientAddr(r), s.anonymous) {
		return
	}
	doc := OpenAPI()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(doc)))
	h.Set("X-Trace-Id", traceID(r.Context()))
	w.WriteHeader(http.StatusOK)
	w.Write(doc)
}

// errorTexts describe the error statuses the API answers.
var errorTexts = map[int]string{
	http.StatusPermanentRedirect:     "The resource has another name now: `Location` has its address (method and body kept).",
	http.StatusBadRequest:            "Validation or parsing failures (in `data`), or a rule broken (in `details`).",
	http.StatusUnauthorized:          "No valid credentials.",
	http.StatusForbidden:             "Permission, owner rule, environment or subscription rule.",
	http.StatusNotFound:              "The resource is absent or not visible to the caller.",
	http.StatusConflict:              "A concurrent change or a conflict with the resource's state.",
	http.StatusGone:                  "The endpoint was discontinued; `details` names the replacement.",
	http.StatusRequestEntityTooLarge: "The body is larger than 10 MB.",
	http.StatusTooManyRequests:       "Rate limit exceeded; `Retry-After` tells when to try again.",
	http.StatusInternalServerError:   "Server error; give `traceIdentifier` to support.",
	http.StatusBadGateway:            "An upstream server (SMTP) refused or could not be reached.",
	http.StatusServiceUnavailable:    "A dependency is not set up on this server (catalogs not imported, no mail transport, a SAT source).",
}

// statuses are every status a route answers: its success, then the errors of its security, its
// body and its own, sorted.
func (d routeDoc) statuses() (success int, errs []int) {
	success = d.status
	if success == 0 {
		success = http.StatusOK
	}
	errs = []int{http.StatusTooManyRequests, http.StatusInternalServerError}
	switch d.sec {
	case secAPI:
		errs = append(errs, http.StatusBadRequest, http.StatusUnauthorized) // 400: a bad X-TIME-ZONE
	case secOperator:
		errs = append(errs, http.StatusUnauthorized)
	}
	if d.body != nil {
		errs = append(errs, http.StatusBadRequest, http.StatusRequestEntityTooLarge)
	}
	errs = append(errs, d.errors...)
	slices.Sort(errs)
	return success, slices.Compact(errs)
}

func (d routeDoc) methodPath() (string, string) {
	m, p, _ := strings.Cut(d.pattern, " ")
	return m, p
}

// operationID is the method and the path's segments in camel case, parameters as By<Name>
// ("GET /api/v4/people/{id}" is getPeopleById).
func (d routeDoc) operationID() string {
	m, p := d.methodPath()
	var b strings.Builder
	b.WriteString(strings.ToLower(m))
	p = strings.TrimPrefix(strings.TrimPrefix(p, "/api/v4"), "/admin/v1")
	if strings.HasPrefix(d.pattern, m+" /admin/") {
		b.WriteString("Admin")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" {
			continue
		}
		if strings.HasPrefix(seg, "{") {
			b.WriteString("By")
			seg = strings.Trim(seg, "{}.")
		}
		for _, w := range strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// pathParams are the names of the wildcards of a path.
func pathParams(path string) []string {
	var out []string
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	return out
}

func ref(kind, name string) map[string]any {
	return map[string]any{"$ref": "#/components/" + kind + "/" + name}
}

// buildOpenAPI is the document of docs.
func buildOpenAPI(docs []routeDoc) map[string]any {
	g := newSchemaSet()
	for _, d := range docs { // every struct's modes first: names depend on them
		g.collect(d.data, modeAnswer)
	}
	g.collect(reflect.TypeFor[api.Failure](), modeAnswer)
	for _, d := range docs {
		g.collect(d.body, modeRequest)
	}

	g.components["Envelope"] = map[string]any{
		"type":        "object",
		"description": "The body of every JSON answer but the load queries and this document.",
		"properties": map[string]any{
			"data":            map[string]any{"description": "The payload; on errors null, the failures, or a value the route names."},
			"succeeded":       map[string]any{"type": "boolean"},
			"message":         map[string]any{"type": []string{"string", "null"}},
			"details":         map[string]any{"type": []string{"string", "null"}},
			"httpStatusCode":  map[string]any{"type": "integer"},
			"traceIdentifier": map[string]any{"type": []string{"string", "null"}},
		},
		"required":             []string{"data", "succeeded", "message", "details", "httpStatusCode", "traceIdentifier"},
		"additionalProperties": false,
	}
	failure := g.schema(reflect.TypeFor[api.Failure](), modeAnswer)
	g.components["ErrorEnvelope"] = map[string]any{
		"description": "An error answer: `message` names the class (`Sorry, it's not me, it's you.` on 4xx, `Too Many Requests` on 429), `details` the cause, `data` the failures of a 400 (each with the property or JSON path that failed).",
		"allOf":       []any{ref("schemas", "Envelope")},
		"properties": map[string]any{
			"succeeded": map[string]any{"const": false},
			"data": map[string]any{"anyOf": []any{
				map[string]any{"type": "null"},
				map[string]any{"type": "boolean"},
				map[string]any{"type": "array", "items": failure},
			}},
		},
	}

	headers := map[string]any{
		"RateLimit-Limit":     map[string]any{"description": "Requests allowed in the window of the route's family.", "schema": map[string]any{"type": "integer"}},
		"RateLimit-Remaining": map[string]any{"description": "Requests that may be sent at once now.", "schema": map[string]any{"type": "integer"}},
		"RateLimit-Reset":     map[string]any{"description": "Seconds until the whole limit is available again.", "schema": map[string]any{"type": "integer"}},
		"Retry-After":         map[string]any{"description": "Seconds until one more request is allowed.", "schema": map[string]any{"type": "integer"}},
		"X-Trace-Id":          map[string]any{"description": "The request's trace identifier (W3C form), as in `traceIdentifier`.", "schema": map[string]any{"type": "string"}},
	}
	answerHeaders := func(status int) map[string]any {
		h := map[string]any{"X-Trace-Id": ref("headers", "X-Trace-Id")}
		for _, n := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			h[n] = ref("headers", n)
		}
		if status == http.StatusTooManyRequests {
			h["Retry-After"] = ref("headers", "Retry-After")
		}
		return h
	}

	responses := map[string]any{}
	errorResponse := func(status int) map[string]any {
		name := "Error" + strconv.Itoa(status)
		if _, ok := responses[name]; !ok {
			text, ok := errorTexts[status]
			if !ok {
				panic(fmt.Sprintf("openapi: no description of status %d", status))
			}
			responses[name] = map[string]any{
				"description": text,
				"headers":     answerHeaders(status),
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
					"allOf":      []any{ref("schemas", "ErrorEnvelope")},
					"properties": map[string]any{"httpStatusCode": map[string]any{"const": status}},
				}}},
			}
		}
		return ref("responses", name)
	}

	paths := map[string]any{}
	tags := map[string]bool{}
	for _, d := range docs {
		method, path := d.methodPath()
		tags[d.tag] = true
		op := map[string]any{
			"operationId": d.operationID(),
			"summary":     d.summary,
			"tags":        []string{d.tag},
		}
		if d.notes != "" {
			op["description"] = d.notes
		}
		if d.deprecated {
			op["deprecated"] = true
		}
		switch d.sec {
		case secAPI:
			op["security"] = []any{map[string]any{"tenantKey": []string{}, "apiKey": []string{}}}
		case secOperator:
			op["security"] = []any{map[string]any{"operatorToken": []string{}}}
		default:
			op["security"] = []any{}
		}
		var params []any
		for _, p := range pathParams(path) {
			params = append(params, map[string]any{"name": p, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range d.query {
			typ := q.typ
			if typ == "" {
				typ = "string"
			}
			params = append(params, map[string]any{"name": q.name, "in": "query", "description": q.desc, "schema": map[string]any{"type": typ}})
		}
		if d.sec == secAPI {
			params = append(params, ref("parameters", "TimeZone"))
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if d.body != nil {
			op["requestBody"] = map[string]any{
				"required": true,
				"content":  map[string]any{"application/json": map[string]any{"schema": g.schema(d.body, modeRequest)}},
			}
		}
		success, errs := d.statuses()
		rs := map[string]any{}
		switch {
		case d.data == nil && d.media == "" && success == http.StatusSwitchingProtocols:
			rs[strconv.Itoa(success)] = map[string]any{"description": "The websocket is open."}
		case d.data == nil && d.media == "":
			// no success answer (a discontinued endpoint)
		case d.media != "":
			content := map[string]any{d.media: map[string]any{}}
			if d.data != nil {
				content[d.media] = map[string]any{"schema": g.schema(d.data, modeAnswer)}
			} else if d.media == "application/json" {
				content[d.media] = map[string]any{"schema": map[string]any{"type": "object"}}
			} else {
				content[d.media] = map[string]any{"schema": map[string]any{"type": "string"}}
			}
			rs[strconv.Itoa(success)] = map[string]any{"description": http.StatusText(success), "headers": answerHeaders(success), "content": content}
		case d.bare:
			rs[strconv.Itoa(success)] = map[string]any{
				"description": "The result, without the envelope.",
				"headers":     answerHeaders(success),
				"content":     map[string]any{"application/json": map[string]any{"schema": g.schema(d.data, modeAnswer)}},
			}
		default:
			rs[strconv.Itoa(success)] = map[string]any{
				"description": http.StatusText(success),
				"headers":     answerHeaders(success),
				"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
					"allOf": []any{ref("schemas", "Envelope")},
					"properties": map[string]any{
						"data":           g.schema(d.data, modeAnswer),
						"succeeded":      map[string]any{"const": true},
						"httpStatusCode": map[string]any{"const": success},
					},
				}}},
			}
		}
		for _, st := range errs {
			rs[strconv.Itoa(st)] = errorResponse(st)
		}
		op["responses"] = rs
		item, _ := paths[path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[path] = item
		}
		item[strings.ToLower(method)] = op
	}

	var tagList []any
	for _, t := range slices.Sorted(maps.Keys(tags)) {
		tagList = append(tagList, map[string]any{"name": t})
	}
	return map[string]any{
		"openapi":           "3.1.0",
		"jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
		"info": map[string]any{
			"title":   "timbra API",
			"version": "4",
			"description": "The API of `timbra server`: the invoicing API under /api/v4 and the operator API under /admin/v1. " +
				"Every JSON answer but the load queries and this document is an envelope (data, succeeded, message, details, httpStatusCode, traceIdentifier); " +
				"every answer carries the RateLimit-* headers. Query parameter names are matched without regard to case; " +
				"unknown query parameters are ignored.",
		},
		"tags":  tagList,
		"paths": paths,
		"components": map[string]any{
			"schemas":   g.components,
			"responses": responses,
			"headers":   headers,
			"parameters": map[string]any{"TimeZone": map[string]any{
				"name": "X-TIME-ZONE", "in": "header",
				"description": "IANA time zone of the date-times of webhooks and deliveries (also read as X-TIMEZONE). An unknown name answers 400.",
				"schema":      map[string]any{"type": "string"},
			}},
			"securitySchemes": map[string]any{
				"tenantKey":     map[string]any{"type": "apiKey", "in": "header", "name": "X-TENANT-KEY", "description": "The tenant key; sent with X-API-KEY."},
				"apiKey":        map[string]any{"type": "apiKey", "in": "header", "name": "X-API-KEY", "description": "A person's API key; the request acts as that person."},
				"operatorToken": map[string]any{"type": "http", "scheme": "bearer", "description": "The operator token given to the server at start (TIMBRA_ADMIN_TOKEN or the token file beside the database)."},
			},
		},
	}
}
