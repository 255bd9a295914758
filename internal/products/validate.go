package products

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/storage"
)

// lookupKey is one catalog id to check.
type lookupKey struct{ catalog, id string }

// catalogCheck is the outcome of one lookup, made before the write transaction.
type catalogCheck struct {
	found bool
	err   error
}

// lookups checks every catalog id that in carries.
func (s *Service) lookups(ctx context.Context, in api.ProductInput) map[lookupKey]catalogCheck {
	out := map[lookupKey]catalogCheck{}
	add := func(catalog string, id *string) {
		if id == nil || *id == "" {
			return
		}
		k := lookupKey{catalog, *id}
		if _, done := out[k]; done {
			return
		}
		if s.Catalogs == nil {
			out[k] = catalogCheck{err: errNoCatalogs}
			return
		}
		_, found, err := s.Catalogs.Lookup(ctx, catalog, *id)
		out[k] = catalogCheck{found: found, err: err}
	}
	add(CatalogProductCodes, in.SatProductCodeID)
	add(CatalogUnitMeasurements, in.SatUnitMeasurementID)
	add(CatalogTaxObjects, in.SatTaxObjectID)
	if in.ProductTaxes != nil {
		for _, t := range *in.ProductTaxes {
			add(CatalogTaxes, t.TaxID)
			add(CatalogTaxTypes, t.TaxTypeID)
			add(CatalogTaxFlags, t.TaxFlagID)
		}
	}
	return out
}

var errNoCatalogs = fmt.Errorf("products: no catalog service")

// checker gathers the failures of one body.
type checker struct {
	checks map[lookupKey]catalogCheck
	fs     []api.Failure
	err    error // the first lookup error (ErrNotImported): the answer instead of the failures
}

func (k *checker) add(f api.Failure) { k.fs = append(k.fs, f) }

func (k *checker) notEmpty(prop string, attempted any) {
	k.add(apierr.Empty(prop, attempted))
}

func (k *checker) notNull(prop string) {
	k.add(apierr.Field(prop, fmt.Sprintf(apierr.MsgNotNull, apierr.Words(prop)), nil, "NotNullValidator", apierr.Placeholders(prop, nil)))
}

// catalog checks an id against the lookups made; it tells whether the id may be kept.
func (k *checker) catalog(prop, catalog, msg, id string) bool {
	ch, ok := k.checks[lookupKey{catalog, id}]
	if !ok { // not looked up: nothing was sent
		return false
	}
	if ch.err != nil {
		if k.err == nil {
			k.err = ch.err
		}
		return false
	}
	if !ch.found {
		k.add(apierr.Field(prop, fmt.Sprintf(msg, id), id, "", apierr.Placeholders(prop, id)))
		return false
	}
	return true
}

// amount reads a number of the body; a failure is reported and nil returned.
func (k *checker) amount(prop string, v api.Decimal, max *big.Rat, negative, decimals, large string) *big.Rat {
	r, check := readAmount(string(v), max)
	var msg, code string
	p := apierr.Placeholders(prop, v)
	switch check {
	case amountOK:
		return r
	case amountNotNumber: // the decoder lets only numbers through; say so rather than store garbage
		msg = fmt.Sprintf("'%s' no es un número.", apierr.Words(prop))
	case amountNegative:
		msg, code = negative, "GreaterThanOrEqualValidator"
		p["ComparisonValue"], p["ComparisonProperty"] = 0, ""
	case amountTooManyDecimals:
		msg, code = decimals, "ScalePrecisionValidator"
		p["ExpectedScale"] = 6
	case amountTooLarge:
		msg = large
		p["ComparisonValue"], p["ComparisonProperty"] = api.Decimal(plain(max)), ""
		code = "LessThanOrEqualValidator"
	}
	k.add(apierr.Field(prop, msg, v, code, p))
	return nil
}

