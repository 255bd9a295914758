package loadquery

import (
	"reflect"
	"testing"
)

const (
	noField    = "El campo '%s' no existe en este recurso."
	notSimple  = "El campo '%s' es un objeto o una lista: no se puede usar en sort, filter, group ni en los resúmenes; usa uno de sus campos simples."
	noSummary  = "El resumen '%s' no existe: usa count, sum, avg, min o max."
	notNumeric = "El resumen '%s' solo admite campos numéricos y '%s' no lo es."
	badIntvl   = "El intervalo '%s' no aplica al campo '%s': un número requiere un campo numérico y year, quarter, month, day, dayOfWeek, hour, minute o second un campo de fecha."
	badJSON    = "El parámetro '%s' no es un JSON válido."
)

func TestValidationTexts(t *testing.T) {
	f := func(prop, format string, args ...any) wantFailure {
		return wantFailure{prop, sprintf(format, args...)}
	}
	tests := []struct {
		name string
		q    []string
		want []wantFailure
	}{
		// field does not exist, in each of the six, spelled as the client wrote it
		{"sort unknown", []string{"sort", `[{"selector":"Nope","desc":true}]`}, []wantFailure{f("sort", noField, "Nope")}},
		{"sort bare unknown", []string{"sort", `"nope"`}, []wantFailure{f("sort", noField, "nope")}},
		{"filter unknown", []string{"filter", `["nope","=",1]`}, []wantFailure{f("filter", noField, "nope")}},
		{"filter unknown subfield", []string{"filter", `["country.nope","=",1]`}, []wantFailure{f("filter", noField, "country.nope")}},
		{"filter subfield of a simple field", []string{"filter", `["id.x","=",1]`}, []wantFailure{f("filter", noField, "id.x")}},
		{"group unknown", []string{"group", `[{"selector":"nope"}]`}, []wantFailure{f("group", noField, "nope")}},
		{"select unknown", []string{"select", `["id","nope"]`}, []wantFailure{f("select", noField, "nope")}},
		{"totalSummary unknown", []string{"totalSummary", `[{"selector":"nope","summaryType":"max"}]`}, []wantFailure{f("totalSummary", noField, "nope")}},
		{"groupSummary unknown", []string{"groupSummary", `[{"selector":"nope","summaryType":"count"}]`}, []wantFailure{f("groupSummary", noField, "nope")}},
		{"sum without selector", []string{"totalSummary", `[{"summaryType":"sum"}]`}, []wantFailure{f("totalSummary", noField, "")}},

		// object or list outside select
		{"sort object", []string{"sort", `["Country"]`}, []wantFailure{f("sort", notSimple, "Country")}},
		{"filter list", []string{"filter", `["tags","contains","x"]`}, []wantFailure{f("filter", notSimple, "tags")}},
		{"group object", []string{"group", `[{"selector":"country"}]`}, []wantFailure{f("group", notSimple, "country")}},
		{"totalSummary list", []string{"totalSummary", `[{"selector":"tags","summaryType":"count"}]`}, []wantFailure{f("totalSummary", notSimple, "tags")}},
		{"groupSummary object", []string{"groupSummary", `[{"selector":"country","summaryType":"min"}]`}, []wantFailure{f("groupSummary", notSimple, "country")}},
		{"select object and list are fine", []string{"select", `["country","tags","country.id"]`}, nil},

		// summaries
		{"unknown summary type", []string{"totalSummary", `[{"selector":"amount","summaryType":"median"}]`}, []wantFailure{f("totalSummary", noSummary, "median")}},
		{"missing summary type", []string{"groupSummary", `[{"selector":"amount"}]`}, []wantFailure{f("groupSummary", noSummary, "")}},
		{"unknown type and unknown field", []string{"totalSummary", `[{"selector":"nope","summaryType":"first"}]`}, []wantFailure{f("totalSummary", noField, "nope"), f("totalSummary", noSummary, "first")}},
		{"sum on text", []string{"totalSummary", `[{"selector":"name","summaryType":"sum"}]`}, []wantFailure{f("totalSummary", notNumeric, "sum", "name")}},
		{"avg on date", []string{"groupSummary", `[{"selector":"CreatedAt","summaryType":"avg"}]`}, []wantFailure{f("groupSummary", notNumeric, "avg", "CreatedAt")}},
		{"avg on boolean", []string{"totalSummary", `[{"selector":"active","summaryType":"avg"}]`}, []wantFailure{f("totalSummary", notNumeric, "avg", "active")}},
		{"min and max on any simple field, count without selector", []string{"totalSummary", `[{"selector":"name","summaryType":"min"},{"selector":"createdAt","summaryType":"max"},{"summaryType":"count"},{"selector":"active","summaryType":"MAX"}]`}, nil},

		// group intervals
		{"number interval on text", []string{"group", `[{"selector":"name","groupInterval":10}]`}, []wantFailure{f("group", badIntvl, "10", "name")}},
		{"zero interval", []string{"group", `[{"selector":"amount","groupInterval":0}]`}, []wantFailure{f("group", badIntvl, "0", "amount")}},
		{"negative interval", []string{"group", `[{"selector":"amount","groupInterval":-5}]`}, []wantFailure{f("group", badIntvl, "-5", "amount")}},
		{"interval written as in the query", []string{"group", `[{"selector":"Amount","groupInterval":0.50e1}]`}, nil},
		{"interval quoted as written", []string{"group", `[{"selector":"Amount","groupInterval":-0.0e0}]`}, []wantFailure{f("group", badIntvl, "-0.0e0", "Amount")}},
		{"interval not a finite number", []string{"group", `[{"selector":"amount","groupInterval":"Inf"}]`}, []wantFailure{f("group", badIntvl, "Inf", "amount")}},
		{"date part in another case", []string{"group", `[{"selector":"createdAt","groupInterval":"DAYOFWEEK"}]`}, nil},
		{"year on a number", []string{"group", `[{"selector":"amount","groupInterval":"year"}]`}, []wantFailure{f("group", badIntvl, "year", "amount")}},
		{"number on a date", []string{"group", `[{"selector":"createdAt","groupInterval":7}]`}, []wantFailure{f("group", badIntvl, "7", "createdAt")}},
		{"unknown interval", []string{"group", `[{"selector":"createdAt","groupInterval":"week"}]`}, []wantFailure{f("group", badIntvl, "week", "createdAt")}},
		{"interval on a boolean", []string{"group", `[{"selector":"active","groupInterval":"day"}]`}, []wantFailure{f("group", badIntvl, "day", "active")}},
		{"every date interval", []string{"group", `[{"selector":"createdAt","groupInterval":"year"},{"selector":"createdAt","groupInterval":"quarter"},{"selector":"createdAt","groupInterval":"month"},{"selector":"createdAt","groupInterval":"day"},{"selector":"createdAt","groupInterval":"dayOfWeek"},{"selector":"createdAt","groupInterval":"hour"},{"selector":"createdAt","groupInterval":"minute"},{"selector":"createdAt","groupInterval":"second"}]`}, nil},
		{"number interval as text", []string{"group", `[{"selector":"amount","groupInterval":"25"}]`}, nil},

		// malformed JSON, each of the six
		{"sort malformed", []string{"sort", `[{"selector":`}, []wantFailure{f("sort", badJSON, "sort")}},
		{"filter malformed", []string{"filter", `["id","=",]`}, []wantFailure{f("filter", badJSON, "filter")}},
		{"group malformed", []string{"group", `{`}, []wantFailure{f("group", badJSON, "group")}},
		{"select malformed", []string{"select", `[id]`}, []wantFailure{f("select", badJSON, "select")}},
		{"totalSummary malformed", []string{"totalSummary", `[{}]]`}, []wantFailure{f("totalSummary", badJSON, "totalSummary")}},
		{"groupSummary malformed", []string{"groupSummary", `nul`}, []wantFailure{f("groupSummary", badJSON, "groupSummary")}},
		// valid JSON that is not an option of its kind
		{"filter unknown operator", []string{"filter", `["id","like","a"]`}, []wantFailure{f("filter", badJSON, "filter")}},
		{"filter mixes and with or", []string{"filter", `[["id","=","a1"],"or",["id","=","a2"],"and",["id","=","b1"]]`}, []wantFailure{f("filter", badJSON, "filter")}},
		{"filter implicit and after or", []string{"filter", `[["id","=","a1"],"or",["id","=","a2"],["id","=","b1"]]`}, []wantFailure{f("filter", badJSON, "filter")}},
		{"filter value is an array", []string{"filter", `["id","=",["a"]]`}, []wantFailure{f("filter", badJSON, "filter")}},
		{"filter is an object", []string{"filter", `{"id":"a"}`}, []wantFailure{f("filter", badJSON, "filter")}},
		{"negation without expression", []string{"filter", `["!","id"]`}, []wantFailure{f("filter", badJSON, "filter")}},
		{"sort desc not a boolean", []string{"sort", `[{"selector":"id","desc":"yes"}]`}, []wantFailure{f("sort", badJSON, "sort")}},
		{"select of numbers", []string{"select", `[1]`}, []wantFailure{f("select", badJSON, "select")}},
		{"summary not an object", []string{"totalSummary", `["sum"]`}, []wantFailure{f("totalSummary", badJSON, "totalSummary")}},
		{"group interval an object", []string{"group", `[{"selector":"amount","groupInterval":{}}]`}, []wantFailure{f("group", badJSON, "group")}},
		{"trailing data", []string{"sort", `["id"] ["name"]`}, []wantFailure{f("sort", badJSON, "sort")}},

		// the other parameters
		{"skip not a number", []string{"skip", "abc"}, []wantFailure{{"Skip", "El valor 'abc' no es válido para Skip."}}},
		{"take not an integer", []string{"take", "1.5"}, []wantFailure{{"Take", "El valor '1.5' no es válido para Take."}}},
		{"take too big", []string{"take", "99999999999"}, []wantFailure{{"Take", "El valor '99999999999' no es válido para Take."}}},
		{"requireTotalCount", []string{"requireTotalCount", "yes"}, []wantFailure{{"RequireTotalCount", "El valor 'yes' no es válido para RequireTotalCount."}}},
		{"requireGroupCount", []string{"RequireGroupCount", "1"}, []wantFailure{{"RequireGroupCount", "El valor '1' no es válido para RequireGroupCount."}}},
		{"empty values are absent", []string{"sort", "", "filter", "", "skip", "", "requireTotalCount", ""}, nil},
		{"negative skip and take are ignored", []string{"skip", "-3", "take", "-1"}, nil},

		// all failures at once, ordered by parameter
		{"everything wrong", []string{
			"take", "x",
			"groupSummary", `[{"selector":"name","summaryType":"avg"}]`,
			"filter", `[["nope","=",1],"or",["!",["tags","=",1]]]`,
			"sort", `["a","country.name","b"]`,
			"group", `[{"selector":"createdAt","groupInterval":"week"}]`,
			"select", `x`,
			"totalSummary", `[{"selector":"amount","summaryType":"total"}]`,
		}, []wantFailure{
			f("sort", noField, "a"),
			f("sort", noField, "b"),
			f("filter", noField, "nope"),
			f("filter", notSimple, "tags"),
			f("group", badIntvl, "week", "createdAt"),
			f("select", badJSON, "select"),
			f("totalSummary", noSummary, "total"),
			f("groupSummary", notNumeric, "avg", "name"),
			{"Take", "El valor 'x' no es válido para Take."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, fs := Load(testSchema, testRecords(), query(tt.q...))
			got := failuresOf(fs)
			want := tt.want
			if want == nil {
				want = []wantFailure{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("failures\n got  %q\n want %q", got, want)
			}
			if len(fs) > 0 && !reflect.DeepEqual(res, Result{}) {
				t.Fatalf("a failed load returned a result: %+v", res)
			}
			for _, f := range fs {
				if f.Severity != 0 || f.CustomState != nil {
					t.Fatalf("failure %+v: severity and customState must be zero", f)
				}
			}
		})
	}
}

func TestFailureDetails(t *testing.T) {
	_, fs := Load(testSchema, testRecords(), query("filter", `["Nope","=",1]`, "sort", `[{`))
	if len(fs) != 2 {
		t.Fatalf("got %d failures, want 2: %+v", len(fs), fs)
	}
	malformed, field := fs[0], fs[1]
	if malformed.PropertyName != "sort" || malformed.ErrorCode != nil || malformed.Placeholders != nil || malformed.AttemptedValue != `[{` {
		t.Errorf("malformed sort: %+v (want a parsing failure: no code, no placeholders, the raw value)", malformed)
	}
	if field.ErrorCode == nil || *field.ErrorCode != CodeFieldNotFound || field.AttemptedValue != "Nope" ||
		field.Placeholders["PropertyName"] != "filter" || field.Placeholders["PropertyValue"] != "Nope" {
		t.Errorf("unknown field: %+v", field)
	}
}

func TestRunValidatesProgrammaticOptions(t *testing.T) {
	_, fs := Run(testSchema, testRecords(), Options{Filter: &Filter{Field: "id", Op: "like", Value: "a"}})
	if got := failuresOf(fs); !reflect.DeepEqual(got, []wantFailure{{"filter", sprintf(badJSON, "filter")}}) {
		t.Fatalf("unknown operator: %q", got)
	}
	_, fs = Run(testSchema, testRecords(), Options{Filter: &Filter{Field: "id", Op: "=", Value: []int{1}}})
	if len(fs) != 1 {
		t.Fatalf("a list value: %q", failuresOf(fs))
	}
	res, fs := Run(testSchema, testRecords(), Options{Filter: &Filter{Field: "qty", Op: ">", Value: int64(4)}, Sort: []SortInfo{{Selector: "qty"}}})
	if fs != nil {
		t.Fatal(fs)
	}
	if got := ids(t, res); !reflect.DeepEqual(got, []string{"c1", "d1"}) {
		t.Fatalf("qty > 4: %v", got)
	}
}
