package invoices

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// The server is the certification provider (PAC) of its own environment: it stamps with a
// certificate and key kept in the database (the key sealed under the master key), never SAT's.
//
//   - Production stamps only with the operator's own PAC certificate and key, given to
//     `timbra server` (or `server init`) with --stamp-cert, --stamp-key and
//     --stamp-key-password-file and stored by InstallPAC; the server never makes one there. A
//     production database without one (or holding only a generated one, as databases made before
//     this rule do) does not start, and its stamps answer 503. Once stored, later starts may omit
//     the flags; a certificate no longer valid stops the start and the stamps.
//   - The test environment makes its identity on the first stamp (NewPACIdentity: self-signed,
//     RfcProvCertif), unless the operator gave one, which then replaces it.
//   - A stamp's RfcProvCertif is the certificate's subject RFC (ProviderRFC).
//   - Certificates replaced by another operator's are kept (MetaPACPrevious), so the stamps they
//     made are still the server's own (OwnEstado, the trust store of SAT validations).
//
// RfcProvCertif is the RFC the Timbre Fiscal Digital names as provider when the stamping
// certificate names none: a made-up RFC of a moral person built on the project's name (TIM,
// 2026-01-01, homoclave TB1), with a valid shape and no real provider behind it, so an invoice
// stamped with a generated identity can never pass for one stamped by an authorized PAC. The
// generated certificates carry it as their subject's RFC.
const RfcProvCertif = "TIM260101TB1"

// pacName is the subject of a generated stamping certificate.
const pacName = "TIMBRA PROVEEDOR DE CERTIFICACION DE PRUEBAS"

// pacValidity is how long a stamping certificate is valid from its creation (SAT's are 4 years).
const pacValidity = 4 * 365 * 24 * time.Hour

// PACContext is the sealing context of the stamping key.
const PACContext = "timbra/pac-key"

// Where a stamping identity came from (meta storage.MetaPACOrigin).
const (
	OriginGenerated = "generated" // made by the server on the first stamp (test environment)
	OriginOperator  = "operator"  // given by the operator (InstallPAC)
)

// What InstallPAC did (PACSetup.Change).
const (
	PACInstalled = "installed" // the operator's identity stored where there was none
	PACReplaced  = "replaced"  // the operator's identity stored in place of another one
	PACUnchanged = "unchanged" // the operator gave the identity already stored: nothing written
	PACKept      = "kept"      // none given: the stored one stays (in test, none until the first stamp)
)

// PACHint tells an operator how to give the stamping identity.
const PACHint = "Give the certificate, the key and a file holding the key's password with --stamp-cert FILE.cer, " +
	"--stamp-key FILE.key and --stamp-key-password-file FILE (or TIMBRA_STAMP_CERT, TIMBRA_STAMP_KEY and " +
	"TIMBRA_STAMP_KEY_PASSWORD_FILE); they are kept in the database, the key sealed under the master key, so later " +
	"starts need them only to change it"

// Texts of a stamp (or GET /api/v4/stamping-certificate) that production cannot make (503).
const (
	MsgNoStampingCertificate      = "El servidor de producción no tiene el certificado de sello de su proveedor de certificación (PAC): el operador debe iniciarlo con --stamp-cert, --stamp-key y --stamp-key-password-file."
	MsgStampingCertificateInvalid = "El certificado de sello del servidor (%s) no está vigente (del %s al %s, UTC): el operador debe iniciarlo con uno vigente (--stamp-cert, --stamp-key y --stamp-key-password-file)."
)

var oidUniqueIdentifier = asn1.ObjectIdentifier{2, 5, 4, 45}

// PAC is the stamping identity: its certificate (NoCertificadoSAT is its 20-digit number) and key.
type PAC struct {
	Cert *csd.Certificate
	Key  *csd.PrivateKey
	// RFC is the RfcProvCertif of its stamps: ProviderRFC(Cert).
	RFC string
	// Origin is OriginGenerated or OriginOperator.
	Origin string
}

