package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// newPeopleFixture is a fixture with the mini SAT catalogs and a cheap password hash (argon2id
// costs 64 MB and tens of milliseconds per hash; TestPersonPasswordIsHashed checks the real one).
func newPeopleFixture(t *testing.T) *fixture {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	f.srv.people.HashPassword = func(p string) string { return "test-hash:" + fmt.Sprint(len(p)) }
	return f
}

// as returns the headers that make a request act for the holder of creds.
func as(c api.Credentials) []string {
	return []string{"X-TENANT-KEY", c.TenantKey, "X-API-KEY", c.APIKey}
}

// person decodes the person of a successful answer.
func person(t *testing.T, r result) api.Person {
	t.Helper()
	if r.status != 200 || !r.env.Succeeded {
		t.Fatalf("want 200, got %d %s", r.status, r.raw)
	}
	var p api.Person
	if err := json.Unmarshal(r.env.Data, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// createPerson creates a person acting as creds and returns it.
func (f *fixture) createPerson(creds api.Credentials, email string, extra ...string) api.Person {
	f.t.Helper()
	body := fmt.Sprintf(`{"legalName":"Persona %s","email":%q,"password":"Clave#123"%s}`, email, email, strings.Join(extra, ""))
	return person(f.t, f.do("POST", "/api/v4/people", body, as(creds)...))
}

// keyFor makes an API key for a person (acting as the owner of creds) and returns the
// credentials of that person.
func (f *fixture) keyFor(owner api.Credentials, personID string) api.Credentials {
	f.t.Helper()
	r := f.do("POST", "/api/v4/apikeys", fmt.Sprintf(`{"personId":%q}`, personID), as(owner)...)
	var k api.APIKey
	if r.status != 200 || json.Unmarshal(r.env.Data, &k) != nil {
		f.t.Fatalf("api key: %s", r.raw)
	}
	return api.Credentials{TenantKey: owner.TenantKey, APIKey: k.APIKeyValue, PersonID: personID}
}

func expectStatus(t *testing.T, r result, status int, details string) {
	t.Helper()
	if r.status != status || r.env.Succeeded || r.env.Details != details {
		t.Fatalf("want %d %q, got %d %s", status, details, r.status, r.raw)
	}
}

func failureOn(t *testing.T, r result, property string) api.Failure {
	t.Helper()
	if r.status != 400 {
		t.Fatalf("want 400, got %d %s", r.status, r.raw)
	}
	for _, f := range failures(t, r) {
		if f.PropertyName == property {
			return f
		}
	}
	t.Fatalf("no failure on %s in %s", property, r.raw)
	return api.Failure{}
}

// TestCreatePersonErrors is the create-errors table of spec 2 §4.3, with the required fields and
// the limits of spec 1 §8, each failure's text, errorCode and attemptedValue (masked, §7.4).
func TestCreatePersonErrors(t *testing.T) {
	f := newPeopleFixture(t)
	f.createPerson(f.creds, "taken@example.com")
	allowed := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._@+"
	rule := "Passwords must be at least 6 characters and have at least one uppercase ('A'-'Z'), one lowercase ('a'-'z'), one digit ('0'-'9') and one non alphanumeric character." // English, as spec 1 §7.4 says of the password rule
	base := map[string]any{"legalName": "Ana", "email": "ana@example.com", "password": "Clave#123"}
	cases := []struct {
		name      string
		set       map[string]any
		property  string
		message   string
		code      any // string, or nil for a null errorCode
		attempted any
	}{
		{"email of another person, other case and spaces", map[string]any{"email": "  TAKEN@Example.com "}, "Email",
			"The email is already registered.", "DuplicateEmail", "TAKEN@Example.com"},
		{"email with ñ", map[string]any{"email": "niño@example.com"}, "Email",
			"The email contains characters that are not allowed: 'ñ'. Allowed characters: " + allowed, "InvalidUserName", "niño@example.com"},
		{"email with several bad characters", map[string]any{"email": "a b,c@example.com"}, "Email",
			"The email contains characters that are not allowed: ' ', ','. Allowed characters: " + allowed, "InvalidUserName", "a b,c@example.com"},
		{"password too short", map[string]any{"password": "Ab1#"}, "Password", rule, "PasswordTooShort", nil},
		{"password without upper", map[string]any{"password": "clave#123"}, "Password", rule, "PasswordRequiresUpper", nil},
		{"password without lower", map[string]any{"password": "CLAVE#123"}, "Password", rule, "PasswordRequiresLower", nil},
		{"password without digit", map[string]any{"password": "Clave#abc"}, "Password", rule, "PasswordRequiresDigit", nil},
		{"password without other character", map[string]any{"password": "Clave1234"}, "Password", rule, "PasswordRequiresNonAlphanumeric", nil},
		{"accented capital is not upper case", map[string]any{"password": "ñandú#123"}, "Password", rule, "PasswordRequiresUpper", nil},
		{"short and no upper: the first unmet", map[string]any{"password": "ab"}, "Password", rule, "PasswordTooShort", nil},
		{"tax regime not in catalog", map[string]any{"satTaxRegimeId": "999"}, "SatTaxRegimeId",
			"El régimen fiscal '999' no existe en el catálogo c_RegimenFiscal del SAT.", nil, "999"},
		{"CFDI use not in catalog", map[string]any{"satCfdiUseId": "Z99"}, "SatCfdiUseId",
			"El uso de CFDI 'Z99' no existe en el catálogo c_UsoCFDI del SAT.", nil, "Z99"},
		{"user type T", map[string]any{"userTypeId": "T"}, "UserTypeId",
			"UserTypeId debe ser uno de: C, U. 'T' está reservado y solo se permite cuando la persona ya es Tenant.", nil, "T"},
		{"user type X", map[string]any{"userTypeId": "X"}, "UserTypeId",
			"UserTypeId debe ser uno de: C, U. 'T' está reservado y solo se permite cuando la persona ya es Tenant.", nil, "X"},
		{"country not in catalog", map[string]any{"countryId": "XXX"}, "CountryId",
			"El país 'XXX' no existe en el catálogo c_Pais del SAT.", nil, "XXX"},
		{"legal name missing", map[string]any{"legalName": nil}, "LegalName", "'Legal Name' no debería estar vacío.", "NotEmptyValidator", nil},
		{"legal name blank", map[string]any{"legalName": "  "}, "LegalName", "'Legal Name' no debería estar vacío.", "NotEmptyValidator", "  "},
		{"email missing", map[string]any{"email": nil}, "Email", "'Email' no debería estar vacío.", "NotEmptyValidator", nil},
		{"password missing", map[string]any{"password": nil}, "Password", "'Password' no debería estar vacío.", "NotEmptyValidator", nil},
		{"password empty", map[string]any{"password": ""}, "Password", "'Password' no debería estar vacío.", "NotEmptyValidator", "[masked: 0]"},
		{"tin of 30 February", map[string]any{"tin": "gode000230ab1"}, "Tin",
			"El RFC 'GODE000230AB1' no es válido: su fecha 000230 (AAMMDD) no existe en el calendario.", "InvalidFormat", "gode000230ab1"},
		{"tin of 29 February of a common year", map[string]any{"tin": "GOD990229AB1"}, "Tin",
			"El RFC 'GOD990229AB1' no es válido: su fecha 990229 (AAMMDD) no existe en el calendario.", "InvalidFormat", "GOD990229AB1"},
		{"tin of month 13", map[string]any{"tin": "EKU9013173C9"}, "Tin", "El RFC 'EKU9013173C9' no tiene un formato válido.", "InvalidFormat", "EKU9013173C9"},
		{"tin of day 32", map[string]any{"tin": "EKU9003323C9"}, "Tin", "El RFC 'EKU9003323C9' no tiene un formato válido.", "InvalidFormat", "EKU9003323C9"},
		{"tin that is no RFC", map[string]any{"tin": "ABC"}, "Tin", "El RFC 'ABC' no tiene un formato válido.", "InvalidFormat", "ABC"},
		{"tin with spaces", map[string]any{"tin": " EKU9003173C9"}, "Tin", "El RFC ' EKU9003173C9' no tiene un formato válido.", "InvalidFormat", " EKU9003173C9"},
		{"foreign TIN not in the format c_Pais gives the country", map[string]any{"countryId": "USA", "foreignTin": "12-3456789"}, "ForeignTin",
			"El número de registro de identidad tributaria '12-3456789' no tiene el formato que el catálogo c_Pais del SAT da para el país USA: [0-9]{9}.", "InvalidFormat", "12-3456789"},
		{"foreign TIN over 40", map[string]any{"foreignTin": strings.Repeat("9", 41)}, "ForeignTin",
			"'Foreign Tin' debe ser menor o igual que 40 caracteres. Ingresó 41 caracteres.", "MaximumLengthValidator", strings.Repeat("9", 41)},
		{"email over 256 (longer than the store can key)", map[string]any{"email": strings.Repeat("a", 40000) + "@example.com"}, "Email",
			"'Email' debe ser menor o igual que 256 caracteres. Ingresó 40012 caracteres.", "MaximumLengthValidator", strings.Repeat("a", 40000) + "@example.com"},
		{"tax password over 24", map[string]any{"taxPassword": strings.Repeat("s", 25)}, "TaxPassword",
			"'Tax Password' debe ser menor o igual que 24 caracteres. Ingresó 25 caracteres.", "MaximumLengthValidator", "[masked: 25]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := map[string]any{}
			for k, v := range base {
				body[k] = v
			}
			for k, v := range c.set {
				if v == nil {
					delete(body, k)
				} else {
					body[k] = v
				}
			}
			raw, _ := json.Marshal(body)
			r := f.do("POST", "/api/v4/people", string(raw))
			expectFailure(t, r, c.property, c.message)
			fail := failureOn(t, r, c.property)
			var code any
			if fail.ErrorCode != nil {
				code = *fail.ErrorCode
			}
			if code != c.code || fail.AttemptedValue != c.attempted || fail.Severity != 0 || fail.CustomState != nil {
				t.Fatalf("failure = %+v", fail)
			}
			if len(failures(t, r)) != 1 {
				t.Fatalf("want one failure: %s", r.raw)
			}
			if s, ok := body["password"].(string); ok && len(s) > 2 && strings.Contains(r.raw, s) {
				t.Fatal("the password is echoed")
			}
			if s, ok := body["taxPassword"].(string); ok && strings.Contains(r.raw, s) {
				t.Fatal("the tax password is echoed")
			}
		})
	}
	// a rejected create creates nothing
	r := f.do("GET", "/api/v4/people", "")
	var page api.PagedList[api.Person]
	json.Unmarshal(r.env.Data, &page)
	if page.TotalCount != 2 {
		t.Fatalf("people after rejected creates: %d", page.TotalCount)
	}
	// several problems at once: one failure each
	r = f.do("POST", "/api/v4/people", `{"email":"ñ@x.mx","password":"abc","userTypeId":"T","taxPassword":"`+strings.Repeat("x", 30)+`"}`)
	props := map[string]bool{}
	for _, fl := range failures(t, r) {
		props[fl.PropertyName] = true
	}
	if len(props) != 5 || !props["LegalName"] || !props["Email"] || !props["Password"] || !props["UserTypeId"] || !props["TaxPassword"] {
		t.Fatalf("failures: %s", r.raw)
	}
	// parsing failures never echo a secret either
	r = f.do("POST", "/api/v4/people", `{"legalName":"Ana","email":"ana@example.com","password":12345}`)
	expectFailure(t, r, "$.password", "The JSON value could not be converted to a string. Path: $.password | LineNumber: 0 | BytePositionInLine: 61.")
}

func TestCreatePersonAnswerAndExpandedRecords(t *testing.T) {
	f := newPeopleFixture(t)
	r := f.do("POST", "/api/v4/people", `{"legalName":"  Escuela Kemper Urgate ","email":"  Kemper@Example.com ","password":"Clave#123",
		"phoneNumber":"5555555555","satTaxRegimeId":"601","satCfdiUseId":"G01","tin":"EKU9003173C9","curp":null,"zipCode":"42501",
		"countryId":"MEX","foreignTin":"","base64Photo":"iVBOR","taxPassword":"12345678a","id":"chosen-by-client",
		"availableBalance":99,"availableValidationBalance":99,"committedBalance":5,"tenantId":"other","isOwner":true,
		"balances":[{"creditType":1,"available":7}],"manifestStatusId":"Signed","capitalRegime":"SA de CV"}`)
	p := person(t, r)
	if p.ID == "chosen-by-client" || p.LegalName != "Escuela Kemper Urgate" || p.Email != "Kemper@Example.com" || p.UserTypeID != "C" ||
		p.ManifestStatusID != "NotInvited" || p.IsOwner || p.TenantID != f.creds.TenantKey || p.AvailableBalance != 0 ||
		p.AvailableValidationBalance != 0 || p.CommittedBalance != 0 || len(p.Balances) != 0 || p.Password != nil {
		t.Fatalf("created = %s", r.raw)
	}
	if deref(p.SatTaxRegimeID) != "601" || deref(p.SatCfdiUseID) != "G01" || deref(p.CountryID) != "MEX" || p.ForeignTin != nil ||
		p.Curp != nil || deref(p.TaxPassword) != "12345678a" || p.CreatedAt == "" || p.CreatedAt != p.UpdatedAt {
		t.Fatalf("created = %s", r.raw)
	}
	if p.SatTaxRegime != nil || p.SatCfdiUse != nil || p.UserType != nil || p.ManifestStatus != nil || p.Country != nil {
		t.Fatalf("expanded records in a create answer: %s", r.raw)
	}
	if !strings.Contains(r.raw, `"balances":[]`) || !strings.Contains(r.raw, `"satTaxRegime":null`) {
		t.Fatalf("shape: %s", r.raw)
	}
	want := map[string]string{"SatTaxRegime": "601 General de Ley Personas Morales", "SatCfdiUse": "G01 Adquisición de mercancías.",
		"UserType": "C Cliente", "ManifestStatus": "NotInvited Sin invitación a firmar la carta manifiesto", "Country": "MEX México"}
	check := func(where string, got api.Person) {
		t.Helper()
		for name, rec := range map[string]*api.CatalogRecord{"SatTaxRegime": got.SatTaxRegime, "SatCfdiUse": got.SatCfdiUse,
			"UserType": got.UserType, "ManifestStatus": got.ManifestStatus, "Country": got.Country} {
			if rec == nil || rec.ID+" "+rec.Description != want[name] {
				t.Errorf("%s: %s = %+v", where, name, rec)
			}
		}
	}
	check("get", person(t, f.do("GET", "/api/v4/people/"+p.ID, "")))
	r = f.do("GET", "/api/v4/people", "")
	var page api.PagedList[api.Person]
	json.Unmarshal(r.env.Data, &page)
	if len(page.Items) != 2 || page.Items[1].ID != p.ID {
		t.Fatalf("list: %s", r.raw)
	}
	check("list", page.Items[1])
	if page.Items[0].UserType == nil || page.Items[0].UserType.ID != "T" || page.Items[0].SatTaxRegime != nil {
		t.Fatalf("owner expanded: %+v", page.Items[0])
	}
	// the private key password: to the person and the owner only
	other := f.keyFor(f.creds, f.createPerson(f.creds, "otra@example.com").ID)
	if got := person(t, f.do("GET", "/api/v4/people/"+p.ID, "", as(other)...)); got.TaxPassword != nil {
		t.Fatalf("another person sees the tax password: %+v", got)
	}
	self := f.keyFor(f.creds, p.ID)
	if got := person(t, f.do("GET", "/api/v4/people/"+p.ID, "", as(self)...)); deref(got.TaxPassword) != "12345678a" {
		t.Fatalf("the person does not see its tax password: %+v", got)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestPersonPasswordIsHashed(t *testing.T) {
	f := newFixture(t)
	p := person(t, f.do("POST", "/api/v4/people", `{"legalName":"Ana","email":"ana@example.com","password":"Clave#123","taxPassword":"12345678a"}`))
	err := f.srv.people.Store.View(context.Background(), func(tx storage.Tx) error {
		got, err := tx.People(f.creds.TenantKey).Get(p.ID)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(got.PasswordHash, "$argon2id$") || !secrets.CheckPassword(got.PasswordHash, "Clave#123") {
			t.Errorf("hash = %q", got.PasswordHash)
		}
		if strings.Contains(string(got.TaxPassword), "12345678a") {
			t.Error("the tax password is stored in clear")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPeopleWithoutCatalogs(t *testing.T) {
	f := newFixture(t)
	f.srv.people.HashPassword = func(string) string { return "x" }
	// list and get answer; the SAT records are null, timbra's own are filled
	p := person(t, f.do("POST", "/api/v4/people", `{"legalName":"Ana","email":"ana@example.com","password":"Clave#123"}`))
	got := person(t, f.do("GET", "/api/v4/people/"+p.ID, ""))
	if got.UserType == nil || got.UserType.Description != "Cliente" || got.ManifestStatus == nil || got.SatTaxRegime != nil {
		t.Fatalf("get = %+v", got)
	}
	if r := f.do("GET", "/api/v4/people", ""); r.status != 200 {
		t.Fatalf("list: %s", r.raw)
	}
	// a SAT id on create or update cannot be checked: 503, nothing written
	for _, body := range []string{`"satTaxRegimeId":"601"`, `"satCfdiUseId":"G01"`, `"countryId":"MEX"`} {
		r := f.do("POST", "/api/v4/people", `{"legalName":"Bea","email":"bea@example.com","password":"Clave#123",`+body+`}`)
		if r.status != http.StatusServiceUnavailable || r.env.Succeeded || !strings.Contains(r.env.Details, "timbra catalogs import") {
			t.Fatalf("create %s: %s", body, r.raw)
		}
		r = f.do("PUT", "/api/v4/people/"+p.ID, `{`+body+`}`)
		if r.status != http.StatusServiceUnavailable {
			t.Fatalf("update %s: %s", body, r.raw)
		}
	}
	var page api.PagedList[api.Person]
	json.Unmarshal(f.do("GET", "/api/v4/people", "").env.Data, &page)
	if page.TotalCount != 2 {
		t.Fatalf("people = %d", page.TotalCount)
	}
}

func TestUpdatePerson(t *testing.T) {
	f := newPeopleFixture(t)
	p := f.createPerson(f.creds, "ana@example.com", `,"tin":"EKU9003173C9","countryId":"USA","taxPassword":"uno"`)
	// only what is sent changes; the answer has no expanded records
	r := f.do("PUT", "/api/v4/people/"+p.ID, `{"id":"`+p.ID+`","phoneNumber":"5512345678","satTaxRegimeId":"626","userTypeId":"U","availableBalance":5}`)
	got := person(t, r)
	if deref(got.PhoneNumber) != "5512345678" || deref(got.SatTaxRegimeID) != "626" || got.UserTypeID != "U" || deref(got.Tin) != "EKU9003173C9" ||
		got.LegalName != p.LegalName || got.AvailableBalance != 0 || got.SatTaxRegime != nil || got.CreatedAt != p.CreatedAt {
		t.Fatalf("updated = %s", r.raw)
	}
	// an empty string clears an optional field
	if got = person(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"tin":"","taxPassword":""}`)); got.Tin != nil || got.TaxPassword != nil {
		t.Fatalf("cleared = %+v", got)
	}
	// the whole person as read back (what a client that reads then writes sends) is accepted
	full := f.do("GET", "/api/v4/people/"+p.ID, "")
	if r = f.do("PUT", "/api/v4/people/"+p.ID, string(full.env.Data)); r.status != 200 {
		t.Fatalf("put what get answered: %s", r.raw)
	}
	// ids must agree; the checks of create apply
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"id":"other"}`), "id", "IDs mismatches")
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"legalName":""}`), "LegalName", "'Legal Name' no debería estar vacío.")
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"satCfdiUseId":"Z99"}`), "SatCfdiUseId", "El uso de CFDI 'Z99' no existe en el catálogo c_UsoCFDI del SAT.")
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"countryId":"ZZZ"}`), "CountryId", "El país 'ZZZ' no existe en el catálogo c_Pais del SAT.")
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"userTypeId":"T"}`), "UserTypeId", "UserTypeId debe ser uno de: C, U. 'T' está reservado y solo se permite cuando la persona ya es Tenant.")
	fl := failureOn(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"password":"weak"}`), "Password")
	if fl.AttemptedValue != nil || *fl.ErrorCode != "PasswordTooShort" {
		t.Fatalf("password failure = %+v", fl)
	}
	// an empty password changes nothing; a new email is checked and must be free
	if r = f.do("PUT", "/api/v4/people/"+p.ID, `{"password":""}`); r.status != 200 {
		t.Fatalf("empty password: %s", r.raw)
	}
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"email":"OWNER@example.com"}`), "Email", "The email is already registered.")
	if got = person(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"email":" ana.nueva@example.com "}`)); got.Email != "ana.nueva@example.com" {
		t.Fatalf("email = %q", got.Email)
	}
	// the old email is free again
	f.createPerson(f.creds, "ana@example.com")
	// the owner keeps type T, and may send it back
	owner := person(t, f.do("PUT", "/api/v4/people/"+f.creds.PersonID, `{"userTypeId":"T","legalName":"Dueña"}`))
	if owner.UserTypeID != "T" || owner.LegalName != "Dueña" || !owner.IsOwner {
		t.Fatalf("owner = %+v", owner)
	}
	if r = f.do("PUT", "/api/v4/people/nope", `{"legalName":"X"}`); r.status != 404 || r.env.Details != "No such resource for the given Id: nope" {
		t.Fatalf("absent: %s", r.raw)
	}
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, ``), "$", "El cuerpo de la petición es requerido y no debe estar vacío.")
}

// TestPersonTin: a person's RFC is checked on create and on update (TestCreatePersonErrors has
// the failures); 29 February of a leap year, lower case, SAT's generic RFCs and real RFCs whose
// check digit SAT's algorithm does not give are accepted; a tin saved before the rule stays
// until it changes (issue 25, item 6).
func TestPersonTin(t *testing.T) {
	f := newPeopleFixture(t)
	for i, tin := range []string{"GODE000229AB1", "eku9003173c9", "XAXX010101000", "XEXX010101000", "BSM970519DU8", "AAA010101AAA", "MCI7306249Y1", "AÑÑ801231JK0", "A&A050908GT0"} {
		if p := f.createPerson(f.creds, fmt.Sprintf("tin%d@example.com", i), `,"tin":"`+tin+`"`); deref(p.Tin) != tin {
			t.Fatalf("tin %q saved as %q", tin, deref(p.Tin))
		}
	}
	p := f.createPerson(f.creds, "ana@example.com", `,"tin":"EKU9003173C9"`)
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"tin":"EKU900431XX1"}`), "Tin",
		"El RFC 'EKU900431XX1' no es válido: su fecha 900431 (AAMMDD) no existe en el calendario.")
	stale := "GODE560431AB1"
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		sp, err := tx.People(f.creds.TenantKey).Get(p.ID)
		if err != nil {
			return err
		}
		sp.Tin = &stale
		return tx.People(f.creds.TenantKey).Put(sp)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := person(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"tin":"GODE560431AB1","phoneNumber":"5512345678"}`)); deref(got.PhoneNumber) != "5512345678" {
		t.Fatalf("an update sending the saved tin: %+v", got)
	}
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"tin":"gode560431ab1"}`), "Tin",
		"El RFC 'GODE560431AB1' no es válido: su fecha 560431 (AAMMDD) no existe en el calendario.")
	if got := person(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"tin":"GODE560430AB1"}`)); deref(got.Tin) != "GODE560430AB1" {
		t.Fatalf("tin = %q", deref(got.Tin))
	}
}

// TestPersonForeignTin: foreignTin has the format c_Pais gives its country, when it gives one
// (USA and CAN nine digits), checked on create and when the number or the country changes;
// without catalogs such a write is the 503 of the other catalog checks (issue 25, item 6).
func TestPersonForeignTin(t *testing.T) {
	f := newPeopleFixture(t)
	msg := "El número de registro de identidad tributaria '%s' no tiene el formato que el catálogo c_Pais del SAT da para el país %s: [0-9]{9}."
	us := f.createPerson(f.creds, "us@example.com", `,"countryId":"USA","foreignTin":"123456789"`)
	f.createPerson(f.creds, "de@example.com", `,"countryId":"DEU","foreignTin":"DE 123/456/78901"`) // c_Pais gives Germany no format
	f.createPerson(f.creds, "none@example.com", `,"foreignTin":"12-3456789"`)                       // no country, nothing to check against
	expectFailure(t, f.do("PUT", "/api/v4/people/"+us.ID, `{"foreignTin":"1234567890"}`), "ForeignTin", fmt.Sprintf(msg, "1234567890", "USA"))
	// a new country checks the saved number
	p := f.createPerson(f.creds, "moves@example.com", `,"countryId":"DEU","foreignTin":"DE123456789X"`)
	expectFailure(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"countryId":"CAN"}`), "ForeignTin", fmt.Sprintf(msg, "DE123456789X", "CAN"))
	if got := person(t, f.do("PUT", "/api/v4/people/"+p.ID, `{"countryId":"CAN","foreignTin":"987654321"}`)); deref(got.CountryID) != "CAN" || deref(got.ForeignTin) != "987654321" {
		t.Fatalf("moved = %+v", got)
	}
	// cleared, the country checks nothing
	if r := f.do("PUT", "/api/v4/people/"+us.ID, `{"foreignTin":"","countryId":"USA"}`); r.status != 200 {
		t.Fatalf("cleared: %s", r.raw)
	}

	bare := newFixture(t)
	bare.srv.people.HashPassword = func(string) string { return "x" }
	r := bare.do("POST", "/api/v4/people", `{"legalName":"Bea","email":"bea@example.com","password":"Clave#123","foreignTin":"123456789"}`)
	if r.status != 200 {
		t.Fatalf("a foreign number without a country needs no catalog: %s", r.raw)
	}
	if r := bare.do("PUT", "/api/v4/people/"+person(t, r).ID, `{"foreignTin":"987654321"}`); r.status != 200 {
		t.Fatalf("nor on update: %s", r.raw)
	}
}

