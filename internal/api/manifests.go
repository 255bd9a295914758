package api

import (
	"context"
	"net/http"
	"net/url"
)

// Manifest is one signed carta manifiesto of a person (timbra's design; the letter itself is
// read as a FileResponse): who signed, with which e.firma, and when (UTC, as audit fields).
type Manifest struct {
	ID                string `json:"id"`
	PersonID          string `json:"personId"`
	Tin               string `json:"tin"`
	CertificateNumber string `json:"certificateNumber"`
	FileName          string `json:"fileName"`
	SignedAt          string `json:"signedAt"`
}

// SignManifest is POST /api/v4/manifests: the caller's letter signed with its e.firma.
func (c *Client) SignManifest(ctx context.Context, in SignManifestRequest) (FileResponse, error) {
	var out FileResponse
	err := c.Do(ctx, http.MethodPost, "/api/v4/manifests", nil, in, &out)
	return out, err
}

// LatestManifest reads a person's newest signed letter.
func (c *Client) LatestManifest(ctx context.Context, personID string) (FileResponse, error) {
	var out FileResponse
	err := c.Do(ctx, http.MethodGet, "/api/v4/manifests/"+url.PathEscape(personID), nil, nil, &out)
	return out, err
}

// ManifestVersion reads one signed letter of a person by its id.
func (c *Client) ManifestVersion(ctx context.Context, personID, id string) (FileResponse, error) {
	var out FileResponse
	err := c.Do(ctx, http.MethodGet, "/api/v4/manifests/"+url.PathEscape(personID)+"/versions/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// ListManifests reads one page of a person's signed letters, newest first.
func (c *Client) ListManifests(ctx context.Context, personID string, page, size int) (PagedList[Manifest], error) {
	var out PagedList[Manifest]
	err := c.Do(ctx, http.MethodGet, "/api/v4/manifests/"+url.PathEscape(personID)+"/versions", pageQuery(page, size), nil, &out)
	return out, err
}
