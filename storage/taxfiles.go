package storage

import "time"

var (
	bucketTaxFiles         = []byte("taxfiles")
	bucketTaxFilesByPerson = []byte("taxfiles_by_person")
	bucketTaxFilesCurrent  = []byte("taxfiles_current")
)

// TaxFile is one certificate or private key of a person (spec 2 §2.5) as stored. Content and
// Password are sealed (the taxfiles package seals them); both are nil once the file is deleted.
// A deleted file keeps its type, RFC, validity and who deleted it and when (spec 2 §3), and is
// in no query but Get and AllByPerson.
type TaxFile struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	PersonID string `json:"personId"`
	Tin      string `json:"tin"`
	FileType int    `json:"fileType"`
	Content  []byte `json:"content,omitempty"`  // sealed
	Password []byte `json:"password,omitempty"` // sealed
	// PublicKeyID is the hex SHA-256 of the public key (csd), shared by a certificate and its
	// key: what pairs them.
	PublicKeyID string `json:"publicKeyId"`
	// CertificateNumber is a certificate's 20-digit number; empty for a key.
	CertificateNumber string `json:"certificateNumber,omitempty"`
	// ValidFrom and ValidTo are a certificate's validity; a key takes its certificate's when
	// one is uploaded, and has none until then.
	ValidFrom *time.Time `json:"validFrom,omitempty"`
	ValidTo   *time.Time `json:"validTo,omitempty"`
	Sequence  int        `json:"sequence"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	DeletedAt *time.Time `json:"deletedAt,omitempty"`
	DeletedBy string     `json:"deletedBy,omitempty"` // person id of who deleted it
}

// Deleted tells whether the file was deleted.
func (f TaxFile) Deleted() bool { return f.DeletedAt != nil }

// SoftDelete is the one rule of a tax file's deletion (spec 2 §3): content and password erased,
// the record kept with who deleted it and when.
func (f *TaxFile) SoftDelete(by string, at time.Time) {
	f.Content, f.Password = nil, nil
	f.DeletedAt, f.DeletedBy, f.UpdatedAt = &at, by, at
}

// TaxFiles is the tax files of one tenant.
type TaxFiles interface {
	// Get returns a file, current or deleted; ErrNotFound when absent.
	Get(id string) (TaxFile, error)
	// Put saves a file and its indexes (a deleted file leaves the current index).
	Put(f TaxFile) error
	// List returns the tenant's current files in creation order from offset, at most limit,
	// and how many there are.
	List(offset, limit int) ([]TaxFile, int, error)
	// ListByPerson is List for the current files of one person.
	ListByPerson(personID string, offset, limit int) ([]TaxFile, int, error)
	// AllByPerson returns every file of a person, deleted ones too, in creation order.
	AllByPerson(personID string) ([]TaxFile, error)
}

// DeletePersonTaxFiles soft-deletes every current tax file of a person, in tx: the deletion of a
// person calls it in the same transaction that deletes the person. by is the person who deleted.
func DeletePersonTaxFiles(tx Tx, tenantID, personID, by string, at time.Time) error {
	files := tx.TaxFiles(tenantID)
	all, err := files.AllByPerson(personID)
	if err != nil {
		return err
	}
	for _, f := range all {
		if f.Deleted() {
			continue
		}
		f.SoftDelete(by, at)
		if err := files.Put(f); err != nil {
			return err
		}
	}
	return nil
}
