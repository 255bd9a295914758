// Package sat is `timbra sat`: SAT's services played locally for tests and development.
// `timbra sat serve` is a local SAT bulk download web service (internal/satws/satlocal)
// answering from a folder of stamped CFDIs (and withholding CFDIs, under /retenciones), at the
// address `timbra server --sat-download-url` takes.
package sat

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	apiserver "github.com/timbra-mx/timbra/server"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra sat`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "sat",
		Usage: "Play SAT's services locally, for tests and development",
		Description: "timbra sat serve is a local SAT bulk download web service (\"Descarga Masiva\", SOAP 1.5):\n" +
			"it checks the e.firma signatures and answers from a folder of stamped CFDIs, and from its\n" +
			"withholding CFDIs (Retenciones 2.0) as SAT's second service, under /retenciones.\n\n" +
			"Examples:\n" +
			"  timbra sat serve --addr 127.0.0.1:8089 --cfdis ./cfdis\n" +
			"  timbra server --sat-download-url http://127.0.0.1:8089",
		Subcommands: []*cli.Command{newServeCmd(f, nil)},
	}
}

type serveOptions struct {
	f           *cmdutil.Factory
	Addr        string
	AddrFile    string
	CFDIs       string
	Delay       time.Duration
	Latency     time.Duration
	PackageSize int
	Codes       []satlocal.Code
}

func newServeCmd(f *cmdutil.Factory, run cmdutil.RunFunc[serveOptions]) *cli.Command {
	o := &serveOptions{f: f}
	run = cmdutil.OrRun(run, serveRun)
	var codes cli.StringSlice
	return &cli.Command{
		Name:      "serve",
		Usage:     "Serve a local SAT bulk download web service from a folder of CFDIs",
		UsageText: "timbra sat serve --cfdis DIR [--addr ADDR] [--addr-file FILE] [--delay D] [--package-size N] [--code OP=CODE]...",
		Description: "Speaks SAT's bulk download protocol at SAT's paths (/Autenticacion/Autenticacion.svc,\n" +
			"/SolicitaDescargaService.svc, /VerificaSolicitudDescargaService.svc, /DescargaMasivaService.svc):\n" +
			"authentication signed with an e.firma gives a token; queries of the CFDIs or metadata issued,\n" +
			"received or of one UUID (RfcACuentaTerceros: a concept on behalf of that RFC) are checked as SAT\n" +
			"checks them (signature against the certificate sent, an e.firma and never a CSD, the RFC of\n" +
			"the token and the requester, the period, duplicates);\n" +
			"a request is finished after --delay with ZIP packages of the matching CFDI files of --cfdis\n" +
			"(any depth; cancelados.txt names the cancelled ones: UUID or UUID~YYYY-MM-DD HH:MM:SS) or of\n" +
			"their metadata. Requests live in memory.\n\n" +
			"The folder's withholding CFDIs (root retenciones:Retenciones) are served by SAT's second service\n" +
			"at the same paths under /retenciones, with its own tokens and requests; timbra server sends the\n" +
			"requests of query type Retenciones there (--sat-retenciones-url, by default the --sat-download-url\n" +
			"of a local SAT plus /retenciones).\n\n" +
			"--code OP=CODE forces SAT's answer to auth, query, verify or download (OP=CODExN: the next N\n" +
			"calls only), e.g. --code query=5002, --code verify=404x2, --code verify=5004, --code download=5008.\n\n" +
			"Examples:\n" +
			"  timbra sat serve --cfdis ./cfdis\n" +
			"  timbra sat serve --addr 127.0.0.1:0 --addr-file sat.addr --cfdis ./cfdis --delay 30s --package-size 100",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8089", Usage: "listen on `ADDR` (port 0: any free port)", Destination: &o.Addr},
			&cli.StringFlag{Name: "addr-file", Usage: "write the address listened on to `FILE` (HOST:PORT)", TakesFile: true, Destination: &o.AddrFile},
			&cli.StringFlag{Name: "cfdis", Usage: "the folder of stamped CFDI files to answer from (`DIR`)", Required: true, TakesFile: true, Destination: &o.CFDIs},
			&cli.DurationFlag{Name: "delay", Usage: "how long a request takes to finish (in progress after half)", Destination: &o.Delay},
			&cli.DurationFlag{Name: "latency", Usage: "added to every answer", Destination: &o.Latency},
			&cli.IntFlag{Name: "package-size", Usage: "the most CFDIs or metadata lines per package (0: SAT's limits per request)", Destination: &o.PackageSize},
			&cli.StringSliceFlag{Name: "code", Usage: "force SAT's answer: `OP=CODE[xN]` with OP auth, query, verify or download (repeatable)", Destination: &codes},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if o.PackageSize < 0 {
				return cmdutil.UsageErrorf(c, "--package-size must be 0 or more")
			}
			for _, s := range codes.Value() {
				code, err := satlocal.ParseCode(s)
				if err != nil {
					return cmdutil.UsageErrorf(c, "--%s", err)
				}
				o.Codes = append(o.Codes, code)
			}
			return run(c, o)
		},
	}
}

func serveRun(c *cli.Context, o *serveOptions) error {
	s, err := satlocal.New(satlocal.Options{CFDIs: o.CFDIs, Delay: o.Delay, Latency: o.Latency, PackageSize: o.PackageSize, Codes: o.Codes})
	if err != nil {
		return fmt.Errorf("--cfdis: %w", err)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	if o.AddrFile != "" {
		if err := apiserver.WriteAddrFile(o.AddrFile, addr); err != nil {
			ln.Close()
			return fmt.Errorf("write --addr-file: %w", err)
		}
	}
	all, ret := s.CFDIs()
	fmt.Fprintf(o.f.IO.Err, "local SAT bulk download service at http://%s with %d CFDIs of %s; its withholding CFDIs (%d) at http://%s%s\n",
		addr, all-ret, o.CFDIs, ret, addr, satlocal.RetencionesPath)
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-c.Context.Done():
		srv.Close()
		<-done
		return nil
	}
}
