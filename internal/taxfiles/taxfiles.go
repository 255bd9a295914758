// Package taxfiles holds the tax files of people (spec 2 §2.5, §3, §4.2): one record per
// certificate (.cer) or private key (.key), what an upload must be, the pairing of a certificate
// with its key (sequence), the default pair that seals by-reference invoices, soft deletion, and
// the texts. Content and password are sealed at rest and leave only through default-values (and
// DefaultPair, for sealing). The owner rule (only the owner manages another person's tax files)
// is auth.ManageCredentialsOf / auth.SeesCredentialsOf.
//
// Choices where the spec is silent:
//   - fileType is read as an integer or as the names the service's clients send
//     (CertificateCsd, PrivateKeyCsd, CertificateFiel, PrivateKeyFiel, and Pfx for 4), ignoring
//     case, or a string holding the integer. Anything else (another name, 1.5, true) is the
//     spec's range failure naming the value as sent; an absent or null fileType is a required
//     failure (apierr.MsgNotNull).
//   - Order: a missing personId is a 400 with the other failures; otherwise the permission
//     check comes first (403), then every 400 of the body in one answer. A personId that is not
//     a person of the tenant fails on PersonId (MsgPersonNotValid).
//   - The person must have an RFC (failure on Tin, MsgPersonWithoutTin) and a certificate's
//     RFC must be the person's, ignoring case (failure on Base64File, MsgCertificateRFC). tin
//     is saved as the person's RFC whatever the case sent.
//   - base64File is standard base64 (padding optional, line breaks and spaces ignored); PEM
//     text is accepted inside it too, as csd reads it.
//   - A certificate must be of the kind its fileType says: a FIEL certificate sent as 0 (or a CSD
//     as 2) fails on FileType naming the right type; a certificate that is neither (a CA's, or one
//     that cannot sign) fails on Base64File. A certificate already expired is refused
//     (MsgCertificateExpired); one not yet valid is accepted and becomes a default candidate
//     when its validity starts.
//   - A key (1, 3) must be an encrypted PKCS#8 key the password opens; wrong password, garbage,
//     an unencrypted key or an unsupported encryption are all the spec's Password failure with
//     attemptedValue null, told apart by errorCode (CodeWrongPassword, CodeKeyNotEncrypted). A
//     key's kind cannot be read from it: it pairs only within its fileType's family (1 with 0,
//     3 with 2).
//   - password is required for keys only; sent with a certificate it is kept (sealed) and
//     answered with that certificate in default-values.
//   - sequence: a file takes the sequence of a current file of the person of the same family
//     with the same public key (its pair, or the same file uploaded again); otherwise the
//     person's highest sequence, deleted files included, plus one. validFrom and validTo of a key
//     are its certificate's, set when either of the two is uploaded; null until then.
//   - certificateNumber (timbra's extension, read-only) is a certificate's 20-digit number, null
//     for a key. base64File and password are empty strings in every answer but default-values,
//     the upload's answer included.
//   - The default pair is CSD only (types 0 and 1): of the person's current certificates valid
//     now, the most recently uploaded one whose key is current; the key is the most recent with
//     its public key. "No current files" means no current CSD file. With current files but no
//     pair: no certificate valid now answers MsgNoCertificate, otherwise MsgNoPrivateKey.
//   - default-values and default-references: the permission check comes first (403 for a
//     non-owner asking for another person, whether or not it exists), then the person (404),
//     its RFC (400), the files.
//   - Delete: absent, already deleted, or another person's for a non-owner all answer 400 with
//     data false and details MsgDeleteAbsent.
package taxfiles

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// Page size limits of the tax file list (spec 1 §8).
const (
	MaxPageSize     = 50
	DefaultPageSize = 10
)

