package satlocal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/cfdi"
)

// CFDI is what the local SAT knows of one stamped CFDI: its file and the fields its filters
// and metadata use.
type CFDI struct {
	Path          string
	UUID          string // upper case
	IssuerRFC     string
	IssuerName    string
	ReceiverRFC   string
	ReceiverName  string
	PacRFC        string
	Date          time.Time // Fecha, wall clock
	Certified     time.Time // FechaTimbrado
	Total         string
	Type          string // TipoDeComprobante
	Complements   []string
	Cancelled     bool
	CancelledAt   time.Time
	OnBehalfRFCs  []string // RfcACuentaTerceros of its concepts
	OnBehalfNames []string
	// Retenciones: a withholding CFDI (Retenciones 2.0), served by the second service only.
	Retenciones bool
}

const wallClock = "2006-01-02T15:04:05"

// readCFDI reads the fields of one CFDI file (cfdi.ReadCFDI); a file that is not a stamped
// CFDI is an error.
func readCFDI(path string) (CFDI, error) {
	f, err := os.Open(path)
	if err != nil {
		return CFDI{}, err
	}
	defer f.Close()
	d, err := cfdi.ReadCFDI(f)
	if err != nil {
		return CFDI{}, fmt.Errorf("%s: %w", path, err)
	}
	c := CFDI{Path: path, IssuerRFC: strings.ToUpper(d.Emisor.Rfc), IssuerName: d.Emisor.Nombre,
		ReceiverRFC: strings.ToUpper(d.Receptor.Rfc), ReceiverName: d.Receptor.Nombre, Total: d.Total, Type: d.TipoDeComprobante}
	c.Date, _ = time.Parse(wallClock, d.Fecha)
	for _, k := range d.Conceptos {
		if t := k.ACuentaTerceros; t != nil {
			c.OnBehalfRFCs = append(c.OnBehalfRFCs, strings.ToUpper(t.RfcACuentaTerceros))
			c.OnBehalfNames = append(c.OnBehalfNames, t.NombreACuentaTerceros)
		}
	}
	for _, x := range d.Complementos {
		if x.Space == cfdi.NSTFD && x.Local == "TimbreFiscalDigital" {
			continue
		}
		c.Complements = append(c.Complements, complementCode(x.Space, x.Local, x.Version))
	}
	for _, x := range d.ComplementosConcepto {
		if code := complementCode(x.Space, x.Local, ""); !slices.Contains(c.Complements, code) {
			c.Complements = append(c.Complements, code)
		}
	}
	if t := d.Timbre; t != nil {
		c.UUID, c.PacRFC = strings.ToUpper(t.UUID), strings.ToUpper(t.RfcProvCertif)
		c.Certified, _ = time.Parse(wallClock, t.FechaTimbrado)
	}
	if c.UUID == "" || c.IssuerRFC == "" || c.Date.IsZero() {
		return CFDI{}, fmt.Errorf("%s: not a stamped CFDI (no UUID, issuer or date)", path)
	}
	return c, nil
}

// CancelledFile is the file of a CFDI folder that names the cancelled CFDIs: one per line,
// "UUID" or "UUID~YYYY-MM-DD HH:MM:SS" (the cancellation's date, else the file's time).
const CancelledFile = "cancelados.txt"

// loadCFDIs reads every .xml under dir (in any depth) and the cancellations.
func loadCFDIs(dir string) ([]CFDI, error) {
	var out []CFDI
	seen := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".xml") {
			return nil
		}
		c, isRetenciones, err := readRetenciones(p)
		if !isRetenciones {
			c, err = readCFDI(p)
		}
		if err != nil {
			return err
		}
		if other, ok := seen[c.UUID]; ok {
			return fmt.Errorf("UUID %s in both %s and %s", c.UUID, other, p)
		}
		seen[c.UUID] = p
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, CancelledFile))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	info, _ := os.Stat(filepath.Join(dir, CancelledFile))
	cancelled := map[string]time.Time{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, at, _ := strings.Cut(line, "~")
		t := info.ModTime().UTC().Truncate(time.Second)
		if at != "" {
			if t, err = time.Parse("2006-01-02 15:04:05", strings.TrimSpace(at)); err != nil {
				return nil, fmt.Errorf("%s: %q: the date is YYYY-MM-DD HH:MM:SS", CancelledFile, line)
			}
		}
		cancelled[strings.ToUpper(strings.TrimSpace(id))] = t
	}
	for i := range out {
		if t, ok := cancelled[out[i].UUID]; ok {
			out[i].Cancelled, out[i].CancelledAt = true, t
		}
	}
	return out, nil
}
