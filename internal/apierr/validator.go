package apierr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
)

// The validator's conventions (spec 1 §7.4), the same in every area: its texts for an empty and
// a missing value, how it names a property in them, and the placeholders of a failure.
const (
	MsgNotEmpty   = "'%s' no debería estar vacío."
	MsgNotNull    = "'%s' no debe estar vacío."
	MsgMaxLength  = "'%s' debe ser menor o igual que %d caracteres. Ingresó %d caracteres."
	CodeMaxLength = "MaximumLengthValidator"
	CodeNotEmpty  = "NotEmptyValidator"
)

// Empty is the failure of a required value that is empty or missing.
func Empty(prop string, attempted any) api.Failure {
	return Field(prop, fmt.Sprintf(MsgNotEmpty, Words(prop)), attempted, CodeNotEmpty, Placeholders(prop, attempted))
}

// Words is how the validator names a property in its texts: the last part of its path, without
// an index, split before each capital letter (Items[0].ItemCode → Item Code).
func Words(prop string) string {
	if i := strings.LastIndexByte(prop, '.'); i >= 0 {
		prop = prop[i+1:]
	}
	if i := strings.IndexByte(prop, '['); i >= 0 {
		prop = prop[:i]
	}
	var b strings.Builder
	for i, r := range prop {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TooLong is the failure of a text over max characters (counted as characters, not bytes), ok
// true; attempted is what the failure echoes (masked for a secret).
func TooLong(prop, value string, max int, attempted any) (f api.Failure, ok bool) {
	n := utf8.RuneCountInString(value)
	if n <= max {
		return api.Failure{}, false
	}
	label := Words(prop)
	return Field(prop, fmt.Sprintf(MsgMaxLength, label, max, n), attempted, CodeMaxLength,
		map[string]any{"PropertyName": label, "MaxLength": max, "TotalLength": n}), true
}

// Placeholders are a failure's formatting placeholders: the property's name in words, its path
// and the value it was given.
func Placeholders(prop string, value any) map[string]any {
	return map[string]any{"PropertyName": Words(prop), "PropertyPath": prop, "PropertyValue": value}
}

// Attempted is the attemptedValue of an optional text: null when it was not sent.
func Attempted(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
