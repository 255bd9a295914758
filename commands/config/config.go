// Package config is `timbra config`: what the client's configuration says. (The configuration
// file itself is cmdutil's.)
package config

import (
	"path/filepath"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra config`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "Inspect the client configuration",
		Description: "Example:\n" +
			"  timbra config show --profile live",
		Subcommands: []*cli.Command{newShowCmd(f, nil)},
	}
}

type showOptions struct{ f *cmdutil.Factory }

// shownSetting is one line of `timbra config show`, and its JSON form.
type shownSetting struct {
	Value  string `json:"value"`
	Source string `json:"source"`
}

type shownConfig struct {
	Profile    shownSetting `json:"profile"`
	BaseURL    shownSetting `json:"baseUrl"`
	TenantKey  shownSetting `json:"tenantKey"`
	APIKey     shownSetting `json:"apiKey"`
	ConfigFile string       `json:"configFile"`
}

func newShowCmd(f *cmdutil.Factory, run cmdutil.RunFunc[showOptions]) *cli.Command {
	o := &showOptions{f: f}
	run = cmdutil.OrRun(run, showRun)
	return &cli.Command{
		Name:      "show",
		Usage:     "Show the settings a client command would use, and where each comes from",
		UsageText: "timbra config show [--profile NAME] [-o json]",
		Description: "Shows the profile, base URL, tenant key and API key (masked) that a client command would\n" +
			"use, and for each its source: an environment variable, the profile, the keyring or the\n" +
			"credentials file.\n\n" +
			"Examples:\n" +
			"  timbra config show\n" +
			"  TIMBRA_PROFILE=live timbra config show -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func showRun(_ *cli.Context, o *showOptions) error {
	r, err := o.f.Resolve()
	if err != nil {
		return err
	}
	show := func(v cmdutil.Value, secret bool) shownSetting {
		s := shownSetting(v)
		if secret {
			s.Value = cmdutil.MaskSecret(v.Value)
		}
		if v.Value == "" {
			s.Value, s.Source = cmdutil.SrcNotSet, ""
		}
		return s
	}
	out := shownConfig{
		Profile:    show(r.Profile, false),
		BaseURL:    show(r.BaseURL, false),
		TenantKey:  show(r.TenantKey, false),
		APIKey:     show(r.APIKey, true),
		ConfigFile: filepath.Join(r.ConfigDir, cmdutil.ConfigFileName),
	}
	rows := [][]string{
		{"profile", out.Profile.Value, out.Profile.Source},
		{"base URL", out.BaseURL.Value, out.BaseURL.Source},
		{"tenant key", out.TenantKey.Value, out.TenantKey.Source},
		{"API key", out.APIKey.Value, out.APIKey.Source},
		{"config file", out.ConfigFile, ""},
	}
	return o.f.Printer().Table(out, []string{"SETTING", "VALUE", "SOURCE"}, rows, "")
}
