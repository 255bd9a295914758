// Package completion is `timbra completion`: the shell completion scripts.
package completion

import (
	"io"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra completion SHELL`.
func NewCmd(f *cmdutil.Factory) *cli.Command { return newCompletionCmd(f, nil) }

type completionOptions struct {
	f     *cmdutil.Factory
	Shell string
}

// scripts are the completion scripts by shell; fish's is made by the cli package.
var scripts = map[string]string{
	"bash":       bashCompletion,
	"zsh":        zshCompletion,
	"powershell": powershellCompletion,
	"pwsh":       powershellCompletion,
	"fish":       "",
}

func newCompletionCmd(f *cmdutil.Factory, run cmdutil.RunFunc[completionOptions]) *cli.Command {
	o := &completionOptions{f: f}
	run = cmdutil.OrRun(run, completionRun)
	return &cli.Command{
		Name:      "completion",
		Usage:     "Print a shell completion script: bash, zsh, fish or powershell",
		UsageText: "timbra completion bash|zsh|fish|powershell",
		ArgsUsage: "SHELL",
		Description: "Prints a script that completes timbra's commands and flags. Load it from your shell's\n" +
			"start-up file.\n\n" +
			"Examples:\n" +
			"  echo 'source <(timbra completion bash)' >> ~/.bashrc\n" +
			"  timbra completion zsh > \"${fpath[1]}/_timbra\"\n" +
			"  timbra completion fish > ~/.config/fish/completions/timbra.fish\n" +
			"  timbra completion powershell | Out-String | Invoke-Expression",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "shell (bash, zsh, fish or powershell)"); err != nil {
				return err
			}
			o.Shell = c.Args().First()
			if _, ok := scripts[o.Shell]; !ok {
				return cmdutil.UsageErrorf(c, "unknown shell %q: use bash, zsh, fish or powershell", o.Shell)
			}
			return run(c, o)
		},
	}
}

func completionRun(c *cli.Context, o *completionOptions) error {
	w := o.f.IO.Out
	if o.Shell == "fish" {
		s, err := c.App.ToFishCompletion()
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, s)
		return err
	}
	_, err := io.WriteString(w, strings.ReplaceAll(scripts[o.Shell], "PROG", c.App.Name))
	return err
}

// The scripts run the command line typed so far with --generate-bash-completion appended; the
// cli package answers with the names that may come next, one per line. When the word being
// completed starts with a dash it is passed too, so that flags are offered.

const bashCompletion = `# bash completion for PROG
_PROG_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}"
    local -a line=("${COMP_WORDS[@]:0:COMP_CWORD}")
    if [[ "$cur" == -* ]]; then
        line+=("$cur")
    fi
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "$("${line[@]}" --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o bashdefault -o default -F _PROG_complete PROG
`

const zshCompletion = `#compdef PROG
# zsh completion for PROG
_PROG() {
    local -a line opts
    line=("${(@)words[1,CURRENT-1]}")
    if [[ "${words[CURRENT]}" == -* ]]; then
        line+=("${words[CURRENT]}")
    fi
    opts=("${(@f)$("${(@)line}" --generate-bash-completion 2>/dev/null)}")
    opts=("${(@)opts:#}")
    if (( ${#opts} )); then
        compadd -a opts
    else
        _files
    fi
}
if [[ "${zsh_eval_context[-1]}" == loadautofunc ]]; then
    _PROG "$@"
else
    compdef _PROG PROG
fi
`

const powershellCompletion = `# PowerShell completion for PROG
Register-ArgumentCompleter -Native -CommandName 'PROG' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
    if ($wordToComplete -ne '') {
        $words = @($words | Select-Object -First ($words.Count - 1))
    }
    $rest = @($words | Select-Object -Skip 1)
    if ($wordToComplete -like '-*') { $rest += $wordToComplete }
    & $words[0] @rest --generate-bash-completion 2>$null |
        Where-Object { $_ -like "$wordToComplete*" } |
        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
}
`
