package loadquery

import (
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
)

// The parameters of a load query, as their failures name them (the query names are the same in
// lower camel case: skip, take, requireTotalCount, requireGroupCount).
const (
	ParamSort              = "sort"
	ParamFilter            = "filter"
	ParamGroup             = "group"
	ParamSelect            = "select"
	ParamTotalSummary      = "totalSummary"
	ParamGroupSummary      = "groupSummary"
	ParamSkip              = "Skip"
	ParamTake              = "Take"
	ParamRequireTotalCount = "RequireTotalCount"
	ParamRequireGroupCount = "RequireGroupCount"
)

// paramOrder is the order in which failures are listed.
var paramOrder = []string{ParamSort, ParamFilter, ParamGroup, ParamSelect, ParamTotalSummary,
	ParamGroupSummary, ParamSkip, ParamTake, ParamRequireTotalCount, ParamRequireGroupCount}

// Options is a parsed load query (DevExtreme's DataSourceLoadOptions).
type Options struct {
	Sort              []SortInfo
	Filter            *Filter // nil: every record
	Group             []GroupInfo
	Select            []string // nil: whole records
	TotalSummary      []SummaryInfo
	GroupSummary      []SummaryInfo
	Skip              int // records (or top-level groups) to skip; 0 or less: none
	Take              int // records (or top-level groups) to return; 0 or less: all
	RequireTotalCount bool
	RequireGroupCount bool
}

// SortInfo is one sort key.
type SortInfo struct {
	Selector string
	Desc     bool
}

// GroupInfo is one grouping level.
type GroupInfo struct {
	Selector string
	Desc     bool
	// IsExpanded of the last level decides whether its groups carry their records (true, the
	// default when nil) or only their count. DevExtreme ignores it on the other levels.
	IsExpanded *bool
	// GroupInterval is empty (group by the value), a positive number as text (numeric fields:
	// the key is value - value mod interval) or one of year, quarter, month, day, dayOfWeek,
	// hour, minute, second (date fields).
	GroupInterval string
}

// SummaryInfo is one summary: SummaryType is count, sum, avg, min or max.
type SummaryInfo struct {
	Selector    string
	SummaryType string
}

// Filter is one node of a filter expression. It is exactly one of:
//
//   - a negation: Not is set;
//   - a group: Items is non-nil, joined by "and" (Or false) or "or" (Or true);
//   - a condition: Field, Op and Value.
type Filter struct {
	Field string
	Op    string // =, <>, >, >=, <, <=, contains, notcontains, startswith, endswith
	Value any    // string, float64, bool or nil

	Not *Filter

	Items []Filter
	Or    bool
}

// ParseQuery reads a load query from the URL's parameters; names are matched case-insensitively
// and an empty value counts as absent. Each parameter that cannot be read is one failure (the
// JSON ones with the text of spec 1 §7.6, the others as any query parameter, spec 1 §7.5); the
// options of the parameters that could be read are returned anyway.
func ParseQuery(q url.Values) (Options, []api.Failure) {
	var o Options
	var fs []api.Failure

	jsonParam := func(name string, parse func(any) error) {
		raw, ok := param(q, name)
		if !ok {
			return
		}
		v, err := decodeJSON(raw)
		if err == nil {
			err = parse(v)
		}
		if err != nil {
			fs = append(fs, malformed(name, raw))
		}
	}
	jsonParam(ParamSort, func(v any) (err error) { o.Sort, err = parseSort(v); return })
	jsonParam(ParamFilter, func(v any) (err error) { o.Filter, err = parseFilterRoot(v); return })
	jsonParam(ParamGroup, func(v any) (err error) { o.Group, err = parseGroup(v); return })
	jsonParam(ParamSelect, func(v any) (err error) { o.Select, err = parseSelect(v); return })
	jsonParam(ParamTotalSummary, func(v any) (err error) { o.TotalSummary, err = parseSummary(v); return })
	jsonParam(ParamGroupSummary, func(v any) (err error) { o.GroupSummary, err = parseSummary(v); return })

	intParam := func(key, name string, dst *int) {
		raw, ok := param(q, key)
		if !ok {
			return
		}
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 32)
		if err != nil {
			fs = append(fs, invalidValue(name, raw))
			return
		}
		if n > 0 { // DevExtreme ignores a skip or take below 1
			*dst = int(n)
		}
	}
	intParam("skip", ParamSkip, &o.Skip)
	intParam("take", ParamTake, &o.Take)

	boolParam := func(key, name string, dst *bool) {
		raw, ok := param(q, key)
		if !ok {
			return
		}
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "true":
			*dst = true
		case "false":
			*dst = false
		default:
			fs = append(fs, invalidValue(name, raw))
		}
	}
	boolParam("requireTotalCount", ParamRequireTotalCount, &o.RequireTotalCount)
	boolParam("requireGroupCount", ParamRequireGroupCount, &o.RequireGroupCount)
	return o, fs
}

