// Package downloadrequests is the bulk download requests of a tenant (the official client's
// downloadRequests service) and the worker that carries each one out at the SAT's bulk download
// web service (internal/satws) with the requester's e.firma.
//
// A request comes from an approved rule (downloadRuleId: the rule's RFC, download type, query
// type and invoice status) or from explicit parameters (requesterTin names a person of the
// tenant with a current e.firma); the dates are the SAT's FechaInicial and FechaFinal, in
// Mexico City's wall clock. A request by UUID (downloadTypeId Uuid and timbra's uuid) has no
// dates and no filters; onBehalfTin (timbra's) is SAT's RfcACuentaTerceros; query type
// Retenciones goes to SAT's service of withholding CFDIs (kinds.go). A new request is Pending;
// the worker queries the SAT (InProgress once accepted), verifies it with back-off, then
// downloads every package, stores it as the SAT sent it and indexes its CFDIs (xmls) or
// metadata lines (meta-items): Completed, ready to download. A SAT refusal, or an e.firma that is gone, makes it Failed with the SAT's code and
// text; SAT's 404 and unreachable answers are retried with back-off.
package downloadrequests

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/downloadrules"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/storage"
)

// Statuses of a request (catalog DownloadRequestStatuses) and its types (DownloadRequestTypes).
const (
	StatusPending    = "Pending"
	StatusInProgress = "InProgress"
	StatusCompleted  = "Completed"
	StatusFailed     = "Failed"

	TypeManual    = "Manual"
	TypeAutomatic = "Automatic"
)

// Texts of the area (the spec shows none; Spanish as the other areas').
const (
	MsgDateRequired    = "'%s' no debe estar vacío."
	MsgDateFormat      = "La fecha '%s' no es válida: usa ISO 8601, por ejemplo 2025-01-01T00:00:00 o 2025-01-01T00:00:00.000-06:00."
	MsgPeriod          = "La fecha inicial debe ser anterior a la fecha final."
	MsgRuleAbsent      = "La regla de descarga '%s' no existe."
	MsgRuleNotApproved = "La regla de descarga '%s' no está aprobada (estado %s): el operador la aprueba antes de descargar."
	MsgBadDownloadType = "El tipo de descarga '%s' no se admite: usa Emitidos, Recibidos o Uuid."
	MsgBadQueryType    = "El tipo de consulta '%s' no se admite: usa CFDI, Metadata o Retenciones."
	MsgBadInvoiceType  = "El tipo de comprobante '%s' no existe en el catálogo SatInvoiceTypes: usa I, E, T, N, P o vacío (todos)."
	MsgBadStatus       = "El estado '%s' no existe en el catálogo SatInvoiceStatuses: usa Vigente, Cancelado o vacío (todos)."
	MsgReceivedXML     = "El SAT descarga los CFDI recibidos solo vigentes: usa satInvoiceStatusId 'Vigente', o el tipo de consulta 'Metadata'."
	MsgUUIDRequired    = "'Uuid' no debe estar vacío: una descarga por UUID (downloadTypeId 'Uuid') pide el folio fiscal del CFDI."
	MsgBadUUID         = "El UUID '%s' no es válido: usa el folio fiscal de 36 caracteres, por ejemplo 96623061-61FE-49DE-B298-C7156476AA8B."
	MsgUUIDOnly        = "'Uuid' solo se usa con downloadTypeId 'Uuid' (la descarga de un CFDI por su folio fiscal)."
	MsgUUIDNoPeriod    = "Una descarga por UUID no lleva periodo: quita '%s'."
	MsgUUIDNoFilter    = "Una descarga por UUID no lleva filtros: quita '%s'."
	MsgUUIDQueryType   = "Una descarga por UUID trae el XML del CFDI: usa satQueryTypeId 'CFDI' o 'Retenciones', no '%s'."
	MsgRetencionesNo   = "Los CFDI de retenciones no tienen '%s': quítalo de la consulta 'Retenciones'."
	MsgBadComplement   = "El complemento '%s' no existe en el catálogo SatInvoiceComplements."
	MsgRequesterNoRFC  = "'Requester Tin' no debe estar vacío: es el RFC de la persona cuya e.firma firma la solicitud."
	MsgNoPerson        = "Ninguna persona de la cuenta tiene el RFC '%s'."
	MsgNoEFirma        = "La persona '%s' no tiene una e.firma vigente: sube su certificado (tipo 2) y su llave privada (tipo 3) de e.firma."
	MsgNotCompleted    = "La solicitud '%s' aún no termina (estado %s): sus paquetes se descargan al terminar."
	MsgNoRaw           = "La solicitud '%s' aún no se envió al SAT."
)

