// Package secrets seals secrets at rest (AES-256-GCM under the master key), derives lookup
// hashes for values that must be found without being stored in clear (API keys), makes random
// tokens, and hashes sign-in passwords (argon2id).
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
)

// KeySize is the size of the master key.
const KeySize = 32

// Keys are the working keys derived from one master key.
type Keys struct {
	aead   cipher.AEAD
	lookup []byte
	mac    []byte
	// lookups keeps HMAC states under lookup: every authenticated request computes one, and
	// making a state (its keyed pads) costs as much as the hash of a short value
	lookups sync.Pool
}

// New derives the working keys from a master key of KeySize bytes.
func New(master []byte) (*Keys, error) {
	if len(master) != KeySize {
		return nil, fmt.Errorf("master key must be %d bytes, got %d", KeySize, len(master))
	}
	block, err := aes.NewCipher(derive(master, "timbra seal v1"))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Keys{aead: aead, lookup: derive(master, "timbra lookup v1"), mac: derive(master, "timbra mac v1")}, nil
}

func derive(master []byte, label string) []byte {
	m := hmac.New(sha256.New, master)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// LoadOrCreate reads the master key file (base64 of KeySize bytes), creating it with mode 0600
// when absent. created tells whether it was made now.
func LoadOrCreate(path string) (k *Keys, created bool, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		master := make([]byte, KeySize)
		if _, err := rand.Read(master); err != nil {
			return nil, false, err
		}
		if err := WriteFileExclusive(path, []byte(base64.StdEncoding.EncodeToString(master)+"\n")); err != nil {
			return nil, false, fmt.Errorf("create master key: %w", err)
		}
		k, err := New(master)
		return k, true, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("read master key: %w", err)
	}
	if err := CheckPrivate("master key", path); err != nil {
		return nil, false, err
	}
	master, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, false, fmt.Errorf("master key %s is not base64", path)
	}
	k, err = New(master)
	return k, false, err
}

// CheckPrivate refuses a secret file (what names it in the message) that its owner's group or
// others may read or write; on systems without Unix modes it accepts.
func CheckPrivate(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 && os.PathSeparator == '/' {
		return fmt.Errorf("%s %s is readable by others (mode %v): chmod 600 it", what, path, fi.Mode().Perm())
	}
	return nil
}

// WriteFileExclusive creates path with mode 0600 (failing if it exists), in a folder of mode 0700
// when it has to make one.
func WriteFileExclusive(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Seal encrypts plain, bound to context (for example the record key), so a sealed value moved
// to another record does not open.
func (k *Keys) Seal(plain []byte, context string) []byte {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plain)+k.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return k.aead.Seal(nonce, nonce, plain, []byte(context))
}

// Open decrypts a value made by Seal with the same context.
func (k *Keys) Open(sealed []byte, context string) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed value too short")
	}
	plain, err := k.aead.Open(nil, sealed[:n], sealed[n:], []byte(context))
	if err != nil {
		return nil, errors.New("sealed value does not open with this master key")
	}
	return plain, nil
}

// Lookup is a keyed hash of value, used to find records by a secret without storing it in clear.
func (k *Keys) Lookup(value string) []byte {
	m, _ := k.lookups.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, k.lookup)
	}
	m.Reset()
	io.WriteString(m, value)
	sum := m.Sum(make([]byte, 0, sha256.Size))
	k.lookups.Put(m)
	return sum
}

// MAC is an HMAC-SHA256 of msg under a key of its own derived from the master key, bound to
// purpose (a MAC made for one purpose never checks for another): tokens the server gives and
// later checks, as a web form's.
func (k *Keys) MAC(purpose string, msg []byte) []byte {
	m := hmac.New(sha256.New, k.mac)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(msg)
	return m.Sum(nil)
}

// Token returns n random bytes in unpadded base64url.
func Token(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Equal compares two secrets in constant time.
func Equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// Password hashing: argon2id with the RFC 9106 second recommended parameters, encoded in the
// PHC string form so parameters can change later.
const (
	argonTime    = 3
	argonMemory  = 64 * 1024
	argonThreads = 2
	argonKeyLen  = 32
)

// MaxConcurrentHashes bounds the argon2id computations running at once (hashing and
// checking): each one holds argonMemory KiB (64 MiB), so without a bound concurrent requests
// that set passwords could take the process's memory. Others wait for a slot.
const MaxConcurrentHashes = 4

var (
	hashSlots = make(chan struct{}, MaxConcurrentHashes)
	hashing   atomic.Int32 // computations running or waiting for a slot
)

// argonKey is argon2.IDKey within a slot of hashSlots. Each computation leaves its 64 MiB
// block as garbage, which the collector would let pile up to twice the live heap and the
// runtime would keep from the system for minutes: it is collected before the slot is given up,
// so a burst holds at most MaxConcurrentHashes blocks, and the memory goes back to the system
// when the last computation ends. (A collection costs a few milliseconds; a computation, a
// hundred or more: BenchmarkPasswordBurst.)
func argonKey(password, salt []byte, t, mem uint32, p uint8, n uint32) []byte {
	hashing.Add(1)
	hashSlots <- struct{}{}
	key := argon2.IDKey(password, salt, t, mem, p, n)
	runtime.GC() // before the slot is free: the next computation reuses the block's memory
	<-hashSlots
	if hashing.Add(-1) == 0 {
		debug.FreeOSMemory()
	}
	return key
}

// HashPassword returns the PHC-encoded argon2id hash of password.
func HashPassword(password string) string {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		panic(err)
	}
	sum := argonKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum))
}

// CheckPassword tells whether password matches a hash made by HashPassword.
func CheckPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var mem uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &p); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argonKey([]byte(password), salt, t, mem, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
