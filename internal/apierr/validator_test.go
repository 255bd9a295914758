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
