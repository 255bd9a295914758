// Package stampingcertificate is `timbra stamping-certificate`: the certificate the server
// stamps with (GET /api/v4/stamping-certificate), shown, or written as PEM or DER so that any
// verifier (openssl, xmlsec1, a SAT validator) can check the SelloSAT of its stamps.
package stampingcertificate

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"strconv"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

type certificateOptions struct {
	f   *cmdutil.Factory
	Out string // where to write the certificate; "-" for stdout, "" not at all
	DER bool   // write DER (SAT's .cer) instead of PEM
}

// NewCmd is `timbra stamping-certificate`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return newCertificateCmd(f, nil)
}

func newCertificateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[certificateOptions]) *cli.Command {
	o := &certificateOptions{f: f}
	run = cmdutil.OrRun(run, certificateRun)
	return &cli.Command{
		Name:      "stamping-certificate",
		Usage:     "Show or save the certificate the server stamps with, to verify the SelloSAT of its invoices",
		UsageText: "timbra stamping-certificate [--out FILE [--der]] [-o json]",
		Description: "The server is the certification provider (PAC) of its environment: every stamp names this\n" +
			"certificate's number as NoCertificadoSAT and its RFC as RfcProvCertif, and its public key\n" +
			"verifies their SelloSAT. In production it is the operator's PAC certificate; in test, the\n" +
			"server's own. Prints its number, RFC, name and validity; with -o json, the API's answer\n" +
			"(base64Certificate is the DER). --out FILE writes the certificate as PEM, or DER with --der\n" +
			"(- for standard output).\n\n" +
			"Examples:\n" +
			"  timbra stamping-certificate\n" +
			"  timbra stamping-certificate --out pac.pem\n" +
			"  openssl x509 -in pac.pem -noout -serial -subject -enddate\n" +
			"  timbra stamping-certificate --out pac.cer --der",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write the certificate to `FILE` (- for standard output)", TakesFile: true, Destination: &o.Out},
			&cli.BoolFlag{Name: "der", Usage: "write DER (as SAT's .cer files) instead of PEM", Destination: &o.DER},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if o.DER && o.Out == "" {
				return cmdutil.UsageErrorf(c, "--der needs --out FILE")
			}
			return run(c, o)
		},
	}
}

func certificateRun(c *cli.Context, o *certificateOptions) error {
	f := o.f
	client, err := f.Client()
	if err != nil {
		return err
	}
	cert, err := client.StampingCertificate(c.Context)
	if err != nil {
		return err
	}
	p := f.Printer()
	fields := []cmdutil.Field{
		{Label: "Number", Value: cert.CertificateNumber},
		{Label: "RFC", Value: cert.Tin},
		{Label: "Name", Value: cert.LegalName},
		{Label: "Valid from", Value: p.Time(cert.ValidFrom)},
		{Label: "Valid to", Value: p.Time(cert.ValidTo)},
	}
	if o.Out == "" {
		return p.Fields(cert, fields)
	}
	der, err := base64.StdEncoding.DecodeString(cert.Base64Certificate)
	if err != nil {
		return fmt.Errorf("the answer's certificate is not base64: %w", err)
	}
	out := der
	if !o.DER {
		out = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	if o.Out == "-" {
		_, err := f.IO.Out.Write(out)
		return err
	}
	if err := os.WriteFile(o.Out, out, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", o.Out, err)
	}
	return p.Fields(cert, append(fields, cmdutil.Field{Label: "File", Value: o.Out}, cmdutil.Field{Label: "Bytes", Value: strconv.Itoa(len(out))}))
}
