package satlocal

import (
	"archive/zip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/satws"
)

type request struct {
	id, rfc     string
	retenciones bool // of the withholding CFDIs' service
	op          satws.Operation
	key         string // the criteria, for duplicates
	typ         string // CFDI or Metadata
	q           satws.Query
	accepted    time.Time

	finished  time.Time // zero until finished
	state     int
	stateCode int
	count     int
	packages  []string
}

type pkg struct {
	id        string
	req       *request
	cfdis     []CFDI
	downloads int
}

// PackageLifetime is how long after a request finished its packages can be downloaded.
const PackageLifetime = 72 * time.Hour

// MaxDownloads is how many times one package may be downloaded.
const MaxDownloads = 2

// Texts of the 301s SAT answers for v1.5's rules (third-party logs, descarga-masiva.md §3).
const (
	msgPeriod        = "La fecha inicial es mayor o igual a la fecha final."
	msgTooOld        = "La fecha inicial es menor a la fecha permitida."
	msgCancelledXML  = "No se permite la descarga de xml que se encuentren cancelados."
	msgBadParameter  = "XML Mal Formado: %s"
	msgTokenRequired = "Usuario No Válido"
)

// check is what every call but Autentica checks: a current token, a signature that verifies,
// an e.firma current now, of the token's RFC and the requester's. It answers the code and
// message to send when something fails (0 when all passed).
func (s *Server) check(r *http.Request, body []byte) (*satws.Verified, int, string) {
	sess, ok := s.token(r)
	if !ok {
		return nil, satws.CodeInvalidUser, msgTokenRequired
	}
	v, err := satws.VerifyRequest(body)
	switch {
	case errors.Is(err, satws.ErrMalformed):
		return nil, satws.CodeMalformedXML, satws.Messages[satws.CodeMalformedXML]
	case errors.Is(err, satws.ErrCertificate):
		return nil, satws.CodeInvalidCertificate, satws.Messages[satws.CodeInvalidCertificate]
	case err != nil:
		return nil, satws.CodeBadSignature, satws.Messages[satws.CodeBadSignature]
	}
	switch {
	case v.Cert.Kind != csd.KindFIEL:
		return v, satws.CodeInvalidCertificate, satws.Messages[satws.CodeInvalidCertificate]
	case !v.Cert.ValidAt(s.now()):
		return v, satws.CodeCertificateExpired, satws.Messages[satws.CodeCertificateExpired]
	case v.Cert.RFC != sess.rfc || !strings.EqualFold(v.Attrs["RfcSolicitante"], v.Cert.RFC):
		return v, satws.CodeSignatureRFC, satws.Messages[satws.CodeSignatureRFC]
	}
	return v, 0, ""
}

