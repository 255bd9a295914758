package validations

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/cfdi"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/storage"
)

// MaxXMLChars is the longest `xml` accepted (spec 1 §8).
const MaxXMLChars = 4_000_000

// Texts of the validate request (spec 3 §4.7 shows none: these are the project's).
const (
	MsgXMLOrTIN          = "Envía 'xml' (el CFDI timbrado en Base64) o 'tin' (un RFC)."
	MsgXMLAndTIN         = "Envía solo uno de 'xml' o 'tin', no ambos."
	MsgXMLEmpty          = "'xml' no debe estar vacío."
	MsgXMLTooLongFmt     = "'xml' no puede pasar de %d caracteres: tiene %d."
	MsgXMLBase64         = "'xml' debe ser el CFDI codificado en Base64."
	MsgTINEmpty          = "'tin' no debe estar vacío."
	MsgTINInvalid        = "'tin' no es un RFC válido: 12 o 13 caracteres como AAA010101AAA."
	MsgTypesRequired     = "'validationTypes' es obligatorio: la lista de tipos de validación a ejecutar."
	MsgTypesEmpty        = "'validationTypes' debe tener al menos un tipo de validación."
	MsgTypeEmpty         = "El tipo de validación no debe estar vacío."
	MsgTypeDuplicateFmt  = "El tipo de validación '%s' está repetido."
	MsgTypeUnknownFmt    = "El tipo de validación '%s' no existe o no está activo."
	MsgTypeNotForTINFmt  = "Con 'tin' solo se pueden pedir sat.blacklist.69b y sat.blacklist.69bbis: '%s' requiere 'xml'."
	MsgNoCreditsFmt      = "No tienes créditos de validación suficientes: la petición usa %d (uno por tipo) y tienes %d."
	MsgTypeNotFoundFmt   = "No existe el tipo de validación '%s' o no está activo."
	ErrCodeXMLOrTIN      = "XmlOrTin"
	ErrCodeNotEmpty      = apierr.CodeNotEmpty
	ErrCodeMaxLength     = "MaximumLengthValidator"
	ErrCodeBase64        = "InvalidBase64"
	ErrCodeTIN           = "InvalidTin"
	ErrCodeRequired      = "NotNullValidator"
	ErrCodeDuplicate     = "DuplicateValidationType"
	ErrCodeUnknownType   = "UnknownValidationType"
	ErrCodeTypeNotForTIN = "ValidationTypeRequiresXml"
)

// Input is what the checks look at: the decoded XML, or an RFC.
type Input struct {
	XML []byte // nil when the request sent tin
	TIN string
}

// Outcome is what a checker determined for one type.
type Outcome struct {
	Status  string
	Details *string
}

// Checker runs the checks of the requested types (a subset of the catalog; with a TIN only the
// list types). It answers one outcome per type, with a status the type accepts. An error is a
// technical failure (the credits are refunded), not an adverse result.
type Checker interface {
	Check(ctx context.Context, in Input, types []string) (map[string]Outcome, error)
}

