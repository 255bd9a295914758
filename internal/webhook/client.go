package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"syscall"
	"time"
)

// AttemptTimeout bounds one delivery attempt made with Policy.Client: connection, TLS, request,
// response headers and the bounded read of the body.
const AttemptTimeout = 15 * time.Second

// UserAgent is sent with every delivery.
const UserAgent = "timbra-webhooks/1"

// ErrAddressNotAllowed is the error of the connect-time guard: the socket was about to connect
// to an address the Policy refuses. Dial errors wrap it (test with errors.Is).
var ErrAddressNotAllowed = errors.New("webhook: destination address not allowed")

// control runs after a socket is created and before it connects, with the resolved address:
// whatever name led there, a refused address never gets a connection.
func (p Policy) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s %q", ErrAddressNotAllowed, network, address)
	}
	if !p.AddrAllowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrAddressNotAllowed, ap.Addr())
	}
	return nil
}

// Dialer returns a net.Dialer whose Control function refuses every address AddrAllowed
// refuses, at the moment the socket is about to connect.
func (p Policy) Dialer() *net.Dialer {
	return &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   p.control,
	}
}

// DialContext dials like net.Dialer.DialContext, only over TCP, and refuses any address the
// Policy refuses once names are resolved (so DNS rebinding cannot pass the save-time check).
// A refusal is an error wrapping ErrAddressNotAllowed.
func (p Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("%w: network %q", ErrAddressNotAllowed, network)
	}
	return p.Dialer().DialContext(ctx, network, address)
}

// MaxIdleConnsPerHost is how many connections to one receiver are kept for reuse. Connections
// per host are not bounded: the delivery engine bounds attempts per destination and in all, and
// an attempt never waits for a connection while its AttemptTimeout runs.
const MaxIdleConnsPerHost = 64

// Client returns the HTTP client for deliveries: AttemptTimeout per request; redirects never
// followed (the 3xx is the answer); no proxy, from the environment or otherwise; connections
// through DialContext; TLS 1.2 or later, verified against the system roots plus, when caFile
// is not empty, the PEM certificates in caFile (`--webhook-ca-file`, for local test receivers);
// connections kept alive and reused within bounds.
func (p Policy) Client(caFile string) (*http.Client, error) {
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("webhook CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("webhook CA file %s: no PEM certificate in it", caFile)
		}
		tlsConf.RootCAs = pool
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            p.DialContext,
		TLSClientConfig:        tlsConf,
		TLSHandshakeTimeout:    10 * time.Second,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           4 * MaxIdleConnsPerHost,
		MaxIdleConnsPerHost:    MaxIdleConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   AttemptTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}, nil
}
