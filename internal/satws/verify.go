package satws

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strings"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
	"github.com/russellhaering/goxmldsig/etreeutils"

	"github.com/timbra-mx/timbra/internal/csd"
)

// What a verification finds wrong, in SAT's codes: a message that cannot be read (301), a
// signature that does not verify (302), a certificate that cannot be read (305).
var (
	ErrMalformed   = errors.New("satws: malformed message")
	ErrSignature   = errors.New("satws: the signature does not verify")
	ErrCertificate = errors.New("satws: the certificate cannot be read")
)

// Verified is a message whose signature verified.
type Verified struct {
	// Cert is the certificate that signed (the binary security token, or KeyInfo's
	// X509Certificate). Whether it is an e.firma, current, and of the right RFC is the caller's
	// to decide.
	Cert *csd.Certificate
	// Operation is the body's operation element (for requests): its local name and the
	// attributes and children of its first child (des:solicitud, des:peticionDescarga).
	Operation string
	Attrs     map[string]string
	Children  map[string][]string
	// Created and Expires are the authentication's timestamp.
	Created, Expires time.Time
}

func parse(msg []byte) (*etree.Element, error) {
	doc := etree.NewDocument()
	doc.ReadSettings.Permissive = false
	if err := doc.ReadFromBytes(msg); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	env := doc.Root()
	if env == nil || env.Tag != "Envelope" || env.NamespaceURI() != NSSoap {
		return nil, fmt.Errorf("%w: not a SOAP 1.1 envelope", ErrMalformed)
	}
	return env, nil
}

func child(el *etree.Element, ns, tag string) *etree.Element {
	if el == nil {
		return nil
	}
	for _, c := range el.ChildElements() {
		if c.Tag == tag && c.NamespaceURI() == ns {
			return c
		}
	}
	return nil
}

// attr is an attribute by local name, in any namespace or none.
func attr(el *etree.Element, key string) string {
	for _, a := range el.Attr {
		if a.Key == key && a.Space != "xmlns" {
			return a.Value
		}
	}
	return ""
}

// VerifyAuthenticate checks an Autentica message: the WS-Security header's signature over the
// timestamp, with the certificate of the binary security token it names.
func VerifyAuthenticate(msg []byte) (*Verified, error) {
	env, err := parse(msg)
	if err != nil {
		return nil, err
	}
	sec := child(child(env, NSSoap, "Header"), NSSecExt, "Security")
	if sec == nil || child(child(env, NSSoap, "Body"), NSAuth, "Autentica") == nil {
		return nil, fmt.Errorf("%w: no Security header or no Autentica body", ErrMalformed)
	}
	sig := child(sec, NSDsig, "Signature")
	if sig == nil {
		return nil, fmt.Errorf("%w: no signature", ErrSignature)
	}
	byID := func(id string) *etree.Element {
		for _, c := range sec.ChildElements() {
			if attr(c, "Id") == id {
				return c
			}
		}
		return nil
	}
	var tokenRef string
	if r := sig.FindElement("./KeyInfo/SecurityTokenReference/Reference"); r != nil {
		tokenRef = strings.TrimPrefix(r.SelectAttrValue("URI", ""), "#")
	}
	tok := byID(tokenRef)
	if tok == nil || tok.Tag != "BinarySecurityToken" {
		return nil, fmt.Errorf("%w: the signature names no binary security token", ErrSignature)
	}
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(tok.Text()), ""))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCertificate, err)
	}
	cert, err := csd.ParseCertificateCached(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCertificate, err)
	}
	ts := child(sec, NSUtility, "Timestamp")
	if ts == nil {
		return nil, fmt.Errorf("%w: no timestamp", ErrMalformed)
	}
	if err := checkSignature(sig, cert, func(uri string) (*etree.Element, error) {
		if el := byID(strings.TrimPrefix(uri, "#")); el == ts {
			return ts, nil
		}
		return nil, fmt.Errorf("%w: the signature must reference the timestamp, not %q", ErrSignature, uri)
	}); err != nil {
		return nil, err
	}
	v := &Verified{Cert: cert, Operation: "Autentica"}
	v.Created, _ = time.Parse(time.RFC3339Nano, strings.TrimSpace(child(ts, NSUtility, "Created").Text()))
	if e := child(ts, NSUtility, "Expires"); e != nil {
		v.Expires, _ = time.Parse(time.RFC3339Nano, strings.TrimSpace(e.Text()))
	}
	return v, nil
}

