package cmdutil

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// ReadLine reads one line, without its line break and surrounding spaces. It gives up when ctx
// ends (Ctrl-C at a prompt), leaving the read behind: the process is about to exit.
func ReadLine(ctx context.Context, r *bufio.Reader) (string, error) {
	return WhileCtx(ctx, func() (string, error) {
		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return strings.TrimSpace(line), nil
	})
}

// YesFlag is --yes (-y), which answers Confirm's question beforehand.
func YesFlag(yes *bool) cli.Flag {
	return &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation", Destination: yes}
}

// CanConfirm refuses, as a usage error, a command line that would have to ask before it does
// what verb says ("delete") when stdin is no terminal to ask on and --yes was not given.
func CanConfirm(c *cli.Context, ios *IOStreams, yes bool, verb string) error {
	if yes || ios.InTTY {
		return nil
	}
	return UsageErrorf(c, "refusing to %s without confirmation: stdin is not a terminal; pass --yes", verb)
}

// Confirm asks question on the terminal and reads the answer: y or yes goes on, anything else
// is the error refusal ("not deleted"). Off a terminal, commands ask for --yes instead
// (CanConfirm, before calling).
func Confirm(ctx context.Context, ios *IOStreams, question, refusal string) error {
	fmt.Fprintf(ios.Err, "%s [y/N]: ", question)
	answer, err := ReadLine(ctx, bufio.NewReader(ios.In))
	if err != nil {
		return err
	}
	if a := strings.ToLower(answer); a != "y" && a != "yes" {
		return errors.New(refusal)
	}
	return nil
}

// ReadSecret reads a line without echo when in is a terminal, or a plain line otherwise. The
// terminal's state is restored when ctx ends first.
func ReadSecret(ctx context.Context, in io.Reader, buffered *bufio.Reader) (string, error) {
	f, ok := in.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return ReadLine(ctx, buffered)
	}
	fd := int(f.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return "", fmt.Errorf("read API key: %w", err)
	}
	key, err := WhileCtx(ctx, func() (string, error) {
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

// WhileCtx runs read, or returns ctx's error when ctx ends first.
func WhileCtx(ctx context.Context, read func() (string, error)) (string, error) {
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

func FirstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// ReadInput reads path, or stdin for "-".
func ReadInput(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(stdin)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return raw, nil
}

// SecretFromFile is the first line of a file, without its line break; an empty file is the
// empty secret.
func SecretFromFile(path string) (*string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err) // the path, never the content
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	v := strings.TrimSuffix(line, "\r")
	return &v, nil
}

// SecretLine is the first line of stdin, without its line break.
func SecretLine(ctx context.Context, r *bufio.Reader) (*string, error) {
	v, err := WhileCtx(ctx, func() (string, error) {
		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
	})
	if err != nil {
		return nil, err
	}
	return &v, nil
}
