package satws

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/beevik/etree"
)

// Client calls SAT's bulk download service with one e.firma. It keeps the token until shortly
// before it expires. Safe for concurrent use.
type Client struct {
	HTTP       *http.Client
	Endpoints  Endpoints
	Credential *Credential
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu    sync.Mutex
	token Token
}

// Token is the answer of Autentica: the value sent as WRAP access_token, valid until Expires.
type Token struct {
	Value            string
	Created, Expires time.Time
}

// Fault is a SOAP fault, or an HTTP failure of the service.
type Fault struct {
	HTTPStatus int
	Code       string
	Message    string
}

func (f *Fault) Error() string {
	if f.Code == "" {
		return fmt.Sprintf("satws: HTTP %d: %s", f.HTTPStatus, f.Message)
	}
	return fmt.Sprintf("satws: SOAP fault %s (HTTP %d): %s", f.Code, f.HTTPStatus, f.Message)
}

// Temporary tells whether the same call may succeed later: a server error or an unreachable
// service, not a refused message.
func (f *Fault) Temporary() bool {
	return f.HTTPStatus >= 500 || f.HTTPStatus == 0 || f.HTTPStatus == 429
}

// Exchange is a call's message and answer as they went over the wire.
type Exchange struct {
	Request, Response []byte
}

// QueryResult is the answer of a query.
type QueryResult struct {
	RequestID string
	Requester string
	Code      int
	Message   string
	Exchange
}

// Accepted tells whether the SAT took the request (5000).
func (r QueryResult) Accepted() bool { return r.Code == CodeAccepted }

// VerifyResult is the answer of a verification.
type VerifyResult struct {
	Code       int // CodEstatus: of the call
	State      int // EstadoSolicitud
	StateCode  int // CodigoEstadoSolicitud
	Count      int // NumeroCFDIs
	Message    string
	PackageIDs []string
	Exchange
}

// Pending tells whether the request is still to be finished (accepted or in progress).
func (r VerifyResult) Pending() bool {
	return r.Code == CodeAccepted && (r.State == StateAccepted || r.State == StateInProgress)
}

// DownloadResult is the status of a download; the package went to the writer.
type DownloadResult struct {
	Code    int
	Message string
	Bytes   int64 // of the package, decoded
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// post sends one message and answers the response (the caller closes its body) or a *Fault.
func (c *Client) post(ctx context.Context, url, action, token string, msg []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", `text/xml; charset="utf-8"`)
	req.Header.Set("Accept", "text/xml")
	req.Header.Set("Cache-Control", "no-cache")
	req.Header.Set("SOAPAction", action)
	if token != "" {
		req.Header.Set("Authorization", `WRAP access_token="`+token+`"`)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Fault{Message: err.Error()}
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		f := &Fault{HTTPStatus: resp.StatusCode, Message: strings.TrimSpace(string(b))}
		if code, text, ok := faultOf(b); ok {
			f.Code, f.Message = code, text
		} else if len(f.Message) > 512 {
			f.Message = f.Message[:512]
		}
		return nil, f
	}
	return resp, nil
}

// call sends a message and reads the whole answer (at most 16 MB), refusing a fault.
func (c *Client) call(ctx context.Context, url, action, token string, msg []byte) (*etree.Element, []byte, error) {
	resp, err := c.post(ctx, url, action, token, msg)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, nil, &Fault{HTTPStatus: resp.StatusCode, Message: err.Error()}
	}
	if code, text, ok := faultOf(b); ok {
		return nil, b, &Fault{HTTPStatus: resp.StatusCode, Code: code, Message: text}
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(b); err != nil || doc.Root() == nil {
		return nil, b, &Fault{HTTPStatus: resp.StatusCode, Message: "the answer is not XML"}
	}
	return doc.Root(), b, nil
}

func faultOf(b []byte) (code, text string, ok bool) {
	doc := etree.NewDocument()
	if doc.ReadFromBytes(b) != nil || doc.Root() == nil {
		return "", "", false
	}
	f := find(doc.Root(), "Fault")
	if f == nil {
		return "", "", false
	}
	if e := find(f, "faultcode"); e != nil {
		code = strings.TrimSpace(e.Text())
	}
	if e := find(f, "faultstring"); e != nil {
		text = strings.TrimSpace(e.Text())
	}
	return code, text, true
}

// find is the first element of that local name, case-insensitively, at any depth (as phpcfdi
// and nodecfdi read SAT's answers).
func find(el *etree.Element, name string) *etree.Element {
	if strings.EqualFold(el.Tag, name) {
		return el
	}
	for _, c := range el.ChildElements() {
		if f := find(c, name); f != nil {
			return f
		}
	}
	return nil
}

func attrInt(el *etree.Element, key string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(attr(el, key)))
	return n
}

