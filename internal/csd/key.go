package csd

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"strings"

	"golang.org/x/crypto/pbkdf2"
)

// PrivateKey is an RSA private key opened from an encrypted PKCS#8 file.
type PrivateKey struct{ RSA *rsa.PrivateKey }

var (
	// ErrWrongPassword: the password does not open the key, or the file is not a private key.
	ErrWrongPassword = errors.New("csd: the password does not open the private key, or the file is not an encrypted private key")
	// ErrNotEncrypted: an unencrypted key (SAT keys are always encrypted), refused.
	ErrNotEncrypted = errors.New("csd: the private key is not encrypted")
	// ErrUnsupported: a well-formed encrypted key whose encryption is not one of those supported
	// (PBES2, PBKDF2 with HMAC-SHA1 or HMAC-SHA256, DES-EDE3-CBC or AES-128/192/256-CBC), or that
	// holds a key other than RSA. Such an error also matches ErrWrongPassword (errors.Is), since
	// callers answer both alike, but its text says what was found.
	ErrUnsupported = errors.New("csd: unsupported private key")
)

// MaxIterations bounds the PBKDF2 iteration count accepted, so that a crafted file cannot make
// opening it cost minutes. SAT uses 2048; OpenSSL's default is 2048.
const MaxIterations = 1 << 20

// unsupportedError has a clear text and matches both ErrUnsupported and ErrWrongPassword.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string   { return "csd: unsupported private key: " + e.msg }
func (e *unsupportedError) Unwrap() []error { return []error{ErrUnsupported, ErrWrongPassword} }

func unsupported(format string, a ...any) error {
	return &unsupportedError{msg: fmt.Sprintf(format, a...)}
}

// malformed is a structural error: it matches ErrWrongPassword (garbage is answered like a wrong
// password) and says what was wrong, never echoing the password.
func malformed(what string) error {
	return fmt.Errorf("%w (%s)", ErrWrongPassword, what)
}

var (
	oidPBES2        = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACWithSHA1 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA256   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidDESEDE3CBC   = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
	oidAES128CBC    = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC    = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC    = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
)

// oidNames names the algorithms an unsupported key may use, for clear errors.
var oidNames = map[string]string{
	"1.2.840.113549.1.5.1":    "PBES1 pbeWithMD2AndDES-CBC",
	"1.2.840.113549.1.5.3":    "PBES1 pbeWithMD5AndDES-CBC",
	"1.2.840.113549.1.5.10":   "PBES1 pbeWithSHA1AndDES-CBC",
	"1.2.840.113549.1.12.1.1": "PKCS#12 pbeWithSHAAnd128BitRC4",
	"1.2.840.113549.1.12.1.2": "PKCS#12 pbeWithSHAAnd40BitRC4",
	"1.2.840.113549.1.12.1.3": "PKCS#12 pbeWithSHAAnd3-KeyTripleDES-CBC",
	"1.2.840.113549.1.12.1.5": "PKCS#12 pbeWithSHAAnd128BitRC2-CBC",
	"1.2.840.113549.1.12.1.6": "PKCS#12 pbeWithSHAAnd40BitRC2-CBC",
	"1.3.6.1.4.1.11591.4.11":  "scrypt",
	"1.2.840.113549.2.8":      "hmacWithSHA224",
	"1.2.840.113549.2.10":     "hmacWithSHA384",
	"1.2.840.113549.2.11":     "hmacWithSHA512",
	"1.3.14.3.2.7":            "DES-CBC",
	"1.2.840.113549.3.2":      "RC2-CBC",
	"2.16.840.1.101.3.4.1.6":  "AES-128-GCM",
	"2.16.840.1.101.3.4.1.46": "AES-256-GCM",
	"1.2.840.10045.2.1":       "EC",
	"1.3.101.112":             "Ed25519",
}

func algName(o asn1.ObjectIdentifier) string {
	if n, ok := oidNames[o.String()]; ok {
		return n + " (" + o.String() + ")"
	}
	return o.String()
}

// ASN.1 structures of PKCS#8 (RFC 5208) and PKCS#5 v2 (RFC 8018).
type encryptedPrivateKeyInfo struct {
	Algorithm     pkix.AlgorithmIdentifier
	EncryptedData []byte
}

