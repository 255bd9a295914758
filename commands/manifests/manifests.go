// Package manifests is `timbra manifests`: the signed cartas manifiesto of a person, kept by the
// server every time the person signs (POST /api/v4/manifests): the newest or one version saved
// as signed, and the list of versions.
package manifests

import (
	"encoding/base64"
	"fmt"
	"os"
	"strconv"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra manifests`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "manifests",
		Usage: "Download a person's signed carta manifiesto, and list the versions kept",
		Description: "The carta manifiesto is the letter by which a person authorizes the server, as its\n" +
			"certification provider, to stamp its CFDI, signed with the person's own e.firma (the\n" +
			"official client's manifests.sign). The server keeps every letter signed, as it was signed.\n" +
			"A person reads its own; the tenant's owner reads everybody's.\n\n" +
			"Examples:\n" +
			"  timbra manifests get 9b1d4e7a-... --out carta.xml\n" +
			"  timbra manifests list 9b1d4e7a-...",
		Subcommands: []*cli.Command{newGetCmd(f, nil), newListCmd(f, nil)},
	}
}

type getOptions struct {
	f                      *cmdutil.Factory
	PersonID, Version, Out string
}

func newGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[getOptions]) *cli.Command {
	o := &getOptions{f: f}
	run = cmdutil.OrRun(run, getRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Download a person's signed carta manifiesto (the newest, or one version)",
		UsageText: "timbra manifests get PERSON_ID [--version ID] [--out FILE]",
		ArgsUsage: "PERSON_ID",
		Description: "Writes the signed letter, byte for byte as signed (XML with its XML signature), to --out\n" +
			"FILE (default: the name the server gives, carta-manifiesto-<RFC>.xml, in the current folder;\n" +
			"- for stdout). The newest letter unless --version names another (see `timbra manifests\n" +
			"list`). The signature carries the e.firma's certificate: xmlsec1 --verify --enabled-key-data\n" +
			"x509 --insecure FILE checks it.\n\n" +
			"Examples:\n" +
			"  timbra manifests get 9b1d4e7a-... --out carta.xml\n" +
			"  timbra manifests get 9b1d4e7a-... --version 0193a4c2-... --out - | xmllint --format -",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "version", Usage: "the version `ID` to download (default: the newest)", Destination: &o.Version},
			&cli.StringFlag{Name: "out", Usage: "write the XML to `FILE` (- for stdout)", TakesFile: true, Destination: &o.Out},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.PersonID = c.Args().First()
			return run(c, o)
		},
	}
}

func getRun(c *cli.Context, o *getOptions) error {
	f := o.f
	client, err := f.Client()
	if err != nil {
		return err
	}
	var file api.FileResponse
	if o.Version == "" {
		file, err = client.LatestManifest(c.Context, o.PersonID)
	} else {
		file, err = client.ManifestVersion(c.Context, o.PersonID, o.Version)
	}
	if err != nil {
		return err
	}
	xml, err := base64.StdEncoding.DecodeString(file.Base64File)
	if err != nil {
		return fmt.Errorf("the letter is not base64: %w", err)
	}
	path := o.Out
	if path == "" {
		if path, err = file.LocalName(); err != nil {
			return err
		}
	}
	if path == "-" {
		_, err := f.IO.Out.Write(xml)
		return err
	}
	if err := os.WriteFile(path, xml, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Printer().Fields(map[string]any{"fileName": path, "bytes": len(xml)}, []cmdutil.Field{{Label: "XML", Value: path}, {Label: "Bytes", Value: strconv.Itoa(len(xml))}})
}

type listOptions struct {
	f        *cmdutil.Factory
	PersonID string
	cmdutil.PagingOptions
}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the signed cartas manifiesto of a person, newest first",
		UsageText: "timbra manifests list PERSON_ID [--page N] [--page-size N] [-o json]",
		ArgsUsage: "PERSON_ID",
		Description: "Prints one page of the letters the person signed, newest first (1 to 50 per page, 10 by\n" +
			"default): the version id, when it was signed (UTC), the RFC and the number of the e.firma's\n" +
			"certificate that signed it. Download one with `timbra manifests get PERSON_ID --version ID`.\n\n" +
			"Examples:\n" +
			"  timbra manifests list 9b1d4e7a-...\n" +
			"  timbra manifests list 9b1d4e7a-... -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "letters", 50, ""),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			o.PersonID = c.Args().First()
			return run(c, o)
		},
	}
}

func listRun(c *cli.Context, o *listOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	out, err := client.ListManifests(c.Context, o.PersonID, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(out.Items))
	for _, m := range out.Items {
		rows = append(rows, []string{m.ID, p.Time(m.SignedAt), m.Tin, m.CertificateNumber})
	}
	if err := p.Table(out, []string{"VERSION", "SIGNED", "RFC", "CERTIFICATE"}, rows, "No signed carta manifiesto."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, out.PageNumber, out.TotalPages, out.TotalCount, "letters")
	return nil
}
