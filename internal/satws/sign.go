package satws

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/beevik/etree"
	"github.com/google/uuid"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/timbra-mx/timbra/internal/csd"
)

// Credential is an e.firma: the certificate and its opened private key.
type Credential struct {
	Cert *csd.Certificate
	Key  *csd.PrivateKey
}

// ErrNotFIEL: the bulk download service takes only an e.firma, never a CSD.
var ErrNotFIEL = errors.New("satws: the certificate is not an e.firma (the bulk download service refuses a CSD)")

// OpenCredential reads an e.firma: the DER certificate, the encrypted key and its password. A
// CSD, or a key of another certificate, is an error.
func OpenCredential(cer, key, password []byte) (*Credential, error) {
	c, err := csd.ParseCertificate(cer)
	if err != nil {
		return nil, err
	}
	if c.Kind != csd.KindFIEL {
		return nil, ErrNotFIEL
	}
	k, err := csd.ParsePrivateKey(key, password)
	if err != nil {
		return nil, err
	}
	if !c.Matches(k) {
		return nil, errors.New("satws: the private key is not the certificate's")
	}
	return &Credential{Cert: c, Key: k}, nil
}

// RFC is the holder's RFC.
func (c *Credential) RFC() string { return c.Cert.RFC }

// signer is goxmldsig's signing context as the SAT wants it: exclusive C14N (SignedInfo and the
// one transform), RSA-SHA1, SHA-1 digests, the signature in the default namespace.
func (c *Credential) signer(idAttr string) (*dsig.SigningContext, error) {
	ctx, err := dsig.NewSigningContext(c.Key.RSA, [][]byte{c.Cert.Raw})
	if err != nil {
		return nil, err
	}
	ctx.Hash = crypto.SHA1
	ctx.Canonicalizer = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	ctx.Prefix = ""
	ctx.IdAttribute = idAttr
	if err := ctx.SetSignatureMethod(dsig.RSASHA1SignatureMethod); err != nil {
		return nil, err
	}
	return ctx, nil
}

// sign is the Signature of el (a detached element: the canonicalizer works on a copy), without
// KeyInfo, which the caller adds as the message needs. An enveloped signature's Reference has
// the enveloped-signature transform before exclusive C14N.
func (c *Credential) sign(el *etree.Element, idAttr string, enveloped bool) (*etree.Element, error) {
	ctx, err := c.signer(idAttr)
	if err != nil {
		return nil, err
	}
	sig, err := ctx.ConstructSignature(el.Copy(), enveloped)
	if err != nil {
		return nil, err
	}
	if ki := sig.SelectElement("KeyInfo"); ki != nil {
		sig.RemoveChild(ki)
	}
	return sig, nil
}

func write(buf *bytes.Buffer, el *etree.Element) {
	s := etree.NewDocument().WriteSettings
	el.WriteTo(buf, &s)
}

// AuthenticateMessage is the signed Autentica envelope: a WS-Security header with the
// timestamp (created, created + 5 min), the certificate as a binary security token (tokenID;
// empty makes "uuid-<v4>-1") and the signature over the timestamp.
func (c *Credential) AuthenticateMessage(created time.Time, tokenID string) ([]byte, error) {
	if tokenID == "" {
		tokenID = "uuid-" + uuid.NewString() + "-1"
	}
	created = created.UTC()
	ts := etree.NewElement("u:Timestamp")
	ts.CreateAttr("xmlns:u", NSUtility)
	ts.CreateAttr("u:Id", "_0")
	ts.CreateElement("u:Created").SetText(created.Format(timestampFormat))
	ts.CreateElement("u:Expires").SetText(created.Add(5 * time.Minute).Format(timestampFormat))
	sig, err := c.sign(ts, "u:Id", false)
	if err != nil {
		return nil, err
	}
	ref := sig.CreateElement("KeyInfo").CreateElement("o:SecurityTokenReference").CreateElement("o:Reference")
	ref.CreateAttr("URI", "#"+tokenID)
	ref.CreateAttr("ValueType", valueTypeX509)
	ts.RemoveAttr("xmlns:u") // declared on the envelope

	var b bytes.Buffer
	b.WriteString(`<s:Envelope xmlns:s="` + NSSoap + `" xmlns:u="` + NSUtility + `"><s:Header>`)
	b.WriteString(`<o:Security xmlns:o="` + NSSecExt + `" s:mustUnderstand="1">`)
	write(&b, ts)
	tok := etree.NewElement("o:BinarySecurityToken")
	tok.CreateAttr("u:Id", tokenID)
	tok.CreateAttr("ValueType", valueTypeX509)
	tok.CreateAttr("EncodingType", encodingBase64)
	tok.SetText(c.Cert.Base64())
	write(&b, tok)
	write(&b, sig)
	b.WriteString(`</o:Security></s:Header><s:Body><Autentica xmlns="` + NSAuth + `"/></s:Body></s:Envelope>`)
	return b.Bytes(), nil
}

