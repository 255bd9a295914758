package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks header names.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

const (
	// SecretPrefix starts every signing secret.
	SecretPrefix = "whsec_"
	// SecretKeyBytes is the number of random bytes behind a secret made by NewSecret.
	SecretKeyBytes = 32
	// SecretLength is the length of a secret made by NewSecret: the prefix and 44 base64
	// characters.
	SecretLength = len(SecretPrefix) + 44

	// DefaultTolerance is the replay window Verify applies when given a tolerance of zero or
	// less; it is the one of the reference libraries.
	DefaultTolerance = 5 * time.Minute

	// signatureVersion marks a symmetric (HMAC-SHA256) signature.
	signatureVersion = "v1"
	// Key sizes accepted when signing or verifying: the specification asks for 24 to 64 bytes.
	minKeyBytes = 24
	maxKeyBytes = 64
	// maxIDLength bounds webhook-id.
	maxIDLength = 256
)

// Errors of Sign and Verify; Verify wraps them, so test with errors.Is.
var (
	ErrInvalidSecret       = errors.New("webhook: invalid signing secret")
	ErrInvalidID           = errors.New("webhook: invalid webhook-id")
	ErrMissingHeaders      = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrInvalidTimestamp    = errors.New("webhook: invalid webhook-timestamp")
	ErrTimestampTooOld     = errors.New("webhook: webhook-timestamp too old")
	ErrTimestampTooNew     = errors.New("webhook: webhook-timestamp too new")
	ErrNoMatchingSignature = errors.New("webhook: no matching signature")
)

// NewSecret returns a new signing secret: "whsec_" followed by the padded standard base64 of
// 32 random bytes (44 characters).
func NewSecret() string {
	var key [SecretKeyBytes]byte
	// crypto/rand.Read never fails (it crashes the program if the system source does).
	_, _ = rand.Read(key[:])
	return SecretPrefix + base64.StdEncoding.EncodeToString(key[:])
}

// strictBase64 is made once: Strict returns a copy of the whole encoding.
var strictBase64 = base64.StdEncoding.Strict()

// secretKey returns the HMAC key of a secret: the base64 decoding of what follows "whsec_".
func secretKey(secret string) ([]byte, error) {
	enc, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: it does not start with %q", ErrInvalidSecret, SecretPrefix)
	}
	key, err := strictBase64.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("%w: not padded standard base64", ErrInvalidSecret)
	}
	if len(key) < minKeyBytes || len(key) > maxKeyBytes {
		return nil, fmt.Errorf("%w: key of %d bytes, want %d to %d", ErrInvalidSecret, len(key), minKeyBytes, maxKeyBytes)
	}
	return key, nil
}

// checkID refuses ids that could make the signed content ambiguous (a ".") or break a header:
// webhook-id must be 1 to 256 visible ASCII characters without ".".
func checkID(id string) error {
	if id == "" || len(id) > maxIDLength {
		return fmt.Errorf("%w: length %d", ErrInvalidID, len(id))
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c >= 0x7f || c == '.' {
			return fmt.Errorf("%w: character %q", ErrInvalidID, c)
		}
	}
	return nil
}

// mac computes base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)) in raw form.
func mac(key []byte, id, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Sign returns the value of the webhook-signature header for one delivery attempt: for each
// secret, "v1," followed by the standard base64 of HMAC-SHA256(key, id + "." + unix seconds of
// ts + "." + body), space-separated and in the order given. Two secrets sign during the 24
// hours after a rotation. The key of a secret is the base64 decoding of what follows "whsec_".
// ts must be the time written in webhook-timestamp (see Headers).
func Sign(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", fmt.Errorf("%w: no secret", ErrInvalidSecret)
	}
	if err := checkID(id); err != nil {
		return "", err
	}
	timestamp := strconv.FormatInt(ts.Unix(), 10)
	var b strings.Builder
	for i, s := range secrets {
		key, err := secretKey(s)
		if err != nil {
			return "", fmt.Errorf("secret %d: %w", i+1, err)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(signatureVersion)
		b.WriteByte(',')
		b.WriteString(base64.StdEncoding.EncodeToString(mac(key, id, timestamp, body)))
	}
	return b.String(), nil
}

// Headers returns the three Standard Webhooks headers of a delivery attempt: webhook-id,
// webhook-timestamp (unix seconds of ts) and webhook-signature (sig, from Sign with the same id
// and ts). Go writes them in canonical case (Webhook-Id); header names are case-insensitive.
func Headers(id string, ts time.Time, sig string) http.Header {
	h := make(http.Header, 3)
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	return h
}

// header reads one header whatever the case of its key, also from a map built by hand with
// non-canonical keys.
func header(h http.Header, name string) string {
	if v := h.Get(name); v != "" {
		return v
	}
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// Verify checks a delivery as a receiver would: the three headers are present, webhook-timestamp
// is within tolerance of now (DefaultTolerance when tolerance <= 0), and at least one of the
// space-separated "v1,<base64>" signatures is the HMAC of id, timestamp and body under secret
// (compared in constant time). Signatures of other versions are ignored. It returns nil when
// the delivery is authentic, otherwise an error wrapping one of the Err values.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := secretKey(secret)
	if err != nil {
		return err
	}
	id, timestamp, sigs := header(h, HeaderID), header(h, HeaderTimestamp), header(h, HeaderSignature)
	if id == "" || timestamp == "" || sigs == "" {
		return ErrMissingHeaders
	}
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrInvalidTimestamp, timestamp)
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	// Compare in whole seconds, as the timestamp carries no more.
	tol := int64(tolerance / time.Second)
	nowSec := now.Unix()
	switch {
	case sec < nowSec-tol:
		return ErrTimestampTooOld
	case sec > nowSec+tol:
		return ErrTimestampTooNew
	}
	want := mac(key, id, timestamp, body)
	for _, vs := range strings.Fields(sigs) {
		version, enc, ok := strings.Cut(vs, ",")
		if !ok || version != signatureVersion {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrNoMatchingSignature
}