// Service is the tax files area.
type Service struct {
	Store storage.Store
	Keys  *secrets.Keys
	Now   func() time.Time // time.Now when nil

	// KeyCacheSize bounds the opened default pairs kept in memory (keycache.go):
	// DefaultKeyCacheSize when 0; negative keeps none (every DefaultPair opens the key).
	// KeyCacheTTL is how long a pair is kept after it was opened (DefaultKeyCacheTTL when 0).
	KeyCacheSize int
	KeyCacheTTL  time.Duration

	cache keyCache
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// Upload is the body of POST /api/v4/tax-files as read by the server: fileType is kept as sent
// (an integer or a name) so that a value outside the range is named in its failure. Clients
// send api.TaxFileUpload.
type Upload struct {
	PersonID   *string         `json:"personId"`
	Tin        *string         `json:"tin"`
	Base64File *string         `json:"base64File"`
	FileType   json.RawMessage `json:"fileType"`
	Password   *string         `json:"password"`
}

// ContentContext and PasswordContext are the sealing contexts of a file's content and password:
// a sealed value moved to another record does not open.
func ContentContext(tenantID, personID, fileID string) string {
	return "taxfile.content/" + tenantID + "/" + personID + "/" + fileID
}

// PasswordContext: see ContentContext.
func PasswordContext(tenantID, personID, fileID string) string {
	return "taxfile.password/" + tenantID + "/" + personID + "/" + fileID
}

func isCertificate(fileType int) bool {
	return fileType == api.TaxFileCertificateCSD || fileType == api.TaxFileCertificateFIEL
}

// family is 0 for the CSD types (0, 1) and 1 for the e.firma types (2, 3).
func family(fileType int) int { return fileType / 2 }

// ToAPI shows a stored file without its content and password.
func ToAPI(f storage.TaxFile) api.TaxFile {
	out := api.TaxFile{
		ID: f.ID, PersonID: f.PersonID, Tin: f.Tin, FileType: f.FileType, Sequence: f.Sequence,
		CreatedAt: api.FormatAudit(f.CreatedAt), UpdatedAt: api.FormatAudit(f.UpdatedAt),
	}
	if f.ValidFrom != nil {
		v := api.FormatAudit(*f.ValidFrom)
		out.ValidFrom = &v
	}
	if f.ValidTo != nil {
		v := api.FormatAudit(*f.ValidTo)
		out.ValidTo = &v
	}
	if isCertificate(f.FileType) && f.CertificateNumber != "" {
		n := f.CertificateNumber
		out.CertificateNumber = &n
	}
	return out
}

// ParseFileType reads fileType as sent: the value, or the failure on FileType.
func ParseFileType(raw json.RawMessage) (int, *api.Failure) {
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		f := apierr.Field("FileType", fmt.Sprintf(apierr.MsgNotNull, apierr.Words("FileType")), nil, CodeNotNull, apierr.Placeholders("FileType", nil))
		return 0, &f
	}
	var attempted any = text
	shown := text
	value, ok := int64(0), false
	switch text[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			attempted, shown = s, s
			s = strings.TrimSpace(s)
			if i := slices.IndexFunc(api.TaxFileTypeNames, func(n string) bool { return strings.EqualFold(n, s) }); i >= 0 {
				value, ok = int64(i), true
			} else if n, err := strconv.ParseInt(s, 10, 32); err == nil {
				value, ok = n, true
			}
		}
	default:
		if n, err := strconv.ParseInt(text, 10, 32); err == nil {
			value, ok, attempted = n, true, n
		} else if json.Valid(raw) {
			var v any
			_ = json.Unmarshal(raw, &v)
			attempted = v
		}
	}
	if ok && value == api.TaxFilePfx {
		f := apierr.Field("FileType", MsgPfx, attempted, CodePfx, apierr.Placeholders("FileType", attempted))
		return 0, &f
	}
	if !ok || value < 0 || value > api.TaxFilePfx {
		if ok {
			shown = strconv.FormatInt(value, 10)
		}
		f := apierr.Field("FileType", fmt.Sprintf(MsgFileTypeRange, shown), attempted, CodeFileTypeRange, apierr.Placeholders("FileType", attempted))
		return 0, &f
	}
	return int(value), nil
}

// DecodeBase64 reads a file's base64: standard alphabet, padding optional, whitespace ignored.
func DecodeBase64(s string) ([]byte, error) {
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "="))
}

// parsed is what an upload's content turned out to be.
type parsed struct {
	der         []byte
	cert        *csd.Certificate // certificates
	publicKeyID string
}