// Page sizes of the lists.
const (
	DefaultPageSize = 10
	MaxPageSize     = 50
	DefaultItemPage = 50
	MaxItemPage     = 100
)

// Service is the download requests area.
type Service struct {
	Store    storage.Store
	TaxFiles *taxfiles.Service
	// Wake tells the worker there is new work (nil: none).
	Wake func()
	Now  func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// mexico is the time zone of the SAT's dates.
var mexico = cfdi.Mexico

// parseDate reads an ISO 8601 date: with an offset it is taken to Mexico City's wall clock,
// without one it is that wall clock.
func parseDate(s string) (time.Time, bool) {
	for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		t, err := time.Parse(l, s)
		if err != nil {
			continue
		}
		if l == time.RFC3339Nano {
			w := t.In(mexico)
			t = time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, time.UTC)
		}
		return t.Truncate(time.Second), true
	}
	return time.Time{}, false
}

const wallLayout = "2006-01-02T15:04:05"

func text(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

func expand(catalog, id string) *api.CatalogRecord {
	if id == "" && catalog != "SatInvoiceTypes" && catalog != "SatInvoiceComplements" {
		return nil
	}
	return catalogs.DownloadRecord(catalog, id)
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := api.FormatAudit(*t)
	return &s
}

// ToAPI is a request as the API answers it.
func ToAPI(r storage.DownloadRequest) api.DownloadRequest {
	pk := r.PackageIDs
	if pk == nil {
		pk = []string{}
	}
	return api.DownloadRequest{
		ID: r.ID, Consecutive: r.Consecutive, SatRequestID: opt(r.SatRequestID), DownloadRuleID: opt(r.DownloadRuleID),
		DownloadTypeID: r.DownloadTypeID, DownloadType: expand("DownloadTypes", r.DownloadTypeID),
		DownloadRequestTypeID: r.DownloadRequestTypeID, DownloadRequestType: expand("DownloadRequestTypes", r.DownloadRequestTypeID),
		RecipientTin: opt(r.RecipientTin), IssuerTin: opt(r.IssuerTin), RequesterTin: r.RequesterTin,
		StartDate: wallDate(r.StartDate), EndDate: wallDate(r.EndDate), UUID: opt(r.UUID), OnBehalfTin: opt(r.OnBehalfTin),
		SatQueryTypeID: r.SatQueryTypeID, SatQueryType: expand("SatQueryTypes", r.SatQueryTypeID),
		SatInvoiceTypeID: r.SatInvoiceTypeID, SatInvoiceType: expand("SatInvoiceTypes", r.SatInvoiceTypeID),
		SatInvoiceStatusID: r.SatInvoiceStatusID, SatInvoiceStatus: expand("SatInvoiceStatuses", r.SatInvoiceStatusID),
		SatInvoiceComplementID: r.SatInvoiceComplement, SatInvoiceComplement: expand("SatInvoiceComplements", r.SatInvoiceComplement),
		SatRequestStatusID: r.SatRequestStatusID, SatRequestStatus: expand("SatRequestStatuses", r.SatRequestStatusID),
		DownloadRequestStatusID: r.DownloadRequestStatusID, DownloadRequestStatus: expand("DownloadRequestStatuses", r.DownloadRequestStatusID),
		SatStatusCode: opt(r.SatStatusCode), SatMessage: opt(r.SatMessage),
		LastAttemptDate: optTime(r.LastAttemptDate), NextAttemptDate: optTime(r.NextAttemptDate),
		InvoiceCount: r.InvoiceCount, PackageIDs: pk, IsReadyToDownload: r.DownloadRequestStatusID == StatusCompleted,
		RetriesCount: r.RetriesCount, CreatedAt: api.FormatAudit(r.CreatedAt), UpdatedAt: api.FormatAudit(r.UpdatedAt),
	}
}

func field(prop, msg string, v any) api.Failure { return apierr.Field(prop, msg, v, "", nil) }

// Create checks a request and saves it Pending for the worker.
func (s *Service) Create(ctx context.Context, c auth.Caller, in api.DownloadRequestInput) (api.DownloadRequest, error) {
	var fs []api.Failure
	start, end := text(in.StartDate), text(in.EndDate)
	var st, en time.Time
	// a rule's download type (never Uuid) replaces the one sent: its requests have a period
	byUUID := text(in.DownloadTypeID) == DownloadByUUID && text(in.DownloadRuleID) == ""
	for _, d := range []struct {
		prop, words, v string
		t              *time.Time
	}{{"StartDate", "Start Date", start, &st}, {"EndDate", "End Date", end, &en}} {
		if byUUID {
			if d.v != "" {
				fs = append(fs, field(d.prop, fmt.Sprintf(MsgUUIDNoPeriod, lowerFirst(d.prop)), d.v))
			}
		} else if d.v == "" {
			fs = append(fs, field(d.prop, fmt.Sprintf(MsgDateRequired, d.words), nil))
		} else if t, ok := parseDate(d.v); !ok {
			fs = append(fs, field(d.prop, fmt.Sprintf(MsgDateFormat, d.v), d.v))
		} else {
			*d.t = t
		}
	}
	if !st.IsZero() && !en.IsZero() && !st.Before(en) {
		fs = append(fs, field("EndDate", MsgPeriod, end))
	}
	now := s.now()
	if oldest := oldestStart(now); !st.IsZero() && st.Before(oldest) {
		fs = append(fs, field("StartDate", fmt.Sprintf(MsgTooOld, start, oldest.Format(wallLayout)), start))
	}
	r := storage.DownloadRequest{
		ID: ids.New(now), TenantID: c.TenantID, DownloadRuleID: text(in.DownloadRuleID), DownloadRequestTypeID: TypeManual,
		DownloadTypeID: text(in.DownloadTypeID), SatQueryTypeID: text(in.SatQueryTypeID), SatInvoiceTypeID: text(in.SatInvoiceTypeID),
		SatInvoiceStatusID: text(in.SatInvoiceStatusID), SatInvoiceComplement: text(in.SatInvoiceComplementID),
		RequesterTin: strings.ToUpper(text(in.RequesterTin)), IssuerTin: strings.ToUpper(text(in.IssuerTin)),
		RecipientTin: strings.ToUpper(text(in.RecipientTin)), StartDate: st, EndDate: en,
		UUID: strings.ToUpper(text(in.UUID)), OnBehalfTin: strings.ToUpper(text(in.OnBehalfTin)),
		DownloadRequestStatusID: StatusPending, Active: true, SatRequestStatusID: "0", CreatedAt: now, UpdatedAt: now,
	}
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		if r.DownloadRuleID != "" {
			rule, err := tx.DownloadRules(c.TenantID).Get(r.DownloadRuleID)
			if errors.Is(err, storage.ErrNotFound) {
				return apierr.Invalid(append(fs, field("DownloadRuleId", fmt.Sprintf(MsgRuleAbsent, r.DownloadRuleID), r.DownloadRuleID))...)
			}
			if err != nil {
				return err
			}
			if rule.DownloadRuleStatusID != downloadrules.StatusApproved {
				return apierr.Invalid(append(fs, field("DownloadRuleId", fmt.Sprintf(MsgRuleNotApproved, rule.ID, rule.DownloadRuleStatusID), rule.ID))...)
			}
			r.PersonID, r.RequesterTin, r.DownloadTypeID, r.SatQueryTypeID = rule.PersonID, rule.Tin, rule.DownloadTypeID, rule.SatQueryTypeID
			r.SatInvoiceStatusID = rule.SatInvoiceStatusID
		}
		fs = append(fs, checkParameters(&r)...)
		if r.RequesterTin == "" {
			fs = append(fs, field("RequesterTin", MsgRequesterNoRFC, nil))
		}
		if len(fs) > 0 {
			return apierr.Invalid(fs...)
		}
		if r.PersonID == "" {
			p, err := personByTin(tx, c.TenantID, r.RequesterTin)
			if err != nil {
				return err
			}
			r.PersonID = p
		}
		ok, err := taxfiles.HasCurrentEFirma(tx, c.TenantID, r.PersonID, now)
		if err != nil {
			return err
		}
		if !ok {
			return apierr.BadRequest(fmt.Sprintf(MsgNoEFirma, r.PersonID))
		}
		if err := checkRepeat(tx, r); err != nil {
			return err
		}
		return putNew(tx, &r)
	})
	if err != nil {
		return api.DownloadRequest{}, err
	}
	if s.Wake != nil {
		s.Wake()
	}
	return ToAPI(r), nil
}

