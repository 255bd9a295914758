package csd

import (
	"bytes"
	"container/list"
	"sync"
)

// CertificateCacheSize is how many parsed certificates ParseCertificateCached keeps.
const CertificateCacheSize = 128

var certificates = newCertificateCache(CertificateCacheSize)

// ParseCertificateCached is ParseCertificate for bytes that arrive again and again (a
// certificate sent by value with every invoice): the last CertificateCacheSize certificates
// parsed are kept, keyed by their exact bytes, so the same bytes are parsed once while they stay.
// The Certificate returned is shared: callers only read it. Errors are not kept. A certificate
// is public: nothing secret is kept.
func ParseCertificateCached(b []byte) (*Certificate, error) {
	return certificates.parse(b)
}

// certificateCache keeps parsed certificates by their bytes, least recently used dropped first.
type certificateCache struct {
	mu    sync.Mutex
	size  int
	byRaw map[string]*list.Element // the bytes parsed → an element of order
	order *list.List               // of *certEntry, the most recently used first
}

type certEntry struct {
	raw  string
	cert *Certificate
}

func newCertificateCache(size int) *certificateCache {
	return &certificateCache{size: size, byRaw: map[string]*list.Element{}, order: list.New()}
}

func (c *certificateCache) parse(b []byte) (*Certificate, error) {
	c.mu.Lock()
	if e, ok := c.byRaw[string(b)]; ok {
		c.order.MoveToFront(e)
		cert := e.Value.(*certEntry).cert
		c.mu.Unlock()
		return cert, nil
	}
	c.mu.Unlock()

	own := bytes.Clone(b) // the parse keeps slices of its input: never the caller's buffer
	cert, err := ParseCertificate(own)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byRaw[string(b)]; ok { // parsed at the same time by another caller
		c.order.MoveToFront(e)
		return e.Value.(*certEntry).cert, nil
	}
	key := string(b)
	c.byRaw[key] = c.order.PushFront(&certEntry{raw: key, cert: cert})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byRaw, last.Value.(*certEntry).raw)
	}
	return cert, nil
}

// len is how many certificates are kept.
func (c *certificateCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
