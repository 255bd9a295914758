// Package csdtest makes SAT-like certificates and encrypted keys for tests and benchmarks: a
// certificate signed by a test authority, with the subject SAT writes (x500UniqueIdentifier "RFC
// / representative RFC", serialNumber " / CURP", OU for a CSD), a serial whose bytes spell the
// 20-digit certificate number, and the key encrypted as SAT does (csd.EncryptPKCS8).
package csdtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
)

// Pair is a generated certificate and encrypted key, as SAT would issue them.
type Pair struct {
	Cer, Key    []byte // DER certificate; encrypted PKCS#8 DER key
	Password    string
	RFC, Number string
	Cert        *csd.Certificate
	PrivateKey  *rsa.PrivateKey
}

// Options of NewPair; the zero value makes a CSD of AAA010101AAA valid from an hour ago for four
// years, with a fresh 2048-bit key, a random number and the password "12345678a".
type Options struct {
	RFC                 string   // default "AAA010101AAA"
	Kind                csd.Kind // KindCSD (the default for KindUnknown) or KindFIEL
	NotBefore, NotAfter time.Time
	Bits                int             // default 2048; ignored with Key
	Key                 *rsa.PrivateKey // reuse a key (generating 2048-bit keys is slow): see Keys
	Serial              string          // 20 digits; random when empty
	Password            string          // default "12345678a"
}

// DefaultPassword is the password of generated keys when Options.Password is empty.
const DefaultPassword = "12345678a"

// Iterations is the PBKDF2 iteration count of generated keys: SAT's.
const Iterations = 2048

var (
	oidUniqueIdentifier = asn1.ObjectIdentifier{2, 5, 4, 45}
	oidName             = asn1.ObjectIdentifier{2, 5, 4, 41}
)

// NewPair makes a certificate and its encrypted key.
func NewPair(o Options) (Pair, error) {
	rfc := strings.ToUpper(strings.TrimSpace(o.RFC))
	if rfc == "" {
		rfc = "AAA010101AAA"
	}
	kind := o.Kind
	if kind == csd.KindUnknown {
		kind = csd.KindCSD
	}
	if kind != csd.KindCSD && kind != csd.KindFIEL {
		return Pair{}, fmt.Errorf("csdtest: kind %d", kind)
	}
	serial := o.Serial
	if serial == "" {
		var err error
		if serial, err = randomSerial(); err != nil {
			return Pair{}, err
		}
	}
	if len(serial) != 20 || strings.Trim(serial, "0123456789") != "" {
		return Pair{}, fmt.Errorf("csdtest: serial %q is not 20 digits", serial)
	}
	password := o.Password
	if password == "" {
		password = DefaultPassword
	}
	notBefore, notAfter := o.NotBefore, o.NotAfter
	if notBefore.IsZero() {
		notBefore = time.Now().Add(-time.Hour)
	}
	if notAfter.IsZero() {
		notAfter = notBefore.AddDate(4, 0, 0)
	}
	key := o.Key
	if key == nil {
		bits := o.Bits
		if bits == 0 {
			bits = 2048
		}
		var err error
		if key, err = rsa.GenerateKey(rand.Reader, bits); err != nil {
			return Pair{}, err
		}
	}
	ca, err := authority()
	if err != nil {
		return Pair{}, err
	}

	name := "CONTRIBUYENTE DE PRUEBAS " + rfc
	// A physical person (13-character RFC) has its RFC and CURP; a moral person's certificate
	// adds its representative's: "RFC / representative RFC" and " / representative CURP".
	unique, curp := rfc, "VADA800927HSRSRL05"
	if len(rfc) == 12 {
		unique, curp = rfc+" / VADA800927DJ3", " / "+curp
	}
	subject := pkix.Name{
		CommonName:   name,
		Organization: []string{name},
		SerialNumber: curp,
		ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: oidName, Value: name},
			{Type: oidUniqueIdentifier, Value: unique},
		},
	}
	tmpl := &x509.Certificate{
		SerialNumber:          new(big.Int).SetBytes([]byte(serial)),
		Subject:               subject,
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
	}
	if kind == csd.KindCSD {
		tmpl.Subject.OrganizationalUnit = []string{"Sucursal 1"}
	} else {
		tmpl.KeyUsage |= x509.KeyUsageDataEncipherment | x509.KeyUsageKeyAgreement
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection, x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return Pair{}, err
	}
	cert, err := csd.ParseCertificate(der)
	if err != nil {
		return Pair{}, err
	}
	enc, err := csd.EncryptPKCS8(key, []byte(password), Iterations)
	if err != nil {
		return Pair{}, err
	}
	return Pair{Cer: der, Key: enc, Password: password, RFC: rfc, Number: serial, Cert: cert, PrivateKey: key}, nil
}

func randomSerial() (string, error) {
	// SAT's numbers start 0000100000 (production) or 3000100000 (tests): keep the test prefix.
	n, err := rand.Int(rand.Reader, big.NewInt(1e10))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("3000100000%010d", n), nil
}

type ca struct {
	cert *x509.Certificate
	key  *rsa.PrivateKey
}

var (
	caOnce sync.Once
	caVal  ca
	caErr  error
)

// authority is the process's test certification authority, made once.
func authority() (ca, error) {
	caOnce.Do(func() {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			caErr = err
			return
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1),
			Subject: pkix.Name{
				CommonName:         "AC DE PRUEBAS DE TIMBRA",
				Organization:       []string{"PRUEBAS"},
				OrganizationalUnit: []string{"SAT-IES Authority"},
			},
			NotBefore:             time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
			NotAfter:              time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC),
			KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
			BasicConstraintsValid: true,
			IsCA:                  true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			caErr = err
			return
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			caErr = err
			return
		}
		caVal = ca{cert: cert, key: key}
	})
	return caVal, caErr
}

var (
	keysMu sync.Mutex
	keys   = map[int][]*rsa.PrivateKey{}
)

// Keys returns n RSA keys of the given size (2048 if 0), cached per process (generating a 2048-bit
// key costs about 100 ms), for tests that need many pairs. Calls with the same size return the
// same keys in the same order, the first n of them. It panics if the system's random source
// fails, as tests cannot go on then.
func Keys(n, bits int) []*rsa.PrivateKey {
	if bits == 0 {
		bits = 2048
	}
	keysMu.Lock()
	defer keysMu.Unlock()
	have := keys[bits]
	if missing := n - len(have); missing > 0 {
		made := make([]*rsa.PrivateKey, missing)
		errs := make([]error, missing)
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i := range made {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				made[i], errs[i] = rsa.GenerateKey(rand.Reader, bits)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			panic("csdtest: generating keys: " + err.Error())
		}
		have = append(have, made...)
		keys[bits] = have
	}
	out := make([]*rsa.PrivateKey, max(n, 0))
	copy(out, have)
	return out
}