// param is the first value of the parameter called name in any letter case; an exact spelling
// wins over other spellings, which are tried in a fixed order. An empty value counts as absent.
func param(q url.Values, name string) (string, bool) {
	if vs := q[name]; len(vs) > 0 {
		return vs[0], vs[0] != ""
	}
	var keys []string
	for k := range q {
		if strings.EqualFold(k, name) && len(q[k]) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "", false
	}
	sort.Strings(keys)
	v := q[keys[0]][0]
	return v, v != ""
}

func invalidValue(name, raw string) api.Failure {
	return apierr.Parse(name, "El valor '"+raw+"' no es válido para "+name+".", raw)
}

// errShape is a parameter that is valid JSON but not a load option of its kind.
var errShape = errors.New("not a load option")

// decodeJSON decodes one JSON value, numbers kept as json.Number; trailing data is an error.
func decodeJSON(raw string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errShape
	}
	return v, nil
}

// prop reads a property of a JSON object by name, case-insensitively (as Json.NET binds
// DevExtreme's load options). An exact spelling wins.
func prop(m map[string]any, name string) (any, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	var keys []string
	for k := range m {
		if strings.EqualFold(k, name) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, false
	}
	sort.Strings(keys)
	return m[keys[0]], true
}

func stringProp(m map[string]any, name string) (string, error) {
	v, _ := prop(m, name)
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	}
	return "", errShape
}

func boolProp(m map[string]any, name string) (*bool, error) {
	v, _ := prop(m, name)
	switch v := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return &v, nil
	}
	return nil, errShape
}

// list turns a parameter into its items: null is none, an array is its elements, and a single
// string or object stands for a list of one.
func list(v any) ([]any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return v, nil
	case string, map[string]any:
		return []any{v}, nil
	}
	return nil, errShape
}

func parseSort(v any) ([]SortInfo, error) {
	items, err := list(v)
	if err != nil {
		return nil, err
	}
	var out []SortInfo
	for _, it := range items {
		switch it := it.(type) {
		case string:
			out = append(out, SortInfo{Selector: it})
		case map[string]any:
			sel, err := stringProp(it, "selector")
			if err != nil {
				return nil, err
			}
			desc, err := boolProp(it, "desc")
			if err != nil {
				return nil, err
			}
			out = append(out, SortInfo{Selector: sel, Desc: desc != nil && *desc})
		default:
			return nil, errShape
		}
	}
	return out, nil
}

func parseGroup(v any) ([]GroupInfo, error) {
	items, err := list(v)
	if err != nil {
		return nil, err
	}
	var out []GroupInfo
	for _, it := range items {
		switch it := it.(type) {
		case string:
			out = append(out, GroupInfo{Selector: it})
		case map[string]any:
			sel, err := stringProp(it, "selector")
			if err != nil {
				return nil, err
			}
			desc, err := boolProp(it, "desc")
			if err != nil {
				return nil, err
			}
			exp, err := boolProp(it, "isExpanded")
			if err != nil {
				return nil, err
			}
			g := GroupInfo{Selector: sel, Desc: desc != nil && *desc, IsExpanded: exp}
			iv, _ := prop(it, "groupInterval")
			switch iv := iv.(type) {
			case nil:
			case string:
				g.GroupInterval = iv
			case json.Number:
				g.GroupInterval = iv.String()
			default:
				return nil, errShape
			}
			out = append(out, g)
		default:
			return nil, errShape
		}
	}
	return out, nil
}

