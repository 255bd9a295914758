// Package satlocal is a local SAT bulk download service for tests and development: it speaks
// the protocol of SAT's web service (internal/satws) and answers from a folder of stamped CFDIs.
//
// It authenticates a WS-Security message signed with an e.firma (the signature is checked
// against the certificate sent; a bad one is SAT's SOAP fault) and gives a token that expires
// after TokenLifetime; every other call needs a current token and a signature, verified with the
// certificate of its KeyInfo, of an e.firma (a CSD gets 305, an expired certificate 304), whose
// RFC is the token's and the requester's (303). Queries (issued, received, by UUID) follow
// SAT's v1.5 rules (301 for a bad period, cancelled XML of received CFDIs, a bad parameter;
// 5005 while an identical request is active; 5002 after two identical ones). A request is
// accepted (1), in progress (2) after half of Delay, finished (3) after Delay, with packages of
// at most PackageSize CFDIs (ZIPs of <UUID>.xml files, or of one metadata text file), or
// rejected (5) with 5004 when nothing matches; it expires (6) 72 hours after it finished. A
// package may be downloaded twice (5008). Codes forces SAT's answers.
//
// A query by UUID gives the CFDI of that UUID when the requester issued or received it (5012 when
// it is cancelled); RfcACuentaTerceros keeps the CFDIs with a concept on behalf of that RFC
// (cfdi:Concepto/cfdi:ACuentaTerceros). The folder's withholding CFDIs (Retenciones 2.0) are
// served by SAT's second service, at RetencionesPath, with its own tokens and requests.
//
// State lives in memory: a restart forgets requests and tokens.
package satlocal

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/satws"
)

