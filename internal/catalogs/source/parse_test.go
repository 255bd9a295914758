package source

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseInsert(t *testing.T) {
	tests := []struct {
		line string
		want []any
	}{
		{`INSERT INTO t VALUES('601','General de Ley Personas Morales','',1,'2022-01-01','');`,
			[]any{"601", "General de Ley Personas Morales", "", json.Number("1"), "2022-01-01", ""}},
		{`INSERT INTO t VALUES('O''Brien','''','a''''b');`, []any{"O'Brien", "'", "a''b"}},
		{`INSERT INTO t VALUES('a, b (c); d','x)y','(,;)');`, []any{"a, b (c); d", "x)y", "(,;)"}},
		{`INSERT INTO t VALUES('Régimen Simplificado de Confianza','ñandú €','日本');`,
			[]any{"Régimen Simplificado de Confianza", "ñandú €", "日本"}},
		{`INSERT INTO t VALUES(0,0.160000,-1,-0.5,12345678901234567890,1.5e10,2E-3,-1e999);`,
			[]any{json.Number("0"), json.Number("0.160000"), json.Number("-1"), json.Number("-0.5"),
				json.Number("12345678901234567890"), json.Number("1.5e10"), json.Number("2E-3"), json.Number("-1e999")}},
		{`INSERT INTO t VALUES(NULL,null,'NULL');`, []any{nil, nil, "NULL"}},
		{"INSERT INTO t VALUES('x');\r", []any{"x"}},
		{`  insert  into  "t"  values ( 'a' , 1 , NULL ) ;  `, []any{"a", json.Number("1"), nil}},
		{`INSERT INTO [t] VALUES('a');`, []any{"a"}},
		{`INSERT INTO t VALUES(replace('a\nb','\n',char(10)));`, []any{"a\nb"}},
		{`INSERT INTO t VALUES(replace(replace('a\r\nb','\r',char(13)),'\n',char(10)),'z');`, []any{"a\r\nb", "z"}},
		{`INSERT INTO t VALUES(replace('a-b','-','+'),REPLACE('x','','y'));`, []any{"a+b", "x"}},
		{`INSERT INTO t VALUES('');`, []any{""}},
	}
	for _, tt := range tests {
		got, err := ParseInsert(tt.line, "t")
		if err != nil {
			t.Errorf("ParseInsert(%q): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseInsert(%q) = %#v, want %#v", tt.line, got, tt.want)
		}
	}
}

func TestParseInsertErrors(t *testing.T) {
	tests := []struct {
		line, table, want string
	}{
		{``, "t", "expected INSERT INTO"},
		{`INSERT INTO t VALUES('a')`, "t", "expected ; at the end"},
		{`INSERT INTO t VALUES('a');x`, "t", "unexpected text after the statement"},
		{`INSERT INTO t VALUES('a);`, "t", "unterminated string"},
		{`INSERT INTO t VALUES('a' 'b');`, "t", "expected , or ) after value 1"},
		{`INSERT INTO t VALUES('a',);`, "t", "value 2: expected a string, a number or NULL"},
		{`INSERT INTO t VALUES();`, "t", "value 1: expected a string"},
		{`INSERT INTO t VALUES(01);`, "t", "malformed number"},
		{`INSERT INTO t VALUES(1.);`, "t", "digits expected after the decimal point"},
		{`INSERT INTO t VALUES(1e);`, "t", "digits expected in the exponent"},
		{`INSERT INTO t VALUES(12abc);`, "t", "malformed number"},
		{`INSERT INTO t VALUES(+1);`, "t", "expected a string, a number or NULL"},
		{`INSERT INTO t VALUES(NULLX);`, "t", "expected a string, a number or NULL"},
		{`INSERT INTO t VALUES(X'00');`, "t", "blob values are not supported"},
		{`INSERT INTO t VALUES('a'),('b');`, "t", "several rows"},
		{`INSERT INTO t("a") VALUES('a');`, "t", "column lists are not supported"},
		{`INSERT INTO u VALUES('a');`, "t", `inserts into "u", expected "t"`},
		{`INSERTINTO t VALUES('a');`, "t", "expected INSERT INTO"},
		{`INSERT INTO t VALUES(replace('a','b'));`, "t", "expected , in replace()"},
		{`INSERT INTO t VALUES(char(10));`, "t", "expected a string, a number or NULL"},
		{"INSERT INTO t VALUES('\xff');", "t", "not valid UTF-8"},
		{`INSERT INTO t VALUES(` + strings.Repeat("replace(", 20) + `'a'`, "t", "nested too deeply"},
	}
	for _, tt := range tests {
		_, err := ParseInsert(tt.line, tt.table)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseInsert(%q) error = %v, want it to contain %q", tt.line, err, tt.want)
		}
	}
	// Any table when none is asked for.
	if _, err := ParseInsert(`INSERT INTO whatever VALUES(1);`, ""); err != nil {
		t.Errorf("ParseInsert with no table: %v", err)
	}
}

func FuzzParseInsert(f *testing.F) {
	for _, s := range []string{
		`INSERT INTO t VALUES('601','General de Ley','',1,'2022-01-01','');`,
		`INSERT INTO t VALUES('O''Brien, (x); y',-0.160000,NULL,1e5);`,
		`INSERT INTO "t" VALUES(replace(replace('a\r\nb','\r',char(13)),'\n',char(10)));`,
		`INSERT INTO t VALUES('ñ');`,
		`INSERT INTO t VALUES(`,
		`INSERT INTO t VALUES('`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		vals, err := ParseInsert(line, "t")
		if err != nil {
			return
		}
		for _, v := range vals {
			switch v := v.(type) {
			case nil, string:
			case json.Number:
				if !json.Valid([]byte(v)) {
					t.Fatalf("number %q from %q is not a JSON number", v, line)
				}
			default:
				t.Fatalf("value of type %T from %q", v, line)
			}
		}
	})
}

