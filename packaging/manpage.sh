#!/bin/sh
# Writes the gzipped manual page, dist/man/timbra.1.gz, that the deb and rpm packages install as
# /usr/share/man/man1/timbra.1.gz. Run from the repository root by goreleaser after each build
# (dist/ exists by then; a before hook may not write there). Builds run at once, so each writes
# its own file and renames it into place; -n leaves name and time out of the gzip header, so
# every run gives the same bytes.
set -e
mkdir -p dist/man
gzip -9 -n -c docs/man/timbra.1 >"dist/man/timbra.1.gz.$$"
mv -f "dist/man/timbra.1.gz.$$" dist/man/timbra.1.gz
