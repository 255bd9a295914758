package api

import (
	"context"
	"net/http"
	"net/url"
)

// Tax file types (spec 2 §2.5): the value of fileType. TaxFilePfx is rejected on upload.
const (
	TaxFileCertificateCSD  = 0
	TaxFilePrivateKeyCSD   = 1
	TaxFileCertificateFIEL = 2
	TaxFilePrivateKeyFIEL  = 3
	TaxFilePfx             = 4
)

// TaxFileTypeNames are the names the service's existing clients send for fileType (the fiscalapi
// client's README: "CertificateCsd", "PrivateKeyCsd"), by value. The server reads them ignoring
// case, as well as the integers.
var TaxFileTypeNames = []string{"CertificateCsd", "PrivateKeyCsd", "CertificateFiel", "PrivateKeyFiel", "Pfx"}

// TaxFile is a tax file as answered (spec 2 §2.5): one certificate (.cer) or one private key
// (.key). Base64File and Password are empty strings except in default-values answers.
// Date-times are UTC without offset; ValidFrom and ValidTo are null for a key until a certificate
// with its public key is uploaded.
//
// CertificateNumber is timbra's extension, read-only: the 20-digit number of a certificate
// (NoCertificado, from its serial), null for a private key, so a client can tell certificates apart
// without their content.
type TaxFile struct {
	ID                string  `json:"id"`
	PersonID          string  `json:"personId"`
	Tin               string  `json:"tin"`
	Base64File        string  `json:"base64File"`
	FileType          int     `json:"fileType"`
	Password          string  `json:"password"`
	ValidFrom         *string `json:"validFrom"`
	ValidTo           *string `json:"validTo"`
	Sequence          int     `json:"sequence"`
	CertificateNumber *string `json:"certificateNumber"`
	CreatedAt         string  `json:"createdAt"`
	UpdatedAt         string  `json:"updatedAt"`
}

// TaxFileUpload is the body of POST /api/v4/tax-files. Tin may be empty (the person's RFC is
// used). FileType is sent as its integer; the server also reads the names of TaxFileTypeNames.
// Password is the private key's password; for a certificate it may be empty.
type TaxFileUpload struct {
	PersonID   string `json:"personId"`
	Tin        string `json:"tin,omitempty"`
	Base64File string `json:"base64File"`
	FileType   int    `json:"fileType"`
	Password   string `json:"password"`
}

// ListTaxFiles reads one page of the tax files the caller sees (page size 1 to 50, default 10).
func (c *Client) ListTaxFiles(ctx context.Context, page, size int) (PagedList[TaxFile], error) {
	var out PagedList[TaxFile]
	err := c.Do(ctx, http.MethodGet, "/api/v4/tax-files", pageQuery(page, size), nil, &out)
	return out, err
}

// GetTaxFile reads one tax file, without its content or password.
func (c *Client) GetTaxFile(ctx context.Context, id string) (TaxFile, error) {
	var out TaxFile
	err := c.Do(ctx, http.MethodGet, "/api/v4/tax-files/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// UploadTaxFile uploads one certificate or one private key; the answer has no password.
func (c *Client) UploadTaxFile(ctx context.Context, in TaxFileUpload) (TaxFile, error) {
	var out TaxFile
	err := c.Do(ctx, http.MethodPost, "/api/v4/tax-files", nil, in, &out)
	return out, err
}

// DeleteTaxFile deletes one tax file (its content and password are erased; the record is kept
// for audit). A file that is absent, already deleted or not visible is an *Error with status 400.
func (c *Client) DeleteTaxFile(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, "/api/v4/tax-files/"+url.PathEscape(id), nil, nil, nil)
}

// TaxFileDefaultValues reads a person's default pair with content and password: the certificate
// (type 0) and the key (type 1); empty when the person has no current files.
func (c *Client) TaxFileDefaultValues(ctx context.Context, personID string) ([]TaxFile, error) {
	var out []TaxFile
	err := c.Do(ctx, http.MethodGet, "/api/v4/tax-files/"+url.PathEscape(personID)+"/default-values", nil, nil, &out)
	return out, err
}

// TaxFileDefaultReferences reads a person's default pair without content or password: the files
// that seal by-reference invoices.
func (c *Client) TaxFileDefaultReferences(ctx context.Context, personID string) ([]TaxFile, error) {
	var out []TaxFile
	err := c.Do(ctx, http.MethodGet, "/api/v4/tax-files/"+url.PathEscape(personID)+"/default-references", nil, nil, &out)
	return out, err
}
