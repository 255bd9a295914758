package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
)

// Texts of what is refused before a request reaches a handler.
const (
	MsgMalformedRequest   = "La petición HTTP está mal formada"
	MsgTransferEncoding   = "La petición usa un Transfer-Encoding que el servidor no admite."
	MsgPlainHTTPToHTTPS   = "Este servidor atiende HTTPS: la petición llegó en HTTP sin cifrar."
	msgHeadersTooLargeFmt = "Los encabezados de la petición exceden el límite de %d KB."
)

// msgHeadersTooLarge is the one text of headers over MaxHeaderBytes, whoever refuses them.
var msgHeadersTooLarge = fmt.Sprintf(msgHeadersTooLargeFmt, MaxHeaderBytes>>10)

// envelopeErrors makes what Go's HTTP server refuses before any handler runs (a malformed
// request line or header, headers past the server's hard limit, an unknown transfer encoding)
// answer in the API's envelope instead of Go's plain text, over TLS too, and plain HTTP sent to
// the TLS port as well. Those answers are written straight to the connection, each in one write
// of a fixed form (net/http's "HTTP/1.1 <status>\r\nContent-Type: text/plain;
// charset=utf-8\r\nConnection: close\r\n\r\n<text>"), which no handler's answer has (every
// one carries a Date and a JSON or HTML type); the listener's connections rewrite exactly that
// write.
//
// A TLS connection (from tls.NewListener) is wrapped too, so net/http sees the wrapper, not a
// *tls.Conn: the handshake happens at the first read, under the header deadline net/http sets;
// plain HTTP on it gets the envelope on the connection below TLS, another failed handshake is
// logged as net/http logs it, and the connection's TLS state reaches the request as r.TLS
// through the context (tlsState). No HTTP/2 is offered (no ALPN), so none is lost.
//
// It also keeps the connections that have not sent a byte yet, for closeSilent.
func envelopeErrors(ln net.Listener, log *slog.Logger) *envelopeListener {
	return &envelopeListener{Listener: ln, log: log, silent: map[*envelopeConn]struct{}{}}
}

type envelopeListener struct {
	net.Listener
	log    *slog.Logger
	mu     sync.Mutex
	silent map[*envelopeConn]struct{} // accepted, nothing read yet
}

func (l *envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	ec := &envelopeConn{Conn: c, from: l}
	if tc, ok := c.(*tls.Conn); ok {
		ec.tls, ec.log = tc, l.log
	}
	l.mu.Lock()
	l.silent[ec] = struct{}{}
	l.mu.Unlock()
	return ec, nil
}

// closeSilent closes the connections that have not sent a byte: they hold no request, and
// net/http's graceful shutdown would wait 5 s for each as if it did.
func (l *envelopeListener) closeSilent() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.silent {
		c.Conn.Close()
		delete(l.silent, c)
	}
}

// Close closes the connection, out of the silent ones if it never spoke.
func (c *envelopeConn) Close() error {
	if !c.spoken.Swap(true) {
		c.from.spoke(c)
	}
	return c.Conn.Close()
}

// spoke takes c out of the silent ones.
func (l *envelopeListener) spoke(c *envelopeConn) {
	l.mu.Lock()
	delete(l.silent, c)
	l.mu.Unlock()
}

// envelopeConn rewrites net/http's own error answers; everything else passes as it is.
type envelopeConn struct {
	net.Conn
	tls    *tls.Conn    // Conn, when it is a TLS connection
	log    *slog.Logger // for a failed handshake
	from   *envelopeListener
	spoken atomic.Bool // a byte was read (over TLS: the handshake completed)
}

