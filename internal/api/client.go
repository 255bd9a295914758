package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Client calls a timbra server (or any service of the same contract) on behalf of one person.
type Client struct {
	BaseURL   string // for example http://127.0.0.1:8080
	TenantKey string
	APIKey    string
	TimeZone  string // IANA name sent as X-TIME-ZONE; empty sends none
	UserAgent string
	HTTP      *http.Client

	// header, when set, replaces the tenant and API key headers (the operator client uses it).
	header func(http.Header)
	// environment is the last EnvironmentHeader the server sent (a string).
	environment atomic.Value
}

// EnvironmentHeader is the header with which the server says its environment (test or
// production) on every answer: a client tells its user when results are the test
// environment's (fictitious SAT validations, say).
const EnvironmentHeader = "Timbra-Environment"

// Environment is the environment the server said in its last answer ("" before any).
func (c *Client) Environment() string {
	v, _ := c.environment.Load().(string)
	return v
}

// NewAdminClient returns a client for the operator API, authenticated by the operator token.
func NewAdminClient(baseURL, token string) *Client {
	return &Client{BaseURL: baseURL, header: func(h http.Header) { h.Set("Authorization", "Bearer "+token) }}
}

// Error is an answer of the API that did not succeed, or a transport failure (Status 0).
type Error struct {
	Status   int
	Message  string
	Details  string
	TraceID  string
	Failures []Failure
	Data     json.RawMessage
	// RetryAfter is a 429's Retry-After; zero without one.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Status > 0 {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Details != "" {
		fmt.Fprintf(&b, ": %s", e.Details)
	}
	for _, f := range e.Failures {
		fmt.Fprintf(&b, "; %s: %s", f.PropertyName, f.ErrorMessage)
	}
	return b.String()
}

// Lines are the failures as `property: message` lines, or the details when there are none.
func (e *Error) Lines() []string {
	var lines []string
	for _, f := range e.Failures {
		prop := f.PropertyName
		if prop == "" {
			prop = "$"
		}
		lines = append(lines, prop+": "+f.ErrorMessage)
	}
	if len(lines) == 0 {
		text := e.Details
		if text == "" {
			text = e.Message
		}
		if text == "" {
			text = http.StatusText(e.Status)
		}
		lines = append(lines, fmt.Sprintf("%d: %s", e.Status, text))
	}
	return lines
}

// Do sends a request and decodes the envelope's data into out (which may be nil). An answer that
// did not succeed is returned as *Error.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	return c.send(ctx, method, path, query, body, out, false)
}

// send is the one request path of the client. A successful answer is an envelope whose data is
// decoded into out, or, when bare (load endpoints, spec 1 §7.6), JSON decoded into out as it is.
// Any other answer is read as an envelope and returned as *Error.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body, out any, bare bool) error {
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(buf)
	}
	u := strings.TrimRight(c.BaseURL, "/") + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.setHeaders(req.Header)
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &Error{Details: fmt.Sprintf("cannot reach %s: %v", c.BaseURL, err)}
	}
	defer resp.Body.Close()
	if env := resp.Header.Get(EnvironmentHeader); env != "" {
		c.environment.Store(env)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return &Error{Status: resp.StatusCode, Details: fmt.Sprintf("read answer: %v", err)}
	}
	if bare && resp.StatusCode < 400 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("decode answer of %s %s: %w", method, path, err)
		}
		return nil
	}
	var env RawEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return &Error{Status: resp.StatusCode, Details: fmt.Sprintf("the answer of %s is not an API envelope: %.200s", u, raw)}
	}
	if !env.Succeeded || resp.StatusCode >= 400 {
		e := &Error{Status: resp.StatusCode, Message: env.Message, Details: env.Details, TraceID: env.TraceIdentifier, Data: env.Data}
		if len(env.Data) > 0 && env.Data[0] == '[' {
			_ = json.Unmarshal(env.Data, &e.Failures) // data of a 4xx may be failures or not
		}
		if e.Status == http.StatusTooManyRequests {
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				e.RetryAfter = time.Duration(s) * time.Second
				e.Details = strings.TrimSpace(e.Details + fmt.Sprintf(" (Retry-After: %ds)", s))
			}
		}
		return e
	}
	if out != nil && len(env.Data) > 0 {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return fmt.Errorf("decode answer of %s %s: %w", method, path, err)
		}
	}
	return nil
}

