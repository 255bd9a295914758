package secrets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func testKeys(t *testing.T) *Keys {
	t.Helper()
	k, err := New(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	k := testKeys(t)
	sealed := k.Seal([]byte("s3cret"), "people/a")
	if bytes.Contains(sealed, []byte("s3cret")) {
		t.Fatal("sealed value holds the plain text")
	}
	got, err := k.Open(sealed, "people/a")
	if err != nil || string(got) != "s3cret" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := k.Open(sealed, "people/b"); err == nil {
		t.Fatal("a value sealed for one context opened in another")
	}
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.Open(sealed, "people/a"); err == nil {
		t.Fatal("a value opened under another master key")
	}
	if bytes.Equal(k.Seal([]byte("x"), "c"), k.Seal([]byte("x"), "c")) {
		t.Fatal("two seals of one value are equal: nonce reused")
	}
}

func TestLookupIsKeyed(t *testing.T) {
	a, b := testKeys(t), func() *Keys { k, _ := New(bytes.Repeat([]byte{9}, KeySize)); return k }()
	if !bytes.Equal(a.Lookup("v"), a.Lookup("v")) || bytes.Equal(a.Lookup("v"), b.Lookup("v")) || bytes.Equal(a.Lookup("v"), a.Lookup("w")) {
		t.Fatal("lookup hash must be deterministic per key and differ across keys and values")
	}
}

func TestLoadOrCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "m.key")
	k1, created, err := LoadOrCreate(path)
	if err != nil || !created {
		t.Fatalf("first LoadOrCreate: created=%v err=%v", created, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	k2, created, err := LoadOrCreate(path)
	if err != nil || created {
		t.Fatalf("second LoadOrCreate: created=%v err=%v", created, err)
	}
	got, err := k2.Open(k1.Seal([]byte("x"), "c"), "c")
	if err != nil || string(got) != "x" {
		t.Fatal("reloaded key does not open what the created key sealed")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreate(path); err == nil {
		t.Fatal("a world-readable master key was accepted")
	}
}

func TestPassword(t *testing.T) {
	h := HashPassword("Abc123$")
	if !CheckPassword(h, "Abc123$") || CheckPassword(h, "Abc123%") || CheckPassword("garbage", "Abc123$") {
		t.Fatal("password check is wrong")
	}
	if h == HashPassword("Abc123$") {
		t.Fatal("hash is not salted")
	}
}

// TestMAC: a MAC depends on the master key, the purpose and the message, and is not the lookup
// hash of the same text.
func TestMAC(t *testing.T) {
	k := testKeys(t)
	a := k.MAC("form", []byte("x"))
	if len(a) != 32 || !bytes.Equal(a, k.MAC("form", []byte("x"))) {
		t.Fatal("a MAC is 32 bytes and repeatable")
	}
	other, _ := New(bytes.Repeat([]byte{9}, KeySize))
	for _, b := range [][]byte{k.MAC("forms", []byte("x")), k.MAC("form", []byte("y")), k.MAC("for", []byte("m\x00x")), other.MAC("form", []byte("x")), k.Lookup("form\x00x")} {
		if bytes.Equal(a, b) {
			t.Fatalf("MAC collides: %x", b)
		}
	}
}