// checkUpload validates a body against the person (nil when it is not a person of the tenant);
// it returns the failures and, when there are none, the parsed content. It opens the key (slow:
// PBKDF2) and so runs outside any transaction.
func (s *Service) checkUpload(in Upload, person *storage.Person, personID string) (parsed, []api.Failure) {
	var fs []api.Failure
	var out parsed
	add := func(f api.Failure) { fs = append(fs, f) }
	now := s.now()

	var rfc string
	if personID == "" {
		add(apierr.Field("PersonId", fmt.Sprintf(apierr.MsgNotEmpty, apierr.Words("PersonId")), apierr.Attempted(in.PersonID), CodeNotEmpty, apierr.Placeholders("PersonId", apierr.Attempted(in.PersonID))))
	} else if person == nil {
		add(apierr.Field("PersonId", MsgPersonNotValid, personID, CodePersonNotValid, apierr.Placeholders("PersonId", personID)))
	} else if rfc = strings.TrimSpace(api.Deref(person.Tin)); rfc == "" {
		add(apierr.Field("Tin", fmt.Sprintf(MsgPersonWithoutTin, personID), apierr.Attempted(in.Tin), CodePersonWithoutTin, apierr.Placeholders("Tin", apierr.Attempted(in.Tin))))
	} else if tin := strings.TrimSpace(api.Deref(in.Tin)); tin != "" && !strings.EqualFold(tin, rfc) {
		add(apierr.Field("Tin", fmt.Sprintf(MsgTinMismatch, tin, rfc), *in.Tin, CodeTinMismatch, apierr.Placeholders("Tin", *in.Tin)))
	}

	fileType, ftFailure := ParseFileType(in.FileType)
	if ftFailure != nil {
		add(*ftFailure)
	}
	masked := apierr.Masked(in.Base64File)
	if in.Base64File == nil || strings.TrimSpace(*in.Base64File) == "" {
		add(apierr.Field("Base64File", fmt.Sprintf(apierr.MsgNotEmpty, apierr.Words("Base64File")), masked, CodeNotEmpty, apierr.Placeholders("Base64File", masked)))
	} else if der, err := DecodeBase64(*in.Base64File); err != nil {
		var pos base64.CorruptInputError
		errors.As(err, &pos)
		add(apierr.Field("Base64File", fmt.Sprintf(MsgNotBase64, int64(pos)), masked, CodeNotBase64, apierr.Placeholders("Base64File", masked)))
	} else {
		out.der = der
	}
	if ftFailure != nil || out.der == nil { // the content's own failures are enough
		return out, fs
	}

	if isCertificate(fileType) {
		cert, err := csd.ParseCertificate(out.der)
		switch {
		case err != nil:
			add(apierr.Field("Base64File", MsgNotCertificate, masked, CodeNotCertificate, apierr.Placeholders("Base64File", masked)))
		case cert.Kind == csd.KindUnknown:
			add(apierr.Field("Base64File", MsgCertificateNotSAT, masked, CodeCertificateNotSAT, apierr.Placeholders("Base64File", masked)))
		case cert.Kind == csd.KindFIEL && fileType == api.TaxFileCertificateCSD:
			add(apierr.Field("FileType", MsgCertificateIsFIEL, fileType, CodeCertificateKind, apierr.Placeholders("FileType", fileType)))
		case cert.Kind == csd.KindCSD && fileType == api.TaxFileCertificateFIEL:
			add(apierr.Field("FileType", MsgCertificateIsCSD, fileType, CodeCertificateKind, apierr.Placeholders("FileType", fileType)))
		default:
			if now.After(cert.ValidTo) {
				add(apierr.Field("Base64File", fmt.Sprintf(MsgCertificateExpired, api.FormatAudit(cert.ValidTo)), masked, CodeCertificateExpired, apierr.Placeholders("Base64File", masked)))
			}
			if rfc != "" && !strings.EqualFold(cert.RFC, rfc) {
				add(apierr.Field("Base64File", fmt.Sprintf(MsgCertificateRFC, cert.RFC, strings.ToUpper(rfc)), masked, CodeCertificateRFC, apierr.Placeholders("Base64File", masked)))
			}
			out.cert, out.publicKeyID = cert, cert.PublicKeyID()
		}
		return out, fs
	}

	// A key: the password must open it. The failure's attemptedValue is null (spec 1 §7.4).
	key, err := csd.ParsePrivateKey(out.der, []byte(api.Deref(in.Password)))
	if err == nil {
		out.publicKeyID = key.PublicKeyID()
		return out, fs
	}
	code := CodeWrongPassword
	if errors.Is(err, csd.ErrNotEncrypted) {
		code = CodeKeyNotEncrypted
	}
	add(apierr.Field("Password", MsgWrongPassword, nil, code, apierr.Placeholders("Password", nil)))
	return out, fs
}

