package bench

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/invoices"
)

// The invoice PDF, measured for an invoice of 50 items (stamped once by reference on the bench
// server, then drawn on every request): end to end, POST /api/v4/invoices/pdf on loopback TCP
// (authentication, rate limit, the stored invoice read, its XML parsed, the PDF drawn with the
// QR code, base64 in the JSON answer) at concurrency 1 and 8, and the drawing alone
// (invoices.RenderPDF of the stamped XML, in process, one goroutine).
//
//	go test ./bench -run '^$' -bench 'InvoicePDF' -benchtime 200x
//
// Each sub-benchmark reports pdfs/s, p50-ms and p99-ms (end to end) and pdf-bytes, the size
// of the PDF (3 pages).
func BenchmarkInvoicePDF(b *testing.B) {
	ib := newInvoiceBench(b, false, true)
	header := ib.t.Header()
	header.Set("Content-Type", "application/json")

	var body map[string]any
	if err := json.Unmarshal([]byte(ib.byRef), &body); err != nil {
		b.Fatal(err)
	}
	item := body["items"].([]any)[0].(map[string]any)
	items := make([]any, 50)
	for i := range items {
		items[i] = map[string]any{"id": item["id"], "quantity": i + 1}
	}
	body["items"] = items
	raw, _ := json.Marshal(body)
	grantStamps(b, ib.t, 1)
	var inv api.Invoice
	if err := post(ib.l.URL+"/api/v4/invoices", header, raw, &inv); err != nil {
		b.Fatal(err)
	}
	xml, err := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
	if err != nil {
		b.Fatal(err)
	}
	pdfBody, _ := json.Marshal(map[string]any{"invoiceId": inv.ID, "bandColor": "#1F4E79", "fontColor": "#FFFFFF"})
	var file api.InvoiceFile
	if err := post(ib.l.URL+"/api/v4/invoices/pdf", header, pdfBody, &file); err != nil {
		b.Fatal(err)
	}
	pdf, _ := base64.StdEncoding.DecodeString(file.Base64Content)
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		b.Fatal("the answer holds no PDF")
	}

	for _, c := range []int{1, 8} {
		b.Run(fmt.Sprintf("http/concurrency=%d", c), func(b *testing.B) {
			client := Client(c, time.Minute)
			url := ib.l.URL + "/api/v4/invoices/pdf"
			b.ResetTimer()
			r := Run("pdf", c, time.Hour, b.N, func(int) func() error { return HTTPOp(client, "POST", url, header, string(pdfBody)) })
			b.StopTimer()
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(r.PerSecond(), "pdfs/s")
			b.ReportMetric(float64(r.P50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(r.P99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(len(pdf)), "pdf-bytes")
			b.ReportMetric(0, "ns/op")
		})
	}
	b.Run("render", func(b *testing.B) {
		opt, err := invoices.ParsePDFOptions(invoices.PDFRequest{InvoiceID: inv.ID})
		if err != nil {
			b.Fatal(err)
		}
		var size int
		start := time.Now()
		for i := 0; i < b.N; i++ {
			out, err := invoices.RenderPDF(xml, opt)
			if err != nil {
				b.Fatal(err)
			}
			size = len(out)
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pdfs/s")
		b.ReportMetric(float64(size), "pdf-bytes")
	})
}

// post sends a JSON body and decodes the envelope's data.
func post(url string, header http.Header, body []byte, out any) error {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %d %s", url, resp.StatusCode, raw)
	}
	var env api.RawEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, out)
}
