package apierr

import "testing"

func TestWords(t *testing.T) {
	for _, c := range []struct{ prop, want string }{
		{"FileType", "File Type"},
		{"Tin", "Tin"},
		{"Items[0].ItemCode", "Item Code"},
		{"ProductTaxes[2].TaxId", "Tax Id"},
		{"Items[3]", "Items"},
		{"Base64File", "Base64 File"},
		{"", ""},
	} {
		t.Run(c.prop, func(t *testing.T) {
			if got := Words(c.prop); got != c.want {
				t.Errorf("Words(%q) = %q, want %q", c.prop, got, c.want)
			}
		})
	}
}

func TestPlaceholders(t *testing.T) {
	p := Placeholders("Items[0].ItemCode", "x")
	if p["PropertyName"] != "Item Code" || p["PropertyPath"] != "Items[0].ItemCode" || p["PropertyValue"] != "x" {
		t.Fatalf("Placeholders = %v", p)
	}
}

func TestTooLong(t *testing.T) {
	for _, c := range []struct {
		name, prop, value string
		max               int
		want              string // "": not too long
	}{
		{"at the limit", "Comments", "abc", 3, ""},
		{"counted in characters, not bytes", "ForeignTin", "ñññ", 3, ""},
		{"one over", "RelatedObjectId", "abcd", 3, "'Related Object Id' debe ser menor o igual que 3 caracteres. Ingresó 4 caracteres."},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, long := TooLong(c.prop, c.value, c.max, c.value)
			if long != (c.want != "") {
				t.Fatalf("too long = %v, want %v", long, c.want != "")
			}
			if !long {
				return
			}
			if f.PropertyName != c.prop || f.ErrorMessage != c.want || *f.ErrorCode != CodeMaxLength ||
				f.Placeholders["MaxLength"] != c.max || f.Placeholders["TotalLength"] != len([]rune(c.value)) {
				t.Fatalf("failure = %+v", f)
			}
		})
	}
}
