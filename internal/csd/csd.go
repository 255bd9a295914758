// Package csd reads SAT certificates (CSD, the seal certificate, and e.firma, formerly FIEL) and
// opens their encrypted private keys, the way SAT issues them: a DER X.509 certificate (.cer) and
// an encrypted PKCS#8 key (.key, PBES2 with PBKDF2-HMAC-SHA1 and DES-EDE3-CBC) opened with the
// holder's password.
//
// It is used to validate uploaded tax files and to seal invoices (Sign: RSA PKCS#1 v1.5 with
// SHA-256 over the cadena original, the CFDI 4.0 Sello). Nothing here panics on malformed input.
package csd

import (
	"bytes"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Kind tells a CSD (certificado de sello digital, to seal invoices) from an e.firma (FIEL, the
// holder's advanced electronic signature).
type Kind int

// The kinds of SAT certificate.
const (
	KindUnknown Kind = iota
	KindCSD
	KindFIEL
)

// String is "CSD", "FIEL" or "unknown".
func (k Kind) String() string {
	switch k {
	case KindCSD:
		return "CSD"
	case KindFIEL:
		return "FIEL"
	}
	return "unknown"
}

// Certificate is a SAT certificate (CSD or e.firma), DER X.509.
type Certificate struct {
	Raw  []byte // DER
	X509 *x509.Certificate
	// Number is SAT's certificate number (NoCertificado): the 20 digits that the serial number's
	// bytes spell in ASCII (serial 0x3330303031... is 30001...). For a serial that does not spell
	// digits (not a SAT certificate) it is the serial in decimal.
	Number string
	// RFC is the holder's RFC from the subject's x500UniqueIdentifier (2.5.4.45), upper case.
	// A moral person's certificate carries "RFC / RFC of the representative" there: the first
	// token is the holder's. Empty when the subject has no such attribute.
	RFC string
	// Name is the subject's common name (else its name, 2.5.4.41, else its organization), as SAT
	// writes it.
	Name               string
	ValidFrom, ValidTo time.Time
	// Kind is decided by the certificate's usages and subject: see KindOf.
	Kind Kind

	keyID string
}

// Object identifiers of the subject attributes SAT uses.
var (
	oidUniqueIdentifier = asn1.ObjectIdentifier{2, 5, 4, 45} // x500UniqueIdentifier: "RFC" or "RFC / representative RFC"
	oidNameAttr         = asn1.ObjectIdentifier{2, 5, 4, 41} // name
)

// ErrNotCertificate is the error of ParseCertificate for bytes that are not an X.509 certificate.
var ErrNotCertificate = errors.New("csd: not an X.509 certificate (DER or PEM)")

// ParseCertificate reads DER (or PEM, for convenience) bytes. Anything else is an error wrapping
// ErrNotCertificate.
func ParseCertificate(b []byte) (*Certificate, error) {
	der := b
	if isPEM(b) {
		block, _ := pem.Decode(b)
		if block == nil {
			return nil, fmt.Errorf("%w: malformed PEM", ErrNotCertificate)
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%w: PEM block %q", ErrNotCertificate, block.Type)
		}
		der = block.Bytes
	}
	if len(der) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrNotCertificate)
	}
	x, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCertificate, err)
	}
	c := &Certificate{
		Raw:       x.Raw,
		X509:      x,
		Number:    certificateNumber(x),
		RFC:       subjectRFC(x.Subject),
		Name:      subjectName(x.Subject),
		ValidFrom: x.NotBefore.UTC(),
		ValidTo:   x.NotAfter.UTC(),
		Kind:      KindOf(x),
	}
	c.keyID = certKeyID(x)
	return c, nil
}

func isPEM(b []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n\ufeff"), []byte("-----BEGIN "))
}

// certificateNumber is the ASCII the serial's bytes spell when they are all digits (SAT's
// NoCertificado), else the serial in decimal.
func certificateNumber(x *x509.Certificate) string {
	if x.SerialNumber == nil {
		return ""
	}
	b := x.SerialNumber.Bytes()
	if len(b) > 0 && !slices.ContainsFunc(b, func(c byte) bool { return c < '0' || c > '9' }) {
		return string(b)
	}
	return x.SerialNumber.String()
}

