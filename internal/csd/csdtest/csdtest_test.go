package csdtest_test

import (
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

func TestKeysAreCached(t *testing.T) {
	a := csdtest.Keys(2, 1024)
	b := csdtest.Keys(3, 1024)
	if len(a) != 2 || len(b) != 3 || a[0] != b[0] || a[1] != b[1] || b[2] == b[1] || a[0].Equal(a[1]) {
		t.Fatal("Keys does not return the same keys first, or repeats a key")
	}
	if a[0].N.BitLen() != 1024 {
		t.Errorf("bits %d", a[0].N.BitLen())
	}
	a[0] = nil // callers own the slice
	if csdtest.Keys(1, 1024)[0] == nil {
		t.Error("the cache shares its slice")
	}
	if len(csdtest.Keys(0, 1024)) != 0 {
		t.Error("Keys(0)")
	}
}

func TestNewPair(t *testing.T) {
	key := csdtest.Keys(1, 1024)[0]
	nb := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := csdtest.NewPair(csdtest.Options{RFC: "eku9003173c9", Kind: csd.KindFIEL, Key: key, NotBefore: nb, Serial: "00001000000708361114", Password: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if p.RFC != "EKU9003173C9" || p.Number != "00001000000708361114" || p.Password != "p" || p.PrivateKey != key {
		t.Errorf("pair %+v", p)
	}
	if p.Cert.Kind != csd.KindFIEL || !p.Cert.ValidFrom.Equal(nb) || !p.Cert.ValidTo.Equal(nb.AddDate(4, 0, 0)) {
		t.Errorf("certificate %v %v %v", p.Cert.Kind, p.Cert.ValidFrom, p.Cert.ValidTo)
	}
	k, err := csd.ParsePrivateKey(p.Key, []byte("p"))
	if err != nil || !p.Cert.Matches(k) {
		t.Fatalf("key: %v", err)
	}
	d, err := csdtest.NewPair(csdtest.Options{Bits: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if d.RFC != "AAA010101AAA" || d.Password != csdtest.DefaultPassword || d.Cert.Kind != csd.KindCSD || !d.Cert.ValidAt(time.Now()) || d.PrivateKey.N.BitLen() != 1024 {
		t.Errorf("defaults: %q %q %v", d.RFC, d.Password, d.Cert.Kind)
	}
	for _, bad := range []csdtest.Options{{Serial: "123", Key: key}, {Serial: "3000100000050000341x", Key: key}, {Kind: csd.Kind(9), Key: key}} {
		if _, err := csdtest.NewPair(bad); err == nil {
			t.Errorf("NewPair(%+v) succeeded", bad)
		}
	}
}
