// Package taxfiles is `timbra tax-files`: the certificates (.cer) and private keys (.key) of the
// people of a tenant (spec 2 §2.5, §4.2). Key passwords come from a prompt, a file, stdin or an
// environment variable, never from a flag value, and are never printed.
package taxfiles

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra tax-files` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:    "tax-files",
		Aliases: []string{"taxfiles"},
		Usage:   "Upload, list and delete certificates and private keys (CSD, e.firma)",
		Description: "Examples:\n" +
			"  timbra tax-files upload --person 3f2a0c1e-... --cer CSD.cer --key CSD.key --password-file pw.txt\n" +
			"  timbra tax-files list --page-size 50\n" +
			"  timbra tax-files defaults 3f2a0c1e-...\n" +
			"  timbra tax-files bulk-upload pairs.csv --concurrency 8 --report report.json",
		Subcommands: []*cli.Command{
			newListCmd(f, nil), newGetCmd(f, nil), newUploadCmd(f, nil), newDeleteCmd(f, nil),
			newDefaultsCmd(f, nil), newBulkUploadCmd(f, nil),
		},
	}
}

// taxFileTypeText names a fileType.
func taxFileTypeText(t int) string {
	switch t {
	case api.TaxFileCertificateCSD:
		return "CSD certificate"
	case api.TaxFilePrivateKeyCSD:
		return "CSD key"
	case api.TaxFileCertificateFIEL:
		return "e.firma certificate"
	case api.TaxFilePrivateKeyFIEL:
		return "e.firma key"
	}
	return "type " + strconv.Itoa(t)
}

var taxFileColumns = []string{"ID", "PERSON", "RFC", "TYPE", "NUMBER", "SEQ", "VALID TO", "CREATED"}

func taxFileRow(p *cmdutil.Printer, x api.TaxFile) []string {
	return []string{x.ID, x.PersonID, x.Tin, taxFileTypeText(x.FileType), api.Deref(x.CertificateNumber), strconv.Itoa(x.Sequence), p.Time(api.Deref(x.ValidTo)), p.Time(x.CreatedAt)}
}

func taxFileFields(p *cmdutil.Printer, x api.TaxFile) []cmdutil.Field {
	return []cmdutil.Field{
		{Label: "ID", Value: x.ID},
		{Label: "Person", Value: x.PersonID},
		{Label: "RFC", Value: x.Tin},
		{Label: "Type", Value: fmt.Sprintf("%d (%s)", x.FileType, taxFileTypeText(x.FileType))},
		{Label: "Certificate number", Value: api.Deref(x.CertificateNumber)},
		{Label: "Sequence", Value: strconv.Itoa(x.Sequence)},
		{Label: "Valid from", Value: p.Time(api.Deref(x.ValidFrom))},
		{Label: "Valid to", Value: p.Time(api.Deref(x.ValidTo))},
		{Label: "Created", Value: p.Time(x.CreatedAt)},
		{Label: "Updated", Value: p.Time(x.UpdatedAt)},
	}
}

type listOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the tax files you see, one page at a time",
		UsageText: "timbra tax-files list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of current tax files: ID, person, RFC, type, certificate number, sequence\n" +
			"(a certificate and its key share it), validity and creation time. Contents and passwords are\n" +
			"never listed. The owner sees every person's files; others their own.\n\n" +
			"Examples:\n" +
			"  timbra tax-files list\n" +
			"  timbra tax-files list --page 2 --page-size 50 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "files", 50, ""),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func listRun(c *cli.Context, o *listOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	page, err := client.ListTaxFiles(c.Context, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(page.Items))
	for _, it := range page.Items {
		rows = append(rows, taxFileRow(p, it))
	}
	if err := p.Table(page, taxFileColumns, rows, "No tax files."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, page.PageNumber, page.TotalPages, page.TotalCount, "files")
	return nil
}

type getOptions struct {
	f  *cmdutil.Factory
	ID string
}

func newGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[getOptions]) *cli.Command {
	o := &getOptions{f: f}
	run = cmdutil.OrRun(run, getRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show one tax file (without its content or password)",
		UsageText: "timbra tax-files get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the file's fields as `label: value` lines; with -o json, the record as the API\n" +
			"answers it.\n\n" +
			"Example:\n" +
			"  timbra tax-files get 0195b3c2-7d1e-7a40-9c3b-5e8f1a2b4c6d -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "tax file ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func getRun(c *cli.Context, o *getOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	x, err := client.GetTaxFile(c.Context, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	return p.Fields(x, taxFileFields(p, x))
}

type uploadOptions struct {
	f        *cmdutil.Factory
	Person   string
	Cer, Key string
	FIEL     bool
	Password cmdutil.KeyPassword
}

func newUploadCmd(f *cmdutil.Factory, run cmdutil.RunFunc[uploadOptions]) *cli.Command {
	o := &uploadOptions{f: f}
	run = cmdutil.OrRun(run, uploadRun)
	return &cli.Command{
		Name:      "upload",
		Usage:     "Upload a person's certificate and private key",
		UsageText: "timbra tax-files upload --person ID --cer FILE --key FILE [--fiel] [--password-file PATH | --password-env NAME | --password-stdin]",
		Description: "Sends the certificate (fileType 0, or 2 with --fiel) and then the private key (1, or 3), two\n" +
			"requests, and prints both saved records. The key's password comes from --password-file,\n" +
			"--password-env, --password-stdin or a prompt on a terminal (asked once, not echoed); never\n" +
			"from a flag value. The RFC is the person's.\n\n" +
			"Examples:\n" +
			"  timbra tax-files upload --person 3f2a0c1e-... --cer CSD.cer --key CSD.key\n" +
			"  CSD_PW=... timbra tax-files upload --person 3f2a0c1e-... --cer a.cer --key a.key --password-env CSD_PW -o json\n" +
			"  timbra tax-files upload --person 3f2a0c1e-... --cer fiel.cer --key fiel.key --fiel --password-file pw.txt",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "person", Usage: "the person `ID`", Required: true, Destination: &o.Person},
			&cli.StringFlag{Name: "cer", Usage: "the certificate (.cer, DER) at `PATH`", Required: true, TakesFile: true, Destination: &o.Cer},
			&cli.StringFlag{Name: "key", Usage: "the private key (.key, encrypted PKCS#8) at `PATH`", Required: true, TakesFile: true, Destination: &o.Key},
			&cli.BoolFlag{Name: "fiel", Usage: "an e.firma (FIEL) pair: fileType 2 and 3 instead of 0 and 1", Destination: &o.FIEL},
		}, cmdutil.KeyPasswordFlags(&o.Password)...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func uploadRun(c *cli.Context, o *uploadOptions) error {
	cer, key, password, err := (&cmdutil.KeyPair{Cer: o.Cer, Key: o.Key, Password: o.Password}).Read(c, o.f.IO)
	if err != nil {
		return err
	}
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	cerType, keyType := api.TaxFileCertificateCSD, api.TaxFilePrivateKeyCSD
	if o.FIEL {
		cerType, keyType = api.TaxFileCertificateFIEL, api.TaxFilePrivateKeyFIEL
	}
	ctx := c.Context
	saved := make([]api.TaxFile, 0, 2)
	x, err := client.UploadTaxFile(ctx, api.TaxFileUpload{PersonID: o.Person, Base64File: base64.StdEncoding.EncodeToString(cer), FileType: cerType})
	if err != nil {
		return cmdutil.Explain(err, cmdutil.Sources{"PersonId": "--person", "Tin": "--person", "Base64File": "--cer " + o.Cer})
	}
	saved = append(saved, x)
	if !o.f.JSON() {
		fmt.Fprintf(o.f.IO.Err, "Certificate uploaded (%s).\n", x.ID)
	}
	x, err = client.UploadTaxFile(ctx, api.TaxFileUpload{PersonID: o.Person, Base64File: base64.StdEncoding.EncodeToString(key), FileType: keyType, Password: password})
	if err != nil {
		return cmdutil.Explain(err, cmdutil.Sources{"PersonId": "--person", "Tin": "--person", "Base64File": "--key " + o.Key,
			"Password": "--password-file, --password-env or --password-stdin"})
	}
	saved = append(saved, x)
	p := o.f.Printer()
	rows := [][]string{taxFileRow(p, saved[0]), taxFileRow(p, saved[1])}
	return p.Table(saved, taxFileColumns, rows, "")
}

type deleteOptions struct {
	f   *cmdutil.Factory
	ID  string
	Yes bool
}

func newDeleteCmd(f *cmdutil.Factory, run cmdutil.RunFunc[deleteOptions]) *cli.Command {
	o := &deleteOptions{f: f}
	run = cmdutil.OrRun(run, deleteRun)
	return &cli.Command{
		Name:      "delete",
		Usage:     "Delete one tax file (its content and password are erased)",
		UsageText: "timbra tax-files delete ID [--yes]",
		ArgsUsage: "ID",
		Description: "Deletes one file: a certificate or a key, one request each. The record stays for audit but\n" +
			"is no longer listed nor used to seal. On a terminal it asks first; elsewhere --yes is required.\n\n" +
			"Examples:\n" +
			"  timbra tax-files delete 0195b3c2-7d1e-7a40-9c3b-5e8f1a2b4c6d\n" +
			"  timbra tax-files delete 0195b3c2-7d1e-7a40-9c3b-5e8f1a2b4c6d --yes -o json",
		Flags: []cli.Flag{
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "tax file ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "delete"); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func deleteRun(c *cli.Context, o *deleteOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	ios := o.f.IO
	if !o.Yes {
		x, err := client.GetTaxFile(ctx, o.ID)
		if err != nil {
			return err
		}
		if err := cmdutil.Confirm(ctx, ios, fmt.Sprintf("Delete the %s %s of %s (%s)?", taxFileTypeText(x.FileType), x.ID, x.Tin, x.PersonID), "not deleted"); err != nil {
			return err
		}
	}
	if err := client.DeleteTaxFile(ctx, o.ID); err != nil {
		return err
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(ios.Out, map[string]any{"id": o.ID, "deleted": true})
	}
	fmt.Fprintf(ios.Out, "Deleted tax file %s.\n", o.ID)
	return nil
}

type defaultsOptions struct {
	f      *cmdutil.Factory
	Person string
	Values bool
	OutDir string
}

func newDefaultsCmd(f *cmdutil.Factory, run cmdutil.RunFunc[defaultsOptions]) *cli.Command {
	o := &defaultsOptions{f: f}
	run = cmdutil.OrRun(run, defaultsRun)
	return &cli.Command{
		Name:      "defaults",
		Usage:     "Show a person's default certificate and key (the pair that seals)",
		UsageText: "timbra tax-files defaults PERSON_ID [--values [--out-dir DIR]] [-o json]",
		ArgsUsage: "PERSON_ID",
		Description: "Without --values, the default references: the ids, RFC and validity of the certificate and\n" +
			"key used to seal by-reference invoices. With --values, the files themselves are fetched; the\n" +
			"password is never printed (only whether it is set), and the contents are shown as sizes unless\n" +
			"--out-dir writes them as RFC.cer and RFC.key (mode 0600). Only the person and the owner may.\n\n" +
			"Examples:\n" +
			"  timbra tax-files defaults 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra tax-files defaults 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --values --out-dir ./csd -o json",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "values", Usage: "fetch the files with their content (default-values)", Destination: &o.Values},
			&cli.StringFlag{Name: "out-dir", Usage: "with --values, write the certificate and key into `DIR`", TakesFile: true, Destination: &o.OutDir},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.Person = c.Args().First()
			if o.OutDir != "" && !o.Values {
				return cmdutil.UsageErrorf(c, "--out-dir needs --values")
			}
			return run(c, o)
		},
	}
}

// defaultValueView is a file of default-values as printed: without its password or content.
type defaultValueView struct {
	api.TaxFile
	PasswordSet  bool   `json:"passwordSet"`
	ContentBytes int    `json:"contentBytes"`
	WrittenTo    string `json:"writtenTo,omitempty"`
}

func defaultsRun(c *cli.Context, o *defaultsOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	p := o.f.Printer()
	if !o.Values {
		refs, err := client.TaxFileDefaultReferences(ctx, o.Person)
		if err != nil {
			return err
		}
		rows := make([][]string, 0, len(refs))
		for _, x := range refs {
			rows = append(rows, taxFileRow(p, x))
		}
		return p.Table(refs, taxFileColumns, rows, "No default tax files.")
	}
	files, err := client.TaxFileDefaultValues(ctx, o.Person)
	if err != nil {
		return err
	}
	views := make([]defaultValueView, 0, len(files))
	for _, x := range files {
		v := defaultValueView{TaxFile: x, PasswordSet: x.Password != ""}
		content, err := base64.StdEncoding.DecodeString(x.Base64File)
		if err != nil {
			return fmt.Errorf("tax file %s: the content is not base64", x.ID)
		}
		v.ContentBytes = len(content)
		if o.OutDir != "" {
			if v.WrittenTo, err = writeTaxFile(o.OutDir, x, content); err != nil {
				return err
			}
		}
		v.Password, v.Base64File = "", ""
		views = append(views, v)
	}
	if p.JSON {
		return cmdutil.WriteJSON(o.f.IO.Out, views)
	}
	if len(views) == 0 {
		fmt.Fprintln(o.f.IO.Err, "No default tax files.")
		return nil
	}
	for i, v := range views {
		if i > 0 {
			fmt.Fprintln(o.f.IO.Out)
		}
		fs := taxFileFields(p, v.TaxFile)
		pw := "not set"
		if v.PasswordSet {
			pw = "set (not shown)"
		}
		fs = append(fs, cmdutil.Field{Label: "Content", Value: fmt.Sprintf("%d bytes", v.ContentBytes)}, cmdutil.Field{Label: "Password", Value: pw})
		if v.WrittenTo != "" {
			fs = append(fs, cmdutil.Field{Label: "Written to", Value: v.WrittenTo})
		}
		if err := p.Fields(v, fs); err != nil {
			return err
		}
	}
	return nil
}

// writeTaxFile writes a default file as DIR/RFC.cer or DIR/RFC.key, readable by its owner only.
func writeTaxFile(dir string, x api.TaxFile, content []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	ext := ".key"
	if x.FileType == api.TaxFileCertificateCSD || x.FileType == api.TaxFileCertificateFIEL {
		ext = ".cer"
	}
	name := strings.ToUpper(x.Tin)
	if name == "" || strings.ContainsAny(name, `/\.`) {
		name = x.ID
	}
	path := filepath.Join(dir, name+ext)
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	if err := fh.Chmod(0o600); err != nil {
		fh.Close()
		return "", err
	}
	if _, err := fh.Write(content); err != nil {
		fh.Close()
		return "", err
	}
	return path, fh.Close()
}

// retryAfterSlot receives the Retry-After of the answer to a request whose context carries it.
type retryAfterSlot struct{ d time.Duration }

type retryAfterKey struct{}

// retryAfterTransport records the Retry-After header of answers in the request's slot.
type retryAfterTransport struct{ base http.RoundTripper }

func (t retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		if s, ok := req.Context().Value(retryAfterKey{}).(*retryAfterSlot); ok {
			s.d = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
	}
	return resp, err
}

// parseRetryAfter reads delta-seconds or an HTTP date; 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		return max(time.Duration(n)*time.Second, 0)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// apiBulk is bulkAPI over the API client.
type apiBulk struct{ c *api.Client }

// newAPIBulk copies the client with a transport that keeps a connection per worker and records
// Retry-After.
func newAPIBulk(c *api.Client, hc *http.Client, workers int) *apiBulk {
	cp := *c
	base := http.RoundTripper(nil)
	timeout := 60 * time.Second
	if hc != nil {
		base, timeout = hc.Transport, hc.Timeout
	}
	if base == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(workers, 2)
		base = tr
	}
	cp.HTTP = &http.Client{Transport: retryAfterTransport{base: base}, Timeout: timeout}
	return &apiBulk{c: &cp}
}

// call runs one request and attaches its Retry-After to its error.
func call(ctx context.Context, do func(context.Context) error) error {
	slot := &retryAfterSlot{}
	err := do(context.WithValue(ctx, retryAfterKey{}, slot))
	if err != nil && slot.d > 0 {
		return &retryAfterError{err: err, after: slot.d}
	}
	return err
}

const bulkPageSize = 50

func (a *apiBulk) People(ctx context.Context) ([]bulkPerson, error) {
	var out []bulkPerson
	for page := 1; ; page++ {
		var pl api.PagedList[api.Person]
		err := call(ctx, func(ctx context.Context) (err error) { pl, err = a.c.ListPeople(ctx, page, bulkPageSize); return err })
		if err != nil {
			return nil, err
		}
		for _, p := range pl.Items {
			out = append(out, bulkPerson{ID: p.ID, Tin: api.Deref(p.Tin)})
		}
		if page >= pl.TotalPages || len(pl.Items) == 0 {
			return out, nil
		}
	}
}

func (a *apiBulk) TaxFiles(ctx context.Context) ([]bulkFile, error) {
	var out []bulkFile
	for page := 1; ; page++ {
		var pl api.PagedList[api.TaxFile]
		err := call(ctx, func(ctx context.Context) (err error) { pl, err = a.c.ListTaxFiles(ctx, page, bulkPageSize); return err })
		if err != nil {
			return nil, err
		}
		for _, x := range pl.Items {
			out = append(out, bulkFile{ID: x.ID, PersonID: x.PersonID, FileType: x.FileType, CertificateNumber: api.Deref(x.CertificateNumber), Sequence: x.Sequence})
		}
		if page >= pl.TotalPages || len(pl.Items) == 0 {
			return out, nil
		}
	}
}

func (a *apiBulk) Upload(ctx context.Context, in bulkUpload) (f bulkFile, err error) {
	err = call(ctx, func(ctx context.Context) error {
		x, err := a.c.UploadTaxFile(ctx, api.TaxFileUpload{
			PersonID: in.PersonID, Tin: in.Tin, FileType: in.FileType,
			Base64File: base64.StdEncoding.EncodeToString(in.Content), Password: in.Password,
		})
		f = bulkFile{ID: x.ID, PersonID: x.PersonID, FileType: x.FileType, CertificateNumber: api.Deref(x.CertificateNumber), Sequence: x.Sequence}
		return err
	})
	return f, err
}

func (a *apiBulk) Delete(ctx context.Context, id string) error {
	return call(ctx, func(ctx context.Context) error { return a.c.DeleteTaxFile(ctx, id) })
}

// validateWithCSD is the local check of a pair: the certificate parses and the key is an
// encrypted private key (not opened: see bulkValidator).
func validateWithCSD(cer, key []byte) (bulkCert, error) {
	c, err := csd.ParseCertificate(cer)
	if err != nil {
		return bulkCert{}, fmt.Errorf("certificate: %w", err)
	}
	if err := csd.CheckEncryptedKey(key); err != nil {
		return bulkCert{}, fmt.Errorf("key: %w", err)
	}
	return bulkCert{Number: c.Number, RFC: c.RFC, ValidTo: c.ValidTo, Kind: c.Kind}, nil
}
