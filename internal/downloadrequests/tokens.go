package downloadrequests

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/storage"
)

// tokenMargin: a token is renewed when it has less than this left.
const tokenMargin = 30 * time.Second

// satTokenLifetime is how long a token lasts when the SAT's answer gives no Expires.
const satTokenLifetime = 5 * time.Minute

// errDeadline: a SAT call ran past its deadline (a temporary failure).
var errDeadline = errors.New("the SAT did not answer in time")

// tokenKey names one e.firma at one SAT service (the CFDIs' or the withholding CFDIs', each
// with its own tokens): the person's, the certificate's number (a new e.firma uploaded is a new
// key) and the service's authentication address.
type tokenKey struct{ tenant, person, cert, service string }

type tokenEntry struct {
	mu  sync.Mutex // held while authenticating: one Autentica per e.firma at a time
	tok satws.Token
}

// tokenCache keeps each e.firma's SAT token in memory, never in the database or a log.
type tokenCache struct {
	mu sync.Mutex
	m  map[tokenKey]*tokenEntry
}

func (c *tokenCache) entry(k tokenKey, now time.Time) *tokenEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[tokenKey]*tokenEntry{}
	}
	e := c.m[k]
	if e == nil {
		for old, oe := range c.m { // forget the expired ones as new ones come
			if oe.mu.TryLock() {
				if !now.Before(oe.tok.Expires) {
					delete(c.m, old)
				}
				oe.mu.Unlock()
			}
		}
		e = &tokenEntry{}
		c.m[k] = e
	}
	return e
}

func current(t satws.Token, now time.Time) bool {
	return t.Value != "" && now.Add(tokenMargin).Before(t.Expires)
}

// token is the e.firma's kept token while it has tokenMargin left and is not stale (the one
// the SAT refused), else a new one from Autentica, kept.
func (w *Worker) token(ctx context.Context, k tokenKey, c *satws.Client, stale string) (satws.Token, error) {
	e := w.tokens.entry(k, w.now())
	e.mu.Lock()
	defer e.mu.Unlock()
	if current(e.tok, w.now()) && e.tok.Value != stale {
		return e.tok, nil
	}
	cctx, cancel := context.WithTimeout(ctx, w.callTimeout())
	defer cancel()
	t, err := c.Authenticate(cctx)
	if err != nil {
		return satws.Token{}, deadline(ctx, cctx, err)
	}
	if t.Expires.IsZero() {
		t.Expires = w.now().Add(satTokenLifetime)
	}
	e.tok = t
	return t, nil
}

// keep stores a token the client got by itself during a long step.
func (w *Worker) keep(k tokenKey, t satws.Token) {
	e := w.tokens.entry(k, w.now())
	e.mu.Lock()
	defer e.mu.Unlock()
	if t.Value != "" && t.Expires.After(e.tok.Expires) {
		e.tok = t
	}
}

func (w *Worker) callTimeout() time.Duration {
	if w.CallTimeout > 0 {
		return w.CallTimeout
	}
	return DefaultCallTimeout
}

func (w *Worker) downloadTimeout() time.Duration {
	if w.DownloadTimeout > 0 {
		return w.DownloadTimeout
	}
	return DefaultDownloadTimeout
}

// deadline turns the error of a call whose own deadline passed (ctx still live) into errDeadline.
func deadline(ctx, call context.Context, err error) error {
	if err != nil && ctx.Err() == nil && call.Err() != nil {
		return fmt.Errorf("%w: %v", errDeadline, err)
	}
	return err
}

// session is one step's SAT client: the e.firma's kept token, each call with its deadline, and
// one new token when the SAT refuses the kept one (then the call is sent again, once a step).
type session struct {
	w       *Worker
	c       *satws.Client
	key     tokenKey
	renewed bool
}

func (w *Worker) session(r storage.DownloadRequest, cert *csd.Certificate, key *csd.PrivateKey) *session {
	ep := w.endpointsOf(r)
	return &session{w: w, key: tokenKey{r.TenantID, r.PersonID, cert.Number, ep.Authenticate},
		c: &satws.Client{HTTP: w.HTTP, Endpoints: ep, Credential: &satws.Credential{Cert: cert, Key: key}, Now: w.Now}}
}

