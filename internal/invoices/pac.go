package invoices

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// The server is the certification provider (PAC) of its own environment: it stamps with a
// certificate and key of its own, made on the first stamp of a database and kept in it (the key
// sealed under the master key), never SAT's.
//
// RfcProvCertif is the RFC the Timbre Fiscal Digital names as provider. It is a made-up RFC of a
// moral person built on the project's name (TIM, 2026-01-01, homoclave TB1), with a valid
// shape and no real provider behind it: an invoice stamped by timbra can never pass for one
// stamped by an authorized PAC. The same RFC is used in both environments.
const RfcProvCertif = "TIM260101TB1"

// pacName is the subject of the stamping certificate.
const pacName = "TIMBRA PROVEEDOR DE CERTIFICACION DE PRUEBAS"

// pacValidity is how long a stamping certificate is valid from its creation (SAT's are 4 years).
const pacValidity = 4 * 365 * 24 * time.Hour

// PACContext is the sealing context of the stamping key.
const PACContext = "timbra/pac-key"

var oidUniqueIdentifier = asn1.ObjectIdentifier{2, 5, 4, 45}

// PAC is the stamping identity: its certificate (NoCertificadoSAT is its 20-digit number) and key.
type PAC struct {
	Cert *csd.Certificate
	Key  *csd.PrivateKey
}

// pacStore keeps the identity once read; the decrypted key lives in memory only, as the tax
// files' keys do while a request signs.
type pacStore struct {
	mu  sync.Mutex
	pac *PAC
}

// NewPACIdentity makes a stamping certificate and key valid from now: a self-signed RSA-2048
// certificate whose serial's bytes spell a 20-digit number (as SAT's do, so csd reads it as the
// certificate number), the provider's RFC in x500UniqueIdentifier.
func NewPACIdentity(now time.Time) (certDER, keyDER []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	digits := make([]byte, 20)
	copy(digits, "30001")
	for i := 5; i < 20; i++ {
		n, err := rand.Int(rand.Reader, big.NewInt(10))
		if err != nil {
			return nil, nil, err
		}
		digits[i] = byte('0' + n.Int64())
	}
	tmpl := &x509.Certificate{
		SerialNumber: new(big.Int).SetBytes(digits),
		Subject: pkix.Name{
			CommonName:   pacName,
			Organization: []string{pacName},
			ExtraNames:   []pkix.AttributeTypeAndValue{{Type: oidUniqueIdentifier, Value: RfcProvCertif}},
		},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(pacValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
	}
	certDER, err = x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err = x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return certDER, keyDER, nil
}

// get returns the identity: read from the database, or made and saved on first need. Two
// servers or requests racing on a new database keep the first one written.
func (p *pacStore) get(ctx context.Context, store storage.Store, keys *secrets.Keys, now time.Time) (*PAC, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pac != nil {
		return p.pac, nil
	}
	var certDER, sealed []byte
	read := func(tx storage.Tx) error {
		var err error
		if certDER, err = tx.Meta().Get(storage.MetaPACCertificate); err != nil {
			return err
		}
		sealed, err = tx.Meta().Get(storage.MetaPACKey)
		return err
	}
	if err := store.View(ctx, read); err != nil {
		return nil, err
	}
	if certDER == nil || sealed == nil {
		newCert, newKey, err := NewPACIdentity(now)
		if err != nil {
			return nil, fmt.Errorf("stamping identity: %w", err)
		}
		newSealed := keys.Seal(newKey, PACContext)
		err = store.Update(ctx, func(tx storage.Tx) error {
			if err := read(tx); err != nil {
				return err
			}
			if certDER != nil && sealed != nil {
				return nil // made meanwhile
			}
			certDER, sealed = newCert, newSealed
			if err := tx.Meta().Put(storage.MetaPACCertificate, certDER); err != nil {
				return err
			}
			return tx.Meta().Put(storage.MetaPACKey, sealed)
		})
		if err != nil {
			return nil, err
		}
	}
	cert, err := csd.ParseCertificate(certDER)
	if err != nil {
		return nil, fmt.Errorf("stamping certificate: %w", err)
	}
	plain, err := keys.Open(sealed, PACContext)
	if err != nil {
		return nil, fmt.Errorf("stamping key: %w", err)
	}
	k, err := x509.ParsePKCS8PrivateKey(plain)
	if err != nil {
		return nil, fmt.Errorf("stamping key: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("stamping key: %T is not RSA", k)
	}
	pac := &PAC{Cert: cert, Key: &csd.PrivateKey{RSA: rk}}
	if !cert.Matches(pac.Key) {
		return nil, fmt.Errorf("stamping key does not match its certificate")
	}
	p.pac = pac
	return pac, nil
}