// Options configure a local SAT.
type Options struct {
	// CFDIs is the folder of stamped CFDI files (.xml, any depth) and of CancelledFile.
	CFDIs string
	// Delay is how long a request takes from accepted to finished (0: finished at once).
	Delay time.Duration
	// Latency is added to every answer.
	Latency time.Duration
	// PackageSize is the most CFDIs (or metadata lines) in one package; 0 is 200,000 for XML and
	// 1,000,000 for metadata, SAT's limits per request.
	PackageSize int
	// MaxCFDI and MaxMetadata are the most records one request may have (5003 beyond);
	// 0 is SAT's 200,000 and 1,000,000.
	MaxCFDI, MaxMetadata int
	// TokenLifetime is 5 minutes when 0.
	TokenLifetime time.Duration
	// Codes forces answers, see ParseCode.
	Codes []Code
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Code forces the answer of an operation: auth (any code: the SOAP fault), query, verify (a
// CodEstatus such as 404 or 300, or the request's end with 5002, 5003, 5004 or 5005: rejected
// with that CodigoEstadoSolicitud; 4 and 6 are the states Error and Vencida) or download.
// Times > 0 forces only the next Times calls.
type Code struct {
	Op    string
	Code  int
	Times int
}

// ParseCode reads OP=CODE or OP=CODExN (N calls), e.g. query=5002, verify=404x2.
func ParseCode(s string) (Code, error) {
	op, v, ok := strings.Cut(s, "=")
	c := Code{Op: strings.ToLower(strings.TrimSpace(op))}
	switch c.Op {
	case "auth", "query", "verify", "download":
	default:
		return Code{}, fmt.Errorf("code %q: OP=CODE with OP auth, query, verify or download", s)
	}
	if !ok {
		return Code{}, fmt.Errorf("code %q: OP=CODE", s)
	}
	code, times, _ := strings.Cut(v, "x")
	n, err := strconv.Atoi(strings.TrimSpace(code))
	if err != nil {
		return Code{}, fmt.Errorf("code %q: the code is a number", s)
	}
	c.Code = n
	if times != "" {
		if c.Times, err = strconv.Atoi(times); err != nil || c.Times < 1 {
			return Code{}, fmt.Errorf("code %q: the times after x are a number above 0", s)
		}
	}
	return c, nil
}

// Server is a local SAT; it is an http.Handler serving the four services at SAT's paths.
type Server struct {
	o     Options
	cfdis []CFDI

	mu       sync.Mutex
	tokens   map[string]session
	requests map[string]*request
	packages map[string]*pkg
	codes    []Code
}

type session struct {
	rfc         string
	expires     time.Time
	retenciones bool // given by the withholding CFDIs' service
}

// New reads the CFDI folder and makes the service.
func New(o Options) (*Server, error) {
	if o.TokenLifetime == 0 {
		o.TokenLifetime = 5 * time.Minute
	}
	if o.MaxCFDI == 0 {
		o.MaxCFDI = 200_000
	}
	if o.MaxMetadata == 0 {
		o.MaxMetadata = 1_000_000
	}
	s := &Server{o: o, tokens: map[string]session{}, requests: map[string]*request{}, packages: map[string]*pkg{}, codes: o.Codes}
	if o.CFDIs != "" {
		cs, err := loadCFDIs(o.CFDIs)
		if err != nil {
			return nil, err
		}
		s.cfdis = cs
	}
	return s, nil
}

// CFDIs is how many CFDIs the service answers from, and of them how many are withholding
// CFDIs (served at RetencionesPath).
func (s *Server) CFDIs() (all, retenciones int) {
	for _, c := range s.cfdis {
		if c.Retenciones {
			retenciones++
		}
	}
	return len(s.cfdis), retenciones
}

func (s *Server) now() time.Time {
	if s.o.Now != nil {
		return s.o.Now()
	}
	return time.Now()
}

// forced is the code forced for op, if any (one of its Times used).
func (s *Server) forced(op string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.codes {
		if c.Op != op {
			continue
		}
		if c.Times > 0 {
			s.codes[i].Times--
			if s.codes[i].Times == 0 {
				s.codes = append(s.codes[:i:i], s.codes[i+1:]...)
			}
		}
		return c.Code, true
	}
	return 0, false
}

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ServeHTTP routes by path (SAT's four) and, on any other path, by SOAPAction.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a SOAP 1.1 message", http.StatusMethodNotAllowed)
		return
	}
	if s.o.Latency > 0 {
		select {
		case <-time.After(s.o.Latency):
		case <-r.Context().Done():
			return
		}
	}
	action := strings.Trim(strings.TrimSpace(r.Header.Get("SOAPAction")), `"`)
	body, err := readBody(w, r)
	if err != nil {
		fault(w, "a:InternalServiceFault", err.Error())
		return
	}
	retenciones, path := service(r.URL.Path)
	switch {
	case path == satws.PathAuthenticate || action == satws.ActionAuthenticate:
		s.authenticate(w, body, retenciones)
	case path == satws.PathQuery || action == satws.ActionIssued || action == satws.ActionReceived || action == satws.ActionFolio:
		s.query(w, r, action, body)
	case path == satws.PathVerify || action == satws.ActionVerify:
		s.verify(w, r, body)
	case path == satws.PathDownload || action == satws.ActionDownload:
		s.download(w, r, body)
	default:
		fault(w, "a:ActionNotSupported", "The message with Action '"+action+"' cannot be processed at the receiver, due to a ContractFilter mismatch at the EndpointDispatcher.")
	}
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
}

// token is the session of the request's WRAP token, given by the same service: both spellings
// of wrap_subject are taken.
func (s *Server) token(r *http.Request) (session, bool) {
	retenciones, _ := service(r.URL.Path)
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	v, ok := strings.CutPrefix(h, "WRAP access_token=")
	if !ok {
		return session{}, false
	}
	v = strings.Trim(v, `"`)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[v]
	if !ok || !s.now().Before(t.expires) || t.retenciones != retenciones {
		return session{}, false
	}
	return t, true
}

const (
	msgSecurity = "An error occurred when verifying security for the message."
	nsSecurity  = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
)

func (s *Server) authenticate(w http.ResponseWriter, body []byte, retenciones bool) {
	if _, ok := s.forced("auth"); ok {
		fault(w, "a:InvalidSecurity", msgSecurity)
		return
	}
	v, err := satws.VerifyAuthenticate(body)
	now := s.now()
	if err != nil || v.Expires.IsZero() || !now.Before(v.Expires) || v.Created.After(now.Add(5*time.Minute)) || !v.Cert.ValidAt(now) {
		fault(w, "a:InvalidSecurity", msgSecurity)
		return
	}
	tok := randomToken()
	exp := now.Add(s.o.TokenLifetime)
	s.mu.Lock()
	for k, t := range s.tokens {
		if !now.Before(t.expires) {
			delete(s.tokens, k)
		}
	}
	s.tokens[tok] = session{rfc: v.Cert.RFC, expires: exp, retenciones: retenciones}
	s.mu.Unlock()
	writeXML(w, http.StatusOK, `<s:Envelope xmlns:s="`+satws.NSSoap+`" xmlns:u="`+satws.NSUtility+`"><s:Header><o:Security s:mustUnderstand="1" xmlns:o="`+nsSecurity+`">`+
		`<u:Timestamp u:Id="_0"><u:Created>`+now.UTC().Format("2006-01-02T15:04:05.000Z")+`</u:Created><u:Expires>`+exp.UTC().Format("2006-01-02T15:04:05.000Z")+`</u:Expires></u:Timestamp>`+
		`</o:Security></s:Header><s:Body><AutenticaResponse xmlns="`+satws.NSAuth+`"><AutenticaResult>`+tok+`</AutenticaResult></AutenticaResponse></s:Body></s:Envelope>`)
}

func writeXML(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(body))
}

func fault(w http.ResponseWriter, code, text string) {
	writeXML(w, http.StatusInternalServerError, `<s:Envelope xmlns:s="`+satws.NSSoap+`"><s:Body><s:Fault><faultcode xmlns:a="`+nsSecurity+`">`+esc(code)+
		`</faultcode><faultstring xml:lang="en-US">`+esc(text)+`</faultstring></s:Fault></s:Body></s:Envelope>`)
}

func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