type pbes2Params struct {
	KeyDerivationFunc pkix.AlgorithmIdentifier
	EncryptionScheme  pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

// ParsePrivateKey opens an encrypted PKCS#8 key, DER (or PEM "ENCRYPTED PRIVATE KEY"), with
// password. It supports PBES2 with PBKDF2 (HMAC-SHA1 or HMAC-SHA256) and DES-EDE3-CBC (what SAT
// issues) or AES-128/192/256-CBC. Errors:
//   - ErrNotEncrypted for an unencrypted key (PKCS#8 or PKCS#1, DER or PEM);
//   - ErrWrongPassword when the password does not open it (a bad padding or a decrypted content
//     that is not a private key) and for anything that is not an encrypted private key;
//   - an error matching ErrUnsupported (and ErrWrongPassword) for a well-formed key encrypted
//     another way, or that is not RSA, naming what was found.
func ParsePrivateKey(der, password []byte) (*PrivateKey, error) {
	e, err := parseEncrypted(der)
	if err != nil {
		return nil, err
	}
	return e.open(password)
}

// CheckEncryptedKey tells, without a password and without the cost of opening it, whether der
// is an encrypted private key ParsePrivateKey could open: the same errors as ParsePrivateKey but
// the password's (ErrWrongPassword for what is not an encrypted key, ErrNotEncrypted, or
// ErrUnsupported naming what was found). A nil answer says nothing of the password.
func CheckEncryptedKey(der []byte) error {
	_, err := parseEncrypted(der)
	return err
}

// encrypted is an encrypted PKCS#8 key read and checked, not yet opened.
type encrypted struct {
	kdf       pbkdf2Params
	newHash   func() hash.Hash
	newCipher func([]byte) (cipher.Block, error)
	keyLen    int
	iv, data  []byte
}

func parseEncrypted(der []byte) (*encrypted, error) {
	if isPEM(der) {
		block, _ := pem.Decode(der)
		if block == nil {
			return nil, malformed("malformed PEM")
		}
		switch block.Type {
		case "ENCRYPTED PRIVATE KEY":
			der = block.Bytes
		case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
			if strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") {
				return nil, unsupported("legacy PEM encryption (Proc-Type: ENCRYPTED); convert it to encrypted PKCS#8")
			}
			return nil, ErrNotEncrypted
		default:
			return nil, malformed(fmt.Sprintf("PEM block %q", block.Type))
		}
	}
	if len(der) == 0 {
		return nil, malformed("empty")
	}
	if isPlainKey(der) {
		return nil, ErrNotEncrypted
	}

	var info encryptedPrivateKeyInfo
	rest, err := asn1.Unmarshal(der, &info)
	if err != nil || len(rest) != 0 {
		return nil, malformed("not an encrypted PKCS#8 key")
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, unsupported("encryption %s; supported: PBES2", algName(info.Algorithm.Algorithm))
	}
	var params pbes2Params
	if rest, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil || len(rest) != 0 {
		return nil, malformed("malformed PBES2 parameters")
	}
	if !params.KeyDerivationFunc.Algorithm.Equal(oidPBKDF2) {
		return nil, unsupported("key derivation %s; supported: PBKDF2", algName(params.KeyDerivationFunc.Algorithm))
	}
	e := &encrypted{data: info.EncryptedData}
	if rest, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &e.kdf); err != nil || len(rest) != 0 {
		return nil, malformed("malformed PBKDF2 parameters")
	}
	if e.newHash, err = prfOf(e.kdf.PRF); err != nil {
		return nil, err
	}
	if e.kdf.Iterations < 1 {
		return nil, malformed("PBKDF2 iteration count below 1")
	}
	if e.kdf.Iterations > MaxIterations {
		return nil, unsupported("PBKDF2 iteration count %d above %d", e.kdf.Iterations, MaxIterations)
	}
	if e.newCipher, e.keyLen, err = cipherOf(params.EncryptionScheme.Algorithm); err != nil {
		return nil, err
	}
	if e.kdf.KeyLength != 0 && e.kdf.KeyLength != e.keyLen {
		return nil, malformed("PBKDF2 key length does not fit the cipher")
	}
	if rest, err := asn1.Unmarshal(params.EncryptionScheme.Parameters.FullBytes, &e.iv); err != nil || len(rest) != 0 {
		return nil, malformed("malformed cipher parameters")
	}
	// the cipher's block size, from a throwaway key: the IV and the data must fit it
	block, err := e.newCipher(make([]byte, e.keyLen))
	if err != nil {
		return nil, malformed("cipher key")
	}
	bs := block.BlockSize()
	if len(e.iv) != bs {
		return nil, malformed("IV length does not fit the cipher")
	}
	if len(e.data) == 0 || len(e.data)%bs != 0 {
		return nil, malformed("encrypted data is not a whole number of blocks")
	}
	return e, nil
}

