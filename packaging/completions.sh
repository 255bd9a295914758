#!/bin/sh
# Writes timbra's shell completion scripts into completions/, for the release archives and
# packages (run by goreleaser's before hooks, from the repository root).
set -e
rm -rf completions
mkdir completions
for sh in bash zsh fish; do
	go run ./cmd/timbra completion "$sh" >"completions/timbra.$sh"
done
