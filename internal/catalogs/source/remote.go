package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

const (
	// maxDownload bounds a downloaded zip (the catalogs archive is ~50 MB).
	maxDownload = 2 << 30
	// progressEvery is the least time between two Progress calls.
	progressEvery = 100 * time.Millisecond
	userAgent     = "timbra-catalogs"
)

var zipMagic = []byte("PK\x03\x04")

// defaultClient connects and shakes hands within 15 s but puts no limit on
// the whole download; the request's context can still end it.
var defaultClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 15 * time.Second
	return &http.Client{Transport: t}
})

// redactURL shows a URL without user, password, query or fragment, which may
// carry credentials.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.Fragment, c.RawFragment = "", ""
	hadQuery := c.RawQuery != ""
	c.RawQuery, c.ForceQuery = "", false
	if hadQuery {
		return c.String() + "?…"
	}
	return c.String()
}

// checkURL accepts https URLs, and http ones for a loopback host only.
func checkURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return errors.New("plain http:// is accepted only for a loopback address; use https://")
		}
	default:
		return fmt.Errorf("unsupported URL scheme %q (expected https://)", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("the URL has no host")
	}
	return nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpClient returns a copy of c (or of the default client) that refuses
// redirects to URLs Open would refuse.
func httpClient(c *http.Client) *http.Client {
	if c == nil {
		c = defaultClient()
	}
	cc := *c
	next := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := checkURL(req.URL); err != nil {
			return fmt.Errorf("redirected to %s: %w", redactURL(req.URL), err)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cc
}

// remote does the requests of one source.
type remote struct {
	ctx    context.Context
	client *http.Client
	desc   string // the source URL, redacted
}

// do sends a request. With cond it carries the conditional headers of opt.
func (r *remote) do(method string, u *url.URL, opt *Options) (*http.Response, error) {
	req, err := http.NewRequestWithContext(r.ctx, method, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("catalog source %s: %w", r.desc, unwrapURLError(err))
	}
	req.Header.Set("User-Agent", userAgent)
	if opt != nil {
		if opt.ETag != "" {
			req.Header.Set("If-None-Match", opt.ETag)
		}
		if opt.LastModified != "" {
			req.Header.Set("If-Modified-Since", opt.LastModified)
		}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("catalog source %s: %s %s failed: %w", r.desc, method, redactURL(u), unwrapURLError(err))
	}
	return resp, nil
}

// unwrapURLError drops the *url.Error layer, whose text repeats the URL
// with its query.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (r *remote) statusError(u *url.URL, resp *http.Response) error {
	where := redactURL(u)
	if where == r.desc {
		return fmt.Errorf("catalog source %s: the server answered %s", r.desc, resp.Status)
	}
	return fmt.Errorf("catalog source %s: the server answered %s for %s", r.desc, resp.Status, where)
}

func conditional(opt Options) bool { return opt.ETag != "" || opt.LastModified != "" }

// openURL opens an http(s) source: a zip, or a folder when the path ends
// with "/".
func openURL(ctx context.Context, spec string, opt Options) (*Source, error) {
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("catalog source: not a valid URL (%v)", unwrapURLError(err))
	}
	desc := redactURL(u)
	if err := checkURL(u); err != nil {
		return nil, fmt.Errorf("catalog source %s: %w", desc, err)
	}
	r := &remote{ctx: ctx, client: httpClient(opt.HTTPClient), desc: desc}
	if strings.HasSuffix(u.Path, "/") {
		return openFolderURL(r, u, opt)
	}
	return openZipURL(r, u, opt)
}

