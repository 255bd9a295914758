package loadquery

import (
	"encoding/json"
	"net/url"
	"testing"
)

// FuzzLoad feeds arbitrary values of the six JSON parameters, skip and take: no input panics, and
// every input gives either failures (and an empty result) or a result that encodes as JSON.
func FuzzLoad(f *testing.F) {
	seeds := [][8]string{
		{`[{"selector":"amount","desc":true}]`, `[["name","contains","ar"],"or",["!",["qty","=",null]]]`, ``, `["id","country.id"]`, `[{"summaryType":"count"}]`, ``, `1`, `2`},
		{`"name"`, `["createdAt",">=","2024-01-01"]`, `[{"selector":"createdAt","groupInterval":"month","isExpanded":false}]`, ``, ``, `[{"selector":"amount","summaryType":"sum"}]`, ``, ``},
		{``, `[["amount",">",0],["active","=",true]]`, `[{"selector":"active"},{"selector":"amount","groupInterval":10}]`, `"country"`, `[{"selector":"name","summaryType":"max"}]`, `[{"selector":"qty","summaryType":"avg"}]`, `0`, `1`},
		{`[{"selector":`, `["id","like",1]`, `[{"selector":"nope"}]`, `[1]`, `[{"summaryType":"median"}]`, `{}`, `x`, `-1`},
		{`[]`, `[[]]`, `[{"selector":"amount","groupInterval":1e-300}]`, `[]`, `[]`, `[]`, `2147483647`, `2147483647`},
		{`null`, `["!",["!",["!",["id","a1"]]]]`, `[{"selector":"qty","groupInterval":"0x10"}]`, `null`, `null`, `null`, ``, ``},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
	}
	f.Fuzz(func(t *testing.T, sort, filter, group, sel, totalSummary, groupSummary, skip, take string) {
		q := url.Values{}
		for k, v := range map[string]string{"sort": sort, "filter": filter, "group": group, "select": sel,
			"totalSummary": totalSummary, "groupSummary": groupSummary, "skip": skip, "take": take} {
			q.Set(k, v)
		}
		q.Set("requireTotalCount", "true")
		q.Set("requireGroupCount", "true")
		res, fs := Load(testSchema, testRecords(), q)
		if len(fs) > 0 {
			if res.Data != nil || res.Summary != nil {
				t.Fatalf("failures and a result: %+v", res)
			}
			for _, f := range fs {
				if f.PropertyName == "" || f.ErrorMessage == "" {
					t.Fatalf("failure without property or message: %+v", f)
				}
			}
			return
		}
		if fs != nil {
			t.Fatal("empty non-nil failures")
		}
		if res.Data == nil || res.TotalCount < 0 {
			t.Fatalf("result without data or count: %+v", res)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
	})
}
