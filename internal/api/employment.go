package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
)

// Decimal is a JSON number kept as its text, so that an amount is compared and stored exactly
// (999999999999.999999 and 999999999999.9999991 are one float64, but two amounts).
type Decimal string

// MarshalJSON writes the number as it is; the empty Decimal is null.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	return []byte(d), nil
}

// UnmarshalJSON keeps a number's text; any other JSON value is a type error.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) == 0 {
		return &json.UnmarshalTypeError{Value: "value", Type: reflect.TypeFor[float64]()}
	}
	if b[0] == '-' || (b[0] >= '0' && b[0] <= '9') {
		*d = Decimal(b)
		return nil
	}
	kind := "value"
	switch b[0] {
	case '"':
		kind = "string"
	case 't', 'f':
		kind = "bool"
	case '[':
		kind = "array"
	case '{':
		kind = "object"
	}
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[float64]()}
}

// Employer is a person's employer data as the API answers it (spec 2 §2.2).
type Employer struct {
	ID                   string         `json:"id"`
	PersonID             string         `json:"personId"`
	EmployerRegistration string         `json:"employerRegistration"`
	OriginEmployerTin    *string        `json:"originEmployerTin"`
	SatFundSourceID      *string        `json:"satFundSourceId"`
	OwnResourceAmount    *Decimal       `json:"ownResourceAmount"`
	SatFundSource        *CatalogRecord `json:"satFundSource"`
	CreatedAt            string         `json:"createdAt"`
	UpdatedAt            string         `json:"updatedAt"`
}

// EmployerInput is the body of POST and PUT /api/v4/people/<personId>/employer. Read-only
// fields sent (id, satFundSource, audit fields) are ignored.
type EmployerInput struct {
	PersonID             *string  `json:"personId,omitempty"`
	EmployerRegistration *string  `json:"employerRegistration,omitempty"`
	OriginEmployerTin    *string  `json:"originEmployerTin,omitempty"`
	SatFundSourceID      *string  `json:"satFundSourceId,omitempty"`
	OwnResourceAmount    *Decimal `json:"ownResourceAmount,omitempty"`
}

// Employee is a person's employee data as the API answers it (spec 2 §2.3): the fields of the
// input and the expanded catalog records, without id.
type Employee struct {
	EmployerPersonID           string         `json:"employerPersonId"`
	EmployeePersonID           string         `json:"employeePersonId"`
	EmployeeNumber             string         `json:"employeeNumber"`
	SocialSecurityNumber       string         `json:"socialSecurityNumber"`
	LaborRelationStartDate     string         `json:"laborRelationStartDate"`
	SatContractTypeID          string         `json:"satContractTypeId"`
	SatTaxRegimeTypeID         string         `json:"satTaxRegimeTypeId"`
	SatWorkdayTypeID           string         `json:"satWorkdayTypeId"`
	SatJobRiskID               string         `json:"satJobRiskId"`
	SatPaymentPeriodicityID    string         `json:"satPaymentPeriodicityId"`
	SatPayrollStateID          string         `json:"satPayrollStateId"`
	Seniority                  string         `json:"seniority"`
	BaseSalaryForContributions Decimal        `json:"baseSalaryForContributions"`
	IntegratedDailySalary      Decimal        `json:"integratedDailySalary"`
	SatBankID                  *string        `json:"satBankId"`
	SatUnionizedStatusID       *string        `json:"satUnionizedStatusId"`
	Position                   *string        `json:"position"`
	Department                 *string        `json:"department"`
	BankAccount                *string        `json:"bankAccount"`
	SubcontractorRfc           *string        `json:"subcontractorRfc"`
	TimePercentage             *Decimal       `json:"timePercentage"`
	SatContractType            *CatalogRecord `json:"satContractType"`
	SatTaxRegimeType           *CatalogRecord `json:"satTaxRegimeType"`
	SatWorkdayType             *CatalogRecord `json:"satWorkdayType"`
	SatJobRisk                 *CatalogRecord `json:"satJobRisk"`
	SatPaymentPeriodicity      *CatalogRecord `json:"satPaymentPeriodicity"`
	SatBank                    *CatalogRecord `json:"satBank"`
	SatPayrollState            *CatalogRecord `json:"satPayrollState"`
	SatUnionizedStatus         *CatalogRecord `json:"satUnionizedStatus"`
}

