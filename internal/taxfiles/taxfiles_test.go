package taxfiles

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestParseFileType(t *testing.T) {
	for _, c := range []struct {
		raw       string
		want      int
		message   string
		attempted any
	}{
		{`0`, 0, "", nil},
		{`3`, 3, "", nil},
		{`"CertificateCsd"`, 0, "", nil},
		{`"PrivateKeyCsd"`, 1, "", nil},
		{`"certificatefiel"`, 2, "", nil},
		{`"PrivateKeyFiel"`, 3, "", nil},
		{`"1"`, 1, "", nil},
		{`4`, 0, MsgPfx, int64(4)},
		{`"Pfx"`, 0, MsgPfx, "Pfx"},
		{`5`, 0, "'File Type' tiene un rango de valores que no incluye '5'.", int64(5)},
		{`-1`, 0, "'File Type' tiene un rango de valores que no incluye '-1'.", int64(-1)},
		{`"7"`, 0, "'File Type' tiene un rango de valores que no incluye '7'.", "7"},
		{`"Cer"`, 0, "'File Type' tiene un rango de valores que no incluye 'Cer'.", "Cer"},
		{`1.5`, 0, "'File Type' tiene un rango de valores que no incluye '1.5'.", 1.5},
		{`99999999999`, 0, "'File Type' tiene un rango de valores que no incluye '99999999999'.", float64(99999999999)},
		{`true`, 0, "'File Type' tiene un rango de valores que no incluye 'true'.", true},
		{`null`, 0, "'File Type' no debe estar vacío.", nil},
		{``, 0, "'File Type' no debe estar vacío.", nil},
	} {
		got, f := ParseFileType(json.RawMessage(c.raw))
		if c.message == "" {
			if f != nil || got != c.want {
				t.Errorf("%s: %d, %+v; want %d", c.raw, got, f, c.want)
			}
			continue
		}
		if f == nil || f.PropertyName != "FileType" || f.ErrorMessage != c.message || fmt.Sprint(f.AttemptedValue) != fmt.Sprint(c.attempted) {
			t.Errorf("%s: failure %+v; want %q with attempted %v", c.raw, f, c.message, c.attempted)
		}
	}
}

func TestDecodeBase64(t *testing.T) {
	for _, s := range []string{"aGVsbG8=", "aGVsbG8", "aGVs\r\nbG8=\n", " aGVsbG8= "} {
		if b, err := DecodeBase64(s); err != nil || string(b) != "hello" {
			t.Errorf("%q: %q, %v", s, b, err)
		}
	}
	if _, err := DecodeBase64("aGV*bG8="); err == nil {
		t.Error("a character outside the alphabet was accepted")
	}
}

// FuzzParseFileType: any JSON value gives a type 0–3 or one failure on FileType, never a panic.
func FuzzParseFileType(f *testing.F) {
	for _, s := range []string{`0`, `"PrivateKeyFiel"`, `4`, `-1`, `1.5`, `"x"`, `null`, `{}`, `[1]`, `"\u0000"`, `99999999999999999999`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, fail := ParseFileType(json.RawMessage(raw))
		if fail == nil && (v < 0 || v > 3) {
			t.Fatalf("%q: type %d accepted", raw, v)
		}
		if fail != nil && fail.PropertyName != "FileType" {
			t.Fatalf("%q: failure on %s", raw, fail.PropertyName)
		}
	})
}