// TestPersonOwnerRules: two people of a tenant (the owner and another) and a second tenant.
func TestPersonOwnerRules(t *testing.T) {
	f := newPeopleFixture(t)
	owner := f.creds
	ana := f.keyFor(owner, f.createPerson(owner, "ana@example.com", `,"taxPassword":"secreto"`).ID)
	bob := f.createPerson(owner, "bob@example.com", `,"taxPassword":"secreto"`)
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "other@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	forbiddenOwner := auth.MsgOnlyOwnerModifyOwner
	forbiddenCreds := auth.MsgOnlyOwnerCredentials
	cases := []struct {
		name    string
		who     api.Credentials
		method  string
		id      string
		body    string
		status  int
		details string
	}{
		// a non-owner and the owner
		{"other updates the owner", ana, "PUT", owner.PersonID, `{"phoneNumber":"1"}`, 403, forbiddenOwner},
		{"other sends the owner's same email", ana, "PUT", owner.PersonID, `{"email":"owner@example.com"}`, 403, forbiddenOwner},
		{"other deletes the owner", ana, "DELETE", owner.PersonID, ``, 403, forbiddenOwner},
		{"the owner deletes the owner", owner, "DELETE", owner.PersonID, ``, 403, forbiddenOwner},
		{"the owner updates the owner", owner, "PUT", owner.PersonID, `{"phoneNumber":"1"}`, 200, ""},
		// a non-owner and another non-owner
		{"other modifies another's data", ana, "PUT", bob.ID, `{"tin":"EKU9003173C9","legalName":"Bob B"}`, 200, ""},
		{"other changes another's password", ana, "PUT", bob.ID, `{"password":"Nueva#123"}`, 403, forbiddenCreds},
		{"other changes another's email", ana, "PUT", bob.ID, `{"email":"bob2@example.com"}`, 403, forbiddenCreds},
		{"other changes another's tax password", ana, "PUT", bob.ID, `{"taxPassword":"otro"}`, 403, forbiddenCreds},
		{"other clears another's tax password", ana, "PUT", bob.ID, `{"taxPassword":""}`, 403, forbiddenCreds},
		{"other sends another's same credentials", ana, "PUT", bob.ID, `{"email":" BOB@Example.COM ","taxPassword":"secreto","password":""}`, 200, ""},
		{"other changes own credentials", ana, "PUT", ana.PersonID, `{"email":"ana2@example.com","password":"Nueva#123","taxPassword":"x"}`, 200, ""},
		{"the owner changes another's credentials", owner, "PUT", bob.ID, `{"email":"bob3@example.com","password":"Nueva#123","taxPassword":"y"}`, 200, ""},
		// another tenant sees nothing
		{"other tenant reads", other, "GET", bob.ID, ``, 404, "No such resource for the given Id: " + bob.ID},
		{"other tenant updates", other, "PUT", bob.ID, `{"legalName":"X"}`, 404, "No such resource for the given Id: " + bob.ID},
		{"other tenant deletes", other, "DELETE", bob.ID, ``, 404, "No such resource for the given Id: " + bob.ID},
		{"other tenant updates the owner", other, "PUT", owner.PersonID, `{"legalName":"X"}`, 404, "No such resource for the given Id: " + owner.PersonID},
		// anybody creates and deletes a non-owner
		{"other deletes a non-owner", ana, "DELETE", bob.ID, ``, 200, ""},
	}
	for _, c := range cases {
		r := f.do(c.method, "/api/v4/people/"+c.id, c.body, as(c.who)...)
		if c.status == 200 {
			if r.status != 200 || !r.env.Succeeded {
				t.Errorf("%s: %d %s", c.name, r.status, r.raw)
			}
			continue
		}
		if r.status != c.status || r.env.Succeeded || r.env.Details != c.details || r.env.Message != "Sorry, it's not me, it's you." {
			t.Errorf("%s: want %d %q, got %d %s", c.name, c.status, c.details, r.status, r.raw)
		}
	}
	// the refused changes changed nothing
	got := person(t, f.do("GET", "/api/v4/people/"+owner.PersonID, ""))
	if got.Email != "owner@example.com" || deref(got.PhoneNumber) != "1" {
		t.Fatalf("owner = %+v", got)
	}
	// a non-owner creates a person; the new person is not the owner
	made := f.createPerson(ana, "carla@example.com")
	if made.IsOwner || made.UserTypeID != "C" {
		t.Fatalf("made = %+v", made)
	}
}

