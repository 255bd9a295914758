// Package mail builds MIME messages and sends them over SMTP (RFC 5321), for the invoices sent by
// e-mail (POST /api/v4/invoices/send).
//
// The transport is configured with an smtp:// URL (`smtp://user@host:port`): STARTTLS is used
// whenever the server offers it, and authentication (PLAIN) only happens over TLS or to a
// loopback server; smtps:// connects with TLS from the start (port 465). The password never
// travels in the URL: it comes from a file or the environment (see commands/server/mail.go).
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// Transport hands a message to a mail server.
type Transport interface {
	Send(ctx context.Context, from string, to []string, msg []byte) error
}

// Attachment is a file of a message.
type Attachment struct {
	Name        string
	ContentType string
	Content     []byte
}

// Message is a plain-text message with attachments.
type Message struct {
	From        string
	To          []string
	Subject     string
	Text        string
	Attachments []Attachment
	Date        time.Time
}

// ValidAddress tells whether s is one bare e-mail address (no display name, no line breaks).
func ValidAddress(s string) bool {
	if s == "" || strings.ContainsAny(s, "\r\n<>,; ") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1 && !strings.HasPrefix(s[at+1:], ".") && !strings.HasSuffix(s, ".")
}

// Bytes is the message in RFC 5322 form: multipart/mixed with a quoted-printable UTF-8 text part
// and one base64 part per attachment.
func (m Message) Bytes() ([]byte, error) {
	for _, a := range append([]string{m.From}, m.To...) {
		if !ValidAddress(a) {
			return nil, fmt.Errorf("mail: invalid address %q", a)
		}
	}
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	domain := m.From[strings.LastIndexByte(m.From, '@')+1:]
	h := []string{
		"From: " + m.From,
		"To: " + strings.Join(m.To, ", "),
		"Subject: " + mime.QEncoding.Encode("utf-8", m.Subject),
		"Date: " + date.Format(time.RFC1123Z),
		"Message-ID: <" + hex.EncodeToString(id) + "@" + domain + ">",
		"MIME-Version: 1.0",
		"Content-Type: multipart/mixed; boundary=\"" + w.Boundary() + "\"",
	}
	b.WriteString(strings.Join(h, "\r\n") + "\r\n\r\n")

	tw, err := w.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"text/plain; charset=utf-8"},
		"Content-Transfer-Encoding": {"quoted-printable"},
	})
	if err != nil {
		return nil, err
	}
	qp := quotedprintable.NewWriter(tw)
	if _, err := qp.Write([]byte(strings.ReplaceAll(strings.ReplaceAll(m.Text, "\r\n", "\n"), "\n", "\r\n"))); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	for _, a := range m.Attachments {
		disp := mime.FormatMediaType("attachment", map[string]string{"filename": a.Name})
		ct := mime.FormatMediaType(a.ContentType, map[string]string{"name": a.Name})
		if disp == "" || ct == "" {
			return nil, fmt.Errorf("mail: attachment %q: bad name or content type", a.Name)
		}
		aw, err := w.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {ct},
			"Content-Disposition":       {disp},
			"Content-Transfer-Encoding": {"base64"},
		})
		if err != nil {
			return nil, err
		}
		enc := base64.StdEncoding.EncodeToString(a.Content)
		for len(enc) > 76 {
			aw.Write([]byte(enc[:76] + "\r\n"))
			enc = enc[76:]
		}
		aw.Write([]byte(enc + "\r\n"))
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// SMTP sends through one SMTP server.
type SMTP struct {
	Host, Port string
	// Username and Password authenticate (PLAIN) when Username is set.
	Username, Password string
	// ImplicitTLS connects with TLS from the start (smtps://); otherwise STARTTLS when offered.
	ImplicitTLS bool
	// TLS is the client configuration (nil: system roots, ServerName Host).
	TLS *tls.Config
	// Timeout bounds a whole delivery when ctx has no deadline (60 s when zero).
	Timeout time.Duration
}

// ParseURL reads smtp://[user@]host[:port] (port 587 by default) or smtps://[user@]host[:port]
// (465). A password in the URL is refused: it would show in argv and process listings.
func ParseURL(raw string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("SMTP URL: %w", err)
	}
	s := &SMTP{Host: u.Hostname(), Port: u.Port()}
	switch u.Scheme {
	case "smtp":
		if s.Port == "" {
			s.Port = "587"
		}
	case "smtps":
		s.ImplicitTLS = true
		if s.Port == "" {
			s.Port = "465"
		}
	default:
		return nil, errors.New("SMTP URL: use smtp://[user@]host[:port] or smtps://[user@]host[:port]")
	}
	if s.Host == "" {
		return nil, errors.New("SMTP URL: the host is missing")
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return nil, errors.New("SMTP URL: do not put the password in the URL; use TIMBRA_SMTP_PASSWORD or --smtp-password-file")
		}
		s.Username = u.User.Username()
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, errors.New("SMTP URL: only scheme, user, host and port are read")
	}
	return s, nil
}

// Send delivers msg to the recipients: EHLO, STARTTLS when offered, AUTH when a user is set,
// MAIL, RCPT for each, DATA, QUIT.
func (s *SMTP) Send(ctx context.Context, from string, to []string, msg []byte) error {
	if _, ok := ctx.Deadline(); !ok {
		t := s.Timeout
		if t <= 0 {
			t = 60 * time.Second
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	addr := net.JoinHostPort(s.Host, s.Port)
	tc := s.TLS
	if tc == nil {
		tc = &tls.Config{ServerName: s.Host}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if s.ImplicitTLS {
		conn = tls.Client(conn, tc)
	}
	c, err := smtp.NewClient(conn, s.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if !s.ImplicitTLS {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(tc); err != nil {
				return err
			}
		}
	}
	if s.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, s.Host)); err != nil {
			return err
		}
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	for _, r := range to {
		if err := c.Rcpt(r); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}