// VerifyRequest checks a query, verification or download message: the signature enveloped in
// the operation's first child, over the operation element (Reference URI=""), with the
// certificate of its KeyInfo. Both exclusive and inclusive C14N are taken (SAT's examples show
// the latter, every client sends the former), with or without the enveloped-signature transform:
// the signature is left out of the digest either way, as the SAT does.
func VerifyRequest(msg []byte) (*Verified, error) {
	env, err := parse(msg)
	if err != nil {
		return nil, err
	}
	body := child(env, NSSoap, "Body")
	if body == nil || len(body.ChildElements()) != 1 {
		return nil, fmt.Errorf("%w: the body must hold one operation", ErrMalformed)
	}
	op := body.ChildElements()[0]
	if op.NamespaceURI() != NSDes || len(op.ChildElements()) != 1 {
		return nil, fmt.Errorf("%w: operation %s", ErrMalformed, op.Tag)
	}
	req := op.ChildElements()[0]
	sig := child(req, NSDsig, "Signature")
	if sig == nil {
		return nil, fmt.Errorf("%w: no signature", ErrSignature)
	}
	xc := sig.FindElement("./KeyInfo/X509Data/X509Certificate")
	if xc == nil {
		return nil, fmt.Errorf("%w: no X509Certificate in KeyInfo", ErrCertificate)
	}
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(xc.Text()), ""))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCertificate, err)
	}
	cert, err := csd.ParseCertificateCached(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCertificate, err)
	}
	if err := checkSignature(sig, cert, func(uri string) (*etree.Element, error) {
		if uri != "" {
			return nil, fmt.Errorf("%w: Reference URI %q (the SAT signs the operation: URI=\"\")", ErrSignature, uri)
		}
		return op, nil
	}); err != nil {
		return nil, err
	}
	v := &Verified{Cert: cert, Operation: op.Tag, Attrs: map[string]string{}, Children: map[string][]string{}}
	for _, a := range req.Attr {
		if a.Space == "" && a.Key != "xmlns" {
			v.Attrs[a.Key] = a.Value
		}
	}
	for _, c := range req.ChildElements() {
		if c == sig {
			continue
		}
		for _, cc := range c.ChildElements() {
			v.Children[c.Tag] = append(v.Children[c.Tag], strings.TrimSpace(cc.Text()))
		}
	}
	return v, nil
}

func canonicalizer(alg string) (dsig.Canonicalizer, error) {
	switch alg {
	case algExcC14N:
		return dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(""), nil
	case algC14N:
		return dsig.MakeC14N10RecCanonicalizer(), nil
	}
	return nil, fmt.Errorf("%w: canonicalization %q", ErrSignature, alg)
}

// detach is a copy of el with the namespaces in scope declared on it and, when it holds sig,
// without sig.
func detach(el, sig *etree.Element) (*etree.Element, error) {
	ctx, err := etreeutils.NSBuildParentContext(el)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var path []int
	for p := sig; p != nil && p != el; p = p.Parent() {
		path = append([]int{p.Index()}, path...)
		if p.Parent() == nil {
			path = nil
		}
	}
	cp, err := etreeutils.NSDetatch(ctx, el)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(path) > 0 {
		parent := cp
		for _, i := range path[:len(path)-1] {
			e, ok := parent.Child[i].(*etree.Element)
			if !ok {
				return nil, fmt.Errorf("%w: signature path", ErrMalformed)
			}
			parent = e
		}
		parent.RemoveChildAt(path[len(path)-1])
	}
	return cp, nil
}

