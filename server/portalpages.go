package server

import (
	"bytes"
	"crypto/hmac"
	"embed"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/autoinvoice"
	"github.com/timbra-mx/timbra/internal/tickets"
)

// The portal's web pages: what a shop's customers open on their phones, with a ticket in hand,
// to invoice it (spec 3 §4.6; the JSON portal is /portal/v1/<name>). They live under
// /portal/<name> (a portal name is 3 or more characters, so it is never "v1"; "static" is a
// reserved name, so /portal/static/ holds the page's style sheet and script):
//
//	GET  /portal/<name>                   the form, or why the portal does not invoice
//	POST /portal/<name>                   the form sent: the result, the form again with what
//	                                      failed, or the ticket's problem
//	GET  /portal/<name>/descargas/<file>  the CFDI's XML or PDF (?t=, a download token)
//	GET  /portal/static/<file>            portal.css, portal.js (embedded: no outside request)
//
// A previous name answers 308 to the current one. The pages are rate limited as the JSON
// portal (family Anonymous, per address), set no cookie, and carry a Content-Security-Policy
// that lets them load only from the server. Every rule and text is the JSON portal's
// (tickets.Service.PortalInvoice, tickets.Rules): the page only shows them.

//go:embed portalweb
var portalWeb embed.FS

var portalTemplate = template.Must(template.New("portal.html").Funcs(template.FuncMap{
	"choice": func(values map[string]string, field, id string) bool { return values[field] == id },
}).ParseFS(portalWeb, "portalweb/portal.html"))

// portalCSP is the pages' Content-Security-Policy: styles, scripts, images and the form's
// target from the server only, no inline script or style, no frames, no plugins.
const portalCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Token lifetimes: a form may wait two hours to be sent; downloads work for a day.
const (
	formTokenAge     = 2 * time.Hour
	downloadTokenAge = 24 * time.Hour
)

// Texts of the pages (timbra's; the rules' texts are the JSON portal's).
const (
	msgFormExpired = "La página caducó antes de enviarse. Revisa tus datos y envíalos de nuevo."
	msgCrossSite   = "Este formulario solo se envía desde la página del portal."
	msgFormInvalid = "Revisa los datos marcados."
	msgLinkExpired = "El enlace de descarga caducó o no es válido. Vuelve a enviar tus datos para obtener tus archivos."
)

// portalField is a field of the form as the page shows it.
type portalField struct{ ID, Label string }

// portalFields are the form's fields in the page's order.
var portalFields = []portalField{
	{"number", "Número de ticket o folio"}, {"total", "Total del ticket"}, {"tin", "RFC"},
	{"legalName", "Nombre o razón social"}, {"zipCode", "Código postal del domicilio fiscal"},
	{"taxRegimeCode", "Régimen fiscal"}, {"cfdiUseCode", "Uso del CFDI"}, {"email", "Correo electrónico"},
}

// portalView is what the template shows.
type portalView struct {
	Kind    string // "form", "result" or "problem"
	Status  int
	Title   string
	Shop    string
	Name    string
	Privacy string

	// the form
	Action, Token string
	Values        map[string]string
	Errors        map[string]string
	Summary       []portalFieldError
	Notice        string
	Regimes, Uses []portalChoice
	Rules         tickets.FormRules

	// the result
	UUID, Number, Total, XMLURL, PDFURL, XMLName, PDFName, EmailedTo string

	// a problem
	Heading, Message string
	Back             bool
}

type portalFieldError struct{ ID, Label, Message string }

// portalChoice is an option of a select, with to whom it applies for the page's filter.
type portalChoice struct {
	ID, Label       string
	Physical, Moral bool
	Regimes         string // space-separated: the regimes a CFDI use admits
	AllRegimes      bool   // the catalog names none: any regime
}

func (s *Server) portalPages() {
	s.mux.HandlePage("GET /portal/{name}", s.portalPage(s.portalForm))
	s.mux.HandlePage("POST /portal/{name}", s.portalPage(s.portalSubmit))
	s.mux.HandlePage("GET /portal/{name}/descargas/{file}", s.portalPage(s.portalDownload))
	static, _ := fs.Sub(portalWeb, "portalweb/static")
	files := http.StripPrefix("/portal/static/", http.FileServerFS(static))
	s.mux.HandlePage("GET /portal/static/{file}", s.portalPage(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}))
}