func (s *Server) query(w http.ResponseWriter, r *http.Request, action string, body []byte) {
	op := satws.Issued
	switch action {
	case satws.ActionReceived:
		op = satws.Received
	case satws.ActionFolio:
		op = satws.ByUUID
	}
	if code, ok := s.forced("query"); ok {
		queryAnswer(w, op, "", "", code, satws.Messages[code])
		return
	}
	v, code, msg := s.check(r, body)
	if v != nil {
		switch v.Operation {
		case satws.Received.Element():
			op = satws.Received
		case satws.ByUUID.Element():
			op = satws.ByUUID
		case satws.Issued.Element():
			op = satws.Issued
		default:
			code, msg = satws.CodeMalformedXML, fmt.Sprintf(msgBadParameter, "operación "+v.Operation)
		}
	}
	if code != 0 {
		rfc := ""
		if v != nil {
			rfc = v.Attrs["RfcSolicitante"]
		}
		queryAnswer(w, op, "", rfc, code, msg)
		return
	}
	q, code, msg := s.parseQuery(op, v)
	retenciones, _ := service(r.URL.Path)
	if code == 0 && op == satws.ByUUID && s.cancelledFolio(q, retenciones) {
		code, msg = satws.CodeCancelledXML, satws.Messages[satws.CodeCancelledXML]
	}
	if code != 0 {
		queryAnswer(w, op, "", v.Cert.RFC, code, msg)
		return
	}
	key := fmt.Sprint(retenciones, "|", criteria(q))
	s.mu.Lock()
	same := 0
	for _, o := range s.requests {
		if o.key != key {
			continue
		}
		same++
		if o.finished.IsZero() || s.now().Before(o.finished) {
			s.mu.Unlock()
			queryAnswer(w, op, "", v.Cert.RFC, satws.CodeDuplicate, satws.Messages[satws.CodeDuplicate])
			return
		}
	}
	if same >= 2 && q.RequestType == satws.RequestCFDI {
		s.mu.Unlock()
		queryAnswer(w, op, "", v.Cert.RFC, satws.CodeExhausted, satws.Messages[satws.CodeExhausted])
		return
	}
	req := &request{id: uuid.NewString(), rfc: v.Cert.RFC, retenciones: retenciones, op: op, key: key, typ: q.RequestType, q: q, accepted: s.now()}
	s.requests[req.id] = req
	s.mu.Unlock()
	queryAnswer(w, op, req.id, req.rfc, satws.CodeAccepted, satws.Messages[satws.CodeAccepted])
}

func criteria(q satws.Query) string {
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%v|%s|%s|%s|%s|%s|%s", q.Operation, q.Requester, q.Start.Format(satws.DateFormat),
		q.End.Format(satws.DateFormat), q.RequestType, q.Issuer, q.Receivers, q.Receiver, q.InvoiceType, q.Status, q.OnBehalf,
		q.Complement, strings.ToUpper(q.UUID))
}

// parseQuery reads and checks a query's parameters by SAT v1.5's rules.
func (s *Server) parseQuery(op satws.Operation, v *satws.Verified) (satws.Query, int, string) {
	a := v.Attrs
	q := satws.Query{Operation: op, Requester: strings.ToUpper(a["RfcSolicitante"]), RequestType: a["TipoSolicitud"],
		Issuer: strings.ToUpper(a["RfcEmisor"]), Receiver: strings.ToUpper(a["RfcReceptor"]), InvoiceType: a["TipoComprobante"],
		Status: a["EstadoComprobante"], OnBehalf: strings.ToUpper(a["RfcACuentaTerceros"]), Complement: a["Complemento"], UUID: a["Folio"]}
	bad := func(what string) (satws.Query, int, string) {
		return q, satws.CodeMalformedXML, fmt.Sprintf(msgBadParameter, what)
	}
	if op == satws.ByUUID {
		if _, err := uuid.Parse(q.UUID); err != nil || len(q.UUID) != 36 {
			return bad("Folio")
		}
		return q, 0, ""
	}
	for _, r := range v.Children["RfcReceptores"] {
		q.Receivers = append(q.Receivers, strings.ToUpper(r))
	}
	var err error
	if q.Start, err = time.Parse(satws.DateFormat, a["FechaInicial"]); err != nil {
		return bad("FechaInicial")
	}
	if q.End, err = time.Parse(satws.DateFormat, a["FechaFinal"]); err != nil {
		return bad("FechaFinal")
	}
	if q.RequestType != satws.RequestCFDI && q.RequestType != satws.RequestMetadata {
		return bad("TipoSolicitud")
	}
	if q.Status == "" {
		q.Status = satws.StatusActive // SAT's default
	}
	if !slices.Contains([]string{satws.StatusAll, satws.StatusActive, satws.StatusCancelled}, q.Status) {
		return bad("EstadoComprobante")
	}
	if q.InvoiceType != "" && !slices.Contains([]string{"I", "E", "T", "N", "P"}, q.InvoiceType) {
		return bad("TipoComprobante")
	}
	if len(q.Receivers) > 5 {
		return bad("RfcReceptores")
	}
	if !q.Start.Before(q.End) {
		return q, satws.CodeMalformedXML, msgPeriod
	}
	// today in Mexico City six years back, at 00:00 (the query's dates are Mexico City's wall clock)
	now := s.now().In(cfdi.Mexico)
	if q.Start.Before(time.Date(now.Year()-6, now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)) {
		return q, satws.CodeMalformedXML, msgTooOld
	}
	switch op {
	case satws.Issued:
		if q.Issuer != v.Cert.RFC {
			return q, satws.CodeSignatureRFC, "Sello no corresponde con RfcEmisor"
		}
	case satws.Received:
		if q.Receiver != v.Cert.RFC {
			return q, satws.CodeSignatureRFC, "Sello no corresponde con RfcReceptor"
		}
		if q.RequestType == satws.RequestCFDI && q.Status != satws.StatusActive {
			return q, satws.CodeMalformedXML, msgCancelledXML
		}
	}
	return q, 0, ""
}

