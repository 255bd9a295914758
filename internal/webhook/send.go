package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Values of Attempt.Error, as the delivery record's lastError shows them (spec 3 §2.3).
const (
	ErrorTimeout          = "Timeout"
	ErrorConnectionFailed = "ConnectionFailed"
	ErrorTLSFailed        = "TlsFailed"
	// ErrorAddressNotAllowed: the destination's name led to an address the server never
	// connects to (loopback, private, link-local...: Policy), so no connection was made.
	ErrorAddressNotAllowed = "AddressNotAllowed"
)

const (
	// ExcerptBytes is how much of a response body an attempt keeps.
	ExcerptBytes = 1024
	// drainBytes is how much more of a body is read (and discarded) so the connection can be
	// reused; a longer body is cut and its connection closed.
	drainBytes = 64 << 10
	// maxRetryAfter caps a Retry-After value.
	maxRetryAfter = 30 * 24 * time.Hour
)

// Attempt is the outcome of one delivery attempt.
type Attempt struct {
	// StatusCode is the HTTP status received; nil when no response came. A redirect is not
	// followed: its 3xx is the status.
	StatusCode *int
	// Error is "" for a complete response (whatever its status), otherwise why there was none
	// or it was cut: ErrorTimeout (the deadline of the context or of the client passed, also
	// while reading the body, where StatusCode keeps the status received), ErrorTLSFailed
	// (certificate not trusted or not valid for the host, TLS alert, failed handshake) or
	// ErrorConnectionFailed (refused, reset, DNS failure, a body cut short, a request that
	// could not be built) or ErrorAddressNotAllowed (a destination refused by the connect-time
	// guard of Policy: its name resolved to an address the server never connects to; Err wraps
	// ErrAddressNotAllowed). TlsFailed also covers a plain-HTTP server on an https URL. When
	// ctx was canceled (not timed out) the attempt is also ErrorConnectionFailed: check
	// ctx.Err() before counting it.
	Error string
	// Excerpt is the first ExcerptBytes bytes of the response body, as received (it may end
	// inside a multi-byte character and need not be UTF-8).
	Excerpt string
	// Header is the response's header; nil when no response came.
	Header http.Header
	// Body is the start of the response body kept by SendKeeping (up to its keep bytes, of
	// which Excerpt is the first ExcerptBytes); Send keeps none.
	Body []byte
	// RetryAfter is the wait asked by a Retry-After header, in seconds or as an HTTP date;
	// zero when absent, invalid or in the past; capped at 30 days.
	RetryAfter time.Duration
	// Duration is the time from the start of the attempt to the end of reading the response.
	Duration time.Duration
	// Err is the underlying Go error, for logs; nil with Error "".
	Err error
	// Detail is Err's text as a user may see it: without the request's URL (whose query may
	// hold a token), at most DetailBytes long; "" with Error "".
	Detail string
}

// DetailBytes bounds Attempt.Detail.
const DetailBytes = 256

// detailOf is the text of an attempt's error without the URL net/http wraps it in.
func detailOf(err error) string {
	if err == nil {
		return ""
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := strings.ToValidUTF8(err.Error(), "")
	if len(msg) > DetailBytes {
		cut := DetailBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut]
	}
	return msg
}

// OK reports whether the attempt got a complete 2xx response.
func (a Attempt) OK() bool {
	return a.Error == "" && a.StatusCode != nil && *a.StatusCode >= 200 && *a.StatusCode <= 299
}

// Send makes one delivery attempt: POST body to target (a URL) with the headers h (the Standard Webhooks
// headers from Headers), Content-Type application/json and User-Agent UserAgent, through
// client (Policy.Client). It reads at most ExcerptBytes of the body for the excerpt and drains
// a bounded amount more so the connection can be reused. h becomes the request's header (Send
// adds the two above to it), so give it one made for this attempt. Send never returns an
// error: the outcome is in the Attempt.
func Send(ctx context.Context, client *http.Client, target string, h http.Header, body []byte) Attempt {
	return SendKeeping(ctx, client, target, h, body, 0)
}

// SendKeeping is Send keeping the first keep bytes of the response body in Attempt.Body (when
// keep is more than ExcerptBytes), for a view that shows the whole answer (timbra listen).
func SendKeeping(ctx context.Context, client *http.Client, target string, h http.Header, body []byte, keep int) Attempt {
	start := time.Now()
	if client == nil {
		// Never fall back to http.DefaultClient: it has no guard.
		err := errors.New("webhook: Send without a client")
		return Attempt{Error: ErrorConnectionFailed, Err: err, Detail: detailOf(err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return Attempt{Error: ErrorConnectionFailed, Err: err, Detail: detailOf(err), Duration: time.Since(start)}
	}
	if h != nil {
		req.Header = h // the caller's, made for this attempt: not copied again
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)

	resp, err := client.Do(req)
	if err != nil {
		return Attempt{Error: classify(err), Err: err, Detail: detailOf(err), Duration: time.Since(start)}
	}
	code := resp.StatusCode
	a := Attempt{StatusCode: &code, Header: resp.Header, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())}
	read := max(keep, ExcerptBytes)
	excerpt, err := io.ReadAll(io.LimitReader(resp.Body, int64(read)))
	if keep > ExcerptBytes {
		a.Body = excerpt
	}
	a.Excerpt = string(excerpt[:min(len(excerpt), ExcerptBytes)])
	if err == nil && len(excerpt) == read {
		_, err = io.CopyN(io.Discard, resp.Body, drainBytes)
		if err == io.EOF {
			err = nil
		}
	}
	resp.Body.Close()
	if err != nil {
		a.Error, a.Err, a.Detail = classify(err), err, detailOf(err)
	}
	a.Duration = time.Since(start)
	return a
}

// classify maps a Go error of an attempt to an Attempt.Error value.
func classify(err error) string {
	if errors.Is(err, ErrAddressNotAllowed) {
		return ErrorAddressNotAllowed
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && !dnsErr.IsTimeout {
		return ErrorConnectionFailed
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrorTimeout
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return ErrorTimeout
	}
	if isTLSError(err) {
		return ErrorTLSFailed
	}
	return ErrorConnectionFailed
}

// isTLSError reports whether err comes from TLS: certificate verification, an alert sent or
// received, a malformed record (a plain-text server on an https port) or a failed handshake.
func isTLSError(err error) bool {
	var (
		verifyErr    *tls.CertificateVerificationError
		unknownAuth  x509.UnknownAuthorityError
		hostnameErr  x509.HostnameError
		invalidErr   x509.CertificateInvalidError
		recordErr    tls.RecordHeaderError
		alertErr     tls.AlertError
		echRejectErr *tls.ECHRejectionError
		opErr        *net.OpError
	)
	switch {
	case errors.As(err, &verifyErr), errors.As(err, &unknownAuth), errors.As(err, &hostnameErr),
		errors.As(err, &invalidErr), errors.As(err, &recordErr), errors.As(err, &alertErr),
		errors.As(err, &echRejectErr):
		return true
	case errors.As(err, &opErr) && (opErr.Op == "remote error" || opErr.Op == "local error"):
		// crypto/tls reports alerts as *net.OpError with these operations.
		return true
	}
	// Other handshake failures are plain errors whose text starts with "tls: "; net/http
	// replaces the record error of a plain-HTTP server on an https port with its own text.
	for e := err; e != nil; e = errors.Unwrap(e) {
		if msg := e.Error(); strings.HasPrefix(msg, "tls: ") || msg == "http: server gave HTTP response to HTTPS client" {
			return true
		}
	}
	return false
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date, relative to now.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || secs > uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}