// open decrypts the key with password.
func (e *encrypted) open(password []byte) (*PrivateKey, error) {
	key := pbkdf2.Key(password, e.kdf.Salt, e.kdf.Iterations, e.keyLen, e.newHash)
	block, err := e.newCipher(key)
	if err != nil {
		return nil, malformed("cipher key")
	}
	bs := block.BlockSize()
	plain := make([]byte, len(e.data))
	cipher.NewCBCDecrypter(block, e.iv).CryptBlocks(plain, e.data)
	plain, ok := unpad(plain, bs)
	if !ok {
		return nil, ErrWrongPassword
	}
	k, err := x509.ParsePKCS8PrivateKey(plain)
	if err != nil {
		return nil, ErrWrongPassword
	}
	rsaKey, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, unsupported("a %T; SAT keys are RSA", k)
	}
	return &PrivateKey{RSA: rsaKey}, nil
}

// isPlainKey tells whether der is an unencrypted private key (PKCS#8, PKCS#1 or SEC 1).
func isPlainKey(der []byte) bool {
	if _, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return true
	}
	if _, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return true
	}
	_, err := x509.ParseECPrivateKey(der)
	return err == nil
}

func prfOf(prf pkix.AlgorithmIdentifier) (func() hash.Hash, error) {
	switch {
	case len(prf.Algorithm) == 0, prf.Algorithm.Equal(oidHMACWithSHA1):
		return sha1.New, nil
	case prf.Algorithm.Equal(oidHMACSHA256):
		return sha256.New, nil
	}
	return nil, unsupported("PBKDF2 function %s; supported: hmacWithSHA1, hmacWithSHA256", algName(prf.Algorithm))
}

func cipherOf(o asn1.ObjectIdentifier) (func([]byte) (cipher.Block, error), int, error) {
	switch {
	case o.Equal(oidDESEDE3CBC):
		return des.NewTripleDESCipher, 24, nil
	case o.Equal(oidAES128CBC):
		return aes.NewCipher, 16, nil
	case o.Equal(oidAES192CBC):
		return aes.NewCipher, 24, nil
	case o.Equal(oidAES256CBC):
		return aes.NewCipher, 32, nil
	}
	return nil, 0, unsupported("cipher %s; supported: DES-EDE3-CBC, AES-128-CBC, AES-192-CBC, AES-256-CBC", algName(o))
}

// unpad removes PKCS#7 padding, checked strictly: a last byte n in 1..bs and n bytes equal to n.
func unpad(b []byte, bs int) ([]byte, bool) {
	if len(b) == 0 || len(b)%bs != 0 {
		return nil, false
	}
	n := int(b[len(b)-1])
	if n < 1 || n > bs {
		return nil, false
	}
	for _, c := range b[len(b)-n:] {
		if int(c) != n {
			return nil, false
		}
	}
	return b[:len(b)-n], true
}

// PublicKeyID is the SHA-256 of the public key's SubjectPublicKeyInfo DER, hex: the same as the
// PublicKeyID of the key's certificate.
func (k *PrivateKey) PublicKeyID() string {
	if k == nil || k.RSA == nil {
		return ""
	}
	return rsaKeyID(&k.RSA.PublicKey)
}