func subjectRFC(n pkix.Name) string {
	for _, a := range n.Names {
		if !a.Type.Equal(oidUniqueIdentifier) {
			continue
		}
		s, ok := a.Value.(string)
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(s, "/")
		if rfc := strings.ToUpper(strings.TrimSpace(first)); rfc != "" {
			return rfc
		}
	}
	return ""
}

func subjectName(n pkix.Name) string {
	if s := strings.TrimSpace(n.CommonName); s != "" {
		return s
	}
	for _, a := range n.Names {
		if a.Type.Equal(oidNameAttr) {
			if s, ok := a.Value.(string); ok && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
	}
	for _, o := range n.Organization {
		if s := strings.TrimSpace(o); s != "" {
			return s
		}
	}
	return ""
}

// KindOf decides whether a certificate is a CSD or an e.firma, by the way SAT issues them:
//
//   - KindUnknown when the certificate cannot sign (no digitalSignature key usage) or is a
//     certification authority (keyCertSign, or a CA basic constraint).
//   - KindFIEL when it is also meant to encipher or authenticate, which only the e.firma is: key
//     usage dataEncipherment, keyEncipherment or keyAgreement, or extended key usage
//     clientAuth or emailProtection.
//   - Otherwise (a signing-only certificate): KindCSD when the subject names an organizational
//     unit (SAT writes the branch or the seal's name there, e.g. "Sucursal 1", in every CSD and
//     never in an e.firma), else KindFIEL.
func KindOf(x *x509.Certificate) Kind {
	if x == nil || x.KeyUsage&x509.KeyUsageDigitalSignature == 0 ||
		x.KeyUsage&x509.KeyUsageCertSign != 0 || (x.BasicConstraintsValid && x.IsCA) {
		return KindUnknown
	}
	if x.KeyUsage&(x509.KeyUsageDataEncipherment|x509.KeyUsageKeyEncipherment|x509.KeyUsageKeyAgreement) != 0 ||
		slices.Contains(x.ExtKeyUsage, x509.ExtKeyUsageClientAuth) ||
		slices.Contains(x.ExtKeyUsage, x509.ExtKeyUsageEmailProtection) {
		return KindFIEL
	}
	if slices.ContainsFunc(x.Subject.OrganizationalUnit, func(s string) bool { return strings.TrimSpace(s) != "" }) {
		return KindCSD
	}
	return KindFIEL
}

// ValidAt tells whether t is within the validity (both ends included).
func (c *Certificate) ValidAt(t time.Time) bool {
	return !t.Before(c.ValidFrom) && !t.After(c.ValidTo)
}

// PublicKeyID is a stable identifier of the public key: the SHA-256 of its SubjectPublicKeyInfo
// DER, in hex. A certificate and its private key share it.
func (c *Certificate) PublicKeyID() string {
	if c.keyID == "" && c.X509 != nil {
		c.keyID = certKeyID(c.X509)
	}
	return c.keyID
}

func certKeyID(x *x509.Certificate) string {
	if pub, ok := x.PublicKey.(*rsa.PublicKey); ok {
		return rsaKeyID(pub)
	}
	sum := sha256.Sum256(x.RawSubjectPublicKeyInfo)
	return hex.EncodeToString(sum[:])
}

// rsaKeyID hashes the canonical SubjectPublicKeyInfo of pub, so that a certificate and a key
// agree whatever encoding details the certificate's issuer chose.
func rsaKeyID(pub *rsa.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// Base64 is the certificate as the Certificado attribute of a CFDI carries it: standard base64 of
// the DER, no line breaks.
func (c *Certificate) Base64() string {
	return base64.StdEncoding.EncodeToString(c.Raw)
}

// Matches tells whether the key belongs to the certificate.
func (c *Certificate) Matches(k *PrivateKey) bool {
	if c == nil || c.X509 == nil || k == nil || k.RSA == nil {
		return false
	}
	pub, ok := c.X509.PublicKey.(*rsa.PublicKey)
	return ok && pub.Equal(&k.RSA.PublicKey)
}
