package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/storage"
)

// Stamping, measured end to end: POST /api/v4/invoices to a real server on loopback TCP
// (Server.Serve: authentication, rate limit, validation against the catalogs, the issuer's
// default tax files, build, seal, stamp, one Batch transaction saving the invoice and debiting a
// stamp, the invoice.stamped event, the answer with the stamped XML and its QR code), by
// reference (issuer, recipient and product by id: the seal uses the issuer's default pair) and by
// value (taxCredentials in the request), at concurrency 1 and 8; each twice, on two servers, one
// with the tax files' key cache off (the key decrypted on every invoice, as before the cache)
// and one with it on (opened once, for the same key bytes and password by value). The
// floor, measured right after in the same sub-benchmark with the same count and concurrency:
// two RSA-2048 PKCS#1 v1.5 SHA-256 signatures per invoice with the same keys (the issuer's
// over an invoice's cadena original, the server's stamping key over a TFD cadena), nothing else.
//
//	go test ./bench -run '^$' -bench 'Invoices' -benchtime 400x
//
// Each sub-benchmark reports invoices/s, p50-ms and p99-ms of the requests, floor/s (invoices'
// worth of signature pairs per second) and ratio (invoices/s ÷ floor/s); and, steadier when other
// processes share the machine, the CPU time of this process (client and server together) per
// invoice and per floor operation, and cpu-ratio (floor's CPU ÷ an invoice's: the part of an
// invoice's CPU that is the two signatures). The issuer is the
// tenant's owner, EKU9003173C9, with a csdtest pair (2048-bit key encrypted as SAT does) or, in
// the sat- variants, SAT's own test CSD from ../shared/sat/certs (skipped when absent).

// invoiceBench is a server on loopback with the mini SAT catalogs, the owner as issuer with a
// default pair, a recipient and a product.
type invoiceBench struct {
	t       *Timbra
	l       *Listening
	issuer  *csd.PrivateKey // the issuer's key, opened once, for the floor
	pac     *csd.PrivateKey
	cadena  []byte // an invoice's cadena original and its TFD's, as stamped
	tfd     []byte
	byRef   string
	byValue string
}

func (ib *invoiceBench) body(mode string) string {
	if mode == "by-value" {
		return ib.byValue
	}
	return ib.byRef
}

// benchPair is the issuer's pair: SAT's EKU9003173C9 test CSD, or a csdtest one with that RFC.
func benchPair(tb testing.TB, sat bool) (cer, key []byte, password string) {
	if !sat {
		p, err := csdtest.NewPair(csdtest.Options{RFC: "EKU9003173C9", Key: csdtest.Keys(1, 2048)[0]})
		if err != nil {
			tb.Fatal(err)
		}
		return p.Cer, p.Key, p.Password
	}
	dir := testpaths.Shared("sat", "certs")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Skipf("SAT's test CSD is absent (%v)", err)
		}
		return b
	}
	return read("EKU9003173C9.cer"), read("EKU9003173C9.key"), strings.TrimSpace(string(read("EKU9003173C9.password.txt")))
}