// Zero overwrites the private parts of the key (the private exponent, the primes and their
// precomputed CRT values; SAT's keys have two primes) with zeros and drops the key, so that Sign fails from then on. The
// standard library keeps a copy of the precomputed values in an unexported field, out of reach:
// it goes with the key to the garbage collector.
func (k *PrivateKey) Zero() {
	if k == nil || k.RSA == nil {
		return
	}
	wipe := func(n *big.Int) {
		if n != nil {
			clear(n.Bits())
			n.SetInt64(0)
		}
	}
	r := k.RSA
	wipe(r.D)
	for _, p := range r.Primes {
		wipe(p)
	}
	wipe(r.Precomputed.Dp)
	wipe(r.Precomputed.Dq)
	wipe(r.Precomputed.Qinv)
	k.RSA = nil
}

// Sign signs data with RSA PKCS#1 v1.5 over SHA-256 (the CFDI 4.0 seal), returning standard
// base64.
func (k *PrivateKey) Sign(data []byte) (string, error) {
	if k == nil || k.RSA == nil {
		return "", errors.New("csd: no private key")
	}
	sum := sha256.Sum256(data)
	sig, err := rsa.SignPKCS1v15(nil, k.RSA, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("csd: sign: %w", err)
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// EncryptPKCS8 writes key as an encrypted PKCS#8 DER the way SAT does: PBES2, PBKDF2-HMAC-SHA1
// (an 8-byte random salt, the given iteration count, 2048 if 0) and DES-EDE3-CBC. For tests,
// benchmarks and fixtures.
func EncryptPKCS8(key *rsa.PrivateKey, password []byte, iterations int) ([]byte, error) {
	if key == nil {
		return nil, errors.New("csd: no key to encrypt")
	}
	return encryptPKCS8(key, password, iterations, nil, oidDESEDE3CBC)
}

// encryptPKCS8 encrypts any key x509.MarshalPKCS8PrivateKey takes with the given PRF (nil: the
// default, HMAC-SHA1, left out of the parameters as SAT does) and cipher.
func encryptPKCS8(key any, password []byte, iterations int, prf asn1.ObjectIdentifier, cipherOID asn1.ObjectIdentifier) ([]byte, error) {
	if iterations == 0 {
		iterations = 2048
	}
	if iterations < 1 || iterations > MaxIterations {
		return nil, fmt.Errorf("csd: iteration count %d outside 1..%d", iterations, MaxIterations)
	}
	newHash := sha1.New
	switch {
	case prf == nil:
	case prf.Equal(oidHMACWithSHA1):
	case prf.Equal(oidHMACSHA256):
		newHash = sha256.New
	default:
		return nil, fmt.Errorf("csd: PRF %s not supported", prf)
	}
	newCipher, keyLen, err := cipherOf(cipherOID)
	if err != nil {
		return nil, err
	}
	plain, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("csd: %w", err)
	}
	salt := make([]byte, 8)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	dk := pbkdf2.Key(password, salt, iterations, keyLen, newHash)
	block, err := newCipher(dk)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	iv := make([]byte, bs)
	if _, err := rand.Read(iv); err != nil {
		return nil, err
	}
	n := bs - len(plain)%bs
	padded := append(plain, make([]byte, n)...)
	for i := len(plain); i < len(padded); i++ {
		padded[i] = byte(n)
	}
	enc := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(enc, padded)

	kdf := pbkdf2Params{Salt: salt, Iterations: iterations}
	if prf != nil {
		kdf.PRF = pkix.AlgorithmIdentifier{Algorithm: prf, Parameters: asn1.NullRawValue}
	}
	kdfDER, err := asn1.Marshal(kdf)
	if err != nil {
		return nil, err
	}
	ivDER, err := asn1.Marshal(iv)
	if err != nil {
		return nil, err
	}
	paramsDER, err := asn1.Marshal(pbes2Params{
		KeyDerivationFunc: pkix.AlgorithmIdentifier{Algorithm: oidPBKDF2, Parameters: asn1.RawValue{FullBytes: kdfDER}},
		EncryptionScheme:  pkix.AlgorithmIdentifier{Algorithm: cipherOID, Parameters: asn1.RawValue{FullBytes: ivDER}},
	})
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(encryptedPrivateKeyInfo{
		Algorithm:     pkix.AlgorithmIdentifier{Algorithm: oidPBES2, Parameters: asn1.RawValue{FullBytes: paramsDER}},
		EncryptedData: enc,
	})
}
