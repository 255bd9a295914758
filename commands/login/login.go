// Package login is `timbra login` and `timbra logout`: a profile's address and keys, saved and
// forgotten.
package login

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra login`.
func NewCmd(f *cmdutil.Factory) *cli.Command { return newLoginCmd(f, nil) }

// NewCmdLogout is `timbra logout`.
func NewCmdLogout(f *cmdutil.Factory) *cli.Command { return newLogoutCmd(f, nil) }

type loginOptions struct {
	f           *cmdutil.Factory
	BaseURL     string
	TenantKey   string
	APIKeyStdin bool
}

func newLoginCmd(f *cmdutil.Factory, run cmdutil.RunFunc[loginOptions]) *cli.Command {
	o := &loginOptions{f: f}
	run = cmdutil.OrRun(run, loginRun)
	return &cli.Command{
		Name:      "login",
		Usage:     "Save the address and keys of a timbra API in a profile",
		UsageText: "timbra login [--base-url URL] [--tenant-key KEY] [--api-key-stdin] [--profile NAME]",
		Description: "Checks the credentials against the API, then keeps the base address and tenant key in\n" +
			"the configuration file and the API key in the OS keyring (or, where there is none, in a\n" +
			"file readable only by you). The API key is never a flag: it comes from TIMBRA_API_KEY,\n" +
			"from stdin with --api-key-stdin, or from a prompt that does not echo.\n\n" +
			"Examples:\n" +
			"  timbra login --base-url http://127.0.0.1:8080 --tenant-key 0f9c...\n" +
			"  printf '%s\\n' \"$KEY\" | timbra login --tenant-key 0f9c... --api-key-stdin --profile live",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "base-url", Usage: "address `URL` of the API (default: TIMBRA_BASE_URL, the profile's, or " + cmdutil.DefaultBaseURL + ")", Destination: &o.BaseURL},
			&cli.StringFlag{Name: "tenant-key", Usage: "tenant `KEY` (default: TIMBRA_TENANT_KEY or a prompt)", Destination: &o.TenantKey},
			&cli.BoolFlag{Name: "api-key-stdin", Usage: "read the API key from the first line of stdin", Destination: &o.APIKeyStdin},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func loginRun(c *cli.Context, o *loginOptions) error {
	f := o.f
	ios := f.IO
	profile := f.Profile
	dir, err := cmdutil.ConfigDir()
	if err != nil {
		return err
	}
	cfg, err := cmdutil.LoadConfig(dir)
	if err != nil {
		return err
	}
	store, err := cmdutil.NewSecretStore(dir)
	if err != nil {
		return err
	}
	old := cfg.Profiles[profile]

	base := cmdutil.FirstNonEmpty(o.BaseURL, os.Getenv("TIMBRA_BASE_URL"), old.BaseURL, cmdutil.DefaultBaseURL)
	if err := cmdutil.CheckBaseURL(base); err != nil {
		return cmdutil.UsageErrorf(c, "%v", err)
	}
	base = strings.TrimRight(base, "/")

	in := bufio.NewReader(ios.In)
	canPrompt := ios.InTTY && !o.APIKeyStdin

	tenant := cmdutil.FirstNonEmpty(strings.TrimSpace(o.TenantKey), os.Getenv("TIMBRA_TENANT_KEY"))
	if tenant == "" && canPrompt {
		prompt := "Tenant key: "
		if old.TenantKey != "" {
			prompt = fmt.Sprintf("Tenant key [%s]: ", old.TenantKey)
		}
		fmt.Fprint(ios.Err, prompt)
		line, err := cmdutil.ReadLine(c.Context, in)
		if err != nil {
			return err
		}
		tenant = cmdutil.FirstNonEmpty(line, old.TenantKey)
	}
	if tenant == "" {
		tenant = old.TenantKey
	}
	if tenant == "" {
		return cmdutil.UsageErrorf(c, "missing tenant key: pass --tenant-key or set TIMBRA_TENANT_KEY")
	}

	var key string
	switch {
	case o.APIKeyStdin:
		line, err := cmdutil.ReadLine(c.Context, in)
		if err != nil {
			return err
		}
		if line == "" {
			return cmdutil.UsageErrorf(c, "--api-key-stdin: no API key on the first line of stdin")
		}
		key = line
	case os.Getenv("TIMBRA_API_KEY") != "":
		key = os.Getenv("TIMBRA_API_KEY")
	case ios.InTTY:
		fmt.Fprint(ios.Err, "API key: ")
		key, err = cmdutil.ReadSecret(c.Context, ios.In, in)
		fmt.Fprintln(ios.Err)
		if err != nil {
			return err
		}
		if key == "" {
			return cmdutil.UsageErrorf(c, "no API key given")
		}
	default:
		return cmdutil.UsageErrorf(c, "no API key: set TIMBRA_API_KEY, pipe it with --api-key-stdin, or run on a terminal to be prompted")
	}

	client := &api.Client{BaseURL: base, TenantKey: tenant, APIKey: key, TimeZone: f.TimeZone, UserAgent: f.UserAgent(), HTTP: f.HTTP}
	if err := verifyCredentials(c.Context, client); err != nil {
		return refused(err, base, tenant) // nothing saved
	}

	stored, warning, err := store.Set(profile, key)
	if err != nil {
		return err
	}
	if warning != "" {
		ios.Warn(warning)
	}
	cfg.Profiles[profile] = cmdutil.Profile{BaseURL: base, TenantKey: tenant}
	if err := cmdutil.SaveConfig(dir, cfg); err != nil {
		return err
	}

	where := "the system keyring"
	if stored == cmdutil.SrcFile {
		where = store.FilePath()
	}
	if f.JSON() {
		return cmdutil.WriteJSON(ios.Out, map[string]string{
			"profile": profile, "baseUrl": base, "tenantKey": tenant, "apiKey": cmdutil.MaskSecret(key), "storedIn": where,
		})
	}
	fmt.Fprintf(ios.Out, "Logged in to %s (profile %s, tenant %s).\n", base, profile, tenant)
	fmt.Fprintf(ios.Out, "API key stored in %s.\n", where)
	return nil
}

// verifyCredentials asks for one person: a wrong key or tenant is refused by the API.
func verifyCredentials(ctx context.Context, c *api.Client) error {
	_, err := c.ListPeople(ctx, 1, 1)
	return err
}

// refused explains the API's 401, whose text (a valid key is missing) is the same for a key
// that was sent and is wrong: the hint says the key was given and refused, and where the right
// one comes from.
func refused(err error, base, tenant string) error {
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		return err
	}
	return cmdutil.Explain(err, nil, cmdutil.Hint{Text: fmt.Sprintf("the API key is wrong, not missing: %s refused it for tenant %s "+
		"(a mistyped key, one of another tenant or database, revoked or suspended; or a wrong tenant key). "+
		"Nothing was saved; use the pair 'timbra server init' or the server's first start printed, or a key of 'timbra api-keys create'",
		base, tenant)})
}

type logoutOptions struct{ f *cmdutil.Factory }

func newLogoutCmd(f *cmdutil.Factory, run cmdutil.RunFunc[logoutOptions]) *cli.Command {
	o := &logoutOptions{f: f}
	run = cmdutil.OrRun(run, logoutRun)
	return &cli.Command{
		Name:      "logout",
		Usage:     "Forget the API key and settings of a profile",
		UsageText: "timbra logout [--profile NAME]",
		Description: "Removes the profile's API key from the keyring and the credentials file, and the profile\n" +
			"from the configuration file. Running it again does nothing.\n\n" +
			"Example:\n" +
			"  timbra logout --profile live",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func logoutRun(_ *cli.Context, o *logoutOptions) error {
	f := o.f
	profile := f.Profile
	dir, err := cmdutil.ConfigDir()
	if err != nil {
		return err
	}
	store, err := cmdutil.NewSecretStore(dir)
	if err != nil {
		return err
	}
	removed, err := store.Remove(profile)
	if err != nil {
		return err
	}
	var lines []string
	for _, where := range removed {
		lines = append(lines, fmt.Sprintf("Removed the API key of profile %s from %s.", profile, where))
	}
	cfg, err := cmdutil.LoadConfig(dir)
	if err != nil {
		return err
	}
	if _, ok := cfg.Profiles[profile]; ok {
		delete(cfg.Profiles, profile)
		if err := cmdutil.SaveConfig(dir, cfg); err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("Removed profile %s from %s.", profile, filepath.Join(dir, cmdutil.ConfigFileName)))
	}
	if len(lines) == 0 {
		lines = append(lines, fmt.Sprintf("Profile %s was not logged in: nothing to remove.", profile))
	}
	for _, l := range lines {
		fmt.Fprintln(f.IO.Out, l)
	}
	if os.Getenv("TIMBRA_API_KEY") != "" {
		f.IO.Warn("note: TIMBRA_API_KEY is still set in the environment")
	}
	return nil
}
