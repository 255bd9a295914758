package invoices

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // logos may be JPEG
	"image/png"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// Texts of the PDF request (POST /api/v4/invoices/pdf). The spec shows none; these follow the
// area's style.
const (
	MsgPDFColor    = "El color '%s' no es válido: usa un color hexadecimal como #1F4E79 o #FFF."
	MsgPDFLogo     = "El logotipo no es una imagen PNG o JPEG en base64 válida."
	MsgPDFLogoSize = "El logotipo excede el tamaño máximo de %d KB."
	MsgPDFNotFound = "La factura '%s' no existe."
)

// Defaults of the PDF when the request leaves a colour out: a dark blue band with white text.
const (
	DefaultBandColor = "#1F4E79"
	DefaultFontColor = "#FFFFFF"
	// MaxLogoBytes is the largest logo accepted (decoded).
	MaxLogoBytes = 512 << 10
	// PDFContentType is the contentType of the file answer.
	PDFContentType = "application/pdf"
)

// PDFRequest is the body of POST /api/v4/invoices/pdf as the official client sends it
// (CreatePdfRequest): the invoice's id and the optional look of the document.
type PDFRequest struct {
	InvoiceID  string `json:"invoiceId"`
	BandColor  string `json:"bandColor"`
	FontColor  string `json:"fontColor"`
	Base64Logo string `json:"base64Logo"`
}

// PDFOptions is the look of a PDF: band and text-on-band colours and an optional logo.
type PDFOptions struct {
	Band, Font [3]int
	Logo       []byte // PNG or JPEG; nil for none
	LogoType   string // "PNG" or "JPG"
	// Status is printed when the invoice is not in force ("Cancelado").
	Status string
}

// PDFCreationDate is the creation date written into every PDF: fixed, so that a document renders
// to the same bytes each time (the date that matters, the stamp's, is printed on the page).
var PDFCreationDate = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// PDF renders a stored invoice of the caller's tenant as the file answer. Choice (the spec
// shows nothing): the file is named after the UUID, "<UUID>.pdf"; the id may also be the UUID.
func (s *Service) PDF(ctx context.Context, c auth.Caller, in PDFRequest) (api.InvoiceFile, error) {
	opt, err := ParsePDFOptions(in)
	if err != nil {
		return api.InvoiceFile{}, err
	}
	var rec storage.Invoice
	err = s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		rec, err = tx.Invoices(c.TenantID).Get(in.InvoiceID)
		if errors.Is(err, storage.ErrNotFound) {
			rec, err = tx.Invoices(c.TenantID).ByUUID(in.InvoiceID)
		}
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return api.InvoiceFile{}, apierr.NotFoundText(fmt.Sprintf(MsgPDFNotFound, in.InvoiceID))
	}
	if err != nil {
		return api.InvoiceFile{}, err
	}
	if rec.Status != StatusValid {
		opt.Status = rec.Status
	}
	doc, err := RenderPDF(rec.XML, opt)
	if err != nil {
		return api.InvoiceFile{}, fmt.Errorf("invoice %s: %w", rec.ID, err)
	}
	return fileAnswer(doc, rec.UUID, "pdf", PDFContentType), nil
}

// ParsePDFOptions checks the request: the id is required, colours are hex (#RGB or #RRGGBB,
// the # optional), the logo a PNG or JPEG in base64 (a data: URL prefix is accepted). Every
// problem is one failure of a single 400.
func ParsePDFOptions(in PDFRequest) (PDFOptions, error) {
	var fs []failure
	var opt PDFOptions
	if strings.TrimSpace(in.InvoiceID) == "" {
		fs = append(fs, failure{"InvoiceId", fmt.Sprintf(apierr.MsgNotEmpty, "Invoice Id"), in.InvoiceID, CodeNotEmpty})
	}
	color := func(prop, v, def string) [3]int {
		if strings.TrimSpace(v) == "" {
			v = def
		}
		c, ok := ParseHexColor(v)
		if !ok {
			fs = append(fs, failure{prop, fmt.Sprintf(MsgPDFColor, v), v, CodeFormat})
		}
		return c
	}
	opt.Band = color("BandColor", in.BandColor, DefaultBandColor)
	opt.Font = color("FontColor", in.FontColor, DefaultFontColor)
	if logo := strings.TrimSpace(in.Base64Logo); logo != "" {
		if strings.HasPrefix(logo, "data:") {
			if i := strings.Index(logo, ","); i >= 0 {
				logo = logo[i+1:]
			}
		}
		raw, err := base64.StdEncoding.DecodeString(logo)
		short := fmt.Sprintf("[%d caracteres]", len(in.Base64Logo))
		switch {
		case err != nil:
			fs = append(fs, failure{"Base64Logo", MsgPDFLogo, short, CodeFormat})
		case len(raw) > MaxLogoBytes:
			fs = append(fs, failure{"Base64Logo", fmt.Sprintf(MsgPDFLogoSize, MaxLogoBytes>>10), short, CodeFormat})
		default:
			if png, ok := normalizeLogo(raw); ok {
				opt.Logo, opt.LogoType = png, "PNG"
			} else {
				fs = append(fs, failure{"Base64Logo", MsgPDFLogo, short, CodeFormat})
			}
		}
	}
	if len(fs) > 0 {
		failures := make([]api.Failure, 0, len(fs))
		for _, f := range fs {
			failures = append(failures, apierr.Field(f.prop, f.msg, f.attempted, f.code, nil))
		}
		return opt, apierr.Invalid(failures...)
	}
	return opt, nil
}

// maxLogoPixels bounds a logo's width and height (a small file may declare a huge image).
const maxLogoPixels = 4096

// normalizeLogo decodes a PNG or JPEG logo and writes it again as an 8-bit RGBA PNG, the one
// form the PDF writer takes from any input (16-bit, CMYK, paletted...).
func normalizeLogo(raw []byte) ([]byte, bool) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || (format != "png" && format != "jpeg") || cfg.Width < 1 || cfg.Height < 1 ||
		cfg.Width > maxLogoPixels || cfg.Height > maxLogoPixels {
		return nil, false
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, false
	}
	b := img.Bounds()
	rgba := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
	var out bytes.Buffer
	if err := png.Encode(&out, rgba); err != nil {
		return nil, false
	}
	return out.Bytes(), true
}

type failure struct {
	prop, msg string
	attempted any
	code      string
}

// ParseHexColor reads #RGB or #RRGGBB (the # optional, any case).
func ParseHexColor(s string) ([3]int, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) == 3 {
		s = string([]byte{s[0], s[0], s[1], s[1], s[2], s[2]})
	}
	if len(s) != 6 {
		return [3]int{}, false
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return [3]int{}, false
	}
	return [3]int{int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)}, true
}