// Service answers the SAT validations endpoints.
type Service struct {
	Store   storage.Store
	Checker Checker
	// Inactive types are hidden and refused (none by default: the seven are active).
	Inactive map[string]bool
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

func (s *Service) active(id string) bool {
	_, ok := rank[id]
	return ok && !s.Inactive[id]
}

// Types lists the active types in catalog order.
func (s *Service) Types() []api.SatValidationType {
	out := make([]api.SatValidationType, 0, len(typeOrder))
	for _, t := range typeOrder {
		if s.active(t.ID) {
			out = append(out, t)
		}
	}
	return out
}

// Type is one active type; 404 otherwise.
func (s *Service) Type(id string) (api.SatValidationType, error) {
	if !s.active(id) {
		return api.SatValidationType{}, apierr.NotFoundText(fmt.Sprintf(MsgTypeNotFoundFmt, id))
	}
	return typeOrder[rank[id]], nil
}

// TypeStatuses lists what an active type can return, passing first and then by id.
func (s *Service) TypeStatuses(id string) ([]api.SatValidationTypeStatus, error) {
	if !s.active(id) {
		return nil, apierr.NotFoundText(fmt.Sprintf(MsgTypeNotFoundFmt, id))
	}
	defs := Statuses(id)
	out := make([]api.SatValidationTypeStatus, len(defs))
	for i, d := range defs {
		out[i] = api.SatValidationTypeStatus{ID: d.ID, Description: d.Description}
	}
	return out, nil
}

// checkRequest applies the rules of the body (all failures at once) and returns the input and
// the types in catalog order.
func (s *Service) checkRequest(in api.SatValidationRequest) (Input, []string, error) {
	var fs []api.Failure
	var input Input
	switch {
	case in.XML == nil && in.TIN == nil:
		fs = append(fs, apierr.Field("Xml", MsgXMLOrTIN, nil, ErrCodeXMLOrTIN, nil))
	case in.XML != nil && in.TIN != nil:
		fs = append(fs, apierr.Field("Xml", MsgXMLAndTIN, nil, ErrCodeXMLOrTIN, nil))
	case in.XML != nil:
		// The XML is not echoed back in attemptedValue: it may be megabytes.
		x := *in.XML
		switch n := utf8.RuneCountInString(x); {
		case strings.TrimSpace(x) == "":
			fs = append(fs, apierr.Field("Xml", MsgXMLEmpty, nil, ErrCodeNotEmpty, nil))
		case n > MaxXMLChars:
			fs = append(fs, apierr.Field("Xml", fmt.Sprintf(MsgXMLTooLongFmt, MaxXMLChars, n), nil, ErrCodeMaxLength,
				map[string]any{"PropertyName": "Xml", "MaxLength": MaxXMLChars, "TotalLength": n}))
		default:
			raw, err := decodeBase64(x)
			if err != nil || len(raw) == 0 {
				fs = append(fs, apierr.Field("Xml", MsgXMLBase64, nil, ErrCodeBase64, nil))
			}
			input.XML = raw
		}
	default:
		t := strings.ToUpper(strings.TrimSpace(*in.TIN))
		err := cfdi.CheckRFC(t)
		switch {
		case t == "":
			fs = append(fs, apierr.Field("Tin", MsgTINEmpty, *in.TIN, ErrCodeNotEmpty, nil))
		case errors.Is(err, cfdi.ErrRFCDate): // no such day: no RFC SAT lists
			fs = append(fs, apierr.Field("Tin", err.Error(), *in.TIN, ErrCodeTIN, nil))
		case err != nil:
			fs = append(fs, apierr.Field("Tin", MsgTINInvalid, *in.TIN, ErrCodeTIN, nil))
		}
		input.TIN = t
	}
	var types []string
	switch {
	case in.ValidationTypes == nil:
		fs = append(fs, apierr.Field("ValidationTypes", MsgTypesRequired, nil, ErrCodeRequired, nil))
	case len(in.ValidationTypes) == 0:
		fs = append(fs, apierr.Field("ValidationTypes", MsgTypesEmpty, []string{}, ErrCodeNotEmpty, nil))
	}
	seen := map[string]bool{}
	for i, p := range in.ValidationTypes {
		prop := "ValidationTypes[" + strconv.Itoa(i) + "]"
		var v any
		if p != nil {
			v = *p
		}
		switch {
		case p == nil || strings.TrimSpace(*p) == "":
			fs = append(fs, apierr.Field(prop, MsgTypeEmpty, v, ErrCodeNotEmpty, nil))
		case seen[*p]:
			fs = append(fs, apierr.Field(prop, fmt.Sprintf(MsgTypeDuplicateFmt, *p), v, ErrCodeDuplicate, nil))
		case !s.active(*p):
			seen[*p] = true
			fs = append(fs, apierr.Field(prop, fmt.Sprintf(MsgTypeUnknownFmt, *p), v, ErrCodeUnknownType, nil))
		case in.TIN != nil && in.XML == nil && !isListType(*p):
			seen[*p] = true
			fs = append(fs, apierr.Field(prop, fmt.Sprintf(MsgTypeNotForTINFmt, *p), v, ErrCodeTypeNotForTIN, nil))
		default:
			seen[*p] = true
			types = append(types, *p)
		}
	}
	if len(fs) > 0 {
		return Input{}, nil, apierr.Invalid(fs...)
	}
	sortTypes(types)
	return input, types, nil
}

// decodeBase64 reads standard Base64, padded or not, ignoring line breaks (as a PEM-style
// encoder may wrap it).
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	if strings.HasSuffix(s, "=") {
		return base64.StdEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

func sortTypes(types []string) {
	for i := 1; i < len(types); i++ {
		for j := i; j > 0 && rank[types[j]] < rank[types[j-1]]; j-- {
			types[j], types[j-1] = types[j-1], types[j]
		}
	}
}

// ErrBadOutcome is a checker's answer that breaks its contract (a type missing, or a status the
// type does not accept): a technical failure.
var ErrBadOutcome = errors.New("validations: checker answered a status the type does not accept")

// Validate runs a validate request for the caller (spec 3 §4.7 rules 1 to 3). The request is
// checked first (400, no credit); then one validation credit per type is charged in one
// transaction (403 when the balance is short, nothing charged); then the checks run. A technical
// failure refunds the charge; a request cancelled by the caller keeps it and returns no results.
func (s *Service) Validate(ctx context.Context, c auth.Caller, in api.SatValidationRequest) ([]api.SatValidationResult, error) {
	input, types, err := s.checkRequest(in)
	if err != nil {
		return nil, err
	}
	n := int64(len(types))
	if err := s.charge(ctx, c, -n); err != nil {
		return nil, err
	}
	outcomes, err := s.Checker.Check(ctx, input, types)
	if ctx.Err() != nil {
		return nil, ctx.Err() // cancelled by the caller: the charge stays (rule 2)
	}
	var out []api.SatValidationResult
	if err == nil {
		out, err = results(types, outcomes)
	}
	if err != nil {
		if rerr := s.charge(context.WithoutCancel(ctx), c, n); rerr != nil {
			return nil, fmt.Errorf("%w (and the refund of %d validation credits failed: %v)", err, n, rerr)
		}
		return nil, err
	}
	return out, nil
}

// charge adds amount validation credits (negative to debit) to the caller's balance.
func (s *Service) charge(ctx context.Context, c auth.Caller, amount int64) error {
	return s.Store.Batch(ctx, func(tx storage.Tx) error {
		ppl := tx.People(c.TenantID)
		p, err := ppl.Get(c.PersonID)
		if err != nil {
			return err
		}
		have := people.Available(p, api.CreditValidation)
		if have+amount < 0 {
			return apierr.Forbidden(fmt.Sprintf(MsgNoCreditsFmt, -amount, have))
		}
		now := s.now()
		if err := people.AddCredits(&p, api.CreditValidation, amount, now); err != nil {
			return err
		}
		if err := ppl.Put(p); err != nil {
			return err
		}
		t := storage.StampTransaction{Amount: -amount, TransactionType: people.TxConsumption, CreditType: api.CreditValidation}
		if amount == 0 {
			return nil
		}
		if amount > 0 {
			t.Amount, t.TransactionType = amount, people.TxRollback
			return people.RecordCredits(tx, c.TenantID, t, nil, &p, now)
		}
		return people.RecordCredits(tx, c.TenantID, t, &p, nil, now)
	})
}

func results(types []string, outcomes map[string]Outcome) ([]api.SatValidationResult, error) {
	out := make([]api.SatValidationResult, 0, len(types))
	for _, t := range types {
		o, ok := outcomes[t]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no outcome", ErrBadOutcome, t)
		}
		d, ok := status(t, o.Status)
		if !ok {
			return nil, fmt.Errorf("%w: %s answered %q", ErrBadOutcome, t, o.Status)
		}
		out = append(out, api.SatValidationResult{
			Type:   typeOrder[rank[t]],
			Status: api.SatValidationStatus{ID: d.ID, Description: d.Description, Details: o.Details},
			Passed: d.Passed,
		})
	}
	return out, nil
}
