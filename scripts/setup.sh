#!/bin/bash
# Set up a fresh Debian 12 machine for tfo-fastpath and build it.
#   scripts/setup.sh [BUILD_DIR]        (default: build)
# Installs the Debian packages the project needs (only when one is missing;
# nothing is downloaded from anywhere else), then configures and builds
# with warnings as errors. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

PKGS=(
	build-essential pkg-config meson ninja-build python3 python3-pyelftools
	dpdk dpdk-dev libdpdk-dev libipsec-mb-dev libpcap-dev
	python3-scapy tcpdump tshark curl iproute2 iputils-ping openssl procps
	libhttp-parser-dev
	# the clients of tests/tap/real_clients.py (tap-real-clients)
	apache2-utils wrk nghttp2-client httping wget socat netcat-openbsd
	# the dns service's referee and clients (tap-dns): knotd, kdig, dig
	knot knot-dnsutils bind9-dnsutils
	# pre-signed DNSSEC (tap-dns-sec): the validating resolver, and the
	# signer of tests/dns/sign.sh
	unbound bind9-utils
	# BIRD, for the BGP-announced fleet test (tap-bird-fleet)
	bird2
	# AF_XDP mode: the XDP program (clang's BPF target, libbpf), and the
	# veth test bed's checksum setting (tap-afxdp)
	clang libbpf-dev libxdp-dev linux-libc-dev ethtool
	# generators we did not write, for AF_XDP under load (tap-afxdp-load;
	# kxdpgun comes with knot-dnsutils)
	dnsperf hping3
	# the forced window of net_memif's departure (root memif-forced-window:
	# gdb holds a worker inside the burst; readelf reads the PMD's build id)
	gdb binutils
	# the servers bench.sh compares tfo-server with (phases dns and nginx:
	# its own instances, in a network namespace) and the DNS tests' peer
	# and client (tap-loadgen-dns: knotd; kdig)
	knot knot-dnsutils nsd nginx-light
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing packages: ${missing[*]}; run as root" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture: answer no, quietly
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# promtool, the referee of tfo-prom's output and config/tfo-alerts.yml (tests
# lint tfo-prom, tap prom): only the binary of Debian's prometheus package,
# not the service. Without it those checks say SKIP loudly.
if ! command -v promtool >/dev/null && [ "$(id -u)" = 0 ]; then
	tmp=$(mktemp -d)
	if (cd "$tmp" && apt-get download -q prometheus >/dev/null 2>&1 &&
	    dpkg -x prometheus_*.deb x && install -m 0755 x/usr/bin/promtool /usr/local/bin/); then
		echo "setup: installed /usr/local/bin/promtool"
	else
		echo "setup: WARNING: could not fetch promtool (Debian package prometheus):" \
			"the promtool checks of tests tfo-prom and prom will SKIP" >&2
	fi
	rm -rf "$tmp"
fi

if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" -Dwerror=true
elif meson configure "$BUILD" 2>/dev/null | grep -q '^ *cpu_instruction_set *native '; then
	# made before the portable default (x86-64-v3): a build dir keeps its
	# options; say so, and leave the choice to its owner
	echo "setup: $BUILD builds for this CPU only (-march=native); for a binary that runs" \
		"on other CPUs: meson configure $BUILD -Dcpu_instruction_set=x86-64-v3"
fi
ninja -C "$BUILD"
