package taxfiles

import "github.com/timbra-mx/timbra/internal/apierr"

// Texts of spec 2 §4.2, exactly. %s is the person's id, or the value sent.
const (
	MsgWrongPassword    = "La contraseña de la llave privada (.key) es incorrecta o el archivo no es una llave privada."
	MsgPfx              = "'File Type' 4 (Pfx) no se admite: el certificado (.cer) y la llave privada (.key) se cargan por separado (fileType 0 y 1 para el CSD, 2 y 3 para la FIEL)."
	MsgFileTypeRange    = "'File Type' tiene un rango de valores que no incluye '%s'."
	MsgNoPrivateKey     = "No se encontró la llave privada de la persona: %s"
	MsgNoCertificate    = "No se encontró el certificado de la persona: %s"
	MsgPersonAbsent     = "La persona '%s' no existe"
	MsgPersonWithoutTin = "La persona '%s' no tiene datos fiscales"
	MsgNoCurrentFiles   = "No se encontró tal recurso. Verifica los archivos fiscales de la persona: %s"
)

// Texts of timbra's where the spec shows none.
const (
	// apierr.MsgNotEmpty and apierr.MsgNotNull are the required-field texts of the validator the reference
	// service uses, with the property's name in words.
	// MsgPersonNotValid: the personId of an upload is not a person of the tenant (the text of
	// the API keys' personId).
	MsgPersonNotValid = "La persona especificada no es válida o no pertenece a tu organización."
	// MsgTinMismatch (on Tin): the tin sent is not the person's RFC, ignoring case.
	MsgTinMismatch = "El RFC '%s' no coincide con el RFC de la persona '%s'."
	// MsgCertificateRFC (on Base64File): the certificate is of another taxpayer.
	MsgCertificateRFC = "El RFC del certificado '%s' no coincide con el RFC de la persona '%s'."
	// MsgNotBase64 (on Base64File): %d is the offset of the first byte that is not base64.
	MsgNotBase64 = "'Base64 File' no es base64 válido: carácter no válido en la posición %d."
	// MsgNotCertificate (on Base64File) for fileType 0 and 2.
	MsgNotCertificate = "El archivo no es un certificado (.cer) válido: se espera un certificado X.509 en DER, codificado en base64."
	// MsgCertificateIsFIEL and MsgCertificateIsCSD (on FileType): a certificate of the other
	// kind than its fileType says.
	MsgCertificateIsFIEL = "El certificado es de e.firma (FIEL): cárgalo con fileType 2; el fileType 0 es para el certificado de sello digital (CSD)."
	MsgCertificateIsCSD  = "El certificado es un certificado de sello digital (CSD): cárgalo con fileType 0; el fileType 2 es para la e.firma (FIEL)."
	// MsgCertificateNotSAT (on Base64File): neither a CSD nor an e.firma (it cannot sign, or it
	// is a certification authority's).
	MsgCertificateNotSAT = "El certificado no es un CSD ni una e.firma: no tiene el uso de firma digital o es de una autoridad certificadora."
	// MsgCertificateExpired (on Base64File): %s is its validTo.
	MsgCertificateExpired = "El certificado venció el %s (UTC): carga un certificado vigente."
	// MsgDeleteAbsent is the details of a delete of a file that is absent, already deleted or
	// not visible to the caller (400 with data false).
	MsgDeleteAbsent = "No such resource for the given Id: %s"
)

// Error codes of the failures (errorCode), so clients can tell them apart without the text.
const (
	CodeNotEmpty           = apierr.CodeNotEmpty
	CodeNotNull            = "NotNullValidator"
	CodeFileTypeRange      = "EnumValidator"
	CodePfx                = "PfxNotSupported"
	CodeWrongPassword      = "PrivateKeyPassword"
	CodeKeyNotEncrypted    = "PrivateKeyNotEncrypted"
	CodeNotBase64          = "InvalidBase64"
	CodeNotCertificate     = "InvalidCertificate"
	CodeCertificateKind    = "CertificateKindMismatch"
	CodeCertificateNotSAT  = "CertificateNotSat"
	CodeCertificateExpired = "CertificateExpired"
	CodeCertificateRFC     = "CertificateRfcMismatch"
	CodeTinMismatch        = "TinMismatch"
	CodePersonWithoutTin   = "PersonWithoutTin"
	CodePersonNotValid     = "PersonNotValid"
)