// signedMessage is an envelope whose body holds <des:op><des:child attrs…>extra… Signature
// </des:child></des:op>, the signature enveloped in child and taken over op alone: the SAT
// reads the body's operation element as the signed document (Reference URI=""), so its digest
// is that of op without the signature. phpcfdi and nodecfdi send exclusive C14N as the only
// transform and leave the signature out by hand; the enveloped-signature transform before it
// (as in SAT-1.5's own examples) gives the same digest and makes the message a standard
// enveloped signature that xmlsec1 verifies.
func (c *Credential) signedMessage(op, child string, attrs [][2]string, extra []*etree.Element) ([]byte, error) {
	el := etree.NewElement("des:" + op)
	el.CreateAttr("xmlns:des", NSDes)
	ch := el.CreateElement("des:" + child)
	for _, a := range attrs {
		ch.CreateAttr(a[0], a[1])
	}
	for _, e := range extra {
		ch.AddChild(e)
	}
	sig, err := c.sign(el, "u:Id", true)
	if err != nil {
		return nil, err
	}
	x := sig.CreateElement("KeyInfo").CreateElement("X509Data")
	is := x.CreateElement("X509IssuerSerial")
	is.CreateElement("X509IssuerName").SetText(c.Cert.X509.Issuer.String())
	is.CreateElement("X509SerialNumber").SetText(c.Cert.X509.SerialNumber.String())
	x.CreateElement("X509Certificate").SetText(c.Cert.Base64())
	ch.AddChild(sig)
	el.RemoveAttr("xmlns:des") // declared on the envelope

	var b bytes.Buffer
	b.WriteString(`<s:Envelope xmlns:s="` + NSSoap + `" xmlns:des="` + NSDes + `" xmlns:xd="` + NSDsig + `"><s:Header/><s:Body>`)
	write(&b, el)
	b.WriteString(`</s:Body></s:Envelope>`)
	return b.Bytes(), nil
}

// QueryMessage is the signed SolicitaDescarga{Emitidos,Recibidos,Folio} envelope of q.
func (c *Credential) QueryMessage(q Query) ([]byte, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	var extra []*etree.Element
	if q.Operation == Issued && len(q.Receivers) > 0 {
		rs := etree.NewElement("des:RfcReceptores")
		for _, r := range q.Receivers {
			rs.CreateElement("des:RfcReceptor").SetText(strings.ToUpper(r))
		}
		extra = append(extra, rs)
	}
	return c.signedMessage(q.Operation.Element(), "solicitud", q.attributes(), extra)
}

// VerifyMessage is the signed VerificaSolicitudDescarga envelope of a request id.
func (c *Credential) VerifyMessage(requestID string) ([]byte, error) {
	if requestID == "" {
		return nil, errors.New("satws: no request id")
	}
	return c.signedMessage("VerificaSolicitudDescarga", "solicitud",
		[][2]string{{"IdSolicitud", requestID}, {"RfcSolicitante", c.RFC()}}, nil)
}

// DownloadMessage is the signed PeticionDescargaMasivaTercerosEntrada envelope of a package id.
func (c *Credential) DownloadMessage(packageID string) ([]byte, error) {
	if packageID == "" {
		return nil, fmt.Errorf("satws: no package id")
	}
	return c.signedMessage("PeticionDescargaMasivaTercerosEntrada", "peticionDescarga",
		[][2]string{{"IdPaquete", packageID}, {"RfcSolicitante", c.RFC()}}, nil)
}