// close keeps a token the client renewed by itself.
func (s *session) close() { s.w.keep(s.key, s.c.KeptToken()) }

// ready gives the client the e.firma's token.
func (s *session) ready(ctx context.Context) error {
	if current(s.c.KeptToken(), s.w.now()) {
		return nil
	}
	t, err := s.w.token(ctx, s.key, s.c, "")
	if err != nil {
		return err
	}
	s.c.SetToken(t)
	return nil
}

// refused tells whether the SAT's answer says the token is not valid (any more): CodEstatus 300
// Usuario No Válido, or an HTTP 401 or 403.
func refused(code int, err error) bool {
	var f *satws.Fault
	if errors.As(err, &f) {
		return f.HTTPStatus == http.StatusUnauthorized || f.HTTPStatus == http.StatusForbidden
	}
	return err == nil && code == satws.CodeInvalidUser
}

// renew gets a new token after the SAT refused the kept one, once a step.
func (s *session) renew(ctx context.Context) bool {
	if s.renewed {
		return false
	}
	s.renewed = true
	t, err := s.w.token(ctx, s.key, s.c, s.c.KeptToken().Value)
	if err != nil {
		s.w.log().Warn("download request: a new SAT token was refused", "tenant", s.key.tenant, "person", s.key.person, "err", err)
		return false
	}
	s.c.SetToken(t)
	return true
}

// do is one call with its deadline, sent again once with a new token when the SAT refused it.
func do[T any](ctx context.Context, s *session, timeout time.Duration, code func(T) int, call func(context.Context) (T, error), again func() error) (T, error) {
	for {
		var zero T
		if err := s.ready(ctx); err != nil {
			return zero, err
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		v, err := call(cctx)
		err = deadline(ctx, cctx, err)
		cancel()
		if refused(code(v), err) && s.renew(ctx) {
			if again != nil {
				if err := again(); err != nil {
					return zero, err
				}
			}
			continue
		}
		return v, err
	}
}

// Query sends a query.
func (s *session) Query(ctx context.Context, q satws.Query) (satws.QueryResult, error) {
	return do(ctx, s, s.w.callTimeout(), func(r satws.QueryResult) int { return r.Code },
		func(ctx context.Context) (satws.QueryResult, error) { return s.c.Query(ctx, q) }, nil)
}

// Verify asks for a request's state.
func (s *session) Verify(ctx context.Context, id string) (satws.VerifyResult, error) {
	return do(ctx, s, s.w.callTimeout(), func(r satws.VerifyResult) int { return r.Code },
		func(ctx context.Context) (satws.VerifyResult, error) { return s.c.Verify(ctx, id) }, nil)
}

// Download streams one package to f (emptied before it is sent again). Besides the download's
// deadline, a download that stops sending is cut once no byte of the package came for a call's
// deadline: a hung connection holds its slot that long, not the download's whole deadline.
func (s *session) Download(ctx context.Context, id string, f *os.File) (satws.DownloadResult, error) {
	return do(ctx, s, s.w.downloadTimeout(), func(r satws.DownloadResult) int { return r.Code },
		func(ctx context.Context) (satws.DownloadResult, error) {
			idle := s.w.callTimeout()
			sctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stall := time.AfterFunc(idle, cancel)
			defer stall.Stop()
			res, err := s.c.Download(sctx, id, progress{f, stall, idle})
			if err != nil && ctx.Err() == nil && sctx.Err() != nil {
				err = fmt.Errorf("%w: no byte of the package for %s: %v", errDeadline, idle, err)
			}
			return res, err
		},
		func() error {
			if err := f.Truncate(0); err != nil {
				return err
			}
			_, err := f.Seek(0, 0)
			return err
		})
}

// progress is a download's file: each write pushes the stall timer back.
type progress struct {
	f     *os.File
	stall *time.Timer
	idle  time.Duration
}

func (p progress) Write(b []byte) (int, error) {
	p.stall.Reset(p.idle)
	return p.f.Write(b)
}
