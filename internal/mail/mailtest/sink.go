// Package mailtest is a tiny SMTP server on 127.0.0.1 for tests: it speaks enough of RFC 5321
// (EHLO/HELO, AUTH PLAIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT) to accept messages, and records
// each with its envelope.
package mailtest

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"net"
	"strings"
	"sync"
	"testing"
)

// Received is one accepted message.
type Received struct {
	From string
	To   []string
	Data []byte // as sent, dot-stuffing undone, CRLF line ends
	// Auth is the PLAIN credentials sent ("user\x00password"), if any.
	Auth string
	// TLS tells whether the session had switched to TLS (STARTTLS) before the message.
	TLS bool
}

// Sink is the server.
type Sink struct {
	Addr string // host:port
	// TLS makes the sink offer STARTTLS (StartTLS).
	TLS  *tls.Config
	ln   net.Listener
	mu   sync.Mutex
	msgs []Received
	wg   sync.WaitGroup
}

// Start listens on 127.0.0.1 and closes at the end of the test.
func Start(t testing.TB) *Sink {
	t.Helper()
	return StartTLS(t, nil)
}

// StartTLS is Start with STARTTLS offered, the server side configured by cfg.
func StartTLS(t testing.TB, cfg *tls.Config) *Sink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sink{Addr: ln.Addr().String(), ln: ln, TLS: cfg}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

// Host and Port of the sink.
func (s *Sink) Host() string { h, _, _ := net.SplitHostPort(s.Addr); return h }
func (s *Sink) Port() string { _, p, _ := net.SplitHostPort(s.Addr); return p }

// Messages returns what was accepted so far.
func (s *Sink) Messages() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.msgs...)
}

func (s *Sink) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() { defer s.wg.Done(); s.serve(c) }()
	}
}

func (s *Sink) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(line string) { c.Write([]byte(line + "\r\n")) }
	say("220 sink ESMTP")
	var cur Received
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(line)
		switch {
		case strings.HasPrefix(verb, "EHLO"):
			say("250-sink")
			if s.TLS != nil && !cur.TLS {
				say("250-STARTTLS")
			}
			say("250-AUTH PLAIN")
			say("250 8BITMIME")
		case strings.HasPrefix(verb, "HELO"):
			say("250 sink")
		case strings.HasPrefix(verb, "AUTH PLAIN"):
			arg := strings.TrimSpace(line[len("AUTH PLAIN"):])
			if arg == "" {
				say("334 ")
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				arg = strings.TrimSpace(l)
			}
			raw, err := base64.StdEncoding.DecodeString(arg)
			if err != nil {
				say("501 bad base64")
				continue
			}
			cur.Auth = strings.TrimPrefix(string(raw), "\x00")
			say("235 ok")
		case strings.HasPrefix(verb, "MAIL FROM:"):
			cur.From = addr(line[len("MAIL FROM:"):])
			cur.To = nil
			say("250 ok")
		case strings.HasPrefix(verb, "RCPT TO:"):
			cur.To = append(cur.To, addr(line[len("RCPT TO:"):]))
			say("250 ok")
		case verb == "DATA":
			if cur.From == "" || len(cur.To) == 0 {
				say("503 need MAIL and RCPT")
				continue
			}
			say("354 end with .")
			var data strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.Data = []byte(data.String())
			s.mu.Lock()
			s.msgs = append(s.msgs, cur)
			s.mu.Unlock()
			cur = Received{Auth: cur.Auth, TLS: cur.TLS}
			say("250 queued")
		case verb == "STARTTLS" && s.TLS != nil && !cur.TLS:
			say("220 go ahead")
			tc := tls.Server(c, s.TLS)
			if err := tc.Handshake(); err != nil {
				return
			}
			c, r = tc, bufio.NewReader(tc)
			cur = Received{TLS: true}
		case verb == "RSET":
			cur = Received{Auth: cur.Auth, TLS: cur.TLS}
			say("250 ok")
		case verb == "NOOP":
			say("250 ok")
		case verb == "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}

func addr(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ' '); i >= 0 { // parameters such as BODY=8BITMIME
		s = s[:i]
	}
	return strings.TrimSuffix(strings.TrimPrefix(s, "<"), ">")
}
