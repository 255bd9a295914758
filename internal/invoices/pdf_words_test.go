package invoices

import "testing"

func TestAmountWords(t *testing.T) {
	cases := []struct{ amount, currency, want string }{
		{"1160.00", "MXN", "MIL CIENTO SESENTA PESOS 00/100 M.N."},
		{"0", "MXN", "CERO PESOS 00/100 M.N."},
		{"1", "MXN", "UN PESO 00/100 M.N."},
		{"1.5", "MXN", "UN PESO 50/100 M.N."},
		{"21.07", "MXN", "VEINTIÚN PESOS 07/100 M.N."},
		{"31", "MXN", "TREINTA Y UN PESOS 00/100 M.N."},
		{"100", "MXN", "CIEN PESOS 00/100 M.N."},
		{"101", "MXN", "CIENTO UN PESOS 00/100 M.N."},
		{"115.995", "MXN", "CIENTO DIECISÉIS PESOS 00/100 M.N."},
		{"99.994", "MXN", "NOVENTA Y NUEVE PESOS 99/100 M.N."},
		{"516.22", "MXN", "QUINIENTOS DIECISÉIS PESOS 22/100 M.N."},
		{"777", "MXN", "SETECIENTOS SETENTA Y SIETE PESOS 00/100 M.N."},
		{"999", "MXN", "NOVECIENTOS NOVENTA Y NUEVE PESOS 00/100 M.N."},
		{"1000", "MXN", "MIL PESOS 00/100 M.N."},
		{"2001", "MXN", "DOS MIL UN PESOS 00/100 M.N."},
		{"21000", "MXN", "VEINTIÚN MIL PESOS 00/100 M.N."},
		{"101000", "MXN", "CIENTO UN MIL PESOS 00/100 M.N."},
		{"522022.22", "MXN", "QUINIENTOS VEINTIDÓS MIL VEINTIDÓS PESOS 22/100 M.N."},
		{"1000000", "MXN", "UN MILLÓN DE PESOS 00/100 M.N."},
		{"1000001", "MXN", "UN MILLÓN UN PESOS 00/100 M.N."},
		{"2500000", "MXN", "DOS MILLONES QUINIENTOS MIL PESOS 00/100 M.N."},
		{"21000000", "MXN", "VEINTIÚN MILLONES DE PESOS 00/100 M.N."},
		{"1000000000", "MXN", "MIL MILLONES DE PESOS 00/100 M.N."},
		{"1234567890.12", "MXN", "MIL DOSCIENTOS TREINTA Y CUATRO MILLONES QUINIENTOS SESENTA Y SIETE MIL OCHOCIENTOS NOVENTA PESOS 12/100 M.N."},
		{"1000000000000", "MXN", "UN BILLÓN DE PESOS 00/100 M.N."},
		{"3000000000016", "MXN", "TRES BILLONES DIECISÉIS PESOS 00/100 M.N."},
		{"1", "USD", "UN DÓLAR 00/100 USD"},
		{"250.10", "USD", "DOSCIENTOS CINCUENTA DÓLARES 10/100 USD"},
		{"45", "JPY", "CUARENTA Y CINCO JPY 00/100 JPY"},
	}
	for _, c := range cases {
		got, err := AmountWords(c.amount, c.currency)
		if err != nil || got != c.want {
			t.Errorf("AmountWords(%q, %q) = %q, %v; want %q", c.amount, c.currency, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-1", "1e3", "abc", "1.2.3", "1234567890123456789"} {
		if got, err := AmountWords(bad, "MXN"); err == nil {
			t.Errorf("AmountWords(%q) = %q, want an error", bad, got)
		}
	}
}