// ProviderRFC is the RfcProvCertif of the stamps made with c: the RFC its subject names
// (x500UniqueIdentifier, as SAT writes it in every certificate it issues), else RfcProvCertif.
func ProviderRFC(c *csd.Certificate) string {
	if c.RFC != "" {
		return c.RFC
	}
	return RfcProvCertif
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

// OpenPAC opens an operator's stamping identity: the certificate (a DER .cer as SAT issues it,
// or PEM), its encrypted PKCS#8 key (DER .key as SAT issues it, or PEM; what csd opens) and the
// key's password. It is refused, saying why and never quoting the password, when the certificate
// does not parse, cannot sign, is not valid at now, has a number that is not SAT's 20 digits or
// names an RFC that is not a moral person's (the TFD's NoCertificadoSAT and RfcProvCertif could
// not hold them), or when the key is not encrypted, the password does not open it, or it is
// not the certificate's.
func OpenPAC(certFile, keyFile, password []byte, now time.Time) (*PAC, error) {
	cert, err := csd.ParseCertificate(certFile)
	if err != nil {
		return nil, errors.New("the stamping certificate is not an X.509 certificate (a DER .cer as SAT issues it, or PEM)")
	}
	key, err := csd.ParsePrivateKey(keyFile, password)
	switch {
	case errors.Is(err, csd.ErrNotEncrypted):
		return nil, errors.New("the stamping key is not encrypted: give the encrypted PKCS#8 .key as SAT issues it, and the file of its password")
	case errors.Is(err, csd.ErrUnsupported):
		return nil, fmt.Errorf("the stamping key cannot be opened: %s", strings.TrimPrefix(err.Error(), "csd: "))
	case err != nil:
		return nil, errors.New("the password does not open the stamping key, or the key file is not an encrypted private key (PKCS#8, DER .key or PEM)")
	}
	if !cert.Matches(key) {
		return nil, fmt.Errorf("the stamping key does not belong to the stamping certificate %s: give the key issued with it", cert.Number)
	}
	if cert.Kind == csd.KindUnknown {
		return nil, fmt.Errorf("the stamping certificate %s cannot sign (it is a certification authority, or lacks the digitalSignature key usage)", cert.Number)
	}
	if err := validAt(cert, now); err != nil {
		return nil, fmt.Errorf("%w: give a current one", err)
	}
	if len(cert.Number) != 20 || strings.Trim(cert.Number, "0123456789") != "" {
		return nil, fmt.Errorf("the stamping certificate's serial (%s) does not spell the 20 digits of a SAT certificate number, which the TFD's NoCertificadoSAT must be", cert.Number)
	}
	if cert.RFC != "" && !cfdi.ValidMoralRFC(cert.RFC) {
		return nil, fmt.Errorf("the stamping certificate %s names the RFC %s, which is not a moral person's: a PAC is a moral person, and the TFD's RfcProvCertif must be one (t_RFC_PM, 12 characters)", cert.Number, cert.RFC)
	}
	return &PAC{Cert: cert, Key: key, RFC: ProviderRFC(cert), Origin: OriginOperator}, nil
}

// validAt is nil when the stamping certificate is valid at now, else says why not.
func validAt(c *csd.Certificate, now time.Time) error {
	if now.Before(c.ValidFrom) {
		return fmt.Errorf("the stamping certificate %s is not valid yet (valid from %s UTC)", c.Number, api.FormatAudit(c.ValidFrom))
	}
	if now.After(c.ValidTo) {
		return fmt.Errorf("the stamping certificate %s expired on %s UTC", c.Number, api.FormatAudit(c.ValidTo))
	}
	return nil
}

// PACSetup is what InstallPAC did.
type PACSetup struct {
	// PAC is the identity stamps use from now on: nil in the test environment while there is
	// none (the first stamp makes it).
	PAC *PAC
	// Change is PACInstalled, PACReplaced, PACUnchanged or PACKept.
	Change string
	// Replaced is the certificate the operator's replaced (PACReplaced).
	Replaced *csd.Certificate
}

// InstallPAC settles the stamping identity of a database at start, before the server serves.
// given is the operator's (OpenPAC), nil when none was given:
//
//   - given: stored as the identity, in either environment (PACInstalled, or PACReplaced with
//     the replaced certificate kept among the previous ones); the one already stored is
//     PACUnchanged and nothing is written.
//   - none, in production: the stored identity if the operator gave it and it is valid at now
//     (PACKept); otherwise an error saying why production cannot start and how to give one.
//   - none, in test: whatever is stored (PACKept; PAC nil until the first stamp makes one).
func InstallPAC(ctx context.Context, store storage.Store, keys *secrets.Keys, environment string, given *PAC, now time.Time) (PACSetup, error) {
	if given == nil {
		var st storedPAC
		if err := store.View(ctx, func(tx storage.Tx) error {
			var err error
			st, err = readPAC(tx)
			return err
		}); err != nil {
			return PACSetup{}, err
		}
		if environment == accounts.EnvProduction && st.origin != OriginOperator {
			return PACSetup{}, noOperatorPAC(st)
		}
		if st.certDER == nil {
			return PACSetup{Change: PACKept}, nil
		}
		pac, err := st.open(keys)
		if err != nil {
			return PACSetup{}, err
		}
		if environment == accounts.EnvProduction {
			if err := validAt(pac.Cert, now); err != nil {
				return PACSetup{}, fmt.Errorf("%w, and production stamps only with a current one. %s", err, PACHint)
			}
		}
		return PACSetup{PAC: pac, Change: PACKept}, nil
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(given.Key.RSA)
	if err != nil {
		return PACSetup{}, fmt.Errorf("stamping key: %w", err)
	}
	sealed := keys.Seal(keyDER, PACContext)
	given.Origin, given.RFC = OriginOperator, ProviderRFC(given.Cert)
	var setup PACSetup
	err = store.Update(ctx, func(tx storage.Tx) error {
		setup = PACSetup{PAC: given, Change: PACInstalled}
		st, err := readPAC(tx)
		if err != nil {
			return err
		}
		previous := st.previous
		switch {
		case bytes.Equal(st.certDER, given.Cert.Raw):
			setup.Change = PACUnchanged
			if st.origin == OriginOperator {
				return nil
			}
		case st.certDER != nil:
			setup.Change = PACReplaced
			if setup.Replaced, err = csd.ParseCertificate(st.certDER); err != nil {
				return fmt.Errorf("stored stamping certificate: %w", err)
			}
			previous = append(previous, st.certDER)
		}
		meta := tx.Meta()
		if err := meta.Put(storage.MetaPACCertificate, given.Cert.Raw); err != nil {
			return err
		}
		if err := meta.Put(storage.MetaPACKey, sealed); err != nil {
			return err
		}
		if err := meta.Put(storage.MetaPACOrigin, []byte(OriginOperator)); err != nil {
			return err
		}
		if len(previous) == len(st.previous) {
			return nil
		}
		raw, err := json.Marshal(previous)
		if err != nil {
			return err
		}
		return meta.Put(storage.MetaPACPrevious, raw)
	})
	if err != nil {
		return PACSetup{}, err
	}
	return setup, nil
}

// noOperatorPAC is why a production database without the operator's identity does not start.
func noOperatorPAC(st storedPAC) error {
	has := "this production database has none"
	if c, err := csd.ParseCertificate(st.certDER); err == nil {
		has = fmt.Sprintf("this production database holds only the certificate %s the server generated, as the test environment does", c.Number)
	}
	return fmt.Errorf("production stamps only with the operator's own PAC certificate and key, and %s: "+
		"production invoices must carry a SelloSAT made by your certification provider's stamping certificate, "+
		"never by one the server makes for tests. %s", has, PACHint)
}

// storedPAC is the stamping identity as the database keeps it.
type storedPAC struct {
	certDER, sealed []byte
	origin          string
	previous        [][]byte
}

func readPAC(tx storage.Tx) (storedPAC, error) {
	var st storedPAC
	meta := tx.Meta()
	var err error
	if st.certDER, err = meta.Get(storage.MetaPACCertificate); err != nil {
		return st, err
	}
	if st.sealed, err = meta.Get(storage.MetaPACKey); err != nil {
		return st, err
	}
	origin, err := meta.Get(storage.MetaPACOrigin)
	if err != nil {
		return st, err
	}
	switch st.origin = string(origin); {
	case st.certDER == nil || st.sealed == nil:
		st.certDER, st.sealed, st.origin = nil, nil, ""
	case st.origin == "":
		st.origin = OriginGenerated // stored before the origin was kept: every one was generated
	}
	prev, err := meta.Get(storage.MetaPACPrevious)
	if err != nil || prev == nil {
		return st, err
	}
	if err := json.Unmarshal(prev, &st.previous); err != nil {
		return st, fmt.Errorf("previous stamping certificates: %w", err)
	}
	return st, nil
}

// open parses the certificate and unseals the key.
func (st storedPAC) open(keys *secrets.Keys) (*PAC, error) {
	cert, err := csd.ParseCertificate(st.certDER)
	if err != nil {
		return nil, fmt.Errorf("stamping certificate: %w", err)
	}
	plain, err := keys.Open(st.sealed, PACContext)
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
	pac := &PAC{Cert: cert, Key: &csd.PrivateKey{RSA: rk}, RFC: ProviderRFC(cert), Origin: st.origin}
	if !cert.Matches(pac.Key) {
		return nil, fmt.Errorf("stamping key does not match its certificate")
	}
	return pac, nil
}

// StampingCertificates are the server's stamping certificates, the current one first and then
// those it replaced: every certificate a stamp of this server may name. None before the first.
func StampingCertificates(ctx context.Context, store storage.Store) ([]*csd.Certificate, error) {
	var out []*csd.Certificate
	err := store.View(ctx, func(tx storage.Tx) error {
		var err error
		out, err = stampingCertificates(tx)
		return err
	})
	return out, err
}

func stampingCertificates(tx storage.Tx) ([]*csd.Certificate, error) {
	st, err := readPAC(tx)
	if err != nil || st.certDER == nil {
		return nil, err
	}
	var out []*csd.Certificate
	for _, der := range append([][]byte{st.certDER}, st.previous...) {
		c, err := csd.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("stamping certificate: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// get returns the identity: read from the database, or, in the test environment, made and saved
// on first need (two servers or requests racing on a new database keep the first one written).
// In production only the operator's identity is used, and none is ever made: without it the
// answer is a 503 naming what the operator must give.
func (p *pacStore) get(ctx context.Context, store storage.Store, keys *secrets.Keys, environment string, now time.Time) (*PAC, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pac != nil {
		return p.pac, nil
	}
	var st storedPAC
	read := func(tx storage.Tx) error {
		var err error
		st, err = readPAC(tx)
		return err
	}
	if err := store.View(ctx, read); err != nil {
		return nil, err
	}
	if environment == accounts.EnvProduction && st.origin != OriginOperator {
		return nil, &apierr.Error{Status: http.StatusServiceUnavailable, Details: MsgNoStampingCertificate}
	}
	if st.certDER == nil {
		newCert, newKey, err := NewPACIdentity(now)
		if err != nil {
			return nil, fmt.Errorf("stamping identity: %w", err)
		}
		newSealed := keys.Seal(newKey, PACContext)
		err = store.Update(ctx, func(tx storage.Tx) error {
			if err := read(tx); err != nil {
				return err
			}
			if st.certDER != nil {
				return nil // made meanwhile
			}
			st.certDER, st.sealed, st.origin = newCert, newSealed, OriginGenerated
			meta := tx.Meta()
			if err := meta.Put(storage.MetaPACCertificate, st.certDER); err != nil {
				return err
			}
			if err := meta.Put(storage.MetaPACKey, st.sealed); err != nil {
				return err
			}
			return meta.Put(storage.MetaPACOrigin, []byte(OriginGenerated))
		})
		if err != nil {
			return nil, err
		}
	}
	pac, err := st.open(keys)
	if err != nil {
		return nil, err
	}
	p.pac = pac
	return pac, nil
}

// PAC returns the server's stamping identity: in the test environment made on first need; in
// production the operator's, or a 503.
func (s *Service) PAC(ctx context.Context) (*PAC, error) {
	return s.pac.get(ctx, s.Store, s.Keys, s.Environment, s.now())
}

// stampingPAC is the identity a stamp made at now uses: in production its certificate must be
// valid then (a 503 otherwise: a SelloSAT of an expired certificate verifies for nobody).
func (s *Service) stampingPAC(ctx context.Context, now time.Time) (*PAC, error) {
	pac, err := s.PAC(ctx)
	if err != nil {
		return nil, err
	}
	if s.Environment == accounts.EnvProduction && validAt(pac.Cert, now) != nil {
		return nil, &apierr.Error{Status: http.StatusServiceUnavailable, Details: fmt.Sprintf(MsgStampingCertificateInvalid,
			pac.Cert.Number, api.FormatAudit(pac.Cert.ValidFrom), api.FormatAudit(pac.Cert.ValidTo))}
	}
	return pac, nil
}

// StampingCertificate is the certificate the server stamps with (GET
// /api/v4/stamping-certificate, timbra's own resource): its number is the NoCertificadoSAT of
// every stamp from now on, its subject's RFC their RfcProvCertif, and its public key verifies their
// SelloSAT. A test database without one makes it, as its first stamp would; production without
// the operator's answers 503.
func (s *Service) StampingCertificate(ctx context.Context) (api.StampingCertificate, error) {
	pac, err := s.PAC(ctx)
	if err != nil {
		return api.StampingCertificate{}, err
	}
	return api.StampingCertificate{
		CertificateNumber: pac.Cert.Number,
		Tin:               pac.RFC,
		LegalName:         pac.Cert.Name,
		ValidFrom:         api.FormatAudit(pac.Cert.ValidFrom),
		ValidTo:           api.FormatAudit(pac.Cert.ValidTo),
		Base64Certificate: pac.Cert.Base64(),
	}, nil
}
