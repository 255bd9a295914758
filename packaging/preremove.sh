#!/bin/sh
# On removal (not on upgrade) stop and disable the service before its binary goes; the
# database in /var/lib/timbra is kept. deb passes "remove", rpm passes 0.
set -e
case "$1" in
remove | 0)
	if [ -d /run/systemd/system ]; then
		systemctl --no-reload disable --now timbra.service >/dev/null 2>&1 || true
	fi
	;;
esac
