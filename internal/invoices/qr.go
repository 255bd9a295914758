package invoices

import "rsc.io/qr"

// QRPNG draws text (SAT's verification URL, cfdi.QRURL) as a QR code in PNG, with error
// correction level M, as printed invoices carry it.
func QRPNG(text string) ([]byte, error) {
	c, err := qr.Encode(text, qr.M)
	if err != nil {
		return nil, err
	}
	return c.PNG(), nil
}
