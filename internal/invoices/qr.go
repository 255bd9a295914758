package invoices

import (
	"errors"
	"sync/atomic"

	"rsc.io/qr"
	"rsc.io/qr/coding"
)

// QRPNG draws text (SAT's verification URL, cfdi.QRURL) as a QR code in PNG, with error
// correction level M, as printed invoices carry it: what rsc.io/qr's Encode and PNG make (the
// smallest of numeric, alphanumeric or byte mode, the smallest version, mask 0, 8 pixels per
// module), with the plan of each version made once (making it was most of a code's work).
func QRPNG(text string) ([]byte, error) {
	var enc coding.Encoding = coding.String(text)
	if coding.Num(text).Check() == nil {
		enc = coding.Num(text)
	} else if coding.Alpha(text).Check() == nil {
		enc = coding.Alpha(text)
	}
	v := coding.Version(coding.MinVersion)
	for enc.Bits(v) > v.DataBytes(coding.M)*8 {
		if v++; v > coding.MaxVersion {
			return nil, errors.New("text too long to encode as QR")
		}
	}
	p, err := qrPlan(v)
	if err != nil {
		return nil, err
	}
	c, err := p.Encode(enc)
	if err != nil {
		return nil, err
	}
	return (&qr.Code{Bitmap: c.Bitmap, Size: c.Size, Stride: c.Stride, Scale: 8}).PNG(), nil
}

// qrPlans are the plans (module layout, level M, mask 0) of the versions drawn so far: building
// one is most of a code's work, and a plan is only read when it encodes.
var qrPlans [coding.MaxVersion + 1]atomic.Pointer[coding.Plan]

func qrPlan(v coding.Version) (*coding.Plan, error) {
	if p := qrPlans[v].Load(); p != nil {
		return p, nil
	}
	p, err := coding.NewPlan(v, coding.M, 0)
	if err != nil {
		return nil, err
	}
	qrPlans[v].Store(p)
	return p, nil
}
