// Package manifests is `timbra manifests`: the carta manifiesto signed with the caller's own
// e.firma (POST /api/v4/manifests; the key's password never from a flag value), and the letters
// the server keeps every time a person signs: the newest or one version saved as signed, and
// the list of versions.
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
		Usage: "Sign your carta manifiesto with your e.firma, download a person's, and list the versions kept",
		Description: "The carta manifiesto is the letter by which a person authorizes the server, as its\n" +
			"certification provider, to stamp its CFDI, signed with the person's own e.firma (the\n" +
			"official client's manifests.sign). The server keeps every letter signed, as it was signed.\n" +
			"A person reads its own; the tenant's owner reads everybody's.\n\n" +
			"Examples:\n" +
			"  timbra manifests sign --cer fiel.cer --key fiel.key --password-file pw.txt\n" +
			"  timbra manifests get 9b1d4e7a-... --out carta.xml\n" +
			"  timbra manifests list 9b1d4e7a-...",
		Subcommands: []*cli.Command{newSignCmd(f, nil), newGetCmd(f, nil), newListCmd(f, nil)},
	}
}

type signOptions struct {
	f        *cmdutil.Factory
	Cer, Key string
	Out      string
	Password cmdutil.KeyPassword
}

func newSignCmd(f *cmdutil.Factory, run cmdutil.RunFunc[signOptions]) *cli.Command {
	o := &signOptions{f: f}
	run = cmdutil.OrRun(run, signRun)
	return &cli.Command{
		Name:      "sign",
		Usage:     "Sign your carta manifiesto with your own e.firma",
		UsageText: "timbra manifests sign --cer FILE --key FILE [--out FILE] [--password-file PATH | --password-env NAME | --password-stdin]",
		Description: "Sends your e.firma (FIEL) certificate and private key with the key's password; the server\n" +
			"checks that they are yours (your RFC, current, the key opened), signs the letter with them,\n" +
			"marks you Signed and keeps the letter. The password comes from --password-file,\n" +
			"--password-env, --password-stdin or a prompt on a terminal (asked once, not echoed); never\n" +
			"from a flag value. Writes the signed letter to --out FILE (default: the name the server\n" +
			"gives, carta-manifiesto-<RFC>.xml, in the current folder; - for stdout).\n\n" +
			"Examples:\n" +
			"  timbra manifests sign --cer fiel.cer --key fiel.key\n" +
			"  FIEL_PW=... timbra manifests sign --cer fiel.cer --key fiel.key --password-env FIEL_PW --out carta.xml",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "cer", Usage: "your e.firma's certificate (.cer, DER) at `PATH`", Required: true, TakesFile: true, Destination: &o.Cer},
			&cli.StringFlag{Name: "key", Usage: "your e.firma's private key (.key, encrypted PKCS#8) at `PATH`", Required: true, TakesFile: true, Destination: &o.Key},
			&cli.StringFlag{Name: "out", Usage: "write the signed letter to `FILE` (- for stdout)", TakesFile: true, Destination: &o.Out},
		}, cmdutil.KeyPasswordFlags(&o.Password)...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func signRun(c *cli.Context, o *signOptions) error {
	cer, key, password, err := (&cmdutil.KeyPair{Cer: o.Cer, Key: o.Key, Password: o.Password}).Read(c, o.f.IO)
	if err != nil {
		return err
	}
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	cerB64, keyB64 := base64.StdEncoding.EncodeToString(cer), base64.StdEncoding.EncodeToString(key)
	file, err := client.SignManifest(c.Context, api.SignManifestRequest{Base64Cer: &cerB64, Base64Key: &keyB64, Password: &password})
	if err != nil {
		return cmdutil.Explain(err, cmdutil.Sources{"Base64Cer": "--cer " + o.Cer, "Base64Key": "--key " + o.Key,
			"Password": "--password-file, --password-env or --password-stdin"})
	}
	return save(o.f, file, o.Out)
}

// save writes a letter to path (the server's name when empty, stdout for "-") and tells where.
func save(f *cmdutil.Factory, file api.FileResponse, path string) error {
	xml, err := base64.StdEncoding.DecodeString(file.Base64File)
	if err != nil {
		return fmt.Errorf("the letter is not base64: %w", err)
	}
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
	return save(f, file, o.Out)
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