func TestDeletePersonRevokesItsKeys(t *testing.T) {
	f := newPeopleFixture(t)
	ana := f.createPerson(f.creds, "ana@example.com")
	k1, k2 := f.keyFor(f.creds, ana.ID), f.keyFor(f.creds, ana.ID)
	bob := f.keyFor(f.creds, f.createPerson(f.creds, "bob@example.com").ID)
	if r := f.do("GET", "/api/v4/people", "", as(k1)...); r.status != 200 {
		t.Fatalf("before: %s", r.raw)
	}
	r := f.do("DELETE", "/api/v4/people/"+ana.ID, "", as(bob)...)
	if r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	for _, k := range []api.Credentials{k1, k2} {
		if r := f.do("GET", "/api/v4/people", "", as(k)...); r.status != 401 {
			t.Fatalf("a key of the deleted person still authenticates: %s", r.raw)
		}
	}
	if r := f.do("GET", "/api/v4/people/"+ana.ID, ""); r.status != 404 {
		t.Fatalf("get after delete: %s", r.raw)
	}
	r = f.do("GET", "/api/v4/apikeys", "")
	var keys api.PagedList[api.APIKey]
	json.Unmarshal(r.env.Data, &keys)
	for _, k := range keys.Items {
		if k.PersonID == ana.ID {
			t.Fatalf("a key of the deleted person is listed: %s", r.raw)
		}
	}
	if r := f.do("DELETE", "/api/v4/people/"+ana.ID, ""); r.status != 404 {
		t.Fatalf("delete again: %s", r.raw)
	}
	// the email is free again
	f.createPerson(f.creds, "ana@example.com")
	if r := f.do("GET", "/api/v4/people", "", as(bob)...); r.status != 200 {
		t.Fatalf("another person's key: %s", r.raw)
	}
}

