package employment

import "testing"

func TestAmountRangeIsExact(t *testing.T) {
	cases := []struct {
		in   string
		want int
		text string
	}{
		{"999999999999.999999", 0, "999999999999.999999"},
		{"999999999999.9999990000", 0, "999999999999.9999990000"},
		{"999999999999.9999991", 1, ""},
		{"1000000000000", 1, ""},
		{"9.99999999999999999e11", 0, "999999999999.999999"},
		{"1e12", 1, ""},
		{"1e999999999999999999999", 1, ""},
		{"0", 0, "0"},
		{"-0", 0, "0"},
		{"-0.0", 0, "0.0"},
		{"-0.000001", -1, ""},
		{"-1e-999999999999", -1, ""},
		{"1e-999999999999", 0, "0"},
		{"0.00", 0, "0.00"},
		{"1500.50", 0, "1500.50"},
		{"1.5E3", 0, "1500"},
		{"12e-2", 0, "0.12"},
		{"0.00000000000000000000000000015", 0, "0.0000000000000000000000000002"},
		{"0.99999999999999999999999999999", 0, "1"},
		{"123", 0, "123"},
	}
	for _, c := range cases {
		d, ok := parseDecimal(c.in)
		if !ok {
			t.Errorf("%s: not read", c.in)
			continue
		}
		if got := amountRange(d); got != c.want {
			t.Errorf("%s: range %d, want %d", c.in, got, c.want)
			continue
		}
		if c.want == 0 {
			if got := d.text(c.in); got != c.text {
				t.Errorf("%s: text %q, want %q", c.in, got, c.text)
			}
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e", "1e+", "abc", "1.2.3", "--1"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("%q was read as a number", bad)
		}
	}
}