func TestParseSchema(t *testing.T) {
	tests := []struct {
		text string
		want Table
	}{
		{"CREATE TABLE IF NOT EXISTS \"cfdi_40_regimenes_fiscales\"(\n  \"id\" text not null,\n  \"texto\" text not null,\n  \"aplica_fisica\" int not null,\n  PRIMARY KEY(\"id\")\n);\n",
			Table{Name: "cfdi_40_regimenes_fiscales", Columns: []string{"id", "texto", "aplica_fisica"}, Key: []string{"id"}}},
		{`CREATE TABLE IF NOT EXISTS "cfdi_tipos_factores"("id" text not null, PRIMARY KEY("id"));`,
			Table{Name: "cfdi_tipos_factores", Columns: []string{"id"}, Key: []string{"id"}}},
		{"CREATE TABLE IF NOT EXISTS \"m\"(\r\n  \"municipio\" text not null,\r\n  \"estado\" text not null,\r\n  \"texto\" text not null,\r\n  PRIMARY KEY(\"municipio\", \"estado\")\r\n);\r\n",
			Table{Name: "m", Columns: []string{"municipio", "estado", "texto"}, Key: []string{"municipio", "estado"}}},
		{"CREATE TABLE \"nokey\"(\n  \"a\" text not null,\n  \"b\" text not null\n);",
			Table{Name: "nokey", Columns: []string{"a", "b"}}},
		{"-- comment\ncreate table t (a integer primary key, b numeric(10, 2) default (1), [c d] text check (c in ('x', 'y')), `e` text) without rowid;",
			Table{Name: "t", Columns: []string{"a", "b", "c d", "e"}, Key: []string{"a"}}},
		{`CREATE TABLE main."t"("a" text, "b" text, CONSTRAINT pk PRIMARY KEY ("B" COLLATE nocase ASC, a))`,
			Table{Name: "t", Columns: []string{"a", "b"}, Key: []string{"b", "a"}}},
		{`CREATE TABLE "q""t"("x""y" text, UNIQUE(x), FOREIGN KEY ("x""y") REFERENCES o(id))`,
			Table{Name: `q"t`, Columns: []string{`x"y`}}},
	}
	for _, tt := range tests {
		got, err := ParseSchema(tt.text)
		if err != nil {
			t.Errorf("ParseSchema(%q): %v", tt.text, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSchema(%q) = %#v, want %#v", tt.text, got, tt.want)
		}
	}
}

func TestParseSchemaErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{``, "expected CREATE TABLE"},
		{`CREATE INDEX i ON t(a);`, "expected TABLE after CREATE"},
		{`CREATE TABLE "t"();`, "expected a column definition"},
		{`CREATE TABLE "t"("a" text`, "not closed"},
		{`CREATE TABLE "t"("a" text, "A" int);`, "declared twice"},
		{`CREATE TABLE "t"("a" text, PRIMARY KEY("b"));`, `"b" of table "t" is not a column`},
		{`CREATE TABLE "t"("a" text primary key, PRIMARY KEY("a"));`, "more than once"},
		{`CREATE TABLE "t"("a" text, PRIMARY KEY("a", "a"));`, "repeated"},
		{`CREATE TABLE "t"("a" text, PRIMARY KEY());`, "empty column"},
		{`CREATE TABLE "t"("a" text); CREATE TABLE "u"("b" text);`, "one CREATE TABLE statement only"},
		{`CREATE TABLE "t" AS SELECT 1;`, "AS SELECT is not supported"},
		{`CREATE TABLE "t("a" text);`, "unterminated"},
		{`CREATE TABLE "t"('a' text);`, "expected a column name"},
	}
	for _, tt := range tests {
		_, err := ParseSchema(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSchema(%q) error = %v, want it to contain %q", tt.text, err, tt.want)
		}
	}
}

func FuzzParseSchema(f *testing.F) {
	f.Add(`CREATE TABLE IF NOT EXISTS "t"("id" text not null, PRIMARY KEY("id"));`)
	f.Add("CREATE TABLE t (a, b, PRIMARY KEY(a, b)) WITHOUT ROWID;")
	f.Fuzz(func(t *testing.T, text string) {
		tb, err := ParseSchema(text)
		if err != nil {
			return
		}
		if tb.Name == "" || len(tb.Columns) == 0 {
			t.Fatalf("ParseSchema(%q) = %#v without error", text, tb)
		}
	})
}

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"10.14.20260806", "10.14.20260806", 0},
		{"10.14.20260806", "10.14.20260807", -1},
		{"10.15.20260101", "10.14.20260806", 1},
		{"9.99.20991231", "10.0.20000101", -1},
		{"10.2.20260101", "10.10.20260101", -1}, // numeric, not textual
		{"010.14.1", "10.14.1", 0},
		{"10.14", "10.14.0", 0},
		{"10.14", "10.14.1", -1},
		{" 10.14.20260806\n", "10.14.20260806", 0},
		{"123456789012345678901234567890.1", "123456789012345678901234567889.9", 1},
		{"", "1.0.0", -1},
		{"1.0.0", "", 1},
		{"x.1", "0.0.1", -1},
		{"1..2", "0.0.1", -1},
		{"1.2.", "0.0.1", -1},
		{"1.-2", "0.0.1", -1},
		{"0.0.1", "v1.2.3", 1},
		{"", "", 0},
		{"abc", "abd", -1},
	}
	for _, tt := range tests {
		if got := CompareVersions(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := CompareVersions(tt.b, tt.a); got != -tt.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}
