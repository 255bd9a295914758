package storage

import "time"

var (
	bucketEmployers = []byte("employers")
	bucketEmployees = []byte("employees")
)

// Employer is the employer data of a person (spec 2 §2.2), one per person, kept under the
// person's id. Amounts are decimal text, exactly as validated, never a float.
type Employer struct {
	ID                   string    `json:"id"`
	TenantID             string    `json:"tenantId"`
	PersonID             string    `json:"personId"`
	EmployerRegistration string    `json:"employerRegistration"`
	OriginEmployerTin    *string   `json:"originEmployerTin,omitempty"`
	SatFundSourceID      *string   `json:"satFundSourceId,omitempty"`
	OwnResourceAmount    *string   `json:"ownResourceAmount,omitempty"`
	CreatedAt            time.Time `json:"createdAt"`
	UpdatedAt            time.Time `json:"updatedAt"`
}

// Employee is the employee data of a person (spec 2 §2.3), one per person, kept under the
// employee person's id. Amounts are decimal text.
type Employee struct {
	ID                         string    `json:"id"`
	TenantID                   string    `json:"tenantId"`
	EmployeePersonID           string    `json:"employeePersonId"`
	EmployerPersonID           string    `json:"employerPersonId"`
	EmployeeNumber             string    `json:"employeeNumber"`
	SocialSecurityNumber       string    `json:"socialSecurityNumber"`
	LaborRelationStartDate     string    `json:"laborRelationStartDate"` // yyyy-MM-dd
	SatContractTypeID          string    `json:"satContractTypeId"`
	SatTaxRegimeTypeID         string    `json:"satTaxRegimeTypeId"`
	SatWorkdayTypeID           string    `json:"satWorkdayTypeId"`
	SatJobRiskID               string    `json:"satJobRiskId"`
	SatPaymentPeriodicityID    string    `json:"satPaymentPeriodicityId"`
	SatPayrollStateID          string    `json:"satPayrollStateId"`
	Seniority                  string    `json:"seniority"`
	BaseSalaryForContributions string    `json:"baseSalaryForContributions"`
	IntegratedDailySalary      string    `json:"integratedDailySalary"`
	SatBankID                  *string   `json:"satBankId,omitempty"`
	SatUnionizedStatusID       *string   `json:"satUnionizedStatusId,omitempty"`
	Position                   *string   `json:"position,omitempty"`
	Department                 *string   `json:"department,omitempty"`
	BankAccount                *string   `json:"bankAccount,omitempty"`
	SubcontractorRfc           *string   `json:"subcontractorRfc,omitempty"`
	TimePercentage             *string   `json:"timePercentage,omitempty"`
	CreatedAt                  time.Time `json:"createdAt"`
	UpdatedAt                  time.Time `json:"updatedAt"`
}

// Employers is the employer data of the people of one tenant, by person id.
type Employers interface {
	// Get returns the person's employer data, ErrNotFound when it has none.
	Get(personID string) (Employer, error)
	// Put saves the employer data of e.PersonID, replacing what it had.
	Put(e Employer) error
	// Delete removes the person's employer data; absent is not an error.
	Delete(personID string) error
}

// Employees is the employee data of the people of one tenant, by employee person id.
type Employees interface {
	// Get returns the person's employee data, ErrNotFound when it has none.
	Get(personID string) (Employee, error)
	// Put saves the employee data of e.EmployeePersonID, replacing what it had.
	Put(e Employee) error
	// Delete removes the person's employee data; absent is not an error.
	Delete(personID string) error
}

// DeletePersonEmployment deletes the employer and the employee data of a person, in tx: the
// deletion of a person calls it in the same transaction that deletes the person. Absent data
// is not an error.
func DeletePersonEmployment(tx Tx, tenantID, personID string) error {
	if err := tx.Employers(tenantID).Delete(personID); err != nil {
		return err
	}
	return tx.Employees(tenantID).Delete(personID)
}
