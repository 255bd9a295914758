#!/bin/sh
# The service runs as its own system user, which owns /var/lib/timbra.
set -e
if ! getent group timbra >/dev/null 2>&1; then
	groupadd --system timbra
fi
if ! getent passwd timbra >/dev/null 2>&1; then
	useradd --system --gid timbra --home-dir /var/lib/timbra --no-create-home \
		--shell /usr/sbin/nologin --comment "timbra e-invoicing API" timbra
fi