// Upload saves one certificate or private key of a person (POST /api/v4/tax-files).
func (s *Service) Upload(ctx context.Context, c auth.Caller, in Upload) (api.TaxFile, error) {
	personID := strings.TrimSpace(api.Deref(in.PersonID))
	var person *storage.Person
	if personID != "" {
		if err := auth.ManageCredentialsOf(c, personID); err != nil {
			return api.TaxFile{}, err
		}
		err := s.Store.View(ctx, func(tx storage.Tx) error {
			p, err := tx.People(c.TenantID).Get(personID)
			if err == nil {
				person = &p
			} else if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			return nil
		})
		if err != nil {
			return api.TaxFile{}, err
		}
	}
	content, fs := s.checkUpload(in, person, personID)
	if len(fs) > 0 {
		return api.TaxFile{}, apierr.Invalid(fs...)
	}
	fileType, _ := ParseFileType(in.FileType)
	now := s.now()
	f := storage.TaxFile{
		ID: ids.New(now), PersonID: personID, Tin: strings.TrimSpace(api.Deref(person.Tin)), FileType: fileType,
		PublicKeyID: content.publicKeyID, CreatedAt: now, UpdatedAt: now,
	}
	f.Content = s.Keys.Seal(content.der, ContentContext(c.TenantID, personID, f.ID))
	if pw := api.Deref(in.Password); pw != "" {
		f.Password = s.Keys.Seal([]byte(pw), PasswordContext(c.TenantID, personID, f.ID))
	}
	if cert := content.cert; cert != nil {
		from, to := cert.ValidFrom.UTC(), cert.ValidTo.UTC()
		f.ValidFrom, f.ValidTo, f.CertificateNumber = &from, &to, cert.Number
	}
	var saved storage.TaxFile
	err := s.Store.Batch(ctx, func(tx storage.Tx) error {
		var err error
		saved, err = save(tx, c.TenantID, f)
		return err
	})
	if err != nil {
		return api.TaxFile{}, err
	}
	s.cache.forgetPerson(personKey{c.TenantID, personID}) // the default pair may have changed
	return ToAPI(saved), nil
}

// save writes a new file in tx: its sequence, and the validity shared with its pair. It may run
// more than once (Batch): everything it reads excludes the file itself. It returns the file as
// saved.
func save(tx storage.Tx, tenantID string, f storage.TaxFile) (storage.TaxFile, error) {
	if _, err := tx.People(tenantID).Get(f.PersonID); errors.Is(err, storage.ErrNotFound) {
		return f, apierr.Invalid(apierr.Field("PersonId", MsgPersonNotValid, f.PersonID, CodePersonNotValid, apierr.Placeholders("PersonId", f.PersonID)))
	} else if err != nil {
		return f, err
	}
	files := tx.TaxFiles(tenantID)
	all, err := files.AllByPerson(f.PersonID)
	if err != nil {
		return f, err
	}
	highest := 0
	var updates []storage.TaxFile
	for _, o := range all {
		if o.ID == f.ID {
			continue
		}
		highest = max(highest, o.Sequence)
		if o.Deleted() || family(o.FileType) != family(f.FileType) || o.PublicKeyID != f.PublicKeyID {
			continue
		}
		if f.Sequence == 0 {
			f.Sequence = o.Sequence
		}
		switch {
		case isCertificate(f.FileType) && !isCertificate(o.FileType):
			o.ValidFrom, o.ValidTo, o.UpdatedAt = f.ValidFrom, f.ValidTo, f.CreatedAt
			updates = append(updates, o)
		case !isCertificate(f.FileType) && isCertificate(o.FileType):
			f.ValidFrom, f.ValidTo = o.ValidFrom, o.ValidTo // the most recent certificate's
		}
	}
	if f.Sequence == 0 {
		f.Sequence = highest + 1
	}
	for _, o := range updates {
		if err := files.Put(o); err != nil {
			return f, err
		}
	}
	return f, files.Put(f)
}

// List is GET /api/v4/tax-files: the owner sees every current file of the tenant, anybody else
// only their own.
func (s *Service) List(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.TaxFile], error) {
	var items []storage.TaxFile
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		if c.IsOwner {
			items, total, err = tx.TaxFiles(c.TenantID).List((page-1)*size, size)
		} else {
			items, total, err = tx.TaxFiles(c.TenantID).ListByPerson(c.PersonID, (page-1)*size, size)
		}
		return err
	})
	if err != nil {
		return api.PagedList[api.TaxFile]{}, err
	}
	out := make([]api.TaxFile, len(items))
	for i, f := range items {
		out[i] = ToAPI(f)
	}
	return api.NewPage(out, page, size, total), nil
}

