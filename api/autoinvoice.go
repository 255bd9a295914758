package api

// AutoInvoiceSettings is the Auto CFDI settings (spec 3 §2.5), read and written.
type AutoInvoiceSettings struct {
	AllowBillingOutsideMonth bool    `json:"allowBillingOutsideMonth"`
	AllowBillingOutsideYear  bool    `json:"allowBillingOutsideYear"`
	PrivacyNoticeURL         *string `json:"privacyNoticeUrl"`
}

// AutoInvoiceSettingsInput is a PUT body: unsent fields take their defaults.
type AutoInvoiceSettingsInput struct {
	AllowBillingOutsideMonth *bool   `json:"allowBillingOutsideMonth"`
	AllowBillingOutsideYear  *bool   `json:"allowBillingOutsideYear"`
	PrivacyNoticeURL         *string `json:"privacyNoticeUrl"`
}

// PortalName is the portal name record; every field is null while the tenant has none.
type PortalName struct {
	Name                *string `json:"name"`
	AssignedAt          *string `json:"assignedAt"`
	NextChangeAllowedAt *string `json:"nextChangeAllowedAt"`
}

// PortalNameInput is the PUT body of the portal name.
type PortalNameInput struct {
	Name *string `json:"name"`
}

// PortalNameAvailability answers whether a portal name can be taken.
type PortalNameAvailability struct {
	Name      string  `json:"name"`
	Available bool    `json:"available"`
	Reason    *string `json:"reason"`
}