// Authenticate asks for a new token.
func (c *Client) Authenticate(ctx context.Context) (Token, error) {
	msg, err := c.Credential.AuthenticateMessage(c.now(), "")
	if err != nil {
		return Token{}, err
	}
	root, _, err := c.call(ctx, c.Endpoints.Authenticate, ActionAuthenticate, "", msg)
	if err != nil {
		return Token{}, err
	}
	res := find(root, "AutenticaResult")
	if res == nil || strings.TrimSpace(res.Text()) == "" {
		return Token{}, &Fault{HTTPStatus: 200, Message: "the answer has no AutenticaResult"}
	}
	t := Token{Value: strings.TrimSpace(res.Text())}
	if e := find(root, "Created"); e != nil {
		t.Created, _ = time.Parse(time.RFC3339Nano, strings.TrimSpace(e.Text()))
	}
	if e := find(root, "Expires"); e != nil {
		t.Expires, _ = time.Parse(time.RFC3339Nano, strings.TrimSpace(e.Text()))
	}
	return t, nil
}

// SetToken gives the client a token got before with the same e.firma (by another client), used
// until shortly before it expires as if the client had asked for it.
func (c *Client) SetToken(t Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.token = t
}

// KeptToken is the token the client holds (empty before its first call).
func (c *Client) KeptToken() Token {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.token
}

// currentToken is the kept token while it has 30 s left, else a new one.
func (c *Client) currentToken(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token.Value != "" && c.now().Add(30*time.Second).Before(c.token.Expires) {
		return c.token.Value, nil
	}
	t, err := c.Authenticate(ctx)
	if err != nil {
		return "", err
	}
	c.token = t
	return t.Value, nil
}

// Query sends a query.
func (c *Client) Query(ctx context.Context, q Query) (QueryResult, error) {
	msg, err := c.Credential.QueryMessage(q)
	if err != nil {
		return QueryResult{}, err
	}
	tok, err := c.currentToken(ctx)
	if err != nil {
		return QueryResult{}, err
	}
	root, raw, err := c.call(ctx, c.Endpoints.Query, q.Operation.Action(), tok, msg)
	out := QueryResult{Exchange: Exchange{Request: msg, Response: raw}}
	if err != nil {
		return out, err
	}
	res := find(root, q.Operation.Element()+"Result")
	if res == nil {
		return out, &Fault{HTTPStatus: 200, Message: "the answer has no " + q.Operation.Element() + "Result"}
	}
	out.RequestID, out.Requester = attr(res, "IdSolicitud"), attr(res, "RfcSolicitante")
	out.Code, out.Message = attrInt(res, "CodEstatus"), attr(res, "Mensaje")
	return out, nil
}

// Verify asks for a request's state.
func (c *Client) Verify(ctx context.Context, requestID string) (VerifyResult, error) {
	msg, err := c.Credential.VerifyMessage(requestID)
	if err != nil {
		return VerifyResult{}, err
	}
	tok, err := c.currentToken(ctx)
	if err != nil {
		return VerifyResult{}, err
	}
	root, raw, err := c.call(ctx, c.Endpoints.Verify, ActionVerify, tok, msg)
	out := VerifyResult{Exchange: Exchange{Request: msg, Response: raw}}
	if err != nil {
		return out, err
	}
	res := find(root, "VerificaSolicitudDescargaResult")
	if res == nil {
		return out, &Fault{HTTPStatus: 200, Message: "the answer has no VerificaSolicitudDescargaResult"}
	}
	out.Code, out.State, out.StateCode = attrInt(res, "CodEstatus"), attrInt(res, "EstadoSolicitud"), attrInt(res, "CodigoEstadoSolicitud")
	out.Count, out.Message = attrInt(res, "NumeroCFDIs"), attr(res, "Mensaje")
	for _, e := range res.ChildElements() {
		if strings.EqualFold(e.Tag, "IdsPaquetes") {
			if id := strings.TrimSpace(e.Text()); id != "" {
				out.PackageIDs = append(out.PackageIDs, id)
			}
		}
	}
	return out, nil
}

// Backoff is how Wait spaces its verifications: from Initial, times Factor each time, at most
// Max, with up to a fifth of jitter.
type Backoff struct {
	Initial, Max time.Duration
	Factor       float64
}