// apply checks in and writes what it carries into p: the saved product on update, a new one on
// create. On create, a SAT key not sent takes its default and is not looked up; on update, a key
// sent equal to the saved one is not checked again.
func apply(p *storage.Product, in api.ProductInput, create bool, checks map[lookupKey]catalogCheck) error {
	k := &checker{checks: checks}

	if in.Description != nil || create {
		v := strings.TrimSpace(api.Deref(in.Description))
		switch n := utf8.RuneCountInString(v); {
		case v == "":
			k.notEmpty("Description", apierr.Attempted(in.Description))
		case n > MaxDescription:
			ph := apierr.Placeholders("Description", v)
			ph["MinLength"], ph["MaxLength"], ph["TotalLength"] = 1, MaxDescription, n
			k.add(apierr.Field("Description", fmt.Sprintf(MsgDescriptionLength, n), v, "LengthValidator", ph))
		case strings.ContainsRune(v, '|'):
			k.add(apierr.Field("Description", MsgDescriptionPipe, v, "", apierr.Placeholders("Description", v)))
		default:
			p.Description = v
		}
	}

	switch {
	case in.UnitPrice != nil:
		if r := k.amount("UnitPrice", *in.UnitPrice, maxUnitPrice, MsgUnitPriceNegative, MsgUnitPriceDecimals, MsgUnitPriceMax); r != nil {
			p.UnitPrice = plain(r)
		}
	case create:
		k.notNull("UnitPrice")
	}

	for _, x := range []struct {
		prop, catalog, msg, def string
		in                      *string
		out                     *string
	}{
		{"SatUnitMeasurementId", CatalogUnitMeasurements, MsgNoUnit, DefaultUnitMeasurement, in.SatUnitMeasurementID, &p.SatUnitMeasurementID},
		{"SatTaxObjectId", CatalogTaxObjects, MsgNoTaxObject, DefaultTaxObject, in.SatTaxObjectID, &p.SatTaxObjectID},
		{"SatProductCodeId", CatalogProductCodes, MsgNoProductCode, DefaultProductCode, in.SatProductCodeID, &p.SatProductCodeID},
	} {
		v := api.Deref(x.in)
		switch {
		case v == "" && create:
			*x.out = x.def
		case v == "" || v == *x.out && !create:
			// not sent, or unchanged
		case k.catalog(x.prop, x.catalog, x.msg, v):
			*x.out = v
		}
	}

	taxesOK := true
	switch {
	case in.ProductTaxes != nil:
		taxes, ok := k.taxes(*in.ProductTaxes)
		if ok {
			p.Taxes = taxes
		}
		taxesOK = ok
	case create:
		p.Taxes = DefaultTaxes()
	}

	if k.err != nil {
		return k.err
	}
	// the tax object against the taxes, once both are known good
	if len(k.fs) == 0 && taxesOK {
		switch p.SatTaxObjectID {
		case "01", "03", "04":
			if len(p.Taxes) > 0 {
				k.add(apierr.Field("ProductTaxes", fmt.Sprintf(MsgTaxObjectNoTaxes, p.SatTaxObjectID), len(p.Taxes), "", nil))
			}
		case "02":
			if len(p.Taxes) == 0 {
				k.add(apierr.Field("ProductTaxes", MsgTaxObjectNeedsTaxes, 0, "", nil))
			}
		}
	}
	if len(k.fs) > 0 {
		return apierr.Invalid(k.fs...)
	}
	return nil
}

// taxes checks the tax lines of a body; ok is false when any fails.
func (k *checker) taxes(in []api.ProductTaxInput) ([]storage.ProductTax, bool) {
	before := len(k.fs)
	out := make([]storage.ProductTax, 0, len(in))
	seen := map[[2]string]int{}
	for i, t := range in {
		prop := func(name string) string { return fmt.Sprintf("ProductTaxes[%d].%s", i, name) }
		line := storage.ProductTax{}
		known := true
		for _, x := range []struct {
			name, catalog, msg string
			in                 *string
			out                *string
		}{
			{"TaxId", CatalogTaxes, MsgNoTax, t.TaxID, &line.TaxID},
			{"TaxTypeId", CatalogTaxTypes, MsgNoTaxType, t.TaxTypeID, &line.TaxTypeID},
			{"TaxFlagId", CatalogTaxFlags, MsgNoTaxFlag, t.TaxFlagID, &line.TaxFlagID},
		} {
			if api.Deref(x.in) == "" {
				k.notEmpty(prop(x.name), apierr.Attempted(x.in))
				known = false
			} else if k.catalog(prop(x.name), x.catalog, x.msg, *x.in) {
				*x.out = *x.in
			} else {
				known = false
			}
		}
		var rate *big.Rat
		rateOK := true
		if t.Rate != nil {
			if rate = k.amount(prop("Rate"), api.Decimal(RoundRate(string(*t.Rate))), maxRate, MsgRateNegative, MsgRateDecimals, MsgRateMax); rate == nil {
				rateOK = false
			}
		}
		if !known || !rateOK {
			continue
		}
		failed, msg, text := CheckTax(line.TaxID, line.TaxTypeID, line.TaxFlagID, rate)
		if msg != "" {
			var attempted any = line.TaxTypeID
			switch failed {
			case "Rate":
				attempted = nil
				if t.Rate != nil {
					attempted = *t.Rate
				}
			case "TaxFlagId":
				attempted = line.TaxFlagID
			}
			k.add(apierr.Field(prop(failed), msg, attempted, "", apierr.Placeholders(prop(failed), attempted)))
			continue
		}
		line.Rate = text
		key := [2]string{line.TaxID, line.TaxFlagID}
		if j, dup := seen[key]; dup {
			k.add(apierr.Field(prop("TaxId"), fmt.Sprintf(MsgTaxRepeated, line.TaxID, natureName(line.TaxFlagID), j), line.TaxID, "", apierr.Placeholders(prop("TaxId"), line.TaxID)))
			continue
		}
		seen[key] = i
		out = append(out, line)
	}
	return out, len(k.fs) == before
}