// openZipURL downloads a zip to a temporary file and opens it.
func openZipURL(r *remote, u *url.URL, opt Options) (*Source, error) {
	resp, err := r.do(http.MethodGet, u, &opt)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && conditional(opt):
		return nil, fmt.Errorf("catalog source %s: %w", r.desc, ErrNotModified)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, r.statusError(u, resp)
	}
	total := resp.ContentLength
	if total > maxDownload {
		return nil, fmt.Errorf("catalog source %s: the download is %d MiB, larger than the %d MiB accepted", r.desc, total>>20, maxDownload>>20)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	if head, err := br.Peek(len(zipMagic)); !bytes.Equal(head, zipMagic) {
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("catalog source %s: the download failed: %w", r.desc, err)
		}
		what := "the answer"
		if ct := resp.Header.Get("Content-Type"); ct != "" {
			what += " (" + ct + ")"
		}
		return nil, fmt.Errorf("catalog source %s: %s is not a zip archive; expected the URL of a .zip archive of the catalogs such as %s, or of a catalog folder ending with /", r.desc, what, DefaultURL)
	}
	tmp, err := os.CreateTemp(opt.TempDir, "timbra-catalogs-*.zip")
	if err != nil {
		return nil, fmt.Errorf("catalog source %s: cannot create a temporary file for the download: %w", r.desc, err)
	}
	keep := false
	defer func() {
		if !keep {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	done, err := download(tmp, br, total, opt.Progress)
	if err != nil {
		return nil, fmt.Errorf("catalog source %s: %w", r.desc, err)
	}
	z, err := openZip(r.desc, tmp, done, tmp.Name())
	if err != nil {
		return nil, err
	}
	keep = true // z owns tmp now; build closes z on failure
	s, err := build(r.ctx, r.desc, z)
	if err != nil {
		return nil, err
	}
	s.etag = resp.Header.Get("ETag")
	s.lastModified = resp.Header.Get("Last-Modified")
	return s, nil
}

// download copies src to dst, reporting progress; it returns the size.
func download(dst io.Writer, src io.Reader, total int64, progress func(done, total int64)) (int64, error) {
	buf := make([]byte, 256<<10)
	var done int64
	last := time.Now()
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return done, fmt.Errorf("cannot write the download to a temporary file: %w", err)
			}
			done += int64(n)
			if done > maxDownload {
				return done, fmt.Errorf("the download is larger than the %d MiB accepted", maxDownload>>20)
			}
			if progress != nil {
				if now := time.Now(); now.Sub(last) >= progressEvery {
					last = now
					progress(done, total)
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return done, fmt.Errorf("the download failed after %d bytes: %w", done, rerr)
		}
	}
	if total >= 0 && done != total {
		return done, fmt.Errorf("the download ended after %d of %d bytes", done, total)
	}
	if progress != nil {
		progress(done, done)
	}
	return done, nil
}

// openFolderURL opens a catalog folder served over http(s).
func openFolderURL(r *remote, base *url.URL, opt Options) (*Source, error) {
	h := &httpFS{remote: r, base: base, cache: map[string][]byte{}}
	vu := h.url("version.txt")
	resp, err := r.do(http.MethodGet, vu, &opt)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && conditional(opt):
		return nil, fmt.Errorf("catalog source %s: %w", r.desc, ErrNotModified)
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		// no version.txt: Version() is ""
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, r.statusError(vu, resp)
	default:
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxSmallFile+1))
		if err != nil {
			return nil, fmt.Errorf("catalog source %s: reading %s failed: %w", r.desc, redactURL(vu), err)
		}
		if len(b) > maxSmallFile {
			return nil, fmt.Errorf("catalog source %s: %s is too large", r.desc, redactURL(vu))
		}
		h.cache["version.txt"] = b
	}
	s, err := build(r.ctx, r.desc, h)
	if err != nil {
		return nil, err
	}
	s.etag = resp.Header.Get("ETag")
	s.lastModified = resp.Header.Get("Last-Modified")
	return s, nil
}

// httpFS is a catalog folder served over http(s). A 404 is a missing file.
type httpFS struct {
	*remote
	base  *url.URL
	cache map[string][]byte // read-only after openFolderURL fills it
}

func (h *httpFS) url(name string) *url.URL {
	return h.base.ResolveReference(&url.URL{Path: name})
}

func (h *httpFS) where(name string) string { return redactURL(h.url(name)) }

func (h *httpFS) parallelism() int { return 8 }

func (h *httpFS) close() error { return nil }

func (h *httpFS) open(name string) (io.ReadCloser, error) {
	if b, ok := h.cache[name]; ok {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	if name == "version.txt" {
		// fetched by openFolderURL already: it was not there
		return nil, fmt.Errorf("%s: %w", h.where(name), errNotFound)
	}
	u := h.url(name)
	resp, err := h.do(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		resp.Body.Close()
		return nil, fmt.Errorf("%s: %w", h.where(name), errNotFound)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		resp.Body.Close()
		return nil, h.statusError(u, resp)
	}
	return resp.Body, nil
}

func (h *httpFS) stat(name string) (bool, int64, error) {
	u := h.url(name)
	resp, err := h.do(http.MethodHead, u, nil)
	if err != nil {
		return false, -1, err
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return false, -1, nil
	case resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented:
		return true, -1, nil // no HEAD here: Rows finds out
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return false, -1, h.statusError(u, resp)
	}
	return true, resp.ContentLength, nil
}

func (h *httpFS) listSchemas() ([]string, error) {
	return nil, fmt.Errorf("catalog source %s: there is no tables.list at %s; a folder URL needs it to know the tables", h.desc, h.where("tables.list"))
}
