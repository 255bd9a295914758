package commands

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

type loginOptions struct {
	f           *Factory
	BaseURL     string
	TenantKey   string
	APIKeyStdin bool
}

func newLoginCmd(f *Factory) *cli.Command {
	o := &loginOptions{f: f}
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
			&cli.StringFlag{Name: "base-url", Usage: "address `URL` of the API (default: TIMBRA_BASE_URL, the profile's, or " + defaultBaseURL + ")", Destination: &o.BaseURL},
			&cli.StringFlag{Name: "tenant-key", Usage: "tenant `KEY` (default: TIMBRA_TENANT_KEY or a prompt)", Destination: &o.TenantKey},
			&cli.BoolFlag{Name: "api-key-stdin", Usage: "read the API key from the first line of stdin", Destination: &o.APIKeyStdin},
		},
		Action: func(c *cli.Context) error {
			if err := exactArgs(c); err != nil {
				return err
			}
			return loginRun(c, o)
		},
	}
}

func loginRun(c *cli.Context, o *loginOptions) error {
	f := o.f
	ios := f.IO
	profile := f.Profile
	dir, err := configDir()
	if err != nil {
		return err
	}
	cfg, err := loadConfig(dir)
	if err != nil {
		return err
	}
	store, err := newSecretStore(dir)
	if err != nil {
		return err
	}
	old := cfg.Profiles[profile]

	base := firstNonEmpty(o.BaseURL, os.Getenv("TIMBRA_BASE_URL"), old.BaseURL, defaultBaseURL)
	if err := checkBaseURL(base); err != nil {
		return usageErrorf(c, "%v", err)
	}
	base = strings.TrimRight(base, "/")

	in := bufio.NewReader(ios.In)
	canPrompt := ios.InTTY && !o.APIKeyStdin

	tenant := firstNonEmpty(strings.TrimSpace(o.TenantKey), os.Getenv("TIMBRA_TENANT_KEY"))
	if tenant == "" && canPrompt {
		prompt := "Tenant key: "
		if old.TenantKey != "" {
			prompt = fmt.Sprintf("Tenant key [%s]: ", old.TenantKey)
		}
		fmt.Fprint(ios.Err, prompt)
		line, err := readLine(c.Context, in)
		if err != nil {
			return err
		}
		tenant = firstNonEmpty(line, old.TenantKey)
	}
	if tenant == "" {
		tenant = old.TenantKey
	}
	if tenant == "" {
		return usageErrorf(c, "missing tenant key: pass --tenant-key or set TIMBRA_TENANT_KEY")
	}

	var key string
	switch {
	case o.APIKeyStdin:
		line, err := readLine(c.Context, in)
		if err != nil {
			return err
		}
		if line == "" {
			return usageErrorf(c, "--api-key-stdin: no API key on the first line of stdin")
		}
		key = line
	case os.Getenv("TIMBRA_API_KEY") != "":
		key = os.Getenv("TIMBRA_API_KEY")
	case ios.InTTY:
		fmt.Fprint(ios.Err, "API key: ")
		key, err = readSecret(c.Context, ios.In, in)
		fmt.Fprintln(ios.Err)
		if err != nil {
			return err
		}
		if key == "" {
			return usageErrorf(c, "no API key given")
		}
	default:
		return usageErrorf(c, "no API key: set TIMBRA_API_KEY, pipe it with --api-key-stdin, or run on a terminal to be prompted")
	}

	client := &api.Client{BaseURL: base, TenantKey: tenant, APIKey: key, TimeZone: f.TimeZone, UserAgent: f.userAgent(), HTTP: f.HTTP}
	if err := verifyCredentials(c.Context, client); err != nil {
		return err // nothing saved
	}

	stored, warning, err := store.set(profile, key)
	if err != nil {
		return err
	}
	if warning != "" {
		ios.warn(warning)
	}
	cfg.Profiles[profile] = Profile{BaseURL: base, TenantKey: tenant}
	if err := saveConfig(dir, cfg); err != nil {
		return err
	}

	where := "the system keyring"
	if stored == srcFile {
		where = store.filePath()
	}
	if f.JSON() {
		return writeJSON(ios.Out, map[string]string{
			"profile": profile, "baseUrl": base, "tenantKey": tenant, "apiKey": maskSecret(key), "storedIn": where,
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

func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("invalid base URL %q: want http://host[:port] or https://host[:port]", s)
	}
	return nil
}

// readLine reads one line, without its line break and surrounding spaces. It gives up when ctx
// ends (Ctrl-C at a prompt), leaving the read behind: the process is about to exit.
func readLine(ctx context.Context, r *bufio.Reader) (string, error) {
	return whileCtx(ctx, func() (string, error) {
		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return strings.TrimSpace(line), nil
	})
}

// confirm asks question on the terminal and reads the answer: y or yes goes on, anything else
// is the error refusal ("not deleted"). Off a terminal, commands ask for --yes instead (each
// checks before calling).
func confirm(ctx context.Context, ios *IOStreams, question, refusal string) error {
	fmt.Fprintf(ios.Err, "%s [y/N]: ", question)
	answer, err := readLine(ctx, bufio.NewReader(ios.In))
	if err != nil {
		return err
	}
	if a := strings.ToLower(answer); a != "y" && a != "yes" {
		return errors.New(refusal)
	}
	return nil
}

// readSecret reads a line without echo when in is a terminal, or a plain line otherwise. The
// terminal's state is restored when ctx ends first.
func readSecret(ctx context.Context, in io.Reader, buffered *bufio.Reader) (string, error) {
	f, ok := in.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return readLine(ctx, buffered)
	}
	fd := int(f.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return "", fmt.Errorf("read API key: %w", err)
	}
	key, err := whileCtx(ctx, func() (string, error) {
		b, err := term.ReadPassword(fd)
		if err != nil {
			return "", fmt.Errorf("read API key: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	})
	if ctx.Err() != nil {
		_ = term.Restore(fd, state)
	}
	return key, err
}

// whileCtx runs read, or returns ctx's error when ctx ends first.
func whileCtx(ctx context.Context, read func() (string, error)) (string, error) {
	type answer struct {
		s   string
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		s, err := read()
		ch <- answer{s, err}
	}()
	select {
	case a := <-ch:
		return a.s, a.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

type logoutOptions struct{ f *Factory }

func newLogoutCmd(f *Factory) *cli.Command {
	o := &logoutOptions{f: f}
	return &cli.Command{
		Name:      "logout",
		Usage:     "Forget the API key and settings of a profile",
		UsageText: "timbra logout [--profile NAME]",
		Description: "Removes the profile's API key from the keyring and the credentials file, and the profile\n" +
			"from the configuration file. Running it again does nothing.\n\n" +
			"Example:\n" +
			"  timbra logout --profile live",
		Action: func(c *cli.Context) error {
			if err := exactArgs(c); err != nil {
				return err
			}
			return logoutRun(o)
		},
	}
}

func logoutRun(o *logoutOptions) error {
	f := o.f
	profile := f.Profile
	dir, err := configDir()
	if err != nil {
		return err
	}
	store, err := newSecretStore(dir)
	if err != nil {
		return err
	}
	removed, err := store.remove(profile)
	if err != nil {
		return err
	}
	var lines []string
	for _, where := range removed {
		lines = append(lines, fmt.Sprintf("Removed the API key of profile %s from %s.", profile, where))
	}
	cfg, err := loadConfig(dir)
	if err != nil {
		return err
	}
	if _, ok := cfg.Profiles[profile]; ok {
		delete(cfg.Profiles, profile)
		if err := saveConfig(dir, cfg); err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("Removed profile %s from %s.", profile, filepath.Join(dir, configFileName)))
	}
	if len(lines) == 0 {
		lines = append(lines, fmt.Sprintf("Profile %s was not logged in: nothing to remove.", profile))
	}
	for _, l := range lines {
		fmt.Fprintln(f.IO.Out, l)
	}
	if os.Getenv("TIMBRA_API_KEY") != "" {
		f.IO.warn("note: TIMBRA_API_KEY is still set in the environment")
	}
	return nil
}
