// Package manifests is the carta manifiesto of a person (the official client's manifests.sign):
// the letter by which a taxpayer authorizes timbra, as its certification provider, to stamp its
// CFDI, signed with the taxpayer's own e.firma. Signing it makes the person's manifestStatusId
// Signed.
//
// The letter is an XML document (timbra's design: the spec shows none) with the holder's RFC and
// name, the certificate's number, the date in Mexico City and the text, signed with an enveloped
// XML signature (exclusive C14N, RSA-SHA256) whose KeyInfo carries the e.firma's certificate, so
// anyone can check it with xmlsec1 or any XML-DSig library.
package manifests

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/storage"
)

// Namespace is the letter's XML namespace.
const Namespace = "urn:timbra:carta-manifiesto:1"

// Texts of the area (the spec shows none; Spanish as the other areas').
const (
	MsgRequired    = "'%s' no debe estar vacío."
	MsgBase64      = "'%s' no es base64 válido."
	MsgNotCert     = "El certificado no es un certificado X.509 (.cer) del SAT."
	MsgNotFIEL     = "El certificado es un CSD (sello digital): la carta manifiesto se firma con la e.firma (FIEL)."
	MsgExpired     = "La e.firma no está vigente: válida del %s al %s."
	MsgKey         = "La llave privada no se pudo abrir con la contraseña dada."
	MsgKeyMismatch = "La llave privada no corresponde al certificado."
	MsgNoPerson    = "La carta manifiesto la firma una persona: la API key no pertenece a ninguna."
	MsgNoRFC       = "La persona no tiene RFC: regístralo antes de firmar la carta manifiesto."
	MsgOtherRFC    = "La e.firma es del RFC '%s' y la persona tiene el RFC '%s': la carta manifiesto se firma con la e.firma propia."
	MsgNotSigned   = "La persona '%s' no ha firmado la carta manifiesto."
	MsgNoVersion   = "La persona '%s' no tiene una carta manifiesto firmada con el id '%s'."
	Provider       = "timbra"
)

// Text is the letter's text for a holder: %[1]s name, %[2]s RFC, %[3]s provider.
const Text = "%[1]s, con RFC %[2]s, manifiesta su voluntad de que %[3]s, como su proveedor de certificación de CFDI, " +
	"reciba, valide, selle con el Timbre Fiscal Digital y envíe al SAT los comprobantes fiscales digitales por Internet " +
	"que le presente, y conserve copia de ellos, conforme al Código Fiscal de la Federación y a la Resolución Miscelánea " +
	"Fiscal vigente. Lo firma con su e.firma."

// Service signs the letters.
type Service struct {
	Store storage.Store
	Now   func() time.Time
}

// mexico is the time zone of the letter's date.
var mexico = cfdi.Mexico

func decode(prop, words string, v *string) ([]byte, *api.Failure) {
	if v == nil || strings.TrimSpace(*v) == "" {
		f := apierr.Field(prop, fmt.Sprintf(MsgRequired, words), nil, "NotEmptyValidator", nil)
		return nil, &f
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(*v))
	if err != nil {
		f := apierr.Field(prop, fmt.Sprintf(MsgBase64, words), nil, "", nil)
		return nil, &f
	}
	return b, nil
}

// Sign checks the caller's e.firma (its own RFC, current, the key opened by the password),
// signs the caller's letter with it, marks the person Signed, keeps the letter as a new version
// of the person's (Latest, Version, Versions) and answers it.
func (s *Service) Sign(ctx context.Context, c auth.Caller, in api.SignManifestRequest) (api.FileResponse, error) {
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	if c.PersonID == "" {
		return api.FileResponse{}, apierr.BadRequest(MsgNoPerson)
	}
	var fs []api.Failure
	cerB, f := decode("Base64Cer", "Base64 Cer", in.Base64Cer)
	if f != nil {
		fs = append(fs, *f)
	}
	keyB, f := decode("Base64Key", "Base64 Key", in.Base64Key)
	if f != nil {
		fs = append(fs, *f)
	}
	var cert *csd.Certificate
	if cerB != nil {
		var err error
		if cert, err = csd.ParseCertificate(cerB); err != nil {
			fs = append(fs, apierr.Field("Base64Cer", MsgNotCert, nil, "", nil))
		} else if cert.Kind != csd.KindFIEL {
			fs = append(fs, apierr.Field("Base64Cer", MsgNotFIEL, nil, "", nil))
		} else if !cert.ValidAt(now) {
			fs = append(fs, apierr.Field("Base64Cer", fmt.Sprintf(MsgExpired, cert.ValidFrom.Format(time.DateOnly), cert.ValidTo.Format(time.DateOnly)), nil, "", nil))
		}
	}
	var key *csd.PrivateKey
	if keyB != nil {
		password := ""
		if in.Password != nil {
			password = *in.Password
		}
		var err error
		if key, err = csd.ParsePrivateKey(keyB, []byte(password)); err != nil {
			fs = append(fs, apierr.Field("Password", MsgKey, nil, "", nil))
		} else if cert != nil && !cert.Matches(key) {
			fs = append(fs, apierr.Field("Base64Key", MsgKeyMismatch, nil, "", nil))
		}
	}
	if len(fs) > 0 {
		return api.FileResponse{}, apierr.Invalid(fs...)
	}
	var out api.FileResponse
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		p, err := tx.People(c.TenantID).Get(c.PersonID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.BadRequest(MsgNoPerson)
		}
		if err != nil {
			return err
		}
		rfc := ""
		if p.Tin != nil {
			rfc = strings.ToUpper(strings.TrimSpace(*p.Tin))
		}
		if rfc == "" {
			return apierr.BadRequest(MsgNoRFC)
		}
		if cert.RFC != rfc {
			return apierr.Invalid(apierr.Field("Base64Cer", fmt.Sprintf(MsgOtherRFC, cert.RFC, rfc), nil, "", nil))
		}
		name := p.LegalName
		if name == "" {
			name = cert.Name
		}
		letter, err := Letter(cert, key, name, now)
		if err != nil {
			return err
		}
		p.ManifestStatusID, p.UpdatedAt = people.ManifestSigned, now.UTC()
		if err := tx.People(c.TenantID).Put(p); err != nil {
			return err
		}
		m := storage.Manifest{ID: ids.New(now), PersonID: p.ID, Tin: rfc, CertificateNumber: cert.Number,
			FileName: "carta-manifiesto-" + rfc + ".xml", XML: letter, SignedAt: now.UTC()}
		if err := tx.Manifests(c.TenantID).Add(m); err != nil {
			return err
		}
		out = file(m)
		return nil
	})
	return out, err
}

