#!/bin/bash
# The main job on a fresh machine: set up, start tfo-server on its embedded
# default configuration (net_tap, in a private network namespace), fetch
# twice with the Linux kernel's TFO client, show from the capture that the
# second fetch was answered in the server's first packet, then keep serving
# with a stats line every second until Ctrl-C (or DEMO_SECONDS=N seconds).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
	echo "demo: run as root (it installs packages, creates a network namespace and a tap device)" >&2
	exit 1
fi
scripts/setup.sh build >/dev/null || { echo "demo: set-up failed (run scripts/setup.sh to see why)" >&2; exit 1; }
exec /usr/bin/python3 scripts/demo.py