// setHeaders sets the headers of every request: the user agent, the credentials, the time zone.
func (c *Client) setHeaders(h http.Header) {
	if c.UserAgent != "" {
		h.Set("User-Agent", c.UserAgent)
	}
	if c.header != nil {
		c.header(h)
	} else {
		h.Set("X-TENANT-KEY", c.TenantKey)
		h.Set("X-API-KEY", c.APIKey)
	}
	if c.TimeZone != "" {
		h.Set("X-TIME-ZONE", c.TimeZone)
	}
}

var defaultHTTP = &http.Client{Timeout: 60 * time.Second}

func pageQuery(page, size int) url.Values {
	q := url.Values{}
	if page > 0 {
		q.Set("pageNumber", strconv.Itoa(page))
	}
	if size > 0 {
		q.Set("pageSize", strconv.Itoa(size))
	}
	return q
}

// ListPeople reads one page of people.
func (c *Client) ListPeople(ctx context.Context, page, size int) (PagedList[Person], error) {
	var out PagedList[Person]
	err := c.Do(ctx, http.MethodGet, "/api/v4/people", pageQuery(page, size), nil, &out)
	return out, err
}

// GetPerson reads one person.
func (c *Client) GetPerson(ctx context.Context, id string) (Person, error) {
	var out Person
	err := c.Do(ctx, http.MethodGet, "/api/v4/people/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// ListAPIKeys reads one page of API keys.
func (c *Client) ListAPIKeys(ctx context.Context, page, size int) (PagedList[APIKey], error) {
	var out PagedList[APIKey]
	err := c.Do(ctx, http.MethodGet, "/api/v4/apikeys", pageQuery(page, size), nil, &out)
	return out, err
}

// CreateAPIKey creates an API key for a person.
func (c *Client) CreateAPIKey(ctx context.Context, in APIKeyCreate) (APIKey, error) {
	var out APIKey
	err := c.Do(ctx, http.MethodPost, "/api/v4/apikeys", nil, in, &out)
	return out, err
}

// Health reads /healthz (no credentials needed).
func (c *Client) Health(ctx context.Context) (Health, error) {
	var out Health
	err := c.Do(ctx, http.MethodGet, "/healthz", nil, nil, &out)
	return out, err
}

// CreateTenant creates a tenant with its owner (operator API).
func (c *Client) CreateTenant(ctx context.Context, in TenantCreate) (Credentials, error) {
	var out Credentials
	err := c.Do(ctx, http.MethodPost, "/admin/v1/tenants", nil, in, &out)
	return out, err
}

// ListTenants lists the tenants (operator API).
func (c *Client) ListTenants(ctx context.Context) ([]Tenant, error) {
	var out []Tenant
	err := c.Do(ctx, http.MethodGet, "/admin/v1/tenants", nil, nil, &out)
	return out, err
}

// GrantCredits adds (or withdraws) credits of one type to a person of a tenant (operator API).
func (c *Client) GrantCredits(ctx context.Context, tenantKey string, in CreditGrant) (CreditBalances, error) {
	var out CreditBalances
	err := c.Do(ctx, http.MethodPost, "/admin/v1/tenants/"+url.PathEscape(tenantKey)+"/credits", nil, in, &out)
	return out, err
}

// CreateWebhook creates a URL webhook; the answer carries its signing secret, this once.
func (c *Client) CreateWebhook(ctx context.Context, in WebhookCreate) (Webhook, error) {
	var out Webhook
	err := c.Do(ctx, http.MethodPost, "/api/v4/webhooks", nil, in, &out)
	return out, err
}

// ListWebhooks reads one page of webhooks (listeners included), in creation order.
func (c *Client) ListWebhooks(ctx context.Context, page, size int) (PagedList[Webhook], error) {
	var out PagedList[Webhook]
	err := c.Do(ctx, http.MethodGet, "/api/v4/webhooks", pageQuery(page, size), nil, &out)
	return out, err
}

// GetWebhook reads one webhook, without its secret.
func (c *Client) GetWebhook(ctx context.Context, id string) (Webhook, error) {
	var out Webhook
	err := c.Do(ctx, http.MethodGet, "/api/v4/webhooks/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// WebhookQueue reads a webhook's queue: pending deliveries, attempts in flight, the last error.
func (c *Client) WebhookQueue(ctx context.Context, id string) (WebhookQueue, error) {
	var out WebhookQueue
	err := c.Do(ctx, http.MethodGet, "/api/v4/webhooks/"+url.PathEscape(id)+"/queue", nil, nil, &out)
	return out, err
}

// ReplaceWebhook sends the full model of a webhook (PUT replaces every field; a nil Status
// keeps the state).
func (c *Client) ReplaceWebhook(ctx context.Context, id string, in WebhookUpdate) (Webhook, error) {
	var out Webhook
	err := c.Do(ctx, http.MethodPut, "/api/v4/webhooks/"+url.PathEscape(id), nil, in, &out)
	return out, err
}

// DeleteWebhook removes a webhook; its delivery log stays.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, "/api/v4/webhooks/"+url.PathEscape(id), nil, nil, nil)
}

// TestWebhook sends a webhook.test event to one webhook.
func (c *Client) TestWebhook(ctx context.Context, id string) (WebhookTested, error) {
	var out WebhookTested
	err := c.Do(ctx, http.MethodPost, "/api/v4/webhooks/"+url.PathEscape(id)+"/test", nil, nil, &out)
	return out, err
}

// RotateWebhookSecret gives a webhook a new signing secret, returned this once.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (Webhook, error) {
	var out Webhook
	err := c.Do(ctx, http.MethodPost, "/api/v4/webhooks/"+url.PathEscape(id)+"/rotate-secret", nil, nil, &out)
	return out, err
}

// ListDeliveries reads one page of a webhook's delivery log, newest first.
func (c *Client) ListDeliveries(ctx context.Context, webhookID string, page, size int) (PagedList[Delivery], error) {
	var out PagedList[Delivery]
	err := c.Do(ctx, http.MethodGet, "/api/v4/webhooks/"+url.PathEscape(webhookID)+"/deliveries", pageQuery(page, size), nil, &out)
	return out, err
}

// EventQuery filters GET /api/v4/events; empty fields are not sent. From and To are ISO 8601
// instants.
type EventQuery struct {
	Type            string
	RelatedObjectID string
	From, To        string
	Page, PageSize  int
}

// ListEvents reads one page of events, newest first. Each item keeps the envelope's exact bytes.
func (c *Client) ListEvents(ctx context.Context, q EventQuery) (PagedList[json.RawMessage], error) {
	v := pageQuery(q.Page, q.PageSize)
	for k, s := range map[string]string{"type": q.Type, "relatedObjectId": q.RelatedObjectID, "from": q.From, "to": q.To} {
		if s != "" {
			v.Set(k, s)
		}
	}
	var out PagedList[json.RawMessage]
	err := c.Do(ctx, http.MethodGet, "/api/v4/events", v, nil, &out)
	return out, err
}

// GetEvent reads one event envelope: the bytes exactly as the server answered them.
func (c *Client) GetEvent(ctx context.Context, id string) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Do(ctx, http.MethodGet, "/api/v4/events/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// ResendEvent delivers an event once more to one webhook (or, with a nil WebhookID, to the
// caller's command-line listener).
func (c *Client) ResendEvent(ctx context.Context, id string, in EventResend) (EventResent, error) {
	var out EventResent
	err := c.Do(ctx, http.MethodPost, "/api/v4/events/"+url.PathEscape(id)+"/resend", nil, in, &out)
	return out, err
}

// TriggerEvent builds an event of a type and delivers it to one webhook (test environment).
func (c *Client) TriggerEvent(ctx context.Context, in EventTrigger) (EventTriggered, error) {
	var out EventTriggered
	err := c.Do(ctx, http.MethodPost, "/api/v4/events/trigger", nil, in, &out)
	return out, err
}
