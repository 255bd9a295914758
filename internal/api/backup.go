package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Backup streams the server's database (GET /admin/v1/backup, operator token) to w and returns
// the bytes written. The copy is consistent as of the moment the server began it. It takes
// as long as the database needs: only ctx bounds it.
func (c *Client) Backup(ctx context.Context, w io.Writer) (int64, error) {
	u := strings.TrimRight(c.BaseURL, "/") + "/admin/v1/backup"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.header != nil {
		c.header(req.Header)
	}
	hc := &http.Client{}
	if c.HTTP != nil {
		hc.Transport, hc.CheckRedirect, hc.Jar = c.HTTP.Transport, c.HTTP.CheckRedirect, c.HTTP.Jar
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return 0, &Error{Details: fmt.Sprintf("cannot reach %s: %v", c.BaseURL, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		var env RawEnvelope
		if json.Unmarshal(raw, &env) != nil {
			return 0, &Error{Status: resp.StatusCode, Details: fmt.Sprintf("the answer of %s is not an API envelope: %.200s", u, raw)}
		}
		return 0, &Error{Status: resp.StatusCode, Message: env.Message, Details: env.Details, TraceID: env.TraceIdentifier}
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("the backup was cut after %d bytes: %w", n, err)
	}
	return n, nil
}