// TestPeopleTenantIsolation runs random operations on people and API keys by the people of two
// tenants and checks, after each, that nothing of one tenant was revealed to or changed by the
// other: every answer about a record carries the caller's tenant, ids of the other tenant answer
// 404 and change nothing.
func TestPeopleTenantIsolation(t *testing.T) {
	f := newPeopleFixture(t)
	rng := rand.New(rand.NewSource(7))
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "b-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	type tenant struct {
		name    string
		callers []api.Credentials // owner first
		people  map[string]bool   // person ids
		keys    map[string]string // key id → person id
	}
	ta := &tenant{name: "A", callers: []api.Credentials{f.creds}, people: map[string]bool{f.creds.PersonID: true}, keys: map[string]string{}}
	tb := &tenant{name: "B", callers: []api.Credentials{other}, people: map[string]bool{other.PersonID: true}, keys: map[string]string{}}
	tenants := []*tenant{ta, tb}
	pick := func(m map[string]bool) string {
		ids := make([]string, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return "none"
		}
		sort.Strings(ids) // a seeded run repeats itself
		return ids[rng.Intn(len(ids))]
	}
	snapshot := func(tn *tenant) string {
		r := f.do("GET", "/api/v4/people?pageSize=50", "", as(tn.callers[0])...)
		if r.status != 200 {
			t.Fatalf("snapshot %s: %s", tn.name, r.raw)
		}
		k := f.do("GET", "/api/v4/apikeys?pageSize=10", "", as(tn.callers[0])...)
		return r.raw[strings.Index(r.raw, `"data"`):strings.Index(r.raw, `"traceIdentifier"`)] + k.raw[strings.Index(k.raw, `"data"`):strings.Index(k.raw, `"traceIdentifier"`)]
	}
	n := 0
	for step := 0; step < 250; step++ {
		me, them := tenants[step%2], tenants[1-step%2]
		who := me.callers[rng.Intn(len(me.callers))]
		op := rng.Intn(9)
		before := snapshot(them)
		var r result
		foreign := pick(them.people)
		switch op {
		case 0, 1: // create
			n++
			p := f.createPerson(who, fmt.Sprintf("p%d@%s.example.com", n, strings.ToLower(me.name)))
			if p.TenantID != who.TenantKey {
				t.Fatalf("created in tenant %s", p.TenantID)
			}
			me.people[p.ID] = true
			if rng.Intn(2) == 0 {
				c := f.keyFor(me.callers[0], p.ID)
				me.callers = append(me.callers, c)
			}
			continue
		case 2: // update own tenant's person
			r = f.do("PUT", "/api/v4/people/"+pick(me.people), `{"phoneNumber":"`+fmt.Sprint(step)+`"}`, as(who)...)
		case 3: // update the other tenant's person, every kind of change
			r = f.do("PUT", "/api/v4/people/"+foreign, `{"legalName":"X","email":"x@x.mx","password":"Nueva#123","taxPassword":"t"}`, as(who)...)
			expectStatus(t, r, 404, "No such resource for the given Id: "+foreign)
		case 4: // delete the other tenant's person
			r = f.do("DELETE", "/api/v4/people/"+foreign, "", as(who)...)
			expectStatus(t, r, 404, "No such resource for the given Id: "+foreign)
		case 5: // get the other tenant's person
			r = f.do("GET", "/api/v4/people/"+foreign, "", as(who)...)
			expectStatus(t, r, 404, "No such resource for the given Id: "+foreign)
		case 6: // an API key for the other tenant's person
			r = f.do("POST", "/api/v4/apikeys", `{"personId":"`+foreign+`"}`, as(who)...)
			if r.status != 400 && r.status != 403 {
				t.Fatalf("key for a foreign person: %s", r.raw)
			}
		case 7: // delete a non-owner of my tenant
			id := pick(me.people)
			r = f.do("DELETE", "/api/v4/people/"+id, "", as(who)...)
			if r.status == 200 {
				delete(me.people, id)
				kept := me.callers[:0]
				for _, c := range me.callers {
					if c.PersonID != id {
						kept = append(kept, c)
					}
				}
				me.callers = kept
			}
		case 8: // list
			r = f.do("GET", "/api/v4/people", "", as(who)...)
			var page api.PagedList[api.Person]
			json.Unmarshal(r.env.Data, &page)
			for _, p := range page.Items {
				if p.TenantID != who.TenantKey || them.people[p.ID] {
					t.Fatalf("list reveals tenant %s: %+v", p.TenantID, p)
				}
			}
			k := f.do("GET", "/api/v4/apikeys", "", as(who)...)
			var keys api.PagedList[api.APIKey]
			json.Unmarshal(k.env.Data, &keys)
			for _, key := range keys.Items {
				if key.TenantID != who.TenantKey || them.people[key.PersonID] {
					t.Fatalf("key list reveals tenant %s: %+v", key.TenantID, key)
				}
			}
		}
		if r.status >= 500 {
			t.Fatalf("step %d op %d: %s", step, op, r.raw)
		}
		if strings.Contains(r.raw, them.callers[0].TenantKey) {
			t.Fatalf("step %d op %d: the answer names the other tenant: %s", step, op, r.raw)
		}
		if after := snapshot(them); after != before {
			t.Fatalf("step %d op %d by tenant %s changed tenant %s", step, op, me.name, them.name)
		}
	}
	if len(ta.people) < 5 || len(tb.people) < 5 {
		t.Fatalf("too few people made: %d %d", len(ta.people), len(tb.people))
	}
}