// checkSignature verifies one signature: the one reference's digest over the element ref
// resolves (without the signature), then SignedInfo's RSA signature with cert's key.
func checkSignature(sig *etree.Element, cert *csd.Certificate, ref func(uri string) (*etree.Element, error)) error {
	pub, ok := cert.X509.PublicKey.(*rsa.PublicKey)
	if !ok {
		return fmt.Errorf("%w: not an RSA key", ErrCertificate)
	}
	si := child(sig, NSDsig, "SignedInfo")
	sv := child(sig, NSDsig, "SignatureValue")
	if si == nil || sv == nil {
		return fmt.Errorf("%w: no SignedInfo or SignatureValue", ErrSignature)
	}
	var sigHash crypto.Hash
	switch sm := si.FindElement("./SignatureMethod"); {
	case sm != nil && sm.SelectAttrValue("Algorithm", "") == algRSASHA1:
		sigHash = crypto.SHA1
	case sm != nil && sm.SelectAttrValue("Algorithm", "") == algRSASHA256:
		sigHash = crypto.SHA256
	default:
		return fmt.Errorf("%w: signature method", ErrSignature)
	}
	cm := si.FindElement("./CanonicalizationMethod")
	if cm == nil {
		return fmt.Errorf("%w: no canonicalization method", ErrSignature)
	}
	siC14N, err := canonicalizer(cm.SelectAttrValue("Algorithm", ""))
	if err != nil {
		return err
	}
	refs := si.SelectElements("Reference")
	if len(refs) != 1 {
		return fmt.Errorf("%w: %d references, one expected", ErrSignature, len(refs))
	}
	r := refs[0]
	el, err := ref(r.SelectAttrValue("URI", ""))
	if err != nil {
		return err
	}
	refC14N, _ := canonicalizer(algC14N)
	for _, tr := range r.FindElements("./Transforms/Transform") {
		switch alg := tr.SelectAttrValue("Algorithm", ""); alg {
		case algEnveloped:
		default:
			if refC14N, err = canonicalizer(alg); err != nil {
				return err
			}
		}
	}
	var h hash.Hash
	switch dm := r.FindElement("./DigestMethod"); {
	case dm != nil && dm.SelectAttrValue("Algorithm", "") == algSHA1:
		h = sha1.New()
	case dm != nil && dm.SelectAttrValue("Algorithm", "") == algSHA256:
		h = sha256.New()
	default:
		return fmt.Errorf("%w: digest method", ErrSignature)
	}
	dv := r.FindElement("./DigestValue")
	if dv == nil {
		return fmt.Errorf("%w: no DigestValue", ErrSignature)
	}
	want, err := base64.StdEncoding.DecodeString(strings.TrimSpace(dv.Text()))
	if err != nil {
		return fmt.Errorf("%w: DigestValue: %v", ErrSignature, err)
	}
	target, err := detach(el, sig)
	if err != nil {
		return err
	}
	canon, err := refC14N.Canonicalize(target)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	h.Write(canon)
	if got := h.Sum(nil); string(got) != string(want) {
		return fmt.Errorf("%w: the digest differs", ErrSignature)
	}
	sic, err := detach(si, nil)
	if err != nil {
		return err
	}
	canonSI, err := siC14N.Canonicalize(sic)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	value, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(sv.Text()), ""))
	if err != nil {
		return fmt.Errorf("%w: SignatureValue: %v", ErrSignature, err)
	}
	sh := sigHash.New()
	sh.Write(canonSI)
	if err := rsa.VerifyPKCS1v15(pub, sigHash, sh.Sum(nil), value); err != nil {
		return fmt.Errorf("%w: %v", ErrSignature, err)
	}
	return nil
}