// newInvoiceBench makes the set-up; cache false turns the tax files' key cache off (every
// by-reference invoice decrypts the issuer's key, as before the cache existed).
func newInvoiceBench(b *testing.B, sat, cache bool) *invoiceBench {
	b.Helper()
	cer, key, password := benchPair(b, sat)
	t := newTimbra(b)
	srv := t.Server(slog.New(slog.DiscardHandler))
	if !cache {
		srv.TaxFiles().KeyCacheSize = -1
	}
	ctx := context.Background()
	src, err := source.Open(ctx, testpaths.Repo("internal", "catalogs", "testdata", "mini"), source.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	if _, err := srv.Catalogs().Import(ctx, src, time.Now(), nil); err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	header := t.Header()
	var recipient api.Person
	if err := inProcess(h, "POST", PeoplePath, header, `{"legalName":"PUBLICO EN GENERAL","email":"client@example.com","password":"Clave#2025","tin":"XAXX010101000"}`, 200, &recipient); err != nil {
		b.Fatal(err)
	}
	// the owner is the issuer; profile fields and stamps written directly (set-up)
	owner := t.Creds.PersonID
	err = t.Data.Store.Update(ctx, func(tx storage.Tx) error {
		for _, c := range []struct{ id, tin, name, regime, use string }{
			{owner, "EKU9003173C9", "ESCUELA KEMPER URGATE", "601", "G01"}, {recipient.ID, "XAXX010101000", "PUBLICO EN GENERAL", "616", "S01"},
		} {
			p, err := tx.People(t.Creds.TenantKey).Get(c.id)
			if err != nil {
				return err
			}
			zip := "42501"
			p.Tin, p.LegalName, p.SatTaxRegimeID, p.ZipCode, p.SatCfdiUseID = &c.tin, c.name, &c.regime, &zip, &c.use
			if err := tx.People(t.Creds.TenantKey).Put(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []struct {
		typ     int
		content []byte
	}{{0, cer}, {1, key}} {
		body, _ := json.Marshal(map[string]any{"personId": owner, "fileType": f.typ, "base64File": base64.StdEncoding.EncodeToString(f.content), "password": password})
		if err := inProcess(h, "POST", "/api/v4/tax-files", header, string(body), 200, nil); err != nil {
			b.Fatal(err)
		}
	}
	var product api.Product
	if err := inProcess(h, "POST", "/api/v4/products", header, `{"description":"Lápiz de madera HB","unitPrice":12.50,"satUnitMeasurementId":"H87",
		"satTaxObjectId":"02","satProductCodeId":"44121706","productTaxes":[{"taxId":"002","taxTypeId":"Tasa","rate":0.16,"taxFlagId":"T"},
		{"taxId":"001","taxTypeId":"Tasa","rate":0.1,"taxFlagId":"R"}]}`, 200, &product); err != nil {
		b.Fatal(err)
	}
	ref, _ := json.Marshal(map[string]any{"typeCode": "I", "paymentFormCode": "01", "paymentMethodCode": "PUE", "expeditionZipCode": "42501",
		"issuer": map[string]any{"id": owner}, "recipient": map[string]any{"id": recipient.ID},
		"globalInformation": map[string]any{"periodicityCode": "04", "monthCode": "11", "year": 2026},
		"items":             []any{map[string]any{"id": product.ID, "quantity": 4}}})
	value, _ := json.Marshal(map[string]any{"versionCode": "4.0", "series": "F", "paymentFormCode": "01", "paymentMethodCode": "PUE",
		"currencyCode": "MXN", "typeCode": "I", "expeditionZipCode": "42501", "exportCode": "01",
		"issuer": map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "taxRegimeCode": "601",
			"taxCredentials": []any{
				map[string]any{"base64File": base64.StdEncoding.EncodeToString(cer), "fileType": 0, "password": password},
				map[string]any{"base64File": base64.StdEncoding.EncodeToString(key), "fileType": 1, "password": password},
			}},
		"recipient": map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "zipCode": "42501",
			"taxRegimeCode": "601", "cfdiUseCode": "G01"},
		"items": []any{map[string]any{"itemCode": "44121706", "quantity": 4, "unitOfMeasurementCode": "H87", "unitOfMeasurement": "Pieza",
			"description": "Lápiz de madera HB", "unitPrice": "12.50", "taxObjectCode": "02",
			"itemTaxes": []any{
				map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T"},
				map[string]any{"taxCode": "001", "taxTypeCode": "Tasa", "taxRate": "0.100000", "taxFlagCode": "R"},
			}}}})
	ib := &invoiceBench{t: t, byRef: string(ref), byValue: string(value)}

	// one invoice of each kind before measuring (it also makes the stamping identity); the floor
	// signs what the first one signed
	grantStamps(b, t, 2)
	var inv api.Invoice
	if err := inProcess(h, "POST", "/api/v4/invoices", header, ib.byRef, 200, &inv); err != nil {
		b.Fatal(err)
	}
	if err := inProcess(h, "POST", "/api/v4/invoices", header, ib.byValue, 200, nil); err != nil {
		b.Fatal(err)
	}
	xml, _ := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
	doc, err := cfdi.Parse(xml)
	if err != nil {
		b.Fatal(err)
	}
	c, err := doc.Cadena()
	if err != nil {
		b.Fatal(err)
	}
	ib.cadena = []byte(c)
	ib.tfd, _ = base64.StdEncoding.DecodeString(inv.Responses[0].SatBase64OriginalString)
	if ib.issuer, err = csd.ParsePrivateKey(key, []byte(password)); err != nil {
		b.Fatal(err)
	}
	pac, err := srv.Invoices().PAC(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ib.pac = pac.Key
	if ib.l, err = ServeTimbra(srv); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ib.l.Close() })
	return ib
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// grantStamps adds n stamp credits to the tenant's owner (set-up, not measured).
func grantStamps(tb testing.TB, t *Timbra, n int) {
	tb.Helper()
	err := t.Data.Store.Update(context.Background(), func(tx storage.Tx) error {
		p, err := tx.People(t.Creds.TenantKey).Get(t.Creds.PersonID)
		if err != nil {
			return err
		}
		if err := people.AddCredits(&p, api.CreditStamps, int64(n), time.Now()); err != nil {
			return err
		}
		return tx.People(t.Creds.TenantKey).Put(p)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// floorOp is one invoice's worth of the floor: the issuer's seal and the stamp.
func (ib *invoiceBench) floorOp(int) func() error {
	return func() error {
		if _, err := ib.issuer.Sign(ib.cadena); err != nil {
			return err
		}
		_, err := ib.pac.Sign(ib.tfd)
		return err
	}
}

func benchmarkInvoices(b *testing.B, sat bool) {
	off, on := newInvoiceBench(b, sat, false), newInvoiceBench(b, sat, true)
	for _, cs := range []struct {
		name, mode string
		ib         *invoiceBench
	}{
		{"by-reference/cache=off", "by-reference", off},
		{"by-reference/cache=on", "by-reference", on},
		{"by-value/cache=off", "by-value", off},
		{"by-value/cache=on", "by-value", on},
	} {
		ib := cs.ib
		header := ib.t.Header()
		header.Set("Content-Type", "application/json")
		for _, c := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/concurrency=%d", cs.name, c), func(b *testing.B) {
				b.StopTimer()
				grantStamps(b, ib.t, b.N+c)
				client := Client(c, time.Minute)
				url := ib.l.URL + "/api/v4/invoices"
				body := ib.body(cs.mode)
				b.StartTimer()
				cpu0 := processCPU()
				r := Run(cs.name, c, time.Hour, b.N, func(int) func() error { return HTTPOp(client, "POST", url, header, body) })
				cpu1 := processCPU()
				floor := Run("floor", c, time.Hour, r.Ops, ib.floorOp)
				cpu2 := processCPU()
				b.StopTimer()
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				if err := floor.Err(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(r.PerSecond(), "invoices/s")
				b.ReportMetric(float64(r.P50.Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(r.P99.Microseconds())/1000, "p99-ms")
				b.ReportMetric(floor.PerSecond(), "floor/s")
				b.ReportMetric(r.PerSecond()/floor.PerSecond(), "ratio")
				inv, fl := (cpu1-cpu0).Seconds()*1000/float64(r.Ops), (cpu2-cpu1).Seconds()*1000/float64(floor.Ops)
				b.ReportMetric(inv, "cpu-ms/invoice")
				b.ReportMetric(fl, "floor-cpu-ms")
				b.ReportMetric(fl/inv, "cpu-ratio")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

func BenchmarkInvoices(b *testing.B) { benchmarkInvoices(b, false) }

// BenchmarkInvoicesSAT is BenchmarkInvoices with SAT's EKU9003173C9 test CSD as the issuer's pair.
func BenchmarkInvoicesSAT(b *testing.B) { benchmarkInvoices(b, true) }