// portalPage counts a page's request as the JSON portal's (family Anonymous, per address) and
// sets the pages' headers.
func (s *Server) portalPage(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", portalCSP)
		hd.Set("Referrer-Policy", "same-origin") // download links carry a token: never sent elsewhere
		hd.Set("X-Frame-Options", "DENY")
		d := s.limiter.Take("addr:"+clientAddr(r), s.anonymous)
		hd.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
		hd.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
		hd.Set("RateLimit-Reset", strconv.Itoa(d.ResetSeconds()))
		if !d.Allowed {
			hd.Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
			s.renderPortal(w, r, portalView{Kind: "problem", Status: http.StatusTooManyRequests, Title: "Demasiadas solicitudes",
				Heading: "Demasiadas solicitudes", Message: "Espera " + strconv.Itoa(d.RetryAfterSeconds()) + " segundos y vuelve a intentarlo."})
			return
		}
		h(w, r)
	})
}

func (s *Server) renderPortal(w http.ResponseWriter, r *http.Request, v portalView) {
	if v.Status == 0 {
		v.Status = http.StatusOK
	}
	var buf bytes.Buffer
	if err := portalTemplate.Execute(&buf, v); err != nil {
		s.log.Error("portal page", "trace", traceID(r.Context()), "err", err)
		http.Error(w, "Error interno", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(v.Status)
	_, _ = w.Write(buf.Bytes())
}

// portalError shows why a request of the portal failed: a previous name redirects, the
// tickets' problems have their own pages, anything else says what the API would.
func (s *Server) portalError(w http.ResponseWriter, r *http.Request, v portalView, err error) {
	var m *tickets.Moved
	if errors.As(err, &m) {
		target := "/portal/" + url.PathEscape(m.Name)
		if rest, ok := strings.CutPrefix(r.URL.Path, "/portal/"+r.PathValue("name")); ok {
			target += rest
		}
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusPermanentRedirect)
		return
	}
	e, ok := apierr.As(err)
	if !ok {
		s.log.Error("portal page failed", "trace", traceID(r.Context()), "path", r.URL.Path, "err", err)
		e = &apierr.Error{Status: http.StatusInternalServerError, Details: "Ocurrió un error en el servidor. Intenta de nuevo en unos minutos."}
	}
	v.Kind, v.Status, v.Message, v.Back = "problem", e.Status, e.Details, true
	switch tickets.ProblemOf(err) {
	case tickets.ProblemNotOffered:
		v.Heading, v.Back = "Facturación en línea no disponible", false
	case tickets.ProblemNotFound:
		v.Heading = "No encontramos tu ticket"
		v.Message += " Revisa el número y el total tal como aparecen en tu ticket."
	case tickets.ProblemInvoiced:
		v.Heading = "Este ticket ya fue facturado"
		v.Message += " Si la factura es tuya, envía el RFC con el que la pediste para descargarla de nuevo."
	case tickets.ProblemUnavailable:
		v.Heading = "Este ticket no se puede facturar"
	case tickets.ProblemExpired:
		v.Heading = "El plazo para facturar este ticket terminó"
		v.Back = false
	default:
		if e.Status == http.StatusNotFound {
			v.Heading, v.Back = "Portal no encontrado", false
		} else {
			v.Heading = "No pudimos hacer tu factura"
		}
	}
	v.Title = v.Heading
	s.renderPortal(w, r, v)
}

// portalBase reads the portal for a page: its view with the shop, or the error to show.
func (s *Server) portalBase(r *http.Request) (portalView, tickets.PortalPage, error) {
	p, err := s.tickets.Page(r.Context(), r.PathValue("name"))
	v := portalView{Name: p.Name, Shop: p.ShopName, Title: "Factura tu ticket"}
	if p.PrivacyNoticeURL != nil {
		v.Privacy = *p.PrivacyNoticeURL
	}
	return v, p, err
}

// portalForm is GET /portal/<name>.
func (s *Server) portalForm(w http.ResponseWriter, r *http.Request) {
	v, p, err := s.portalBase(r)
	if err != nil {
		s.portalError(w, r, v, err)
		return
	}
	if !p.Offered {
		v.Kind, v.Title, v.Heading, v.Message = "problem", "Facturación en línea no disponible", "Facturación en línea no disponible", api.Deref(p.Message)
		s.renderPortal(w, r, v)
		return
	}
	s.renderPortal(w, r, s.formView(r, v, p, map[string]string{}))
}

// formView is the form of portal p with the values typed.
func (s *Server) formView(r *http.Request, v portalView, p tickets.PortalPage, values map[string]string) portalView {
	v.Kind, v.Values, v.Errors, v.Rules = "form", values, map[string]string{}, tickets.Rules()
	v.Action = "/portal/" + url.PathEscape(p.Name)
	v.Token = s.formToken(p.Name, s.cfg.Now())
	for _, a := range p.Regimes {
		v.Regimes = append(v.Regimes, portalChoice{ID: a.ID, Label: a.ID + " · " + a.Description, Physical: a.Physical, Moral: a.Moral})
	}
	for _, a := range p.Uses {
		v.Uses = append(v.Uses, portalChoice{ID: a.ID, Label: a.ID + " · " + strings.TrimSuffix(a.Description, "."), Physical: a.Physical, Moral: a.Moral,
			Regimes: strings.Join(a.Regimes, " "), AllRegimes: a.Regimes == nil})
	}
	return v
}

// portalSubmit is POST /portal/<name>: the form sent.
func (s *Server) portalSubmit(w http.ResponseWriter, r *http.Request) {
	v, p, err := s.portalBase(r)
	if err != nil {
		s.portalError(w, r, v, err)
		return
	}
	if !p.Offered {
		v.Kind, v.Status, v.Title, v.Heading, v.Message = "problem", http.StatusForbidden, "Facturación en línea no disponible", "Facturación en línea no disponible", api.Deref(p.Message)
		s.renderPortal(w, r, v)
		return
	}
	if !sameOrigin(r) {
		v.Kind, v.Status, v.Title, v.Heading, v.Message = "problem", http.StatusForbidden, "Solicitud rechazada", "Solicitud rechazada", msgCrossSite
		s.renderPortal(w, r, v)
		return
	}
	if err := r.ParseForm(); err != nil {
		s.portalError(w, r, v, apierr.BadRequest("El formulario no se pudo leer."))
		return
	}
	values := map[string]string{}
	for _, f := range portalFields {
		values[f.ID] = r.PostForm.Get(f.ID)
	}
	if !s.checkFormToken(r.PostForm.Get("token"), p.Name, s.cfg.Now()) {
		v = s.formView(r, v, p, values)
		v.Status, v.Notice = http.StatusBadRequest, msgFormExpired
		s.renderPortal(w, r, v)
		return
	}
	in := api.PortalInvoiceInput{Number: values["number"], Total: api.Amount(values["total"]), Recipient: &api.InvoiceRecipientInput{
		Tin: values["tin"], LegalName: values["legalName"], ZipCode: values["zipCode"], TaxRegimeCode: values["taxRegimeCode"],
		CfdiUseCode: values["cfdiUseCode"], Email: values["email"]}}
	out, err := s.tickets.PortalInvoice(r.Context(), p.Name, in)
	if e, ok := apierr.As(err); ok && len(e.Failures) > 0 {
		v = s.formView(r, v, p, values)
		v.Status, v.Notice = http.StatusBadRequest, msgFormInvalid
		props := map[string]string{}
		for field, prop := range tickets.Fields {
			props[prop] = field
		}
		for _, f := range e.Failures {
			field := props[f.PropertyName]
			if field == "" {
				field = "number" // Recipient as a whole cannot fail here; anything else is shown first
			}
			if v.Errors[field] == "" {
				v.Errors[field] = f.ErrorMessage
			}
		}
		for _, f := range portalFields {
			if msg := v.Errors[f.ID]; msg != "" {
				v.Summary = append(v.Summary, portalFieldError{ID: f.ID, Label: f.Label, Message: msg})
			}
		}
		s.renderPortal(w, r, v)
		return
	}
	if err != nil {
		s.portalError(w, r, v, err)
		return
	}
	tin := strings.ToUpper(strings.TrimSpace(values["tin"]))
	v.Kind, v.Title = "result", "Tu factura está lista"
	v.UUID, v.Number, v.Total = out.UUID, out.Number, string(out.Total)
	v.XMLName, v.PDFName = out.UUID+".xml", out.UUID+".pdf"
	token := s.downloadToken(downloadClaim{Name: p.Name, Number: out.Number, Total: string(out.Total), Tin: tin,
		Expires: s.cfg.Now().Add(downloadTokenAge).Unix()})
	base := "/portal/" + url.PathEscape(p.Name) + "/descargas/"
	v.XMLURL, v.PDFURL = base+url.PathEscape(v.XMLName)+"?t="+token, base+url.PathEscape(v.PDFName)+"?t="+token
	v.EmailedTo = api.Deref(out.EmailedTo)
	s.renderPortal(w, r, v)
}

// portalDownload is GET /portal/<name>/descargas/<UUID>.xml or .pdf.
func (s *Server) portalDownload(w http.ResponseWriter, r *http.Request) {
	v := portalView{Name: autoinvoice.Normalize(r.PathValue("name")), Title: "Descarga no disponible"}
	file := r.PathValue("file")
	uuid, ext, _ := strings.Cut(file, ".")
	c, ok := s.openDownloadToken(r.URL.Query().Get("t"), s.cfg.Now())
	if !ok || ext != "xml" && ext != "pdf" {
		v.Kind, v.Status, v.Heading, v.Message = "problem", http.StatusNotFound, "Descarga no disponible", msgLinkExpired
		v.Back = true
		s.renderPortal(w, r, v)
		return
	}
	out, err := s.tickets.PortalFiles(r.Context(), r.PathValue("name"), c.Number, c.Total, c.Tin)
	if err == nil && out.UUID != uuid {
		err = apierr.NotFoundText(msgLinkExpired)
	}
	if err != nil {
		s.portalError(w, r, v, err)
		return
	}
	f := out.XML
	ctype := "application/xml"
	if ext == "pdf" {
		f, ctype = out.PDF, "application/pdf"
	}
	body, err := base64.StdEncoding.DecodeString(f.Base64Content)
	if err != nil {
		s.portalError(w, r, v, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", `attachment; filename="`+out.UUID+"."+ext+`"`)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// CSRF. The form sets no cookie and there is no session, so there is no ambient authority a
// forged request could ride; what a cross-site form could still do is have visitors' browsers
// send guesses of ticket numbers and totals (each visitor a new address for the per-address rate
// limit) or stamp tickets with data the customer never typed. Two checks stop it:
//
//   - A browser says where a request comes from: Sec-Fetch-Site (every current browser) must be
//     same-origin (or none: typed or bookmarked); without it, Origin, when sent, must be this
//     server's.
//     A form on another site is refused before anything is read.
//   - The form carries a token the server made when it drew the page: the time and an HMAC of
//     the portal name and that time, under a key derived from the master key (secrets.Keys.MAC).
//     It proves the request follows a page of this server drawn less than formTokenAge ago
//     (clients that send neither header, scripts, still have to fetch a page first), and needs
//     no storage. A token that fails draws the form again, with what was typed, and a new one.

// sameOrigin tells whether a POST comes from a page of this server, by the browser's headers:
// Sec-Fetch-Site when sent (same-origin, or none for a request the user made), else Origin
// when sent. ("null", an opaque origin, is never this server's.)
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin" || site == "none"
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return o != "null" && err == nil && u.Host == r.Host
}

const formPurpose = "timbra portal form v1"

func (s *Server) formToken(name string, now time.Time) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(now.Unix()))
	mac := s.accounts.Keys.MAC(formPurpose, append([]byte(name+"\x00"), b[:]...))
	return base64.RawURLEncoding.EncodeToString(append(b[:], mac[:16]...))
}

func (s *Server) checkFormToken(token, name string, now time.Time) bool {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != 24 {
		return false
	}
	mac := s.accounts.Keys.MAC(formPurpose, append([]byte(name+"\x00"), raw[:8]...))
	if !hmac.Equal(raw[8:], mac[:16]) {
		return false
	}
	made := time.Unix(int64(binary.BigEndian.Uint64(raw[:8])), 0)
	return !made.After(now.Add(time.Minute)) && now.Sub(made) <= formTokenAge
}

// downloadClaim is what a download link proves: the customer invoiced that ticket to that RFC.
// It travels sealed (secrets.Keys.Seal: encrypted and authenticated), so the link shows
// neither the RFC nor the total, and no one can make one.
type downloadClaim struct {
	Name    string `json:"n"`
	Number  string `json:"k"`
	Total   string `json:"t"`
	Tin     string `json:"r"`
	Expires int64  `json:"e"`
}

const downloadPurpose = "timbra portal download v1"

func (s *Server) downloadToken(c downloadClaim) string {
	raw, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(s.accounts.Keys.Seal(raw, downloadPurpose))
}

func (s *Server) openDownloadToken(token string, now time.Time) (downloadClaim, bool) {
	var c downloadClaim
	sealed, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return c, false
	}
	raw, err := s.accounts.Keys.Open(sealed, downloadPurpose)
	if err != nil || json.Unmarshal(raw, &c) != nil || now.Unix() > c.Expires {
		return c, false
	}
	return c, true
}
