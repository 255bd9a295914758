package mail_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	timbramail "github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/mail/mailtest"
)

// selfSigned is a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sink"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// A server that offers STARTTLS gets the message, and the password, only over TLS; a
// certificate the client does not trust stops the delivery before anything is sent.
func TestSendUsesSTARTTLSWhenOffered(t *testing.T) {
	cert, pool := selfSigned(t)
	sink := mailtest.StartTLS(t, &tls.Config{Certificates: []tls.Certificate{cert}})
	msg, err := timbramail.Message{From: "a@example.com", To: []string{"b@example.com"}, Subject: "x", Text: "y"}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	s := &timbramail.SMTP{Host: sink.Host(), Port: sink.Port(), Username: "a", Password: "pw", TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}}
	if err := s.Send(context.Background(), "a@example.com", []string{"b@example.com"}, msg); err != nil {
		t.Fatal(err)
	}
	got := sink.Messages()
	if len(got) != 1 || !got[0].TLS || got[0].Auth != "a\x00pw" {
		t.Fatalf("want one message over TLS with the credentials, got %+v", got)
	}

	untrusted := &timbramail.SMTP{Host: sink.Host(), Port: sink.Port(), Username: "a", Password: "pw"}
	if err := untrusted.Send(context.Background(), "a@example.com", []string{"b@example.com"}, msg); err == nil {
		t.Fatal("an untrusted certificate was accepted")
	}
	if len(sink.Messages()) != 1 {
		t.Fatal("a message went through an untrusted connection")
	}
}
