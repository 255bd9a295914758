package storage

func (t boltTx) Employers(tenantID string) Employers {
	return boltEmployers{records[Employer]{b: t.bucket(bucketEmployers), tenant: tenantID}}
}

func (t boltTx) Employees(tenantID string) Employees {
	return boltEmployees{records[Employee]{b: t.bucket(bucketEmployees), tenant: tenantID}}
}

type boltEmployers struct{ records[Employer] }

func (e boltEmployers) Get(personID string) (Employer, error) { return e.get(personID) }

func (e boltEmployers) Put(v Employer) error {
	v.TenantID = e.tenant
	return e.put(v.PersonID, v)
}

func (e boltEmployers) Delete(personID string) error { return e.del(personID) }

type boltEmployees struct{ records[Employee] }

func (e boltEmployees) Get(personID string) (Employee, error) { return e.get(personID) }

func (e boltEmployees) Put(v Employee) error {
	v.TenantID = e.tenant
	return e.put(v.EmployeePersonID, v)
}

func (e boltEmployees) Delete(personID string) error { return e.del(personID) }
