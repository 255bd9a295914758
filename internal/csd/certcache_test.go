package csd_test

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

// TestCertificateCache: a kept certificate is the parse of exactly the bytes asked for, never
// another one's, under churn and from many goroutines; the same bytes give the same parse while
// kept; at most the cache's size are kept, least recently used dropped first; errors are not
// kept; and changing the caller's buffer afterwards changes nothing kept.
func TestCertificateCache(t *testing.T) {
	key := csdtest.Keys(1, 1024)[0]
	var pairs []csdtest.Pair
	for i := range 6 {
		p, err := csdtest.NewPair(csdtest.Options{Key: key, RFC: fmt.Sprintf("AAA01010%d%s", i, "AA1"), Serial: fmt.Sprintf("300010000005%08d", i)})
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, p)
	}
	check := func(cert *csd.Certificate, err error, p csdtest.Pair) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cert.Raw, p.Cer) || cert.Number != p.Number || cert.RFC != p.RFC {
			t.Fatalf("asked for %s (%s), got %s (%s)", p.Number, p.RFC, cert.Number, cert.RFC)
		}
	}

	c := csd.NewCertificateCache(4)
	first, err := c.Parse(pairs[0].Cer)
	check(first, err, pairs[0])
	again, err := c.Parse(bytes.Clone(pairs[0].Cer))
	check(again, err, pairs[0])
	if again != first {
		t.Fatal("the same bytes were parsed again while kept")
	}
	for _, p := range pairs[1:5] { // four others: the first, least recently used, leaves
		cert, err := c.Parse(p.Cer)
		check(cert, err, p)
	}
	if c.Len() != 4 {
		t.Fatalf("%d kept, want 4", c.Len())
	}
	if cert, err := c.Parse(pairs[0].Cer); err != nil || cert == first {
		t.Fatalf("the least recently used was still kept (%v)", err)
	} else {
		check(cert, err, pairs[0])
	}

	if _, err := c.Parse([]byte("not a certificate")); err == nil {
		t.Fatal("garbage parsed")
	}
	if _, err := c.Parse(nil); err == nil {
		t.Fatal("nothing parsed")
	}
	if c.Len() != 4 {
		t.Fatalf("%d kept after two errors, want 4", c.Len())
	}

	buf := bytes.Clone(pairs[5].Cer)
	cert, err := c.Parse(buf)
	check(cert, err, pairs[5])
	clear(buf)
	cert, err = c.Parse(pairs[5].Cer)
	check(cert, err, pairs[5])

	pemCert, err := c.Parse(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pairs[2].Cer}))
	check(pemCert, err, pairs[2])

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(g), 21))
			for range 300 {
				p := pairs[rnd.IntN(len(pairs))]
				cert, err := c.Parse(p.Cer)
				if err != nil || !bytes.Equal(cert.Raw, p.Cer) || cert.Number != p.Number {
					t.Errorf("asked for %s, got %v (%v)", p.Number, cert, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if c.Len() > 4 {
		t.Fatalf("%d kept, more than 4", c.Len())
	}

	shared, err := csd.ParseCertificateCached(pairs[3].Cer)
	check(shared, err, pairs[3])
}