// putNew stores a new request, numbered one more than the tenant's newest (creation order is
// key order).
func putNew(tx storage.Tx, r *storage.DownloadRequest) error {
	_, total, err := tx.DownloadRequests(r.TenantID).List(0, 0)
	if err != nil {
		return err
	}
	r.Consecutive = 1
	if total > 0 {
		last, _, err := tx.DownloadRequests(r.TenantID).List(total-1, 1)
		if err != nil {
			return err
		}
		if len(last) == 1 {
			r.Consecutive = last[0].Consecutive + 1
		}
	}
	return tx.DownloadRequests(r.TenantID).Put(*r)
}

// checkParameters checks the SAT parameters of a request and fills the counterpart RFC the
// SAT needs (the requester is the issuer of Emitidos and the recipient of Recibidos).
func checkParameters(r *storage.DownloadRequest) []api.Failure {
	var fs []api.Failure
	switch r.DownloadTypeID {
	case "Emitidos", "Recibidos":
	case DownloadByUUID:
		return checkByUUID(r)
	default:
		fs = append(fs, field("DownloadTypeId", fmt.Sprintf(MsgBadDownloadType, r.DownloadTypeID), r.DownloadTypeID))
	}
	switch r.SatQueryTypeID {
	case "CFDI", "Metadata":
	case QueryRetenciones:
		fs = append(fs, checkRetenciones(r)...)
	default:
		fs = append(fs, field("SatQueryTypeId", fmt.Sprintf(MsgBadQueryType, r.SatQueryTypeID), r.SatQueryTypeID))
	}
	if r.UUID != "" {
		fs = append(fs, field("Uuid", MsgUUIDOnly, r.UUID))
	}
	fs = append(fs, checkOnBehalf(r)...)
	if expand("SatInvoiceTypes", r.SatInvoiceTypeID) == nil {
		fs = append(fs, field("SatInvoiceTypeId", fmt.Sprintf(MsgBadInvoiceType, r.SatInvoiceTypeID), r.SatInvoiceTypeID))
	}
	if r.SatInvoiceStatusID != "" && expand("SatInvoiceStatuses", r.SatInvoiceStatusID) == nil {
		fs = append(fs, field("SatInvoiceStatusId", fmt.Sprintf(MsgBadStatus, r.SatInvoiceStatusID), r.SatInvoiceStatusID))
	} else if r.DownloadTypeID == "Recibidos" && (r.SatQueryTypeID == "CFDI" || r.SatQueryTypeID == QueryRetenciones) && r.SatInvoiceStatusID != "Vigente" {
		fs = append(fs, field("SatInvoiceStatusId", MsgReceivedXML, r.SatInvoiceStatusID))
	}
	if expand("SatInvoiceComplements", r.SatInvoiceComplement) == nil {
		fs = append(fs, field("SatInvoiceComplementId", fmt.Sprintf(MsgBadComplement, r.SatInvoiceComplement), r.SatInvoiceComplement))
	}
	switch r.DownloadTypeID {
	case "Emitidos":
		r.IssuerTin = r.RequesterTin
	case "Recibidos":
		r.RecipientTin = r.RequesterTin
	}
	return fs
}

