package loadquery

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFilterOperators(t *testing.T) {
	tests := []struct {
		filter string
		want   []string
	}{
		// = and <> on each kind; text ignores case
		{`["id","=","A1"]`, []string{"a1"}},
		{`["id","a2"]`, []string{"a2"}}, // [field, value] means =
		{`["name","=","BARCO"]`, []string{"b1", "b2"}},
		{`["name","=","arbol"]`, []string{}}, // case is ignored, accents are not
		{`["name","<>","barco"]`, []string{"a1", "a2", "c1", "c2", "d1"}},
		{`["amount","=",25.5]`, []string{"a2"}},
		{`["amount","=","100"]`, []string{"b2"}}, // converted to the field's kind
		{`["amount","=","abc"]`, []string{}},     // cannot convert: nothing matches
		{`["amount","<>","abc"]`, []string{}},
		{`["active","=",true]`, []string{"a1", "b1", "c1", "d1"}},
		{`["active","<>",true]`, []string{"a2", "b2", "c2"}},
		{`["active","=","False"]`, []string{"a2", "b2", "c2"}},
		{`["country.id","=","mx"]`, []string{"a1", "b1", "c2"}},
		{`["Country.Name","=","canadá"]`, []string{"c1"}},

		// ordering
		{`["amount",">",10]`, []string{"a2", "b2", "d1"}},
		{`["amount",">=",10]`, []string{"a1", "a2", "b2", "d1"}},
		{`["amount","<",0]`, []string{"c1"}},
		{`["amount","<=",0]`, []string{"c1", "c2"}},
		{`["qty",">=",3]`, []string{"b1", "c1", "d1"}},   // null qty never matches
		{`["name",">","barco"]`, []string{"c1", "d1"}},   // text order ignores case
		{`["name","<","B"]`, []string{"a1", "a2", "c2"}}, // "" < "árbol" < "avión" < "b"
		{`["name","<=","Árbol"]`, []string{"a1", "c2"}},
		{`["active",">",false]`, []string{"a1", "b1", "c1", "d1"}},

		// text operators: case-insensitive, null reads as ""
		{`["name","contains","AR"]`, []string{"b1", "b2"}}, // "árbol": accents count
		{`["name","contains","RBO"]`, []string{"a1"}},
		{`["name","notcontains","ar"]`, []string{"a1", "a2", "c1", "c2", "d1"}},
		{`["name","startswith","b"]`, []string{"b1", "b2"}},
		{`["name","StartsWith","Á"]`, []string{"a1"}},
		{`["name","endswith","DE"]`, []string{"c1"}},
		{`["name","contains",""]`, []string{"a1", "a2", "b1", "b2", "c1", "c2", "d1"}},
		{`["country.name","contains","ESTADOS"]`, []string{"a2", "d1"}},
		{`["country.name","notcontains","a"]`, []string{"a1", "b1", "b2", "c2"}}, // México, and null read as ""
		{`["amount","contains","5"]`, []string{"a2", "b1"}},                      // a number read as text: 25.5, 5
		{`["amount","startswith","-"]`, []string{"c1"}},
		{`["active","contains","TRU"]`, []string{"a1", "b1", "c1", "d1"}},
		{`["createdAt","startswith","2024-0"]`, []string{"b1", "b2", "c1"}},
		{`["id","contains",1]`, []string{"a1", "b1", "c1", "d1"}},

		// null
		{`["qty","=",null]`, []string{"a2", "c2"}},
		{`["qty","<>",null]`, []string{"a1", "b1", "b2", "c1", "d1"}},
		{`["qty",">",null]`, []string{}},
		{`["qty","<=",null]`, []string{}},
		{`["country.id","=",null]`, []string{"b2"}},
		{`["updatedAt","<>",null]`, []string{"c2"}},
		{`["qty","<>",3]`, []string{"a1", "a2", "b2", "c1", "c2", "d1"}}, // null <> 3

		// dates, compared as instants in several spellings
		{`["createdAt",">=","2024-01-01"]`, []string{"b1", "b2", "c1"}},
		{`["createdAt","<","2023/01/15 10:00:00"]`, []string{"c2"}},
		{`["createdAt","<=","2023/01/15 10:00:00"]`, []string{"a1", "c2"}},
		{`["createdAt","=","2023-05-20T08:30:00Z"]`, []string{"a2"}},
		{`["createdAt","=","2023-05-20T02:30:00-06:00"]`, []string{"a2"}},
		{`["createdAt","=","2024-02-29T23:59:59.999"]`, []string{"b2"}},
		{`["createdAt",">","2024-02-29T23:59:59.998Z"]`, []string{"b2", "c1"}},
		{`["createdAt","=","not a date"]`, []string{}},
		{`["updatedAt","<","2023-06-01"]`, []string{"c2"}},

		// nesting, "and", "or", implicit "and", negation
		{`[["amount",">",0],"and",["active","=",true]]`, []string{"a1", "b1", "d1"}},
		{`[["amount",">",0],["active","=",true]]`, []string{"a1", "b1", "d1"}},
		{`[["id","=","a1"],"or",["id","=","c2"],"OR",["id","=","d1"]]`, []string{"a1", "c2", "d1"}},
		{`[[["id","=","a1"],"or",["id","=","b1"]],"and",["amount",">",6]]`, []string{"a1"}},
		{`[["country.id","=","MX"],"and",[["amount","<",6],"or",["qty","=",null]]]`, []string{"b1", "c2"}},
		{`["!",["active","=",true]]`, []string{"a2", "b2", "c2"}},
		{`["!",[["id","=","a1"],"or",["id","=","a2"]]]`, []string{"b1", "b2", "c1", "c2", "d1"}},
		{`["!",["!",["id","=","a1"]]]`, []string{"a1"}},
		{`[["!",["active","=",true]],"and",["!",["qty","=",null]]]`, []string{"b2"}},
		{`[["id","=","a1"]]`, []string{"a1"}},
		{`[]`, []string{"a1", "a2", "b1", "b2", "c1", "c2", "d1"}},
		{`null`, []string{"a1", "a2", "b1", "b2", "c1", "c2", "d1"}},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			res := mustLoad(t, "filter", tt.filter)
			if got := ids(t, res); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSortAndPaging(t *testing.T) {
	tests := []struct {
		name string
		q    []string
		want []string
	}{
		{"storage order without sort", nil, []string{"a1", "a2", "b1", "b2", "c1", "c2", "d1"}},
		{"number", []string{"sort", `[{"selector":"amount"}]`}, []string{"c1", "c2", "b1", "a1", "a2", "d1", "b2"}},
		{"number desc", []string{"sort", `[{"selector":"amount","desc":true}]`}, []string{"b2", "d1", "a2", "a1", "b1", "c2", "c1"}},
		{"bare selector", []string{"sort", `"amount"`}, []string{"c1", "c2", "b1", "a1", "a2", "d1", "b2"}},
		// null first; equal keys keep storage order (stable)
		{"nulls first, stable", []string{"sort", `["qty"]`}, []string{"a2", "c2", "a1", "b2", "b1", "c1", "d1"}},
		{"nulls last when desc", []string{"sort", `[{"selector":"qty","desc":true}]`}, []string{"d1", "c1", "b1", "b2", "a1", "a2", "c2"}},
		{"stable on booleans", []string{"sort", `[{"selector":"active"}]`}, []string{"a2", "b2", "c2", "a1", "b1", "c1", "d1"}},
		// text: accents and case only break ties, lower case first
		{"text", []string{"sort", `["name"]`}, []string{"c2", "a1", "a2", "b2", "b1", "c1", "d1"}},
		{"text desc", []string{"sort", `[{"selector":"name","desc":true}]`}, []string{"d1", "c1", "b1", "b2", "a2", "a1", "c2"}},
		{"several keys", []string{"sort", `[{"selector":"active","desc":true},{"selector":"country.id"},{"selector":"amount","desc":true}]`}, []string{"c1", "a1", "b1", "d1", "b2", "c2", "a2"}},
		{"dates in mixed spellings", []string{"sort", `["createdAt"]`}, []string{"c2", "a1", "a2", "d1", "b1", "b2", "c1"}},
		{"nested field, case-insensitive", []string{"sort", `[{"Selector":"COUNTRY.ID","Desc":true}]`}, []string{"a2", "d1", "a1", "b1", "c2", "c1", "b2"}},

		// paging after sort
		{"take", []string{"sort", `["amount"]`, "take", "2"}, []string{"c1", "c2"}},
		{"skip", []string{"sort", `["amount"]`, "skip", "5"}, []string{"d1", "b2"}},
		{"skip and take", []string{"sort", `["amount"]`, "skip", "1", "take", "3"}, []string{"c2", "b1", "a1"}},
		{"take past the end", []string{"sort", `["amount"]`, "skip", "6", "take", "5"}, []string{"b2"}},
		{"skip past the end", []string{"sort", `["amount"]`, "skip", "70"}, []string{}},
		{"take without sort", []string{"take", "3"}, []string{"a1", "a2", "b1"}},
		{"take all", []string{"take", "0", "skip", "0"}, []string{"a1", "a2", "b1", "b2", "c1", "c2", "d1"}},
		{"paging after filter", []string{"filter", `["active","=",true]`, "sort", `[{"selector":"amount","desc":true}]`, "skip", "1", "take", "2"}, []string{"a1", "b1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(t, mustLoad(t, tt.q...)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	res := mustLoad(t, "filter", `["active","=",true]`, "take", "1", "requireTotalCount", "true", "requireGroupCount", "true")
	if res.TotalCount != 4 || res.GroupCount != -1 || res.Summary != nil {
		t.Fatalf("counts: %+v", res)
	}
	res = mustLoad(t, "take", "1")
	if res.TotalCount != -1 || res.GroupCount != -1 {
		t.Fatalf("not required: %+v", res)
	}
	want := `{"data":[],"totalCount":0,"groupCount":-1,"summary":null}`
	if got := toJSON(t, mustLoad(t, "filter", `["id","=","zz"]`, "RequireTotalCount", "TRUE")); got != want {
		t.Fatalf("empty result\n got  %s\n want %s", got, want)
	}
}

func TestSummaries(t *testing.T) {
	res := mustLoad(t, "totalSummary", `[
		{"summaryType":"count"},
		{"selector":"qty","summaryType":"count"},
		{"selector":"qty","summaryType":"sum"},
		{"selector":"qty","summaryType":"avg"},
		{"selector":"amount","summaryType":"min"},
		{"selector":"amount","summaryType":"max"},
		{"selector":"name","summaryType":"min"},
		{"selector":"name","summaryType":"max"},
		{"selector":"createdAt","summaryType":"max"},
		{"selector":"updatedAt","summaryType":"min"},
		{"selector":"country.id","summaryType":"Max"},
		{"selector":"active","summaryType":"min"}
	]`, "take", "1")
	want := []any{7, 7, 18.0, 3.6, -7.0, 100.0, "", "Dedo", "2024-03-03T12:00:00.000", "2023-01-01T00:00:00.000", "US", false}
	if !reflect.DeepEqual(res.Summary, want) {
		t.Fatalf("summary\n got  %#v\n want %#v", res.Summary, want)
	}
	if got := ids(t, res); len(got) != 1 {
		t.Fatalf("summaries are over every match, data is paged: %v", got)
	}

	// nothing matches: count 0, sum 0, the others null
	res = mustLoad(t, "filter", `["id","=","zz"]`, "totalSummary", `[{"summaryType":"count"},{"selector":"amount","summaryType":"sum"},{"selector":"amount","summaryType":"avg"},{"selector":"amount","summaryType":"min"},{"selector":"name","summaryType":"max"}]`)
	if want := []any{0, 0.0, nil, nil, nil}; !reflect.DeepEqual(res.Summary, want) {
		t.Fatalf("empty summary: %#v", res.Summary)
	}

	// only null values: avg null, sum 0
	res = mustLoad(t, "filter", `["qty","=",null]`, "totalSummary", `[{"selector":"qty","summaryType":"sum"},{"selector":"qty","summaryType":"avg"},{"selector":"qty","summaryType":"max"}]`)
	if want := []any{0.0, nil, nil}; !reflect.DeepEqual(res.Summary, want) {
		t.Fatalf("null summary: %#v", res.Summary)
	}

	// groupSummary without group is ignored; totalSummary absent gives null
	res = mustLoad(t, "groupSummary", `[{"summaryType":"count"}]`)
	if res.Summary != nil {
		t.Fatalf("summary without totalSummary: %#v", res.Summary)
	}
}

func TestSelect(t *testing.T) {
	tests := []struct {
		name string
		q    []string
		want string
	}{
		{"fields and subfields, in the order asked, with the schema's spelling", []string{"select", `["ID","Country.Id","amount"]`, "take", "2"},
			`[{"id":"a1","country":{"id":"MX"},"amount":10},{"id":"a2","country":{"id":"US"},"amount":25.5}]`},
		{"a whole object and a list", []string{"select", `["country","tags"]`, "take", "1"},
			`[{"country":{"id":"MX","name":"México"},"tags":["x"]}]`},
		{"null parent gives null subfields", []string{"select", `["id","country.id","country.name"]`, "filter", `["id","=","b2"]`},
			`[{"id":"b2","country":{"id":null,"name":null}}]`},
		{"a subfield after its selected parent is dropped", []string{"select", `["country","country.id"]`, "take", "1"},
			`[{"country":{"id":"MX","name":"México"}}]`},
		{"a parent after its subfield replaces it", []string{"select", `["country.id","country"]`, "take", "1"},
			`[{"country":{"id":"MX","name":"México"}}]`},
		{"a bare string", []string{"select", `"qty"`, "sort", `["qty"]`, "take", "3"},
			`[{"qty":null},{"qty":null},{"qty":1}]`},
		{"dates as the records hold them", []string{"select", `["createdAt","updatedAt"]`, "filter", `["id","=","c2"]`},
			`[{"createdAt":"2022-12-31T23:00:00.000","updatedAt":"2023-01-01T00:00:00.000"}]`},
		{"filter and sort on fields not selected", []string{"select", `["id"]`, "filter", `["amount",">",20]`, "sort", `[{"selector":"amount","desc":true}]`},
			`[{"id":"b2"},{"id":"d1"},{"id":"a2"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustLoad(t, tt.q...)
			if got := toJSON(t, res.Data); got != tt.want {
				t.Fatalf("\n got  %s\n want %s", got, tt.want)
			}
		})
	}
}

// groupShape is a compact view of groups: key, count, summary and ids or subgroups.
func groupShape(t *testing.T, data any) string {
	t.Helper()
	gs, ok := data.([]Group)
	if !ok {
		t.Fatalf("data is %T, want []Group", data)
	}
	var b strings.Builder
	for i, g := range gs {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(sprintf("%v", g.Key))
		if g.Count != nil {
			b.WriteString(sprintf("#%d", *g.Count))
		}
		if g.Summary != nil {
			b.WriteString(sprintf("%v", g.Summary))
		}
		switch items := g.Items.(type) {
		case nil:
		case []Group:
			b.WriteString("{" + groupShape(t, items) + "}")
		case []*rec:
			var ids []string
			for _, r := range items {
				ids = append(ids, r.ID)
			}
			b.WriteString("(" + strings.Join(ids, ",") + ")")
		default:
			b.WriteString(toJSON(t, items))
		}
	}
	return b.String()
}

func TestGroup(t *testing.T) {
	tests := []struct {
		name string
		q    []string
		want string
	}{
		{"by value, groups ordered by key, records keep sort", []string{"group", `[{"selector":"country.id"}]`, "sort", `[{"selector":"amount","desc":true}]`},
			"<nil>(b2) CA(c1) MX(a1,b1,c2) US(d1,a2)"},
		{"bare selector", []string{"group", `"active"`}, "false(a2,b2,c2) true(a1,b1,c1,d1)"},
		{"desc", []string{"group", `[{"selector":"country.id","desc":true}]`}, "US(a2,d1) MX(a1,b1,c2) CA(c1) <nil>(b2)"},
		{"case-insensitive selector", []string{"group", `[{"Selector":"ACTIVE","IsExpanded":false}]`}, "false#3 true#4"},
		{"not expanded: count instead of items", []string{"group", `[{"selector":"active","isExpanded":false}]`}, "false#3 true#4"},
		{"expanded explicitly", []string{"group", `[{"selector":"active","isExpanded":true}]`}, "false(a2,b2,c2) true(a1,b1,c1,d1)"},
		{"two levels, the last one collapsed", []string{"group", `[{"selector":"active"},{"selector":"country.id","isExpanded":false}]`},
			"false{<nil>#1 MX#1 US#1} true{CA#1 MX#2 US#1}"},
		{"two levels expanded; isExpanded of a level that is not the last is ignored", []string{"group", `[{"selector":"active","isExpanded":false},{"selector":"country.id","desc":true}]`},
			"false{US(a2) MX(c2) <nil>(b2)} true{US(d1) MX(a1,b1) CA(c1)}"},
		{"text groups by exact value, ordered ignoring case", []string{"group", `["name"]`, "filter", `["name","startswith","b"]`},
			"barco(b2) Barco(b1)"},

		// intervals
		{"number interval", []string{"group", `[{"selector":"amount","groupInterval":10}]`},
			"0(b1,c1,c2) 10(a1) 20(a2) 40(d1) 100(b2)"},
		{"number interval as text, not expanded", []string{"group", `[{"selector":"amount","groupInterval":"50","isExpanded":false}]`},
			"0#6 100#1"},
		{"fractional interval", []string{"group", `[{"selector":"amount","groupInterval":2.5,"isExpanded":false}]`, "filter", `["amount",">",20]`},
			"25#1 40#1 100#1"},
		{"interval on a nullable number", []string{"group", `[{"selector":"qty","groupInterval":2,"isExpanded":false}]`},
			"<nil>#2 0#1 2#2 4#1 6#1"},
		{"year", []string{"group", `[{"selector":"createdAt","groupInterval":"year"}]`},
			"2022(c2) 2023(a1,a2,d1) 2024(b1,b2,c1)"},
		{"quarter", []string{"group", `[{"selector":"createdAt","groupInterval":"quarter","isExpanded":false}]`},
			"1#4 2#1 3#1 4#1"},
		{"month", []string{"group", `[{"selector":"createdAt","groupInterval":"month","isExpanded":false}]`},
			"1#2 2#1 3#1 5#1 7#1 12#1"},
		{"day", []string{"group", `[{"selector":"createdAt","groupInterval":"day","isExpanded":false}]`},
			"1#1 3#1 4#1 15#1 20#1 29#1 31#1"},
		{"dayOfWeek, Sunday 0", []string{"group", `[{"selector":"createdAt","groupInterval":"dayOfWeek"}]`},
			"0(a1,c1) 1(b1) 2(d1) 4(b2) 6(a2,c2)"},
		{"hour", []string{"group", `[{"selector":"createdAt","groupInterval":"hour","isExpanded":false}]`},
			"0#1 8#1 10#1 12#1 15#1 23#2"},
		{"minute and second", []string{"group", `[{"selector":"createdAt","groupInterval":"minute"},{"selector":"createdAt","groupInterval":"second","isExpanded":false}]`},
			"0{0#4} 30{0#1} 45{30#1} 59{59#1}"},
		{"year then month, desc", []string{"group", `[{"selector":"createdAt","groupInterval":"year","desc":true},{"selector":"createdAt","groupInterval":"month","isExpanded":false}]`},
			"2024{1#1 2#1 3#1} 2023{1#1 5#1 7#1} 2022{12#1}"},
		{"nullable date", []string{"group", `[{"selector":"updatedAt","groupInterval":"year","isExpanded":false}]`},
			"<nil>#6 2023#1"},

		// group summaries, at every level
		{"group summary", []string{"group", `[{"selector":"active","isExpanded":false}]`, "groupSummary", `[{"summaryType":"count"},{"selector":"amount","summaryType":"sum"},{"selector":"qty","summaryType":"avg"},{"selector":"name","summaryType":"max"}]`},
			"false#3[3 125.5 2 barco] true#4[4 50 4 Dedo]"},
		{"group summary on two levels", []string{"group", `[{"selector":"country.id"},{"selector":"active","isExpanded":false}]`, "groupSummary", `[{"selector":"amount","summaryType":"max"}]`, "filter", `["country.id","<>",null]`},
			"CA[-7]{true#1[-7]} MX[10]{false#1[0] true#2[10]} US[42]{false#1[25.5] true#1[42]}"},

		// paging over top-level groups
		{"take groups", []string{"group", `[{"selector":"country.id","isExpanded":false}]`, "take", "2"}, "<nil>#1 CA#1"},
		{"skip groups", []string{"group", `[{"selector":"country.id","isExpanded":false}]`, "skip", "1", "take", "2"}, "CA#1 MX#3"},
		{"skip past the groups", []string{"group", `[{"selector":"country.id"}]`, "skip", "9"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := groupShape(t, mustLoad(t, tt.q...).Data); got != tt.want {
				t.Fatalf("\n got  %s\n want %s", got, tt.want)
			}
		})
	}
}

func TestGroupCounts(t *testing.T) {
	res := mustLoad(t, "group", `[{"selector":"country.id","isExpanded":false}]`, "skip", "1", "take", "1",
		"requireTotalCount", "true", "requireGroupCount", "true", "totalSummary", `[{"selector":"amount","summaryType":"sum"}]`)
	if res.TotalCount != 7 || res.GroupCount != 4 {
		t.Fatalf("totalCount counts records, groupCount top-level groups before paging: %+v", res)
	}
	if !reflect.DeepEqual(res.Summary, []any{175.5}) {
		t.Fatalf("total summary over every record: %v", res.Summary)
	}
	want := `{"data":[{"key":"CA","items":null,"count":1,"summary":null}],"totalCount":7,"groupCount":4,"summary":[175.5]}`
	if got := toJSON(t, res); got != want {
		t.Fatalf("JSON\n got  %s\n want %s", got, want)
	}
}

func TestResultJSON(t *testing.T) {
	tests := []struct {
		name string
		q    []string
		want string
	}{
		{"records as they encode", []string{"filter", `["id","=","b2"]`},
			`{"data":[{"id":"b2","name":"barco","amount":100,"qty":2,"active":false,"createdAt":"2024-02-29T23:59:59.999","updatedAt":null,"country":null,"tags":null}],"totalCount":-1,"groupCount":-1,"summary":null}`},
		{"expanded groups with select and summaries", []string{"group", `[{"selector":"active"}]`, "select", `["id"]`, "filter", `["amount",">",30]`,
			"groupSummary", `[{"summaryType":"count"}]`, "totalSummary", `[{"selector":"amount","summaryType":"avg"}]`, "requireGroupCount", "true"},
			`{"data":[{"key":false,"items":[{"id":"b2"}],"count":null,"summary":[1]},{"key":true,"items":[{"id":"d1"}],"count":null,"summary":[1]}],"totalCount":-1,"groupCount":2,"summary":[71]}`},
		{"nested groups", []string{"group", `[{"selector":"active"},{"selector":"amount","groupInterval":100,"isExpanded":false}]`, "filter", `["amount",">",30]`},
			`{"data":[{"key":false,"items":[{"key":100,"items":null,"count":1,"summary":null}],"count":null,"summary":null},{"key":true,"items":[{"key":0,"items":null,"count":1,"summary":null}],"count":null,"summary":null}],"totalCount":-1,"groupCount":-1,"summary":null}`},
		{"no groups", []string{"group", `[{"selector":"active"}]`, "filter", `["id","=","zz"]`, "requireGroupCount", "true"},
			`{"data":[],"totalCount":-1,"groupCount":0,"summary":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toJSON(t, mustLoad(t, tt.q...)); got != tt.want {
				t.Fatalf("\n got  %s\n want %s", got, tt.want)
			}
		})
	}
}

func TestParameterNames(t *testing.T) {
	res := mustLoad(t, "FILTER", `["NAME","contains","ARCO"]`, "Sort", `[{"SELECTOR":"Amount","DESC":true}]`, "TAKE", "1", "requiretotalcount", "true")
	if got := ids(t, res); !reflect.DeepEqual(got, []string{"b2"}) || res.TotalCount != 2 {
		t.Fatalf("got %v %+v", got, res)
	}
	// An exact spelling wins over another spelling of the same name.
	res = mustLoad(t, "take", "1", "Take", "3")
	if got := ids(t, res); len(got) != 1 {
		t.Fatalf("exact spelling: %v", got)
	}
}

func TestParseQuery(t *testing.T) {
	o, fs := ParseQuery(query(
		"sort", `["id",{"selector":"amount","desc":true}]`,
		"group", `{"selector":"createdAt","groupInterval":"month","isExpanded":false}`,
		"filter", `[["id","A1"],"or",["!",["amount",">=",1e2]]]`,
		"select", `["id","country.id"]`,
		"totalSummary", `{"selector":"amount","summaryType":"sum"}`,
		"groupSummary", `[{"summaryType":"count"}]`,
		"skip", " 5 ", "take", "+10", "requireTotalCount", "True", "requireGroupCount", "false",
	))
	if fs != nil {
		t.Fatal(fs)
	}
	want := Options{
		Sort:  []SortInfo{{Selector: "id"}, {Selector: "amount", Desc: true}},
		Group: []GroupInfo{{Selector: "createdAt", IsExpanded: bp(false), GroupInterval: "month"}},
		Filter: &Filter{Or: true, Items: []Filter{
			{Field: "id", Op: "=", Value: "A1"},
			{Not: &Filter{Field: "amount", Op: ">=", Value: 100.0}},
		}},
		Select:            []string{"id", "country.id"},
		TotalSummary:      []SummaryInfo{{Selector: "amount", SummaryType: "sum"}},
		GroupSummary:      []SummaryInfo{{SummaryType: "count"}},
		Skip:              5,
		Take:              10,
		RequireTotalCount: true,
	}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("options\n got  %+v\n want %+v", o, want)
	}
}

// timeRec holds its dates as time.Time.
type timeRec struct {
	ID string
	At time.Time
}

func TestTimeValues(t *testing.T) {
	s := NewSchema(
		Field[timeRec]{Name: "id", Kind: String, Get: func(r timeRec) any { return r.ID }},
		Field[timeRec]{Name: "at", Kind: Date, Get: func(r timeRec) any { return r.At }},
	)
	mexico := time.FixedZone("CST", -6*3600)
	recs := []timeRec{
		{"x", time.Date(2024, 5, 1, 20, 0, 0, 0, mexico)}, // 2024-05-02T02:00Z
		{"y", time.Date(2024, 5, 2, 1, 0, 0, 0, time.UTC)},
		{"z", time.Date(2023, 12, 31, 23, 0, 0, 0, time.UTC)},
	}
	res, fs := Load(s, recs, query("filter", `["at",">","2024-05-02T01:30:00Z"]`))
	if fs != nil {
		t.Fatal(fs)
	}
	if got := res.Data.([]timeRec); len(got) != 1 || got[0].ID != "x" {
		t.Fatalf("instants: %v", got)
	}
	res, _ = Load(s, recs, query("sort", `["at"]`, "select", `["id"]`))
	if got := toJSON(t, res.Data); got != `[{"id":"z"},{"id":"y"},{"id":"x"}]` {
		t.Fatalf("sort by instant: %s", got)
	}
	res, _ = Load(s, recs, query("group", `[{"selector":"at","groupInterval":"day","isExpanded":false}]`))
	if got := toJSON(t, res.Data); got != `[{"key":2,"items":null,"count":2,"summary":null},{"key":31,"items":null,"count":1,"summary":null}]` {
		t.Fatalf("day in UTC: %s", got)
	}
}

// valueRec is a record passed by value whose getters return plain values, named types and
// other number types.
type status string

type valueRec struct {
	Code  status
	Count uint8
	Ratio float32
	Big   int64
}

func TestValueKinds(t *testing.T) {
	s := NewSchema(
		Field[valueRec]{Name: "code", Kind: String, Get: func(r valueRec) any { return r.Code }},
		Field[valueRec]{Name: "count", Kind: Number, Get: func(r valueRec) any { return r.Count }},
		Field[valueRec]{Name: "ratio", Kind: Number, Get: func(r valueRec) any { return r.Ratio }},
		Field[valueRec]{Name: "big", Kind: Number, Get: func(r valueRec) any { return &r.Big }},
	)
	recs := []valueRec{{"Open", 3, 0.5, 1 << 40}, {"closed", 200, 1.5, -1}, {"open", 7, 0.25, 0}}
	res, fs := Load(s, recs, query("filter", `[["code","=","OPEN"],"and",["count","<",10]]`, "sort", `[{"selector":"ratio"}]`,
		"totalSummary", `[{"selector":"count","summaryType":"sum"},{"selector":"big","summaryType":"max"},{"selector":"code","summaryType":"min"}]`))
	if fs != nil {
		t.Fatal(fs)
	}
	got := res.Data.([]valueRec)
	if len(got) != 2 || got[0].Count != 7 || got[1].Count != 3 {
		t.Fatalf("data: %v", got)
	}
	if want := []any{float64(3 + 7), int64(1 << 40), status("open")}; !reflect.DeepEqual(res.Summary, want) {
		t.Fatalf("summary %#v, want %#v", res.Summary, want)
	}
	res, _ = Load(s, recs, query("filter", `["count","contains","20"]`, "select", `["code","count","ratio"]`))
	if got := toJSON(t, res.Data); got != `[{"code":"closed","count":200,"ratio":1.5}]` {
		t.Fatalf("select: %s", got)
	}
}

func TestNewSchemaPanics(t *testing.T) {
	get := func(r *rec) any { return nil }
	tests := map[string][]Field[*rec]{
		"empty name":          {{Name: "", Kind: String, Get: get}},
		"dotted name":         {{Name: "a.b", Kind: String, Get: get}},
		"no getter":           {{Name: "a", Kind: String}},
		"no kind":             {{Name: "a", Get: get}},
		"duplicate":           {{Name: "a", Kind: String, Get: get}, {Name: "A", Kind: Number, Get: get}},
		"subfields of a list": {{Name: "a", Kind: List, Get: get, Fields: []Field[*rec]{{Name: "b", Kind: String, Get: get}}}},
	}
	for name, fields := range tests {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			NewSchema(fields...)
		})
	}
}
