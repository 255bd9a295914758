package storage

func (t collections) Employers(tenantID string) Employers {
	return kvEmployers{records[Employer]{b: t.bucket(bucketEmployers), tenant: tenantID}}
}

func (t collections) Employees(tenantID string) Employees {
	return kvEmployees{records[Employee]{b: t.bucket(bucketEmployees), tenant: tenantID}}
}

type kvEmployers struct{ records[Employer] }

func (e kvEmployers) Get(personID string) (Employer, error) { return e.get(personID) }

func (e kvEmployers) Put(v Employer) error {
	v.TenantID = e.tenant
	return e.put(v.PersonID, v)
}

func (e kvEmployers) Delete(personID string) error { return e.del(personID) }

type kvEmployees struct{ records[Employee] }

func (e kvEmployees) Get(personID string) (Employee, error) { return e.get(personID) }

func (e kvEmployees) Put(v Employee) error {
	v.TenantID = e.tenant
	return e.put(v.EmployeePersonID, v)
}

func (e kvEmployees) Delete(personID string) error { return e.del(personID) }
