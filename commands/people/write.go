package people

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// The write side of `timbra people`: create, update, delete. Field flags map one to one onto
// the API's person fields; secrets never come from a flag value.

// personTextFlags are the flags of the person's text fields.
var personTextFlags = []struct {
	name, usage string
	field       func(*api.PersonInput) **string
}{
	{"legal-name", "legal name `NAME` as registered, without the legal form (SA de CV...)", func(p *api.PersonInput) **string { return &p.LegalName }},
	{"email", "`EMAIL` to sign in with; unique across the service", func(p *api.PersonInput) **string { return &p.Email }},
	{"phone", "phone `NUMBER`", func(p *api.PersonInput) **string { return &p.PhoneNumber }},
	{"tax-regime", "SAT tax regime `KEY` (c_RegimenFiscal, for example 601 or 626)", func(p *api.PersonInput) **string { return &p.SatTaxRegimeID }},
	{"cfdi-use", "default CFDI use `KEY` as a recipient (c_UsoCFDI, for example G03)", func(p *api.PersonInput) **string { return &p.SatCfdiUseID }},
	{"user-type", "user `TYPE`: C (customer, the default) or U (user)", func(p *api.PersonInput) **string { return &p.UserTypeID }},
	{"tin", "`RFC` (tax identification number)", func(p *api.PersonInput) **string { return &p.Tin }},
	{"curp", "`CURP` (for payroll CFDI)", func(p *api.PersonInput) **string { return &p.Curp }},
	{"zip-code", "`ZIP` code of the tax status certificate (c_CodigoPostal)", func(p *api.PersonInput) **string { return &p.ZipCode }},
	{"country", "country of residence abroad `KEY` (c_Pais, for example USA)", func(p *api.PersonInput) **string { return &p.CountryID }},
	{"foreign-tin", "foreign tax registration `NUMBER` (up to 40 characters)", func(p *api.PersonInput) **string { return &p.ForeignTin }},
}

// personSources are the flags of the API's properties of a person (failures name them).
var personSources = cmdutil.Sources{
	"LegalName": "--legal-name", "Email": "--email", "PhoneNumber": "--phone", "SatTaxRegimeId": "--tax-regime",
	"SatCfdiUseId": "--cfdi-use", "UserTypeId": "--user-type", "Tin": "--tin", "Curp": "--curp", "ZipCode": "--zip-code",
	"CountryId": "--country", "ForeignTin": "--foreign-tin", "Base64Photo": "--photo-file",
	"Password": "--password-file, --password-stdin or --password-prompt", "TaxPassword": "--tax-password-file or --tax-password-stdin",
}

// writeOptions are the options of create and update.
type writeOptions struct {
	f                *cmdutil.Factory
	ID               string // update
	Create           bool
	Fields           map[string]string // flag name → value, only the flags given
	PhotoFile        string
	File             string
	PasswordStdin    bool
	PasswordFile     string
	PasswordPrompt   bool // update: ask for a new password on the terminal
	TaxPasswordStdin bool
	TaxPasswordFile  string
}

func writeFlags(o *writeOptions) []cli.Flag {
	var fs []cli.Flag
	for _, tf := range personTextFlags {
		fs = append(fs, &cli.StringFlag{Name: tf.name, Usage: tf.usage})
	}
	fs = append(fs,
		&cli.StringFlag{Name: "photo-file", Usage: "profile photo from `PATH` (sent in base64)", TakesFile: true, Destination: &o.PhotoFile},
		&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the person as JSON from `PATH` (- for stdin); flags override its fields", TakesFile: true, Destination: &o.File},
		&cli.BoolFlag{Name: "password-stdin", Usage: "read the sign-in password from the first line of stdin", Destination: &o.PasswordStdin},
		&cli.StringFlag{Name: "password-file", Usage: "read the sign-in password from the first line of `PATH`", TakesFile: true, Destination: &o.PasswordFile},
		&cli.BoolFlag{Name: "tax-password-stdin", Usage: "read the private key password (CSD) from the first line of stdin", Destination: &o.TaxPasswordStdin},
		&cli.StringFlag{Name: "tax-password-file", Usage: "read the private key password (CSD) from the first line of `PATH` (an empty file clears it)", TakesFile: true, Destination: &o.TaxPasswordFile},
	)
	if !o.Create {
		fs = append(fs, &cli.BoolFlag{Name: "password-prompt", Usage: "ask for a new sign-in password on the terminal", Destination: &o.PasswordPrompt})
	}
	return fs
}

