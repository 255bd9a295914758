package validations

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/timbra-mx/timbra/internal/csd"
)

// CertSource gives certificates that may change while the server runs (the server's own
// stamping certificate, made on its first stamp); nil when there are none yet.
type CertSource func(ctx context.Context) ([]*csd.Certificate, error)

// TrustStore is the set of stamping certificates whose SelloSAT a stamp may carry, found by
// their number (NoCertificadoSAT): SAT's published ones from configured folders, and the
// server's own.
type TrustStore struct {
	mu      sync.RWMutex
	certs   map[string]*csd.Certificate
	dynamic CertSource
}

// NewTrustStore holds certs, and asks dynamic (may be nil) for a number it does not hold.
func NewTrustStore(certs []*csd.Certificate, dynamic CertSource) *TrustStore {
	t := &TrustStore{certs: map[string]*csd.Certificate{}, dynamic: dynamic}
	for _, c := range certs {
		t.certs[c.Number] = c
	}
	return t
}

// Len is the number of certificates held now.
func (t *TrustStore) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.certs)
}

// Find returns the certificate with that number, nil when none is trusted.
func (t *TrustStore) Find(ctx context.Context, number string) (*csd.Certificate, error) {
	t.mu.RLock()
	c := t.certs[number]
	t.mu.RUnlock()
	if c != nil || t.dynamic == nil {
		return c, nil
	}
	more, err := t.dynamic(ctx)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range more {
		t.certs[m.Number] = m
	}
	return t.certs[number], nil
}

// LoadCertificates reads every .cer file (DER or PEM) of a folder; a file that is not a
// certificate is an error, so a misconfigured trust folder is noticed at start.
func LoadCertificates(dir string) ([]*csd.Certificate, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("stamping trust store: %w", err)
	}
	var out []*csd.Certificate
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".cer") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, fmt.Errorf("stamping trust store: %w", err)
		}
		c, err := csd.ParseCertificate(b)
		if err != nil {
			return nil, fmt.Errorf("stamping trust store: %s: %w", n, err)
		}
		out = append(out, c)
	}
	return out, nil
}