func queryAnswer(w http.ResponseWriter, op satws.Operation, id, rfc string, code int, msg string) {
	attrs := ""
	if id != "" {
		attrs = ` IdSolicitud="` + esc(id) + `"`
	}
	if rfc != "" {
		attrs += ` RfcSolicitante="` + esc(rfc) + `"`
	}
	el := op.Element()
	writeXML(w, http.StatusOK, `<s:Envelope xmlns:s="`+satws.NSSoap+`"><s:Body xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">`+
		`<`+el+`Response xmlns="`+satws.NSDes+`"><`+el+`Result`+attrs+` CodEstatus="`+strconv.Itoa(code)+`" Mensaje="`+esc(msg)+`"/></`+el+`Response></s:Body></s:Envelope>`)
}

// cancelledFolio tells whether the CFDI a query by UUID names is cancelled (SAT's 5012: a
// cancelled XML is not given).
func (s *Server) cancelledFolio(q satws.Query, retenciones bool) bool {
	for _, c := range s.matches(q, retenciones) {
		if c.Cancelled {
			return true
		}
	}
	return false
}

// matches are the CFDIs (of one service: CFDI or Retenciones) a request selects.
func (s *Server) matches(q satws.Query, retenciones bool) []CFDI {
	var out []CFDI
	for _, c := range s.cfdis {
		if c.Retenciones != retenciones {
			continue
		}
		if q.Operation == satws.ByUUID {
			if c.UUID == strings.ToUpper(q.UUID) && (c.IssuerRFC == q.Requester || c.ReceiverRFC == q.Requester) {
				out = append(out, c)
			}
			continue
		}
		switch q.Operation {
		case satws.Issued:
			if c.IssuerRFC != q.Requester || (len(q.Receivers) > 0 && !slices.Contains(q.Receivers, c.ReceiverRFC)) {
				continue
			}
		case satws.Received:
			if c.ReceiverRFC != q.Requester || (q.Issuer != "" && c.IssuerRFC != q.Issuer) {
				continue
			}
		}
		if c.Date.Before(q.Start) || c.Date.After(q.End) ||
			(q.InvoiceType != "" && c.Type != q.InvoiceType) ||
			(q.Status == satws.StatusActive && c.Cancelled) || (q.Status == satws.StatusCancelled && !c.Cancelled) ||
			(q.OnBehalf != "" && !slices.Contains(c.OnBehalfRFCs, q.OnBehalf)) ||
			(q.Complement != "" && !slices.Contains(c.Complements, q.Complement)) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// advance moves a request on by the clock: in progress after half of Delay, finished (or
// rejected) after Delay, expired 72 hours after it finished. Called with s.mu held.
func (s *Server) advance(req *request) {
	now := s.now()
	if req.finished.IsZero() {
		switch {
		case now.Before(req.accepted.Add(s.o.Delay / 2)):
			req.state = satws.StateAccepted
			return
		case now.Before(req.accepted.Add(s.o.Delay)):
			req.state = satws.StateInProgress
			return
		}
		req.finished = now
		found := s.matches(req.q, req.retenciones)
		limit, size := s.o.MaxCFDI, s.o.PackageSize
		if req.typ == satws.RequestMetadata {
			limit = s.o.MaxMetadata
		}
		if size <= 0 {
			size = limit
		}
		switch {
		case len(found) == 0:
			req.state, req.stateCode = satws.StateRejected, satws.CodeNotFound
		case len(found) > limit:
			req.state, req.stateCode = satws.StateRejected, satws.CodeTooMany
		default:
			req.state, req.stateCode, req.count = satws.StateFinished, satws.CodeAccepted, len(found)
			for i := 0; i < len(found); i += size {
				p := &pkg{id: fmt.Sprintf("%s_%02d", req.id, i/size+1), req: req, cfdis: found[i:min(i+size, len(found))]}
				s.packages[strings.ToUpper(p.id)] = p
				req.packages = append(req.packages, p.id)
			}
		}
	}
	if req.state == satws.StateFinished && !now.Before(req.finished.Add(PackageLifetime)) {
		req.state = satws.StateExpired
	}
}

func (s *Server) verify(w http.ResponseWriter, r *http.Request, body []byte) {
	if code, ok := s.forced("verify"); ok {
		switch code {
		case satws.CodeExhausted, satws.CodeTooMany, satws.CodeNotFound, satws.CodeDuplicate:
			verifyAnswer(w, satws.CodeAccepted, satws.StateRejected, code, 0, nil)
		case satws.StateError, satws.StateExpired:
			verifyAnswer(w, satws.CodeAccepted, code, satws.CodeAccepted, 0, nil)
		default:
			verifyAnswer(w, code, 0, 0, 0, nil)
		}
		return
	}
	v, code, _ := s.check(r, body)
	if code != 0 {
		verifyAnswer(w, code, 0, 0, 0, nil)
		return
	}
	retenciones, _ := service(r.URL.Path)
	if v.Operation != "VerificaSolicitudDescarga" {
		verifyAnswer(w, satws.CodeMalformedXML, 0, 0, 0, nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var req *request
	for id, o := range s.requests {
		if strings.EqualFold(id, v.Attrs["IdSolicitud"]) && o.rfc == v.Cert.RFC && o.retenciones == retenciones {
			req = o
		}
	}
	if req == nil {
		verifyAnswer(w, satws.CodeNotFound, 0, 0, 0, nil)
		return
	}
	s.advance(req)
	var ids []string
	if req.state == satws.StateFinished {
		ids = req.packages
	}
	verifyAnswer(w, satws.CodeAccepted, req.state, req.stateCode, req.count, ids)
}

func verifyAnswer(w http.ResponseWriter, code, state, stateCode, count int, packages []string) {
	var b strings.Builder
	b.WriteString(`<s:Envelope xmlns:s="` + satws.NSSoap + `"><s:Body xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">`)
	b.WriteString(`<VerificaSolicitudDescargaResponse xmlns="` + satws.NSDes + `"><VerificaSolicitudDescargaResult CodEstatus="` + strconv.Itoa(code) +
		`" EstadoSolicitud="` + strconv.Itoa(state) + `" CodigoEstadoSolicitud="` + strconv.Itoa(stateCode) + `" NumeroCFDIs="` + strconv.Itoa(count) +
		`" Mensaje="` + esc(satws.Messages[code]) + `">`)
	for _, p := range packages {
		b.WriteString(`<IdsPaquetes>` + esc(p) + `</IdsPaquetes>`)
	}
	b.WriteString(`</VerificaSolicitudDescargaResult></VerificaSolicitudDescargaResponse></s:Body></s:Envelope>`)
	writeXML(w, http.StatusOK, b.String())
}

func downloadHead(code int) string {
	return `<s:Envelope xmlns:s="` + satws.NSSoap + `"><s:Header><h:respuesta CodEstatus="` + strconv.Itoa(code) + `" Mensaje="` + esc(satws.Messages[code]) +
		`" xmlns:h="` + satws.NSDes + `" xmlns="` + satws.NSDes + `" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"/></s:Header>` +
		`<s:Body xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><RespuestaDescargaMasivaTercerosSalida xmlns="` + satws.NSDes + `"><Paquete>`
}

const downloadTail = `</Paquete></RespuestaDescargaMasivaTercerosSalida></s:Body></s:Envelope>`

func (s *Server) download(w http.ResponseWriter, r *http.Request, body []byte) {
	if code, ok := s.forced("download"); ok {
		writeXML(w, http.StatusOK, downloadHead(code)+downloadTail)
		return
	}
	v, code, _ := s.check(r, body)
	if code == 0 && v.Operation != "PeticionDescargaMasivaTercerosEntrada" {
		code = satws.CodeMalformedXML
	}
	if code != 0 {
		writeXML(w, http.StatusOK, downloadHead(code)+downloadTail)
		return
	}
	retenciones, _ := service(r.URL.Path)
	s.mu.Lock()
	p := s.packages[strings.ToUpper(v.Attrs["IdPaquete"])]
	switch {
	case p == nil || p.req.rfc != v.Cert.RFC || p.req.retenciones != retenciones:
		code = satws.CodeNotFound
	case !s.now().Before(p.req.finished.Add(PackageLifetime)):
		code = satws.CodePackageGone
	case p.downloads >= MaxDownloads:
		code = satws.CodeDownloadsExceeded
	default:
		p.downloads++
		code = satws.CodeAccepted
	}
	s.mu.Unlock()
	if code != satws.CodeAccepted {
		writeXML(w, http.StatusOK, downloadHead(code)+downloadTail)
		return
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	io.WriteString(w, downloadHead(code))
	enc := base64.NewEncoder(base64.StdEncoding, w)
	if err := writePackage(enc, p); err != nil {
		// the answer has started: cut it, so the client sees a broken package, not a short one
		panic(http.ErrAbortHandler)
	}
	enc.Close()
	io.WriteString(w, downloadTail)
}

// MetadataHeader is the first line of a metadata file.
const MetadataHeader = "Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion"

// writePackage writes the package's ZIP: the CFDI files as <UUID>.xml, or the metadata text
// (and the _tercero file of the CFDIs issued on behalf of someone).
func writePackage(w io.Writer, p *pkg) error {
	z := zip.NewWriter(w)
	if p.req.typ == satws.RequestMetadata {
		f, err := z.Create(p.id + ".txt")
		if err != nil {
			return err
		}
		io.WriteString(f, MetadataHeader+"\r\n")
		var terceros []string
		for _, c := range p.cfdis {
			status, cancelled := "1", ""
			if c.Cancelled {
				status, cancelled = "0", c.CancelledAt.Format("2006-01-02 15:04:05")
			}
			io.WriteString(f, strings.Join([]string{c.UUID, c.IssuerRFC, c.IssuerName, c.ReceiverRFC, c.ReceiverName, c.PacRFC,
				c.Date.Format("2006-01-02 15:04:05"), c.Certified.Format("2006-01-02 15:04:05"), c.Total, c.Type, status, cancelled}, "~")+"\r\n")
			for i, r := range c.OnBehalfRFCs {
				terceros = append(terceros, c.UUID+"~"+r+"~"+c.OnBehalfNames[i])
			}
		}
		if len(terceros) > 0 {
			t, err := z.Create(p.id + "_tercero.txt")
			if err != nil {
				return err
			}
			io.WriteString(t, "Uuid~RfcACuentaTerceros~NombreACuentaTerceros\r\n"+strings.Join(terceros, "\r\n")+"\r\n")
		}
		return z.Close()
	}
	for _, c := range p.cfdis {
		f, err := z.Create(strings.ToLower(c.UUID) + ".xml")
		if err != nil {
			return err
		}
		src, err := os.Open(c.Path)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, src)
		src.Close()
		if err != nil {
			return err
		}
	}
	return z.Close()
}