// collect reads the field flags that were given.
func (o *writeOptions) collect(c *cli.Context) error {
	o.Fields = map[string]string{}
	for _, tf := range personTextFlags {
		if c.IsSet(tf.name) {
			o.Fields[tf.name] = c.String(tf.name)
		}
	}
	stdin := 0
	for _, b := range []bool{o.File == "-", o.PasswordStdin, o.TaxPasswordStdin} {
		if b {
			stdin++
		}
	}
	if stdin > 1 {
		return cmdutil.UsageErrorf(c, "only one of --file -, --password-stdin and --tax-password-stdin can read stdin")
	}
	if o.PasswordStdin && o.PasswordFile != "" || o.PasswordPrompt && (o.PasswordStdin || o.PasswordFile != "") {
		return cmdutil.UsageErrorf(c, "give the sign-in password one way: --password-stdin, --password-file or --password-prompt")
	}
	if o.TaxPasswordStdin && o.TaxPasswordFile != "" {
		return cmdutil.UsageErrorf(c, "give the private key password one way: --tax-password-stdin or --tax-password-file")
	}
	return nil
}

func newCreateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[writeOptions]) *cli.Command {
	o := &writeOptions{f: f, Create: true}
	run = cmdutil.OrRun(run, writeRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Create a person (an issuer, a recipient, someone who signs in)",
		UsageText: "timbra people create --legal-name NAME --email EMAIL [field flags] [--file person.json] [--password-stdin | --password-file PATH]",
		Description: "Creates a person in your tenant and prints it. Legal name, email and sign-in password are\n" +
			"required; the password comes from --password-file, --password-stdin, the \"password\" of --file,\n" +
			"or a prompt on a terminal (never from a flag value). It needs at least 6 characters with an\n" +
			"upper case A-Z, a lower case a-z, a digit and another character. The private key password\n" +
			"(taxPassword) comes from --tax-password-file or --tax-password-stdin.\n\n" +
			"Examples:\n" +
			"  timbra people create --legal-name \"Escuela Kemper Urgate\" --email ekU@example.com \\\n" +
			"      --tin EKU9003173C9 --tax-regime 601 --zip-code 42501 --password-file pw.txt\n" +
			"  printf '%s\\n' \"$PW\" | timbra people create --file person.json --password-stdin -o json",
		Flags: writeFlags(o),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := o.collect(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func newUpdateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[writeOptions]) *cli.Command {
	o := &writeOptions{f: f}
	run = cmdutil.OrRun(run, writeRun)
	return &cli.Command{
		Name:      "update",
		Usage:     "Change fields of a person",
		UsageText: "timbra people update ID [field flags] [--file person.json] [--password-prompt | --password-stdin | --password-file PATH]",
		ArgsUsage: "ID",
		Description: "Sends only the fields given (flags, or the fields of --file); the rest keep their value. An\n" +
			"empty value clears an optional field (--tin \"\"). Only the owner changes the owner, and only\n" +
			"the owner or the person themself change the person's email, password or private key password.\n\n" +
			"Examples:\n" +
			"  timbra people update 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --phone 5512345678 --tax-regime 626\n" +
			"  timbra people update 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --password-prompt\n" +
			"  timbra people update 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --tax-password-file csd-pw.txt -o json",
		Flags: writeFlags(o),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if err := o.collect(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

// writeRun builds the body from --file, the flags and the secrets, and sends it.
func writeRun(c *cli.Context, o *writeOptions) error {
	ctx, ios := c.Context, o.f.IO
	stdin := bufio.NewReader(ios.In)
	var in api.PersonInput
	if o.File != "" {
		raw, err := cmdutil.ReadInput(o.File, stdin)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&in); err != nil {
			return cmdutil.UsageErrorf(c, "--file %s: not a JSON person: %v", o.File, err)
		}
	}
	for _, tf := range personTextFlags {
		if v, ok := o.Fields[tf.name]; ok {
			*tf.field(&in) = &v
		}
	}
	if o.PhotoFile != "" {
		raw, err := os.ReadFile(o.PhotoFile)
		if err != nil {
			return cmdutil.UsageErrorf(c, "--photo-file: %v", err)
		}
		v := base64.StdEncoding.EncodeToString(raw)
		in.Base64Photo = &v
	}
	var err error
	switch {
	case o.PasswordFile != "":
		in.Password, err = cmdutil.SecretFromFile(o.PasswordFile)
	case o.PasswordStdin:
		in.Password, err = cmdutil.SecretLine(ctx, stdin)
	case o.PasswordPrompt || (o.Create && in.Password == nil && ios.InTTY):
		if !ios.InTTY {
			return cmdutil.UsageErrorf(c, "--password-prompt needs a terminal; use --password-stdin or --password-file")
		}
		in.Password, err = promptNewPassword(ctx, ios, stdin)
	}
	if err != nil {
		return err
	}
	if o.Create && (in.Password == nil || *in.Password == "") {
		return cmdutil.UsageErrorf(c, "missing sign-in password: pass --password-file or --password-stdin, or run on a terminal to be asked")
	}
	switch {
	case o.TaxPasswordFile != "":
		in.TaxPassword, err = cmdutil.SecretFromFile(o.TaxPasswordFile)
	case o.TaxPasswordStdin:
		in.TaxPassword, err = cmdutil.SecretLine(ctx, stdin)
	}
	if err != nil {
		return err
	}
	if !o.Create && in == (api.PersonInput{}) {
		return cmdutil.UsageErrorf(c, "nothing to change: give at least one field flag, --file or a password option")
	}

	client, err := o.f.Client()
	if err != nil {
		return err
	}
	var p api.Person
	if o.Create {
		p, err = client.CreatePerson(ctx, in)
	} else {
		p, err = client.UpdatePerson(ctx, o.ID, in)
	}
	if err != nil {
		return cmdutil.Explain(err, personSources)
	}
	pr := o.f.Printer()
	return pr.Fields(p, personFields(pr, p))
}

// promptNewPassword asks twice, without echo, for a new sign-in password.
func promptNewPassword(ctx context.Context, ios *cmdutil.IOStreams, stdin *bufio.Reader) (*string, error) {
	fmt.Fprint(ios.Err, "Password: ")
	first, err := cmdutil.ReadSecret(ctx, ios.In, stdin)
	fmt.Fprintln(ios.Err)
	if err != nil {
		return nil, err
	}
	fmt.Fprint(ios.Err, "Repeat the password: ")
	second, err := cmdutil.ReadSecret(ctx, ios.In, stdin)
	fmt.Fprintln(ios.Err)
	if err != nil {
		return nil, err
	}
	if first != second {
		return nil, errors.New("the passwords do not match")
	}
	return &first, nil
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
		Usage:     "Delete a person and revoke its API keys",
		UsageText: "timbra people delete ID [--yes]",
		ArgsUsage: "ID",
		Description: "Deletes the person; its API keys are revoked at once. The owner of the tenant cannot be\n" +
			"deleted. On a terminal it asks first; elsewhere (scripts, pipes) --yes is required.\n\n" +
			"Examples:\n" +
			"  timbra people delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra people delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --yes -o json",
		Flags: []cli.Flag{
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
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
		p, err := client.GetPerson(ctx, o.ID)
		if err != nil {
			return err
		}
		if err := cmdutil.Confirm(ctx, ios, fmt.Sprintf("Delete %s (%s, %s)? Its API keys stop working at once.", p.ID, p.LegalName, p.Email), "not deleted"); err != nil {
			return err
		}
	}
	if err := client.DeletePerson(ctx, o.ID); err != nil {
		return err
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(ios.Out, map[string]any{"id": o.ID, "deleted": true})
	}
	fmt.Fprintf(ios.Out, "Deleted person %s; its API keys are revoked.\n", o.ID)
	return nil
}
