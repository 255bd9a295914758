package products

import (
	"fmt"
	"math/big"
	"strings"
)

// The tax rules of a product line, from SAT's c_TasaOCuota (Anexo 20, catalog of 2026) and the
// rules of the CFDI 4.0 standard on Traslado and Retencion: which combinations of tax, factor
// type and nature exist, and which rates each takes. A fixed rule takes one of its values; a
// range rule any value from its minimum to its maximum, both included. ISR is only withheld;
// Exento applies only to transferred IVA and IEPS and carries no rate (the standard forbids
// TasaOCuota with Exento and Exento in Retencion). An invoice item by value follows the same
// rules (CheckTax).

// Keys of c_Impuesto, c_TipoFactor and the nature of a tax line.
const (
	TaxISR  = "001"
	TaxIVA  = "002"
	TaxIEPS = "003"

	FactorTasa   = "Tasa"
	FactorCuota  = "Cuota"
	FactorExento = "Exento"

	FlagTransferred = "T"
	FlagWithheld    = "R"
)

// taxNames are the names c_TasaOCuota uses for the taxes.
var taxNames = map[string]string{TaxISR: "ISR", TaxIVA: "IVA", TaxIEPS: "IEPS"}

// rateRule is one row group of c_TasaOCuota for a tax, factor and nature.
type rateRule struct {
	fixed    []string // the values allowed, six decimals
	min, max string   // a range, when fixed is empty
}

type ruleKey struct{ tax, factor, flag string }

var iepsTasa = []string{"0.265000", "0.300000", "0.530000", "0.500000", "1.600000", "0.304000", "0.250000",
	"0.090000", "0.080000", "0.070000", "0.060000"}

var rateRules = map[ruleKey]rateRule{
	{TaxIVA, FactorTasa, FlagTransferred}:   {fixed: []string{"0.000000", "0.080000", "0.160000"}},
	{TaxIVA, FactorTasa, FlagWithheld}:      {min: "0.000000", max: "0.160000"},
	{TaxIEPS, FactorTasa, FlagTransferred}:  {fixed: append(append([]string{}, iepsTasa...), "0.030000", "0.000000")},
	{TaxIEPS, FactorTasa, FlagWithheld}:     {fixed: iepsTasa},
	{TaxIEPS, FactorCuota, FlagTransferred}: {min: "0.000000", max: "72.160500"},
	{TaxIEPS, FactorCuota, FlagWithheld}:    {min: "0.000000", max: "72.160500"},
	{TaxISR, FactorTasa, FlagWithheld}:      {min: "0.000000", max: "0.350000"},
}

// maxRate is the largest value of c_TasaOCuota (the IEPS Cuota range), checked before the rule
// of the line is looked at.
var maxRate = mustRat("72.160500")

// RoundRate is a tax rate as the CFDI writes it (c_TasaOCuota and the TasaOCuota attribute carry
// 6 decimals): a plain decimal with more decimals is rounded to 6, halves away from zero, exactly
// (0.10666666666, two thirds of IVA as the official client's example sends it, is 0.106667);
// any other text comes back as it is, for the checks to judge.
func RoundRate(v string) string {
	t := strings.TrimSpace(v)
	i := strings.IndexByte(t, '.')
	if i < 0 || len(t)-i-1 <= 6 || strings.ContainsAny(t, "eE") {
		return v
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return v
	}
	return r.FloatString(6)
}

// CheckTax checks one tax line whose tax, factor type and nature exist in their catalogs: the
// combination and the rate (nil when not sent). It returns the property that fails ("Rate",
// "TaxTypeId" or "TaxFlagId"), the text, and the rate as SAT writes it ("" for Exento).
func CheckTax(tax, factor, flag string, rate *big.Rat) (prop, msg, text string) {
	if factor == FactorExento {
		switch {
		case flag == FlagWithheld:
			return "TaxTypeId", MsgExentoWithheld, ""
		case tax == TaxISR:
			return "TaxFlagId", MsgISRWithheldOnly, ""
		case rate != nil && rate.Sign() != 0:
			return "Rate", fmt.Sprintf(MsgExentoRate, sixDecimals(rate)), ""
		}
		return "", "", ""
	}
	if tax == TaxISR && flag == FlagTransferred {
		return "TaxFlagId", MsgISRWithheldOnly, ""
	}
	rule, ok := rateRules[ruleKey{tax, factor, flag}]
	if !ok {
		return "TaxTypeId", fmt.Sprintf(MsgNoRateRule, taxNames[tax], factor, natureName(flag)), ""
	}
	if rate == nil {
		return "Rate", MsgRateRequired, ""
	}
	v := sixDecimals(rate)
	if len(rule.fixed) > 0 {
		for _, f := range rule.fixed {
			if f == v {
				return "", "", v
			}
		}
		return "Rate", fmt.Sprintf(MsgRateNotFixed, v, taxNames[tax], factor, natureName(flag), joinOr(sortedRates(rule.fixed))), ""
	}
	if rate.Cmp(mustRat(rule.min)) < 0 || rate.Cmp(mustRat(rule.max)) > 0 {
		return "Rate", fmt.Sprintf(MsgRateNotInRange, v, taxNames[tax], factor, natureName(flag), rule.min, rule.max), ""
	}
	return "", "", v
}

func natureName(flag string) string {
	if flag == FlagWithheld {
		return "retenido"
	}
	return "trasladado"
}

// sortedRates lists the values of a fixed rule from the smallest.
func sortedRates(vs []string) []string {
	out := append([]string{}, vs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && mustRat(out[j]).Cmp(mustRat(out[j-1])) < 0; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// joinOr writes "a, b o c".
func joinOr(vs []string) string {
	if len(vs) == 1 {
		return vs[0]
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " o " + vs[len(vs)-1]
}