// DefaultBackoff starts at 1 minute and settles at 30 minutes (SAT takes minutes to hours).
var DefaultBackoff = Backoff{Initial: time.Minute, Max: 30 * time.Minute, Factor: 2}

func (b Backoff) next(d time.Duration) time.Duration {
	if d == 0 {
		d = b.Initial
	} else {
		d = time.Duration(float64(d) * max(b.Factor, 1))
	}
	if b.Max > 0 && d > b.Max {
		d = b.Max
	}
	return d
}

// Wait verifies a request until it is no longer pending, sleeping with back-off between
// verifications; temporary failures (5xx, unreachable, SAT's 404) are retried the same way.
// It answers the last verification.
func (c *Client) Wait(ctx context.Context, requestID string, b Backoff) (VerifyResult, error) {
	var d time.Duration
	for {
		v, err := c.Verify(ctx, requestID)
		var f *Fault
		switch {
		case err == nil && v.Code != CodeUncontrolled && !v.Pending():
			return v, nil
		case err != nil && !(errors.As(err, &f) && f.Temporary()):
			return v, err
		}
		d = b.next(d)
		jitter := time.Duration(rand.Int64N(int64(d)/5 + 1))
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-time.After(d + jitter):
		}
	}
}

// Download streams one package (the ZIP, decoded from base64 as it arrives) to w. On a code
// other than 5000 nothing is written and the result says why.
func (c *Client) Download(ctx context.Context, packageID string, w io.Writer) (DownloadResult, error) {
	msg, err := c.Credential.DownloadMessage(packageID)
	if err != nil {
		return DownloadResult{}, err
	}
	tok, err := c.currentToken(ctx)
	if err != nil {
		return DownloadResult{}, err
	}
	resp, err := c.post(ctx, c.Endpoints.Download, ActionDownload, tok, msg)
	if err != nil {
		return DownloadResult{}, err
	}
	defer resp.Body.Close()
	return readPackage(bufio.NewReaderSize(resp.Body, 64<<10), w)
}

// readPackage reads a download answer: h:respuesta's code and message from the header, then
// the text of Paquete decoded into w without holding it. The xml decoder reads from br byte by
// byte (br is an io.ByteReader), so after Paquete's start tag the text is read from br directly.
func readPackage(br *bufio.Reader, w io.Writer) (DownloadResult, error) {
	var out DownloadResult
	dec := xml.NewDecoder(br)
	var faultCode, faultText *string
	var inFault string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, &Fault{HTTPStatus: 200, Message: "the answer is not XML: " + err.Error()}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch strings.ToLower(t.Name.Local) {
			case "respuesta":
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "CodEstatus":
						out.Code, _ = strconv.Atoi(strings.TrimSpace(a.Value))
					case "Mensaje":
						out.Message = a.Value
					}
				}
			case "fault":
				faultCode, faultText = new(string), new(string)
			case "faultcode", "faultstring":
				inFault = strings.ToLower(t.Name.Local)
			case "paquete":
				if out.Code != CodeAccepted {
					return out, nil
				}
				n, err := io.Copy(w, base64.NewDecoder(base64.StdEncoding, &textReader{br: br}))
				out.Bytes = n
				if err != nil {
					return out, fmt.Errorf("satws: package: %w", err)
				}
				return out, nil
			}
		case xml.CharData:
			if faultCode != nil {
				switch inFault {
				case "faultcode":
					*faultCode += string(t)
				case "faultstring":
					*faultText += string(t)
				}
			}
		case xml.EndElement:
			inFault = ""
		}
	}
	if faultCode != nil {
		return out, &Fault{HTTPStatus: 200, Code: strings.TrimSpace(*faultCode), Message: strings.TrimSpace(*faultText)}
	}
	if out.Code == 0 {
		return out, &Fault{HTTPStatus: 200, Message: "the answer has no respuesta"}
	}
	return out, nil
}

// textReader is an element's text up to the next '<', skipping white space and the character
// references a serializer may write for line breaks (&#xD;, &#13;, &#10;…).
type textReader struct {
	br   *bufio.Reader
	done bool
}

func (t *textReader) Read(p []byte) (int, error) {
	if t.done {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		c, err := t.br.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, io.ErrUnexpectedEOF
		}
		switch {
		case c == '<':
			t.done = true
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		case c == '&':
			ref, err := t.br.ReadString(';')
			if err != nil || !strings.HasPrefix(ref, "#") {
				return n, fmt.Errorf("satws: unexpected entity &%s in the package", ref)
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			p[n] = c
			n++
		}
	}
	return n, nil
}
