package api

import (
	"context"
	"net/http"
	"net/url"
)

// GetAPIKey reads one API key.
func (c *Client) GetAPIKey(ctx context.Context, id string) (APIKey, error) {
	var out APIKey
	err := c.Do(ctx, http.MethodGet, "/api/v4/apikeys/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// UpdateAPIKey replaces an API key's description and, when in.APIKeyStatus is set, its status.
func (c *Client) UpdateAPIKey(ctx context.Context, id string, in APIKeyUpdate) (APIKey, error) {
	var out APIKey
	err := c.Do(ctx, http.MethodPut, "/api/v4/apikeys/"+url.PathEscape(id), nil, in, &out)
	return out, err
}

// DeleteAPIKey revokes an API key.
func (c *Client) DeleteAPIKey(ctx context.Context, id string) error {
	var ok bool
	return c.Do(ctx, http.MethodDelete, "/api/v4/apikeys/"+url.PathEscape(id), nil, nil, &ok)
}
