package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// RequestLogPath is the live request log of the caller's tenant (Server-Sent Events).
const RequestLogPath = "/api/v4/logs/tail"

// RequestLogEntry is one answered request of a tenant, as GET /api/v4/logs/tail streams it (the
// data of a `request` event). It holds no secret: no bodies, no headers, the path without its
// query, and only the names of the query's parameters.
type RequestLogEntry struct {
	Time      time.Time `json:"time"` // when it arrived (UTC)
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Query     []string  `json:"query,omitempty"` // the names of its query parameters, sorted; never their values
	Status    int       `json:"status"`
	LatencyMs float64   `json:"latencyMs"`
	RequestID string    `json:"requestId"` // the traceIdentifier of its answer
	PersonID  string    `json:"personId"`  // the person of the API key
	Error     string    `json:"error,omitempty"`
}

// RequestLogDropped is the data of the `dropped` event that ends a tail that fell behind.
type RequestLogDropped struct {
	Message string `json:"message"`
}

// RequestLogStream is an open GET /api/v4/logs/tail: Next reads its events one at a time.
type RequestLogStream struct {
	body io.ReadCloser
	rd   *bufio.Reader
}

// streamHTTP is the client of streams: no overall timeout (a tail lasts as long as it is
// read), the connection's own timeouts as http.DefaultTransport's.
var streamHTTP = &http.Client{}

// OpenRequestLog opens the live request log of the caller's tenant. A refusal (401, 429...) is
// returned as *Error, as any other answer of the API.
func (c *Client) OpenRequestLog(ctx context.Context) (*RequestLogStream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.BaseURL, "/")+RequestLogPath, nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	c.setHeaders(req.Header)
	hc := streamHTTP
	if c.HTTP != nil {
		hc = &http.Client{Transport: c.HTTP.Transport} // the caller's transport (TLS roots), without its timeout
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &Error{Details: fmt.Sprintf("cannot reach %s: %v", c.BaseURL, err)}
	}
	if env := resp.Header.Get(EnvironmentHeader); env != "" {
		c.environment.Store(env)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var env RawEnvelope
		if json.Unmarshal(raw, &env) != nil {
			return nil, &Error{Status: resp.StatusCode, Details: fmt.Sprintf("the answer of %s is not a stream of events: %.200s", RequestLogPath, raw)}
		}
		e := &Error{Status: resp.StatusCode, Message: env.Message, Details: env.Details, TraceID: env.TraceIdentifier, Data: env.Data}
		if len(env.Data) > 0 && env.Data[0] == '[' {
			_ = json.Unmarshal(env.Data, &e.Failures)
		}
		return nil, e
	}
	return &RequestLogStream{body: resp.Body, rd: bufio.NewReaderSize(resp.Body, 64<<10)}, nil
}

// Next reads the next event: its name and data ("ping" and no data for a comment line, which
// the server sends to tell it is alive). io.EOF: the server ended the stream.
func (s *RequestLogStream) Next() (event string, data []byte, err error) {
	var buf bytes.Buffer
	seen := false
	for {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && !seen {
				return "", nil, io.EOF
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if seen {
				return event, buf.Bytes(), nil
			}
		case strings.HasPrefix(line, ":"):
			if !seen {
				return "ping", nil, nil
			}
		case strings.HasPrefix(line, "event:"):
			event, seen = strings.TrimSpace(strings.TrimPrefix(line, "event:")), true
		case strings.HasPrefix(line, "data:"):
			if buf.Len() > 0 {
				buf.WriteByte('\n')
			}
			buf.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			seen = true
		}
	}
}

// Close ends the stream.
func (s *RequestLogStream) Close() error { return s.body.Close() }