// visible reads a current file the caller may see: ok false when absent, deleted or another
// person's for a non-owner.
func visible(tx storage.Tx, c auth.Caller, id string) (storage.TaxFile, bool, error) {
	f, err := tx.TaxFiles(c.TenantID).Get(id)
	if errors.Is(err, storage.ErrNotFound) {
		return f, false, nil
	}
	if err != nil {
		return f, false, err
	}
	return f, !f.Deleted() && auth.SeesCredentialsOf(c, f.PersonID), nil
}

// Get is GET /api/v4/tax-files/<id>: 404 when absent, deleted or not visible.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.TaxFile, error) {
	var f storage.TaxFile
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var ok bool
		var err error
		if f, ok, err = visible(tx, c, id); err == nil && !ok {
			err = apierr.NotFound(id)
		}
		return err
	})
	if err != nil {
		return api.TaxFile{}, err
	}
	return ToAPI(f), nil
}

// Delete is DELETE /api/v4/tax-files/<id>: a soft delete (storage.TaxFile.SoftDelete). A file
// absent, already deleted or not visible answers 400 with data false.
func (s *Service) Delete(ctx context.Context, c auth.Caller, id string) error {
	now := s.now()
	defer s.cache.forgetFile(c.TenantID, id) // after the commit (or a failure: nothing lost)
	return s.Store.Batch(ctx, func(tx storage.Tx) error {
		f, ok, err := visible(tx, c, id)
		if err != nil {
			return err
		}
		if !ok {
			return &apierr.Error{Status: http.StatusBadRequest, Details: fmt.Sprintf(MsgDeleteAbsent, id), Data: false}
		}
		f.SoftDelete(c.PersonID, now)
		return tx.TaxFiles(c.TenantID).Put(f)
	})
}

// errNoCurrentFiles is the error of defaultPair when the person has no current CSD file.
var errNoCurrentFiles = errors.New("taxfiles: no current files")

// defaultPair finds the person's default pair in tx (see the package comment). It returns
// errNoCurrentFiles, or the *apierr.Error of the spec's table.
func defaultPair(tx storage.Tx, tenantID, personID string, now time.Time) (cert, key storage.TaxFile, err error) {
	p, err := tx.People(tenantID).Get(personID)
	if errors.Is(err, storage.ErrNotFound) {
		return cert, key, apierr.NotFoundText(fmt.Sprintf(MsgPersonAbsent, personID))
	}
	if err != nil {
		return cert, key, err
	}
	if strings.TrimSpace(api.Deref(p.Tin)) == "" {
		return cert, key, apierr.BadRequest(fmt.Sprintf(MsgPersonWithoutTin, personID))
	}
	all, err := tx.TaxFiles(tenantID).AllByPerson(personID)
	if err != nil {
		return cert, key, err
	}
	var certs []storage.TaxFile
	keys := map[string]storage.TaxFile{} // public key → most recent key
	current := 0
	for _, f := range all { // creation order
		if f.Deleted() || family(f.FileType) != 0 {
			continue
		}
		current++
		switch {
		case f.FileType == api.TaxFilePrivateKeyCSD:
			keys[f.PublicKeyID] = f
		case f.ValidFrom != nil && f.ValidTo != nil && !now.Before(*f.ValidFrom) && !now.After(*f.ValidTo):
			certs = append(certs, f)
		}
	}
	if current == 0 {
		return cert, key, errNoCurrentFiles
	}
	for i := len(certs) - 1; i >= 0; i-- {
		if k, ok := keys[certs[i].PublicKeyID]; ok {
			return certs[i], k, nil
		}
	}
	if len(certs) == 0 {
		return cert, key, apierr.NotFoundText(fmt.Sprintf(MsgNoCertificate, personID))
	}
	return cert, key, apierr.NotFoundText(fmt.Sprintf(MsgNoPrivateKey, personID))
}

// defaults runs the checks of default-values and default-references and returns the pair.
func (s *Service) defaults(ctx context.Context, c auth.Caller, personID string) (cert, key storage.TaxFile, err error) {
	if err := auth.ManageCredentialsOf(c, personID); err != nil {
		return cert, key, err
	}
	err = s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		cert, key, err = defaultPair(tx, c.TenantID, personID, s.now())
		return err
	})
	return cert, key, err
}

