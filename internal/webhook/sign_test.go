package webhook

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

const testID = "3f2c8a4e-9b1d-4c7e-8f60-2a5b7d9e1c34"

func TestNewSecret(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		s := NewSecret()
		if SecretLength != 50 || len(s) != SecretLength || !strings.HasPrefix(s, "whsec_") {
			t.Fatalf("secret %q: want whsec_ and 44 characters", s)
		}
		key, err := base64.StdEncoding.Strict().DecodeString(s[len("whsec_"):])
		if err != nil || len(key) != 32 {
			t.Fatalf("secret %q: key %d bytes, err %v", s, len(key), err)
		}
		if seen[s] {
			t.Fatalf("secret %q repeated", s)
		}
		seen[s] = true
	}
}

// TestSignKnownAnswer uses a vector computed by the reference library (npm standardwebhooks
// 1.1.1, Webhook.sign).
func TestSignKnownAnswer(t *testing.T) {
	got, err := Sign([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestSignVerify(t *testing.T) {
	oldSecret, newSecret := NewSecret(), NewSecret()
	ts := time.Unix(1767225600, 0) // 2026-01-01T00:00:00Z
	body := []byte(`{"id":"` + testID + `","type":"invoice.canceled","data":{"status":"Cancelada"}}`)

	sig, err := Sign([]string{newSecret, oldSecret}, testID, ts, body)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(sig, " ")
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "v1,") || !strings.HasPrefix(parts[1], "v1,") {
		t.Fatalf("signature header %q: want two v1 signatures", sig)
	}
	h := Headers(testID, ts, sig)
	if h.Get("webhook-id") != testID || h.Get("webhook-timestamp") != "1767225600" || h.Get("webhook-signature") != sig {
		t.Fatalf("headers %v", h)
	}
	for _, s := range []string{oldSecret, newSecret} {
		if err := Verify(s, h, body, ts.Add(2*time.Minute), 5*time.Minute); err != nil {
			t.Errorf("Verify with one of the two secrets: %v", err)
		}
	}
	// Headers spelled in lower case, as a map built by hand.
	lower := http.Header{"webhook-id": {testID}, "webhook-timestamp": {"1767225600"}, "webhook-signature": {sig}}
	if err := Verify(newSecret, lower, body, ts, 0); err != nil {
		t.Errorf("Verify with lower-case header keys: %v", err)
	}

	// The second signature alone, after an unknown version, still matches.
	h2 := Headers(testID, ts, "v1a,AAAA v2,xyz "+parts[1])
	if err := Verify(oldSecret, h2, body, ts, 0); err != nil {
		t.Errorf("Verify skipping other versions: %v", err)
	}
}

func TestVerifyRefuses(t *testing.T) {
	secret := NewSecret()
	ts := time.Unix(1767225600, 0)
	body := []byte(`{"type":"webhook.test"}`)
	sig, err := Sign([]string{secret}, testID, ts, body)
	if err != nil {
		t.Fatal(err)
	}
	h := Headers(testID, ts, sig)

	cases := []struct {
		name   string
		secret string
		h      http.Header
		body   []byte
		now    time.Time
		want   error
	}{
		{"wrong secret", NewSecret(), h, body, ts, ErrNoMatchingSignature},
		{"tampered body", secret, h, []byte(`{"type":"webhook.tesT"}`), ts, ErrNoMatchingSignature},
		{"body with a trailing newline", secret, h, append(append([]byte{}, body...), '\n'), ts, ErrNoMatchingSignature},
		{"stale timestamp", secret, h, body, ts.Add(5*time.Minute + time.Second), ErrTimestampTooOld},
		{"timestamp from the future", secret, h, body, ts.Add(-6 * time.Minute), ErrTimestampTooNew},
		{"other id", secret, Headers("evt_other", ts, sig), body, ts, ErrNoMatchingSignature},
		{"other timestamp", secret, Headers(testID, ts.Add(time.Second), sig), body, ts, ErrNoMatchingSignature},
		{"missing signature", secret, http.Header{"Webhook-Id": {testID}, "Webhook-Timestamp": {"1767225600"}}, body, ts, ErrMissingHeaders},
		{"timestamp not a number", secret, Headers(testID, ts, sig).Clone(), body, ts, ErrInvalidTimestamp},
		{"signature not base64", secret, Headers(testID, ts, "v1,!!!"), body, ts, ErrNoMatchingSignature},
		{"secret without prefix", strings.TrimPrefix(secret, "whsec_"), h, body, ts, ErrInvalidSecret},
		{"secret too short", "whsec_AAAA", h, body, ts, ErrInvalidSecret},
	}
	cases[8].h.Set("webhook-timestamp", "1767225600.0")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(c.secret, c.h, c.body, c.now, 5*time.Minute)
			if !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
	// At the edge of the tolerance the delivery is still accepted.
	if err := Verify(secret, h, body, ts.Add(5*time.Minute), 5*time.Minute); err != nil {
		t.Fatalf("Verify at the edge of the tolerance: %v", err)
	}
}

func TestSignRefuses(t *testing.T) {
	ts := time.Unix(1767225600, 0)
	for _, c := range []struct {
		name    string
		secrets []string
		id      string
		want    error
	}{
		{"no secret", nil, testID, ErrInvalidSecret},
		{"bad secret", []string{"whsec_not base64"}, testID, ErrInvalidSecret},
		{"one bad secret of two", []string{NewSecret(), "sk_live"}, testID, ErrInvalidSecret},
		{"empty id", []string{NewSecret()}, "", ErrInvalidID},
		{"id with a dot", []string{NewSecret()}, "evt.1", ErrInvalidID},
		{"id with a newline", []string{NewSecret()}, "evt\n1", ErrInvalidID},
	} {
		if _, err := Sign(c.secrets, c.id, ts, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: Sign = %v, want %v", c.name, err, c.want)
		}
	}
}

func FuzzVerify(f *testing.F) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	f.Add("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", []byte(`{"test": 2432232314}`))
	f.Add("x", "-9223372036854775808", "v1, v1,,, ,", []byte{})
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		_ = Verify(secret, h, body, time.Unix(1614265330, 0), time.Minute)
	})
}