func parseSelect(v any) ([]string, error) {
	items, err := list(v)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, errShape
		}
		out = append(out, s)
	}
	return out, nil
}

func parseSummary(v any) ([]SummaryInfo, error) {
	items, err := list(v)
	if err != nil {
		return nil, err
	}
	var out []SummaryInfo
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, errShape
		}
		sel, err := stringProp(m, "selector")
		if err != nil {
			return nil, err
		}
		typ, err := stringProp(m, "summaryType")
		if err != nil {
			return nil, err
		}
		out = append(out, SummaryInfo{Selector: sel, SummaryType: typ})
	}
	return out, nil
}

// parseFilterRoot reads the filter parameter: null or an empty array is no filter.
func parseFilterRoot(v any) (*Filter, error) {
	switch a := v.(type) {
	case nil:
		return nil, nil
	case []any:
		if len(a) == 0 {
			return nil, nil
		}
		f, err := parseFilter(a)
		if err != nil {
			return nil, err
		}
		return &f, nil
	}
	return nil, errShape
}

// parseFilter reads one DevExtreme filter expression:
//
//	[field, op, value] | [field, value] | ["!", expr] | [expr, "and"|"or", expr, ...]
//
// Adjacent expressions without an operator are joined by "and"; one group may not mix "and" and
// "or" (DevExtreme rejects it too).
func parseFilter(a []any) (Filter, error) {
	if len(a) == 0 {
		return Filter{}, errShape
	}
	if _, isExpr := a[0].([]any); isExpr {
		return parseFilterGroup(a)
	}
	head, ok := a[0].(string)
	if !ok {
		return Filter{}, errShape
	}
	if head == "!" {
		if len(a) != 2 {
			return Filter{}, errShape
		}
		inner, ok := a[1].([]any)
		if !ok {
			return Filter{}, errShape
		}
		f, err := parseFilter(inner)
		if err != nil {
			return Filter{}, err
		}
		return Filter{Not: &f}, nil
	}
	var op string
	var value any
	switch len(a) {
	case 2:
		op, value = "=", a[1]
	case 3:
		s, ok := a[1].(string)
		if !ok {
			return Filter{}, errShape
		}
		op, value = strings.ToLower(s), a[2]
	default:
		return Filter{}, errShape
	}
	if !validOp(op) {
		return Filter{}, errShape
	}
	switch v := value.(type) {
	case nil, string, bool:
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return Filter{}, errShape
		}
		value = f
	default:
		return Filter{}, errShape
	}
	return Filter{Field: head, Op: op, Value: value}, nil
}

func parseFilterGroup(a []any) (Filter, error) {
	g := Filter{Items: []Filter{}}
	isAnd, nextIsAnd := true, true
	for _, it := range a {
		switch it := it.(type) {
		case []any:
			if len(g.Items) > 1 && isAnd != nextIsAnd {
				return Filter{}, errShape
			}
			isAnd = nextIsAnd
			f, err := parseFilter(it)
			if err != nil {
				return Filter{}, err
			}
			g.Items = append(g.Items, f)
			nextIsAnd = true
		case string:
			switch strings.ToLower(it) {
			case "and":
				nextIsAnd = true
			case "or":
				nextIsAnd = false
			default:
				return Filter{}, errShape
			}
		default:
			return Filter{}, errShape
		}
	}
	g.Or = !isAnd
	return g, nil
}

func validOp(op string) bool {
	switch op {
	case "=", "<>", ">", ">=", "<", "<=", "contains", "notcontains", "startswith", "endswith":
		return true
	}
	return false
}

// sortFailures orders failures by parameter (sort, filter, group, select, totalSummary,
// groupSummary, Skip, Take, RequireTotalCount, RequireGroupCount), keeping their order within
// one parameter.
func sortFailures(fs []api.Failure) {
	rank := func(p string) int {
		for i, n := range paramOrder {
			if n == p {
				return i
			}
		}
		return len(paramOrder)
	}
	sort.SliceStable(fs, func(i, j int) bool { return rank(fs[i].PropertyName) < rank(fs[j].PropertyName) })
}