// Page sizes of a person's signed letters.
const (
	DefaultPage = 10
	MaxPage     = 50
)

func file(m storage.Manifest) api.FileResponse {
	return api.FileResponse{Base64File: base64.StdEncoding.EncodeToString(m.XML), FileName: m.FileName, FileExtension: "xml"}
}

// readable checks that c may read personID's letters: the person themself and the tenant's
// owner, as with credentials; to anybody else the person does not exist (404).
func readable(c auth.Caller, personID string) error {
	if !auth.SeesCredentialsOf(c, personID) {
		return apierr.NotFound(personID)
	}
	return nil
}

// notSigned is the 404 of a person without the letter asked for: a person of the tenant who
// never signed gets the text, an unknown id the usual 404. A deleted person's letters stay and
// are read as any other's.
func notSigned(tx storage.Tx, c auth.Caller, personID string, text string) error {
	known, err := tx.People(c.TenantID).Has(personID)
	if err != nil {
		return err
	}
	if !known {
		_, n, err := tx.Manifests(c.TenantID).List(personID, 0, 0)
		if err != nil {
			return err
		}
		if n == 0 {
			return apierr.NotFound(personID)
		}
	}
	return apierr.NotFoundText(text)
}

// Latest answers the newest signed letter of a person, byte for byte as it was signed.
func (s *Service) Latest(ctx context.Context, c auth.Caller, personID string) (api.FileResponse, error) {
	if err := readable(c, personID); err != nil {
		return api.FileResponse{}, err
	}
	var out api.FileResponse
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		m, err := tx.Manifests(c.TenantID).Latest(personID)
		if errors.Is(err, storage.ErrNotFound) {
			return notSigned(tx, c, personID, fmt.Sprintf(MsgNotSigned, personID))
		}
		if err != nil {
			return err
		}
		out = file(m)
		return nil
	})
	return out, err
}

// Version answers one signed letter of a person by its id.
func (s *Service) Version(ctx context.Context, c auth.Caller, personID, id string) (api.FileResponse, error) {
	if err := readable(c, personID); err != nil {
		return api.FileResponse{}, err
	}
	var out api.FileResponse
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		m, err := tx.Manifests(c.TenantID).Get(personID, id)
		if errors.Is(err, storage.ErrNotFound) {
			return notSigned(tx, c, personID, fmt.Sprintf(MsgNoVersion, personID, id))
		}
		if err != nil {
			return err
		}
		out = file(m)
		return nil
	})
	return out, err
}

// Versions answers a page of a person's signed letters, newest first, without their XML (each
// is read with Version). A person who never signed has an empty list.
func (s *Service) Versions(ctx context.Context, c auth.Caller, personID string, page, size int) (api.PagedList[api.Manifest], error) {
	if err := readable(c, personID); err != nil {
		return api.PagedList[api.Manifest]{}, err
	}
	var out []api.Manifest
	total := 0
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		ms, n, err := tx.Manifests(c.TenantID).List(personID, (page-1)*size, size)
		if err != nil {
			return err
		}
		if n == 0 {
			if known, err := tx.People(c.TenantID).Has(personID); err != nil {
				return err
			} else if !known {
				return apierr.NotFound(personID)
			}
		}
		total = n
		for _, m := range ms {
			out = append(out, api.Manifest{ID: m.ID, PersonID: m.PersonID, Tin: m.Tin, CertificateNumber: m.CertificateNumber,
				FileName: m.FileName, SignedAt: api.FormatAudit(m.SignedAt)})
		}
		return nil
	})
	if err != nil {
		return api.PagedList[api.Manifest]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}

// Letter is the signed carta manifiesto of the e.firma's holder.
func Letter(cert *csd.Certificate, key *csd.PrivateKey, name string, now time.Time) ([]byte, error) {
	doc := etree.NewDocument()
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	root := doc.CreateElement("CartaManifiesto")
	root.CreateAttr("xmlns", Namespace)
	root.CreateAttr("Version", "1.0")
	root.CreateAttr("Rfc", cert.RFC)
	root.CreateAttr("Nombre", name)
	root.CreateAttr("Proveedor", Provider)
	root.CreateAttr("NoCertificado", cert.Number)
	root.CreateAttr("Fecha", now.In(mexico).Format("2006-01-02T15:04:05"))
	root.CreateElement("Texto").SetText(fmt.Sprintf(Text, name, cert.RFC, Provider))
	ctx, err := dsig.NewSigningContext(key.RSA, [][]byte{cert.Raw})
	if err != nil {
		return nil, err
	}
	ctx.Canonicalizer = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	ctx.Prefix = ""
	signed, err := ctx.SignEnveloped(root)
	if err != nil {
		return nil, err
	}
	out := etree.NewDocument()
	out.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	out.SetRoot(signed)
	var buf bytes.Buffer
	if _, err := out.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
