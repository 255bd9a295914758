package webhook

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzVerifyHeaders: what a receiver gets in the three headers and the body. Verify accepts
// only when the timestamp is within the tolerance and a v1 signature decodes to the HMAC of
// exactly (id, timestamp as sent, body); every refusal wraps one of the package's errors; and
// Sign then Verify round-trips for any id Sign accepts, while a changed body is refused.
func FuzzVerifyHeaders(f *testing.F) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	f.Add("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", []byte(`{"test": 2432232314}`))
	f.Add("msg_1", "+1614265330", "v2,abc v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", []byte(`{}`))
	f.Add("a.b", "01614265330", "v1,", []byte{0xff})
	f.Add("", "", "", []byte(nil))
	now := time.Unix(1614265330, 0)
	key, _ := secretKey(secret)
	known := []error{ErrMissingHeaders, ErrInvalidTimestamp, ErrTimestampTooOld, ErrTimestampTooNew, ErrNoMatchingSignature}
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		err := Verify(secret, h, body, now, time.Minute)
		if err == nil {
			sec, perr := strconv.ParseInt(ts, 10, 64)
			if perr != nil || sec < now.Unix()-60 || sec > now.Unix()+60 {
				t.Fatalf("accepted timestamp %q outside the tolerance", ts)
			}
			want := "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ts, body))
			found := false
			for _, s := range strings.Fields(sig) {
				if v, enc, ok := strings.Cut(s, ","); ok && v == "v1" {
					if got, derr := base64.StdEncoding.DecodeString(enc); derr == nil && "v1,"+base64.StdEncoding.EncodeToString(got) == want {
						found = true
					}
				}
			}
			if !found {
				t.Fatalf("accepted signature %q, which is not the HMAC of the delivery", sig)
			}
		} else {
			ok := false
			for _, k := range known {
				ok = ok || errors.Is(err, k)
			}
			if !ok {
				t.Fatalf("refusal %v wraps none of the package's errors", err)
			}
		}

		// round trip with the fuzzed id and body
		signed, serr := Sign([]string{secret}, id, now, body)
		if serr != nil {
			if !errors.Is(serr, ErrInvalidID) {
				t.Fatalf("Sign(%q): %v", id, serr)
			}
			return
		}
		if err := Verify(secret, Headers(id, now, signed), body, now, time.Minute); err != nil {
			t.Fatalf("a signed delivery does not verify: %v", err)
		}
		if err := Verify(secret, Headers(id, now, signed), append(body, 'x'), now, time.Minute); !errors.Is(err, ErrNoMatchingSignature) {
			t.Fatalf("a changed body verifies: %v", err)
		}
	})
}