func (c *envelopeConn) Write(p []byte) (int, error) {
	// every answer's first write starts "HTTP/1.1 "; only a 4xx or 5xx one can be net/http's
	// own: everything else is written without being looked at
	if len(p) > 9 && p[0] == 'H' && (p[9] == '4' || p[9] == '5') {
		if b, ok := rewritePlainError(p); ok {
			if _, err := c.Conn.Write(b); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	return c.Conn.Write(p)
}

// Read reads; over TLS, a handshake that fails ends the connection (io.EOF: net/http then closes
// it without answering), after the envelope on the connection below TLS when what came was plain
// HTTP.
func (c *envelopeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.spoken.Load() && c.spoken.CompareAndSwap(false, true) {
		c.from.spoke(c)
	}
	if err == nil || c.tls == nil || c.tls.ConnectionState().HandshakeComplete {
		return n, err
	}
	var re tls.RecordHeaderError
	if errors.As(err, &re) && re.Conn != nil && looksLikeHTTP(re.RecordHeader) {
		re.Conn.Write(envelopeAnswer(http.StatusBadRequest, MsgPlainHTTPToHTTPS))
		return n, io.EOF
	}
	if c.log != nil && !errors.Is(err, io.EOF) { // a client gone before its hello (a TCP health check) is not logged
		c.log.Warn("TLS handshake failed", "remote", c.RemoteAddr().String(), "err", err.Error())
	}
	return n, io.EOF
}

// looksLikeHTTP tells whether the first five bytes of a connection are the start of an HTTP
// request (net/http's own test of the same).
func looksLikeHTTP(hdr [5]byte) bool {
	switch string(hdr[:]) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO":
		return true
	}
	return false
}

// tlsConnKey is the context key of a request's TLS connection (set for each connection by the
// server's ConnContext).
type tlsConnKey struct{}

// connContext keeps a TLS connection in its requests' context.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if ec, ok := c.(*envelopeConn); ok && ec.tls != nil {
		return context.WithValue(ctx, tlsConnKey{}, ec.tls)
	}
	return ctx
}

// tlsState sets r.TLS, as net/http does for a *tls.Conn, for a request that came over TLS.
func tlsState(r *http.Request) {
	if r.TLS != nil {
		return
	}
	if tc, ok := r.Context().Value(tlsConnKey{}).(*tls.Conn); ok {
		st := tc.ConnectionState()
		r.TLS = &st
	}
}

// CloseWrite and ReadFrom keep what net/http uses of a TCP connection when it has them.
func (c *envelopeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *envelopeConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

var goErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

// rewritePlainError returns the envelope answer for one of net/http's own error answers, and
// false for anything else.
func rewritePlainError(p []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok {
		return nil, false
	}
	line, body, ok := bytes.Cut(rest, goErrorHeaders)
	if !ok || len(line) < 4 || line[3] != ' ' || bytes.ContainsAny(line, "\r\n") || bytes.ContainsAny(body, "\r\n") {
		return nil, false
	}
	status, err := strconv.Atoi(string(line[:3]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	var details string
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		details = msgHeadersTooLarge
	case status == http.StatusNotImplemented:
		details = MsgTransferEncoding
	case status == http.StatusBadRequest:
		// "400 Bad Request" or "400 Bad Request: <what net/http found>"
		details = MsgMalformedRequest + "."
		if _, why, ok := bytes.Cut(line, []byte(": ")); ok {
			details = MsgMalformedRequest + ": " + string(why) + "."
		}
	default:
		details = string(line[4:])
	}
	return envelopeAnswer(status, details), true
}

// envelopeAnswer is a whole HTTP/1.1 answer in the envelope, closing the connection, with a
// new trace id (no request was read to continue one).
func envelopeAnswer(status int, details string) []byte {
	var span [8]byte
	rand.Read(span[:])
	id := newRootTraceID(span)
	body, _ := json.Marshal(api.Envelope{Message: apierr.MessageFor(status), Details: details, HTTPStatusCode: status, TraceIdentifier: id})
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nX-Trace-Id: %s\r\nConnection: close\r\n\r\n",
		status, http.StatusText(status), headerJSON[0], len(body), id)
	b.Write(body)
	return b.Bytes()
}
