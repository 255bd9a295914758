package storage

import "encoding/binary"

// People are kept in the binary form since schema 26: every authenticated list of people
// decodes a page of them, and JSON's reflection was a fifth of that request's CPU.

// flags of a person's optional fields, in this order after the flags
const (
	personPhone = 1 << iota
	personTaxRegime
	personCfdiUse
	personTin
	personCurp
	personZip
	personCountry
	personForeignTin
	personPhoto
	personValidTo
	personOwner
)

func (p Person) optional() []*string {
	return []*string{p.PhoneNumber, p.SatTaxRegimeID, p.SatCfdiUseID, p.Tin, p.Curp, p.ZipCode, p.CountryID, p.ForeignTin, p.Base64Photo}
}

func (p Person) appendBinary(b []byte) []byte {
	var flags uint64
	for i, s := range p.optional() {
		if s != nil {
			flags |= 1 << i
		}
	}
	if p.ValidTo != nil {
		flags |= personValidTo
	}
	if p.IsOwner {
		flags |= personOwner
	}
	for _, s := range []string{p.ID, p.TenantID, p.LegalName, p.Email, p.PasswordHash, p.UserTypeID, p.ManifestStatusID} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, flags)
	for _, s := range p.optional() {
		if s != nil {
			b = appendString(b, *s)
		}
	}
	if p.ValidTo != nil {
		b = appendTime(b, *p.ValidTo)
	}
	b = appendBytes(b, p.TaxPassword)
	b = binary.AppendUvarint(b, uint64(len(p.Balances)))
	for _, x := range p.Balances {
		b = binary.AppendVarint(binary.AppendVarint(b, int64(x.CreditType)), x.Available)
	}
	return appendTime(appendTime(b, p.CreatedAt), p.UpdatedAt)
}

func (p *Person) decodeBinary(b []byte) error {
	r := reader{b: b}
	*p = Person{}
	for _, s := range []*string{&p.ID, &p.TenantID, &p.LegalName, &p.Email, &p.PasswordHash, &p.UserTypeID, &p.ManifestStatusID} {
		*s = r.string()
	}
	flags := r.uint()
	if flags >= personOwner<<1 {
		return errBadRecord
	}
	for i, s := range []**string{&p.PhoneNumber, &p.SatTaxRegimeID, &p.SatCfdiUseID, &p.Tin, &p.Curp, &p.ZipCode, &p.CountryID, &p.ForeignTin, &p.Base64Photo} {
		if flags&(1<<i) != 0 {
			v := r.string()
			*s = &v
		}
	}
	if flags&personValidTo != 0 {
		t := r.time()
		p.ValidTo = &t
	}
	p.IsOwner = flags&personOwner != 0
	p.TaxPassword = r.bytes()
	n := r.uint()
	if n > uint64(len(r.b)) { // each balance takes two bytes at least
		return errBadRecord
	}
	for range n {
		ct, av := r.int(), r.int()
		p.Balances = append(p.Balances, Balance{CreditType: int(ct), Available: av})
	}
	p.CreatedAt, p.UpdatedAt = r.time(), r.time()
	return r.done()
}
