package cmdutil

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// KeyPassword is the ways to give a private key's password (a CSD's or an e.firma's): a file,
// an environment variable, stdin, or a prompt on a terminal; never a flag value.
type KeyPassword struct {
	File  string
	Env   string
	Stdin bool
}

// KeyPasswordFlags are --password-file, --password-env and --password-stdin.
func KeyPasswordFlags(o *KeyPassword) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "password-file", Usage: "read the key's password from the first line of `PATH`", TakesFile: true, Destination: &o.File},
		&cli.StringFlag{Name: "password-env", Usage: "read the key's password from the environment variable `NAME`", Destination: &o.Env},
		&cli.BoolFlag{Name: "password-stdin", Usage: "read the key's password from the first line of stdin", Destination: &o.Stdin},
	}
}

// Read returns the password the options say, or asks for it once, without echo, on a terminal.
func (o *KeyPassword) Read(c *cli.Context, ios *IOStreams) (string, error) {
	n := 0
	for _, b := range []bool{o.File != "", o.Env != "", o.Stdin} {
		if b {
			n++
		}
	}
	if n > 1 {
		return "", UsageErrorf(c, "give the key's password one way: --password-file, --password-env or --password-stdin")
	}
	switch {
	case o.File != "":
		p, err := SecretFromFile(o.File)
		if err != nil {
			return "", err
		}
		return *p, nil
	case o.Env != "":
		v, ok := os.LookupEnv(o.Env)
		if !ok {
			return "", UsageErrorf(c, "--password-env: the environment variable %s is not set", o.Env)
		}
		return v, nil
	case o.Stdin:
		p, err := SecretLine(c.Context, bufio.NewReader(ios.In))
		if err != nil {
			return "", err
		}
		return *p, nil
	}
	if !ios.InTTY {
		return "", UsageErrorf(c, "missing the key's password: pass --password-file, --password-env or --password-stdin, or run on a terminal to be asked")
	}
	fmt.Fprint(ios.Err, "Password of the private key: ")
	pw, err := readKeyPassword(c.Context, ios.In)
	fmt.Fprintln(ios.Err)
	return pw, err
}

// readKeyPassword reads one line without echo when in is a terminal (a plain line otherwise),
// keeping spaces: they may be part of a key's password.
func readKeyPassword(ctx context.Context, in io.Reader) (string, error) {
	if f, ok := in.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		fd := int(f.Fd())
		state, err := term.GetState(fd)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		pw, err := WhileCtx(ctx, func() (string, error) {
			b, err := term.ReadPassword(fd)
			if err != nil {
				return "", fmt.Errorf("read the password: %w", err)
			}
			return string(b), nil
		})
		if ctx.Err() != nil {
			_ = term.Restore(fd, state)
		}
		return pw, err
	}
	p, err := SecretLine(ctx, bufio.NewReader(in))
	if err != nil {
		return "", err
	}
	return *p, nil
}

// KeyPair is a certificate and its private key given as files (--cer, --key) and the key's
// password.
type KeyPair struct {
	Cer, Key string
	Password KeyPassword
}

// Read reads both files and the password; a file's error names its flag.
func (o *KeyPair) Read(c *cli.Context, ios *IOStreams) (cer, key []byte, password string, err error) {
	if cer, err = os.ReadFile(o.Cer); err != nil {
		return nil, nil, "", fmt.Errorf("--cer: %w", err)
	}
	if key, err = os.ReadFile(o.Key); err != nil {
		return nil, nil, "", fmt.Errorf("--key: %w", err)
	}
	if password, err = o.Password.Read(c, ios); err != nil {
		return nil, nil, "", err
	}
	return cer, key, password, nil
}
