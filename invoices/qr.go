package invoices

import "errors"

// errNoQR: timbra has no QR encoder yet (go.mod has no QR library and none was written), so the
// answer's invoiceBase64QrCode is empty; cfdi.QRURL gives the text a QR code would carry.
var errNoQR = errors.New("invoices: no QR encoder yet")

// QRPNG would draw text as a QR code in PNG; it always fails for now (errNoQR).
func QRPNG(text string) ([]byte, error) { return nil, errNoQR }
