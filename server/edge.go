package server

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

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

// EnvelopeErrors makes what Go's HTTP server refuses before any handler runs (a malformed
// request line or header, headers past the server's hard limit, an unknown transfer encoding,
// plain HTTP sent to the HTTPS port) answer in the API's envelope instead of Go's plain text.
// Those answers are written straight to the connection, each in one write of a fixed form
// (net/http's "HTTP/1.1 <status>\r\nContent-Type: text/plain; charset=utf-8\r\nConnection:
// close\r\n\r\n<text>"), which no handler's answer has (every one carries a Date and a JSON or
// HTML type); the listener's connections rewrite exactly that write.
//
// Wrap the listener below TLS: inside TLS a connection must stay a *tls.Conn for net/http
// (HTTP/2, r.TLS), so those are passed through untouched and what Go refuses inside TLS stays
// its plain text; the plain HTTP sent to a TLS port is written below TLS, and is rewritten.
func EnvelopeErrors(ln net.Listener) net.Listener {
	if _, ok := ln.(envelopeListener); ok {
		return ln
	}
	return envelopeListener{ln}
}

type envelopeListener struct{ net.Listener }

func (l envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	switch c.(type) {
	case *tls.Conn, *envelopeConn:
		return c, nil
	}
	return &envelopeConn{Conn: c}, nil
}

// envelopeConn rewrites net/http's own error answers; everything else passes as it is.
type envelopeConn struct{ net.Conn }

func (c *envelopeConn) Write(p []byte) (int, error) {
	// every answer's first write starts "HTTP/1.1 "; only a 4xx or 5xx one, or the plain HTTP
	// sent to TLS, can be net/http's own: everything else is written without being looked at
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

var (
	goErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")
	goPlainToTLS   = []byte("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
)

// rewritePlainError returns the envelope answer for one of net/http's own error answers, and
// false for anything else.
func rewritePlainError(p []byte) ([]byte, bool) {
	if bytes.Equal(p, goPlainToTLS) {
		return envelopeAnswer(http.StatusBadRequest, MsgPlainHTTPToHTTPS), true
	}
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