// open returns a file's content and password in clear.
func (s *Service) open(tenantID string, f storage.TaxFile) (content []byte, password string, err error) {
	content, err = s.Keys.Open(f.Content, ContentContext(tenantID, f.PersonID, f.ID))
	if err != nil {
		return nil, "", fmt.Errorf("tax file %s: content: %w", f.ID, err)
	}
	if len(f.Password) > 0 {
		pw, err := s.Keys.Open(f.Password, PasswordContext(tenantID, f.PersonID, f.ID))
		if err != nil {
			return nil, "", fmt.Errorf("tax file %s: password: %w", f.ID, err)
		}
		password = string(pw)
	}
	return content, password, nil
}

// DefaultValues is GET /api/v4/tax-files/<personId>/default-values: the certificate and the key
// of the default pair with content and password; empty when the person has no current files.
func (s *Service) DefaultValues(ctx context.Context, c auth.Caller, personID string) ([]api.TaxFile, error) {
	cert, key, err := s.defaults(ctx, c, personID)
	if errors.Is(err, errNoCurrentFiles) {
		return []api.TaxFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]api.TaxFile, 0, 2)
	for _, f := range []storage.TaxFile{cert, key} {
		content, password, err := s.open(c.TenantID, f)
		if err != nil {
			return nil, err
		}
		a := ToAPI(f)
		a.Base64File, a.Password = base64.StdEncoding.EncodeToString(content), password
		out = append(out, a)
	}
	return out, nil
}

// DefaultReferences is GET /api/v4/tax-files/<personId>/default-references: the default pair
// without content or password; 404 when the person has no current files.
func (s *Service) DefaultReferences(ctx context.Context, c auth.Caller, personID string) ([]api.TaxFile, error) {
	cert, key, err := s.defaults(ctx, c, personID)
	if errors.Is(err, errNoCurrentFiles) {
		return nil, apierr.NotFoundText(fmt.Sprintf(MsgNoCurrentFiles, personID))
	}
	if err != nil {
		return nil, err
	}
	return []api.TaxFile{ToAPI(cert), ToAPI(key)}, nil
}

// DefaultPair opens a person's default pair to seal an invoice: the certificate and its key.
// Errors are those of default-references (the *apierr.Error of the spec's table); the caller
// checks who may seal for the person. The pair is selected from the database on every call; an
// opened pair of the same files is taken from memory when kept (keycache.go).
// The caller runs the Release when it has signed: the key is zeroed once the cache has dropped it
// and nobody uses it.
func (s *Service) DefaultPair(ctx context.Context, tenantID, personID string) (*csd.Certificate, *csd.PrivateKey, Release, error) {
	var certFile, keyFile storage.TaxFile
	now := s.now()
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		certFile, keyFile, err = defaultPair(tx, tenantID, personID, now)
		return err
	})
	if err != nil {
		s.cache.forgetPerson(personKey{tenantID, personID})
	}
	if errors.Is(err, errNoCurrentFiles) {
		return nil, nil, nil, apierr.NotFoundText(fmt.Sprintf(MsgNoCurrentFiles, personID))
	}
	if err != nil {
		return nil, nil, nil, err
	}
	size, ttl := s.keyCacheSize(), s.keyCacheTTL()
	k := newPairKey(tenantID, personID, certFile, keyFile)
	if size > 0 {
		if cert, key, release, ok := s.cache.get(k, now, ttl); ok {
			return cert, key, release, nil
		}
	}
	cert, key, err := s.openPair(tenantID, certFile, keyFile)
	if err != nil {
		return nil, nil, nil, err
	}
	if size > 0 {
		return cert, key, s.cache.put(k, cert, key, now, size, ttl), nil
	}
	return cert, key, notKept(key), nil
}

// openPair opens and checks the files of a pair: the slow part of DefaultPair.
func (s *Service) openPair(tenantID string, certFile, keyFile storage.TaxFile) (*csd.Certificate, *csd.PrivateKey, error) {
	der, _, err := s.open(tenantID, certFile)
	if err != nil {
		return nil, nil, err
	}
	cert, err := csd.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("tax file %s: %w", certFile.ID, err)
	}
	der, password, err := s.open(tenantID, keyFile)
	if err != nil {
		return nil, nil, err
	}
	s.cache.opens.Add(1)
	key, err := csd.ParsePrivateKey(der, []byte(password))
	if err != nil {
		return nil, nil, fmt.Errorf("tax file %s: %w", keyFile.ID, err)
	}
	if !cert.Matches(key) {
		return nil, nil, fmt.Errorf("tax files %s and %s do not pair", certFile.ID, keyFile.ID)
	}
	return cert, key, nil
}
