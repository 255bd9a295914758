package api

// Person is a person of a tenant (spec 2 §2.1). Date-times are strings in the API's formats.
type Person struct {
	ID                         string         `json:"id"`
	LegalName                  string         `json:"legalName"`
	Email                      string         `json:"email"`
	PhoneNumber                *string        `json:"phoneNumber"`
	Password                   *string        `json:"password"`
	SatTaxRegimeID             *string        `json:"satTaxRegimeId"`
	SatCfdiUseID               *string        `json:"satCfdiUseId"`
	UserTypeID                 string         `json:"userTypeId"`
	Tin                        *string        `json:"tin"`
	Curp                       *string        `json:"curp"`
	ZipCode                    *string        `json:"zipCode"`
	CountryID                  *string        `json:"countryId"`
	ForeignTin                 *string        `json:"foreignTin"`
	Base64Photo                *string        `json:"base64Photo"`
	TaxPassword                *string        `json:"taxPassword"`
	AvailableBalance           float64        `json:"availableBalance"`
	AvailableValidationBalance float64        `json:"availableValidationBalance"`
	CommittedBalance           float64        `json:"committedBalance"`
	Balances                   []Balance      `json:"balances"`
	TenantID                   string         `json:"tenantId"`
	IsOwner                    bool           `json:"isOwner"`
	ValidTo                    *string        `json:"validTo"`
	ManifestStatusID           string         `json:"manifestStatusId"`
	SatTaxRegime               *CatalogRecord `json:"satTaxRegime"`
	SatCfdiUse                 *CatalogRecord `json:"satCfdiUse"`
	UserType                   *CatalogRecord `json:"userType"`
	ManifestStatus             *CatalogRecord `json:"manifestStatus"`
	Country                    *CatalogRecord `json:"country"`
	CreatedAt                  string         `json:"createdAt"`
	UpdatedAt                  string         `json:"updatedAt"`
}

// Balance is the available amount of one credit type.
type Balance struct {
	CreditType int     `json:"creditType"`
	Available  float64 `json:"available"`
}

// Credit types (spec 1 §1). Clients ignore types they do not know.
const (
	CreditStamps     = 1
	CreditValidation = 2
	CreditTickets    = 3
)

// APIKey is an API key (spec 2 §2.4).
type APIKey struct {
	ID           string  `json:"id"`
	Environment  string  `json:"environment"`
	APIKeyValue  string  `json:"apiKeyValue"`
	PersonID     string  `json:"personId"`
	TenantID     string  `json:"tenantId"`
	APIKeyStatus int     `json:"apiKeyStatus"`
	Description  *string `json:"description"`
	CreatedAt    string  `json:"createdAt"`
	UpdatedAt    string  `json:"updatedAt"`
}

// APIKeyCreate is the body of POST /api/v4/apikeys.
type APIKeyCreate struct {
	PersonID    string  `json:"personId"`
	Description *string `json:"description"`
}

// APIKeyUpdate is the body of PUT /api/v4/apikeys/<id>.
type APIKeyUpdate struct {
	ID           string  `json:"id"`
	Description  *string `json:"description"`
	APIKeyStatus *int    `json:"apiKeyStatus"`
}

// SignManifestRequest is the body of POST /api/v4/manifests (the official client's
// manifests.sign): the caller's e.firma, certificate and key in base64, and the key's password.
type SignManifestRequest struct {
	Base64Cer *string `json:"base64Cer"`
	Base64Key *string `json:"base64Key"`
	Password  *string `json:"password"`
}