// personByTin is the tenant's person with that RFC (the newest when several).
func personByTin(tx storage.Tx, tenantID, tin string) (string, error) {
	ps, _, err := tx.People(tenantID).List(0, 1<<30)
	if err != nil {
		return "", err
	}
	id := ""
	for _, p := range ps {
		if p.Tin != nil && strings.EqualFold(strings.TrimSpace(*p.Tin), tin) {
			id = p.ID
		}
	}
	if id == "" {
		return "", apierr.Invalid(field("RequesterTin", fmt.Sprintf(MsgNoPerson, tin), tin))
	}
	return id, nil
}

func (s *Service) get(tx storage.Tx, c auth.Caller, id string) (storage.DownloadRequest, error) {
	r, err := tx.DownloadRequests(c.TenantID).Get(id)
	if errors.Is(err, storage.ErrNotFound) {
		return r, apierr.NotFound(id)
	}
	return r, err
}

// Get answers one request of the tenant.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.DownloadRequest, error) {
	var out api.DownloadRequest
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		r, err := s.get(tx, c, id)
		out = ToAPI(r)
		return err
	})
	return out, err
}

// List answers a page of the tenant's requests in creation order.
func (s *Service) List(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.DownloadRequest], error) {
	var out []api.DownloadRequest
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		rs, n, err := tx.DownloadRequests(c.TenantID).List((page-1)*size, size)
		total = n
		for _, r := range rs {
			out = append(out, ToAPI(r))
		}
		return err
	})
	if err != nil {
		return api.PagedList[api.DownloadRequest]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}

