package csd

import (
	"encoding/asn1"
)

// Test hooks: encryption with the other supported PRFs and ciphers.
var (
	OIDHMACWithSHA1   = oidHMACWithSHA1
	OIDHMACWithSHA256 = oidHMACSHA256
	OIDDESEDE3CBC     = oidDESEDE3CBC
	OIDAES128CBC      = oidAES128CBC
	OIDAES192CBC      = oidAES192CBC
	OIDAES256CBC      = oidAES256CBC
)

func EncryptPKCS8With(key any, password []byte, iterations int, prf, cipherOID asn1.ObjectIdentifier) ([]byte, error) {
	return encryptPKCS8(key, password, iterations, prf, cipherOID)
}

// CertificateCache is a certificate cache of its own size, for tests.
type CertificateCache struct{ c *certificateCache }

func NewCertificateCache(size int) CertificateCache {
	return CertificateCache{newCertificateCache(size)}
}

func (c CertificateCache) Parse(b []byte) (*Certificate, error) { return c.c.parse(b) }
func (c CertificateCache) Len() int                             { return c.c.len() }
