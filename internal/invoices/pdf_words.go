package invoices

import (
	"fmt"
	"strings"
)

var (
	wordsUnits = [...]string{"", "UNO", "DOS", "TRES", "CUATRO", "CINCO", "SEIS", "SIETE", "OCHO", "NUEVE",
		"DIEZ", "ONCE", "DOCE", "TRECE", "CATORCE", "QUINCE", "DIECISÉIS", "DIECISIETE", "DIECIOCHO", "DIECINUEVE",
		"VEINTE", "VEINTIUNO", "VEINTIDÓS", "VEINTITRÉS", "VEINTICUATRO", "VEINTICINCO", "VEINTISÉIS", "VEINTISIETE",
		"VEINTIOCHO", "VEINTINUEVE"}
	wordsTens     = [...]string{"", "", "", "TREINTA", "CUARENTA", "CINCUENTA", "SESENTA", "SETENTA", "OCHENTA", "NOVENTA"}
	wordsHundreds = [...]string{"", "CIENTO", "DOSCIENTOS", "TRESCIENTOS", "CUATROCIENTOS", "QUINIENTOS", "SEISCIENTOS",
		"SETECIENTOS", "OCHOCIENTOS", "NOVECIENTOS"}
)

// hundredsWords writes 1–999 ("UNO" for 1: apocopeUno turns it into "UN" before a noun).
func hundredsWords(n uint64) string {
	if n == 100 {
		return "CIEN"
	}
	var parts []string
	if h := n / 100; h > 0 {
		parts = append(parts, wordsHundreds[h])
	}
	switch r := n % 100; {
	case r == 0:
	case r < 30:
		parts = append(parts, wordsUnits[r])
	case r%10 == 0:
		parts = append(parts, wordsTens[r/10])
	default:
		parts = append(parts, wordsTens[r/10]+" Y "+wordsUnits[r%10])
	}
	return strings.Join(parts, " ")
}

// apocopeUno shortens a final "UNO" before a noun (MIL, MILLONES, PESOS): UN, VEINTIÚN.
func apocopeUno(s string) string {
	switch {
	case strings.HasSuffix(s, "VEINTIUNO"):
		return strings.TrimSuffix(s, "VEINTIUNO") + "VEINTIÚN"
	case s == "UNO" || strings.HasSuffix(s, " UNO"):
		return strings.TrimSuffix(s, "UNO") + "UN"
	}
	return s
}

// thousandsWords writes 1–999 999 with the apocope (a count of millions or of the currency).
func thousandsWords(n uint64) string {
	var parts []string
	if t := n / 1000; t == 1 {
		parts = append(parts, "MIL")
	} else if t > 1 {
		parts = append(parts, apocopeUno(hundredsWords(t))+" MIL")
	}
	if r := n % 1000; r > 0 {
		parts = append(parts, hundredsWords(r))
	}
	return apocopeUno(strings.Join(parts, " "))
}

// NumberWords writes a whole number in Spanish capitals as amounts are written on Mexican
// invoices, with the apocope a noun after it needs: 1160 is "MIL CIENTO SESENTA", 21 is
// "VEINTIÚN", 1 000 000 is "UN MILLÓN", 10^12 "UN BILLÓN" (long scale, as Spanish counts).
func NumberWords(n uint64) string {
	if n == 0 {
		return "CERO"
	}
	const million, billion = 1_000_000, 1_000_000_000_000
	var parts []string
	if b := n / billion; b > 0 {
		if b == 1 {
			parts = append(parts, "UN BILLÓN")
		} else {
			parts = append(parts, NumberWords(b)+" BILLONES")
		}
		n %= billion
	}
	if m := n / million; m > 0 {
		if m == 1 {
			parts = append(parts, "UN MILLÓN")
		} else {
			parts = append(parts, thousandsWords(m)+" MILLONES")
		}
		n %= million
	}
	if n > 0 {
		parts = append(parts, thousandsWords(n))
	}
	return strings.Join(parts, " ")
}

// currencyWords are the names of the currencies printed in words, singular and plural, and the
// suffix after the cents; any other currency is named by its code.
var currencyWords = map[string][3]string{
	"MXN": {"PESO", "PESOS", "M.N."},
	"USD": {"DÓLAR", "DÓLARES", "USD"},
	"EUR": {"EURO", "EUROS", "EUR"},
}

// AmountWords writes an amount (the CFDI's Total text) in Spanish words as invoices print it:
// "MIL CIENTO SESENTA PESOS 00/100 M.N.". Cents are rounded half up to two places; an exact
// million takes "DE" before the currency (UN MILLÓN DE PESOS), as Spanish grammar asks.
func AmountWords(amount, currency string) (string, error) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(amount), ".")
	if whole == "" || len(whole) > 18 || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return "", fmt.Errorf("invoices: amount %q is not a non-negative decimal", amount)
	}
	var n uint64
	for _, c := range whole {
		n = n*10 + uint64(c-'0')
	}
	frac += "000"
	cents := uint64(frac[0]-'0')*10 + uint64(frac[1]-'0')
	if frac[2] >= '5' {
		cents++
	}
	if cents == 100 {
		n, cents = n+1, 0
	}
	names, ok := currencyWords[currency]
	if !ok {
		names = [3]string{currency, currency, currency}
	}
	name := names[1]
	if n == 1 {
		name = names[0]
	}
	w := NumberWords(n)
	if n >= 1_000_000 && n%1_000_000 == 0 {
		w += " DE"
	}
	return fmt.Sprintf("%s %s %02d/100 %s", w, name, cents, names[2]), nil
}