// EmployeeInput is the body of POST and PUT /api/v4/people/<personId>/employee, where the path
// names the employee person. Read-only fields sent are ignored.
type EmployeeInput struct {
	EmployerPersonID           *string  `json:"employerPersonId,omitempty"`
	EmployeePersonID           *string  `json:"employeePersonId,omitempty"`
	EmployeeNumber             *string  `json:"employeeNumber,omitempty"`
	SocialSecurityNumber       *string  `json:"socialSecurityNumber,omitempty"`
	LaborRelationStartDate     *string  `json:"laborRelationStartDate,omitempty"`
	SatContractTypeID          *string  `json:"satContractTypeId,omitempty"`
	SatTaxRegimeTypeID         *string  `json:"satTaxRegimeTypeId,omitempty"`
	SatWorkdayTypeID           *string  `json:"satWorkdayTypeId,omitempty"`
	SatJobRiskID               *string  `json:"satJobRiskId,omitempty"`
	SatPaymentPeriodicityID    *string  `json:"satPaymentPeriodicityId,omitempty"`
	SatPayrollStateID          *string  `json:"satPayrollStateId,omitempty"`
	Seniority                  *string  `json:"seniority,omitempty"`
	BaseSalaryForContributions *Decimal `json:"baseSalaryForContributions,omitempty"`
	IntegratedDailySalary      *Decimal `json:"integratedDailySalary,omitempty"`
	SatBankID                  *string  `json:"satBankId,omitempty"`
	SatUnionizedStatusID       *string  `json:"satUnionizedStatusId,omitempty"`
	Position                   *string  `json:"position,omitempty"`
	Department                 *string  `json:"department,omitempty"`
	BankAccount                *string  `json:"bankAccount,omitempty"`
	SubcontractorRfc           *string  `json:"subcontractorRfc,omitempty"`
	TimePercentage             *Decimal `json:"timePercentage,omitempty"`
}

func employerPath(personID string) string {
	return "/api/v4/people/" + url.PathEscape(personID) + "/employer"
}

func employeePath(personID string) string {
	return "/api/v4/people/" + url.PathEscape(personID) + "/employee"
}

// GetEmployer reads a person's employer data.
func (c *Client) GetEmployer(ctx context.Context, personID string) (Employer, error) {
	var out Employer
	err := c.Do(ctx, http.MethodGet, employerPath(personID), nil, nil, &out)
	return out, err
}

// CreateEmployer saves employer data for a person that has none (POST).
func (c *Client) CreateEmployer(ctx context.Context, personID string, in EmployerInput) (Employer, error) {
	var out Employer
	err := c.Do(ctx, http.MethodPost, employerPath(personID), nil, in, &out)
	return out, err
}

// ReplaceEmployer replaces a person's employer data (PUT).
func (c *Client) ReplaceEmployer(ctx context.Context, personID string, in EmployerInput) (Employer, error) {
	var out Employer
	err := c.Do(ctx, http.MethodPut, employerPath(personID), nil, in, &out)
	return out, err
}

// DeleteEmployer deletes a person's employer data.
func (c *Client) DeleteEmployer(ctx context.Context, personID string) error {
	return c.Do(ctx, http.MethodDelete, employerPath(personID), nil, nil, nil)
}

// GetEmployee reads a person's employee data.
func (c *Client) GetEmployee(ctx context.Context, personID string) (Employee, error) {
	var out Employee
	err := c.Do(ctx, http.MethodGet, employeePath(personID), nil, nil, &out)
	return out, err
}

// CreateEmployee saves employee data for a person that has none (POST).
func (c *Client) CreateEmployee(ctx context.Context, personID string, in EmployeeInput) (Employee, error) {
	var out Employee
	err := c.Do(ctx, http.MethodPost, employeePath(personID), nil, in, &out)
	return out, err
}

// ReplaceEmployee replaces a person's employee data (PUT).
func (c *Client) ReplaceEmployee(ctx context.Context, personID string, in EmployeeInput) (Employee, error) {
	var out Employee
	err := c.Do(ctx, http.MethodPut, employeePath(personID), nil, in, &out)
	return out, err
}

// DeleteEmployee deletes a person's employee data.
func (c *Client) DeleteEmployee(ctx context.Context, personID string) error {
	return c.Do(ctx, http.MethodDelete, employeePath(personID), nil, nil, nil)
}