// Delete removes a request with its packages and index (the SAT keeps its own request).
func (s *Service) Delete(ctx context.Context, c auth.Caller, id string) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error {
		if _, err := s.get(tx, c, id); err != nil {
			return err
		}
		return tx.DownloadRequests(c.TenantID).Delete(id)
	})
}

func items[T any](s *Service, ctx context.Context, c auth.Caller, id, kind string, page, size int) (api.PagedList[T], error) {
	var out []T
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		if _, err := s.get(tx, c, id); err != nil {
			return err
		}
		raw, n, err := tx.DownloadRequests(c.TenantID).Items(id, kind, (page-1)*size, size)
		total = n
		for _, b := range raw {
			var v T
			if err := json.Unmarshal(b, &v); err != nil {
				return err
			}
			out = append(out, v)
		}
		return err
	})
	if err != nil {
		return api.PagedList[T]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}

// XMLs answers a page of the CFDIs of a request's packages, each read from its package.
func (s *Service) XMLs(ctx context.Context, c auth.Caller, id string, page, size int) (api.PagedList[api.DownloadXML], error) {
	out := []api.DownloadXML{}
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		if _, err := s.get(tx, c, id); err != nil {
			return err
		}
		rs := tx.DownloadRequests(c.TenantID)
		first := (page - 1) * size
		entries, n, err := rs.Items(id, storage.ItemXML, first, size)
		if err != nil {
			return err
		}
		total = n
		for i, b := range entries {
			raw, pkg, err := readXMLEntry(rs, id, b)
			if err != nil {
				return err
			}
			x, err := xmlOf(raw, id, pkg, first+i)
			if err != nil {
				return err
			}
			out = append(out, x)
		}
		return nil
	})
	if err != nil {
		return api.PagedList[api.DownloadXML]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}

// MetadataItems answers a page of the metadata lines of a request's packages.
func (s *Service) MetadataItems(ctx context.Context, c auth.Caller, id string, page, size int) (api.PagedList[api.DownloadMetadataItem], error) {
	return items[api.DownloadMetadataItem](s, ctx, c, id, storage.ItemMetadata, page, size)
}

// Packages answers every package of a completed request as a file (the ZIP the SAT sent).
func (s *Service) Packages(ctx context.Context, c auth.Caller, id string) ([]api.FileResponse, error) {
	out := []api.FileResponse{}
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		r, err := s.get(tx, c, id)
		if err != nil {
			return err
		}
		if r.DownloadRequestStatusID != StatusCompleted {
			return apierr.BadRequest(fmt.Sprintf(MsgNotCompleted, id, r.DownloadRequestStatusID))
		}
		for _, p := range r.Downloaded {
			var b strings.Builder
			enc := base64.NewEncoder(base64.StdEncoding, &b)
			if err := tx.DownloadRequests(c.TenantID).Package(id, p, enc); err != nil {
				return err
			}
			enc.Close()
			out = append(out, api.FileResponse{Base64File: b.String(), FileName: p + ".zip", FileExtension: "zip"})
		}
		return nil
	})
	return out, err
}

// Raw answers the query as sent to the SAT (request) or its answer (response).
func (s *Service) Raw(ctx context.Context, c auth.Caller, id string, response bool) (api.FileResponse, error) {
	var out api.FileResponse
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		r, err := s.get(tx, c, id)
		if err != nil {
			return err
		}
		b, name := r.RawRequest, "request"
		if response {
			b, name = r.RawResponse, "response"
		}
		if len(b) == 0 {
			return apierr.BadRequest(fmt.Sprintf(MsgNoRaw, id))
		}
		out = api.FileResponse{Base64File: base64.StdEncoding.EncodeToString(b), FileName: r.ID + "-" + name + ".xml", FileExtension: "xml"}
		return nil
	})
	return out, err
}
