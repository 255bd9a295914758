package loadquery

import (
	"math"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
)

// Error codes of the failures of Validate (clients match on propertyName and errorCode). A
// malformed parameter is a parsing failure and has no code (spec 1 §7.5).
const (
	CodeFieldNotFound        = "LoadFieldNotFound"
	CodeFieldNotSimple       = "LoadFieldNotSimple"
	CodeSummaryTypeNotFound  = "LoadSummaryTypeNotFound"
	CodeSummaryNotNumeric    = "LoadSummaryNotNumeric"
	CodeGroupIntervalInvalid = "LoadGroupIntervalInvalid"
)

// The texts of spec 1 §7.6.

// MsgFieldNotFound is the text of a field the resource lacks.
func MsgFieldNotFound(field string) string {
	return "El campo '" + field + "' no existe en este recurso."
}

// MsgFieldNotSimple is the text of an object or list used outside select.
func MsgFieldNotSimple(field string) string {
	return "El campo '" + field + "' es un objeto o una lista: no se puede usar en sort, filter, group ni en los resúmenes; usa uno de sus campos simples."
}

// MsgSummaryTypeNotFound is the text of an unknown summaryType.
func MsgSummaryTypeNotFound(typ string) string {
	return "El resumen '" + typ + "' no existe: usa count, sum, avg, min o max."
}

// MsgSummaryNotNumeric is the text of sum or avg on a field that is not a number.
func MsgSummaryNotNumeric(typ, field string) string {
	return "El resumen '" + typ + "' solo admite campos numéricos y '" + field + "' no lo es."
}

// MsgGroupIntervalInvalid is the text of a groupInterval that does not apply to its field.
func MsgGroupIntervalInvalid(interval, field string) string {
	return "El intervalo '" + interval + "' no aplica al campo '" + field + "': un número requiere un campo numérico y year, quarter, month, day, dayOfWeek, hour, minute o second un campo de fecha."
}

// MsgMalformed is the text of a parameter that is not valid JSON, or valid JSON that is not a
// load option of its kind (for example a filter with an unknown operator).
func MsgMalformed(param string) string {
	return "El parámetro '" + param + "' no es un JSON válido."
}

func malformed(param string, attempted any) api.Failure {
	return apierr.Parse(param, MsgMalformed(param), attempted)
}

func fieldFailure(param, message string, attempted any, code string) api.Failure {
	return apierr.Field(param, message, attempted, code,
		map[string]any{"PropertyName": param, "PropertyValue": attempted})
}

// summary types
const (
	sumCount = iota + 1
	sumSum
	sumAvg
	sumMin
	sumMax
)

func summaryType(s string) int {
	switch strings.ToLower(s) {
	case "count":
		return sumCount
	case "sum":
		return sumSum
	case "avg":
		return sumAvg
	case "min":
		return sumMin
	case "max":
		return sumMax
	}
	return 0
}

// date parts of a groupInterval
const (
	partYear = iota + 1
	partQuarter
	partMonth
	partDay
	partDayOfWeek
	partHour
	partMinute
	partSecond
)

func datePart(s string) int {
	switch strings.ToLower(s) {
	case "year":
		return partYear
	case "quarter":
		return partQuarter
	case "month":
		return partMonth
	case "day":
		return partDay
	case "dayofweek":
		return partDayOfWeek
	case "hour":
		return partHour
	case "minute":
		return partMinute
	case "second":
		return partSecond
	}
	return 0
}

// interval reads a groupInterval: a finite number (n, true) or a date part (part > 0).
func interval(s string) (n float64, isNum bool, part int) {
	if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f, true, 0
	}
	return 0, false, datePart(s)
}

// Validate checks the options against the resource before running them: every problem is one
// failure whose propertyName is the parameter, all in one list (spec 1 §7.6). No failures means
// the options can run.
func (s Schema[T]) Validate(o Options) []api.Failure {
	var fs []api.Failure

	// simple checks a field used outside select: it exists and is not an object or list.
	simple := func(param, name string) *resolved[T] {
		r := s.lookup(name)
		switch {
		case r == nil:
			fs = append(fs, fieldFailure(param, MsgFieldNotFound(name), name, CodeFieldNotFound))
			return nil
		case !r.kind.simple():
			fs = append(fs, fieldFailure(param, MsgFieldNotSimple(name), name, CodeFieldNotSimple))
			return nil
		}
		return r
	}

	for _, k := range o.Sort {
		simple(ParamSort, k.Selector)
	}

	if o.Filter != nil {
		var walk func(f *Filter)
		walk = func(f *Filter) {
			switch {
			case f.Not != nil:
				walk(f.Not)
			case f.Items != nil:
				for i := range f.Items {
					walk(&f.Items[i])
				}
			default:
				if !validOp(strings.ToLower(f.Op)) {
					fs = append(fs, malformed(ParamFilter, f.Op))
					return
				}
				if _, ok := clientValue(f.Value); !ok {
					fs = append(fs, malformed(ParamFilter, f.Value))
					return
				}
				simple(ParamFilter, f.Field)
			}
		}
		walk(o.Filter)
	}

	for _, g := range o.Group {
		r := simple(ParamGroup, g.Selector)
		if r == nil || g.GroupInterval == "" {
			continue
		}
		n, isNum, part := interval(g.GroupInterval)
		ok := isNum && n > 0 && r.kind == Number || part > 0 && r.kind == Date
		if !ok {
			fs = append(fs, fieldFailure(ParamGroup, MsgGroupIntervalInvalid(g.GroupInterval, g.Selector),
				g.GroupInterval, CodeGroupIntervalInvalid))
		}
	}

	for _, name := range o.Select {
		if s.lookup(name) == nil {
			fs = append(fs, fieldFailure(ParamSelect, MsgFieldNotFound(name), name, CodeFieldNotFound))
		}
	}

	summaries := func(param string, items []SummaryInfo) {
		for _, it := range items {
			typ := summaryType(it.SummaryType)
			// count, and a type that does not exist, need no selector; the others do.
			var r *resolved[T]
			if typ != sumCount && typ != 0 || it.Selector != "" {
				r = simple(param, it.Selector)
			}
			if typ == 0 {
				fs = append(fs, fieldFailure(param, MsgSummaryTypeNotFound(it.SummaryType), it.SummaryType,
					CodeSummaryTypeNotFound))
				continue
			}
			if r != nil && (typ == sumSum || typ == sumAvg) && r.kind != Number {
				fs = append(fs, fieldFailure(param, MsgSummaryNotNumeric(it.SummaryType, it.Selector),
					it.Selector, CodeSummaryNotNumeric))
			}
		}
	}
	summaries(ParamTotalSummary, o.TotalSummary)
	summaries(ParamGroupSummary, o.GroupSummary)
	return fs
}
