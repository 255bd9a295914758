package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/timbra-mx/timbra/internal/apierr"
)

func TestPathAt(t *testing.T) {
	type item struct {
		Quantity float64 `json:"quantity"`
	}
	type body struct {
		Name  string          `json:"name"`
		Items []item          `json:"items"`
		Tags  map[string]item `json:"tags"`
		Flag  bool            `json:"flag"`
	}
	cases := map[string]string{
		`{"items":[{"quantity":1},{"quantity":"x"}]}`:        "$.items[1].quantity",
		`{"name":"a","items":[{"quantity":{"a":[1,2]}}]}`:    "$.items[0].quantity",
		`{"tags":{"a b":{"quantity":true}}}`:                 "$.tags['a b'].quantity",
		`{"name":"x","flag":"yes"}`:                          "$.flag",
		"{\n  \"items\": [ {}, {}, {\"quantity\": [1]} ]\n}": "$.items[2].quantity",
		`{"name":[1]}`: "$.name",
	}
	for doc, want := range cases {
		err := decodeBody(httptest.NewRequest("POST", "/", strings.NewReader(doc)), &body{}, false)
		e, ok := apierr.As(err)
		if !ok || len(e.Failures) != 1 {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if got := e.Failures[0].PropertyName; got != want {
			t.Errorf("%s: path %s, want %s", doc, got, want)
		}
		if !strings.Contains(e.Failures[0].ErrorMessage, "Path: "+want+" |") {
			t.Errorf("%s: message %q does not name the path", doc, e.Failures[0].ErrorMessage)
		}
	}
}

// FuzzDecodeBody: any body gives nil or a 4xx *apierr.Error, never a panic or another error.
func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{``, `null`, `{"a":1}`, `{"items":[{"quantity":"x"}]}`, `[`, `{"a":1}{}`, "\x00", `{"items":[1,{"quantity":[]}]}`} {
		f.Add(s)
	}
	type item struct {
		Quantity float64 `json:"quantity"`
	}
	type body struct {
		A     int    `json:"a"`
		Items []item `json:"items"`
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, strict := range []bool{false, true} {
			err := decodeBody(httptest.NewRequest("POST", "/", strings.NewReader(s)), &body{}, strict)
			if err == nil {
				if !json.Valid([]byte(s)) {
					t.Fatalf("invalid JSON %q accepted", s)
				}
				continue
			}
			e, ok := apierr.As(err)
			if !ok || e.Status < 400 || e.Status > 499 {
				t.Fatalf("%q: %v", s, err)
			}
		}
	})
}

// TestQuery: a parameter's name in any case, the first pair that names it, read as
// url.ParseQuery reads pairs.
func TestQuery(t *testing.T) {
	for _, c := range []struct {
		raw, name, want string
		ok              bool
	}{
		{"", "pageNumber", "", false},
		{"PageNumber=2", "pageNumber", "2", true},
		{"pagenumber=3&pageNumber=4", "pageNumber", "3", true},
		{"page%4Eumber=5", "pageNumber", "5", true},
		{"pageNumber=a+b%21", "pageNumber", "a b!", true},
		{"pageNumber=%zz&pageNumber=6", "pageNumber", "6", true},
		{"pageNumber=7;x=1&pageSize=8", "pageNumber", "", false},
		{"pageNumber", "pageNumber", "", true},
		{"%zz=1&pageSize=9", "pageSize", "9", true},
	} {
		r := httptest.NewRequest("GET", "/x?"+c.raw, nil)
		if got, ok := query(r, c.name); got != c.want || ok != c.ok {
			t.Errorf("%q %s: %q %v, want %q %v", c.raw, c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestReadBody: a body is read whole and exactly, whatever size it announces (none, too little,
// right, too much, more than MaxBodyBytes) and however its reader cuts it; a failure to read is
// returned with what came before it.
func TestReadBody(t *testing.T) {
	body := strings.Repeat(`{"items":[{"quantity":1}]}`, 100)
	n := int64(len(body))
	for _, announced := range []int64{-1, 0, 1, n - 1, n, n + 1, 10 * n, MaxBodyBytes + 1} {
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole": func(r io.Reader) io.Reader { return r }, "one byte": iotest.OneByteReader,
			"halves": iotest.HalfReader, "data with EOF": iotest.DataErrReader,
		} {
			got, err := readBody(wrap(strings.NewReader(body)), announced)
			if err != nil || string(got) != body {
				t.Fatalf("announced %d, %s: read %d bytes (%v), want %d", announced, name, len(got), err, n)
			}
		}
	}
	failing := io.MultiReader(strings.NewReader(body), iotest.ErrReader(errors.New("cut")))
	if got, err := readBody(failing, n+100); err == nil || string(got) != body {
		t.Fatalf("a failing body: %d bytes, %v; want the %d before the failure and the failure", len(got), err, n)
	}
}
