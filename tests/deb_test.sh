#!/bin/bash
# The Debian package, as CI's clean Debian 12 machine sees it (issue 36):
# build it from a clean copy of the tree (dpkg-buildpackage -b -uc -us,
# nocheck, -j2), lintian (an error fails), install the three .debs with
# apt-get, check the install (disabled units, conffile, system user tfo,
# man pages, tfo-service.pc), start the INSTALLED tfo-server on its
# installed default configuration in a network namespace this test makes,
# fetch the default page with curl, stop it (SIGTERM: a drain, exit 0), then
# apt-get purge and check that nothing is left (binaries, configuration,
# data, units, the tfo user and group).
#   deb_test.sh SOURCE_ROOT
# Root only, on Debian (skips with 77 otherwise); skips, too, when
# tfo-fastpath is already installed here or a user tfo exists that the
# package did not make: it would remove them. 6 minutes measured on 2 CPUs
# shared with other work (the build: 300 s wall, 170 s of CPU)
# (most of it the package's build).
set -u
SRC=$(cd "${1:?usage: deb_test.sh SOURCE_ROOT}" && pwd)
. "$SRC/tests/tap/lib.sh"
PKGS=(tfo-fastpath tfo-fastpath-tools tfo-fastpath-dev)

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (apt-get install, a network namespace, net_tap)"
	exit 77
fi
if ! command -v dpkg-buildpackage >/dev/null || ! command -v apt-get >/dev/null; then
	echo "SKIP: not a Debian system (no dpkg-buildpackage or apt-get)"
	exit 77
fi
if dpkg-query -W -f='${Status}' tfo-fastpath 2>/dev/null | grep -q "ok installed"; then
	echo "SKIP: tfo-fastpath is installed on this host; this test would purge it"
	exit 77
fi
if getent passwd tfo >/dev/null || getent group tfo >/dev/null; then
	echo "SKIP: a user or group 'tfo' exists that this package did not make;" \
		"this test checks that purge removes it"
	exit 77
fi

TMP=$(mktemp -d /tmp/tfo-deb.XXXXXX)
NS=tfodeb$$
PID=""
LOG=$TMP/server.log
t0=$(date +%s)

cleanup() {
	local rc=$?
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -INT "$PID" 2>/dev/null
		for _ in $(seq 1 50); do
			kill -0 "$PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$PID" 2>/dev/null
	fi
	ip netns del "$NS" 2>/dev/null
	[ -n "$PID" ] && rmdir "/var/run/dpdk/tfo$PID" 2>/dev/null
	# a failure half way must not leave the package on the machine
	if dpkg-query -W -f='${Status}' tfo-fastpath 2>/dev/null | grep -q -E "ok (installed|half|unpacked)|config-files"; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${PKGS[@]}" >/dev/null 2>&1
	fi
	if [ "$rc" != 0 ]; then
		[ -f "$TMP/build.log" ] && { echo "---- package build (tail) ----"; tail -n 40 "$TMP/build.log"; }
		[ -f "$LOG" ] && { echo "---- installed tfo-server log (tail) ----"; tail -n 40 "$LOG"; }
	fi
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
step() { echo "# $* ($(( $(date +%s) - t0 )) s)"; }
has_file() { compgen -G "$1" >/dev/null; }

# -- build deps, and a clean copy of the tree (no build dirs, no .git) --
export DEBIAN_FRONTEND=noninteractive
step "build dependencies"
if ! (cd "$SRC" && dpkg-checkbuilddeps >/dev/null 2>&1) || ! command -v lintian >/dev/null; then
	# (debhelper and lintian are not among scripts/setup.sh's packages)
	deps() {
		apt-get install -y -q --no-install-recommends lintian >/dev/null &&
			apt-get build-dep -y -q --no-install-recommends "$SRC" >/dev/null
	}
	deps || { apt-get update -q >/dev/null && deps; } ||
		{ echo "FAIL: could not install the build dependencies"; exit 1; }
fi
mkdir "$TMP/src"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	# what git tracks and the new files it does not ignore, as they are now
	(cd "$SRC" && git ls-files -z -c -o --exclude-standard |
		tar --null -T - -cf -) | tar -C "$TMP/src" -xf -
else
	tar -C "$SRC" --exclude='./build*' --exclude=./obj-* -cf - . | tar -C "$TMP/src" -xf -
fi

# -- build: the source package (for lintian's source checks), the binaries --
step "dpkg-source -b"
(cd "$TMP/src" && dpkg-source -b . >"$TMP/source.log" 2>&1)
check "dpkg-source -b builds the source package (3.0 native)" eq "$?" 0
step "dpkg-buildpackage -b -uc -us"
# TFO_DEB_WERROR=1: -Dwerror=true with dpkg-buildflags' hardening flags
# (debian/rules), so that CI sees a warning only those flags raise
TIMEFORMAT='%R s wall, %U s user + %S s sys CPU'
time (cd "$TMP/src" && TFO_DEB_WERROR=1 DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -b -uc -us >"$TMP/build.log" 2>&1)
brc=$?
check "dpkg-buildpackage -b -uc -us exits 0" eq "$brc" 0
[ "$brc" = 0 ] || exit 1
for p in "${PKGS[@]}"; do
	check "built ${p}_*.deb" has_file "$TMP/${p}_*_amd64.deb"
done

# -- lintian --
step "lintian"
lintian --fail-on error --info "$TMP"/tfo-fastpath_*_amd64.changes "$TMP"/tfo-fastpath_*.dsc \
	>"$TMP/lintian.log" 2>&1
lrc=$?
sed 's/^/    lintian: /' "$TMP/lintian.log" | grep -v '^    lintian: N:' | head -n 40
check "lintian: no error (E:)" eq "$lrc/$(grep -c '^E:' "$TMP/lintian.log")" 0/0

# -- install --
step "apt-get install ./*.deb"
(cd "$TMP" && apt-get install -y -q --no-install-recommends \
	"./tfo-fastpath_"*.deb "./tfo-fastpath-tools_"*.deb "./tfo-fastpath-dev_"*.deb \
	>"$TMP/install.log" 2>&1)
irc=$?
check "apt-get install ./tfo-fastpath*.deb exits 0" eq "$irc" 0
[ "$irc" = 0 ] || { tail -n 20 "$TMP/install.log"; exit 1; }
for b in tfo-server tfo-keytool tfo-prom tfo-drain tfo-loadgen tfo-bench; do
	check "installed /usr/bin/$b" [ -x "/usr/bin/$b" ]
done
for m in tfo-server tfo-keytool tfo-loadgen tfo-bench tfo-prom tfo-drain; do
	check "man page of $m" [ -f "/usr/share/man/man1/$m.1.gz" ]
done
check "/etc/tfo-fastpath/tfo-server.ini is a conffile" \
	grep -q /etc/tfo-fastpath/tfo-server.ini /var/lib/dpkg/info/tfo-fastpath.conffiles
check "system user tfo (uid < 1000) and group tfo" \
	eval '[ "$(getent passwd tfo | cut -d: -f3)" -lt 1000 ] && getent group tfo >/dev/null'
for u in tfo-server tfo-prom; do
	check "$u.service installed" [ -f "/lib/systemd/system/$u.service" ]
	check "$u.service not enabled" \
		[ ! -e "/etc/systemd/system/multi-user.target.wants/$u.service" ]
	if command -v systemctl >/dev/null; then
		check "systemctl is-enabled $u: disabled" \
			eq "$(systemctl is-enabled "$u" 2>/dev/null)" disabled
	fi
done
# started: a process whose executable is the installed binary
running() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = /usr/bin/tfo-server ] && return 0
	done
	return 1
}
check "the install started no tfo-server" eval '! running'
check "pkg-config tfo-service: -I/usr/include -DTFO_SERVICE_PLUGIN" \
	eval 'pkg-config --cflags tfo-service | grep -q -- -DTFO_SERVICE_PLUGIN &&
		[ -f /usr/include/tfo/service.h ]'

# -- the installed server on its installed configuration, from / --
step "installed tfo-server in namespace $NS"
CONF=/etc/tfo-fastpath/tfo-server.ini
pc=$(cd / && /usr/bin/tfo-server --config "$CONF" --print-config 2>&1)
check "--print-config: the http root is the installed one (/usr/share/tfo-fastpath/www)" \
	eval 'echo "$pc" | grep -q "/usr/share/tfo-fastpath/www"'
check "--print-config names no path of the source tree" \
	eval '! echo "$pc" | grep -q -F "$SRC"'
ip netns add "$NS" || { echo "FAIL: ip netns add"; exit 1; }
ip netns exec "$NS" ip link set lo up
(cd / && exec ip netns exec "$NS" /usr/bin/tfo-server --config "$CONF") >"$LOG" 2>&1 &
PID=$!
for _ in $(seq 1 150); do
	grep -q "tfo-server: running" "$LOG" 2>/dev/null && break
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.2
done
check "installed tfo-server starts on $CONF" grep -q "tfo-server: running" "$LOG"
grep -q "tfo-server: running" "$LOG" || exit 1
ip netns exec "$NS" ip addr add 198.18.0.1/24 dev tfo0
ip netns exec "$NS" ip link set tfo0 up
page=$TMP/page.html
code=$(ip netns exec "$NS" curl -sS --max-time 10 --retry 3 --retry-connrefused \
	-o "$page" -w '%{http_code}' http://198.18.0.2/ 2>&1)
check "curl http://198.18.0.2/: 200" eq "$code" 200
check "the page is the installed /usr/share/tfo-fastpath/www/index.html" \
	cmp -s "$page" /usr/share/tfo-fastpath/www/index.html
kill -TERM "$PID"
for _ in $(seq 1 400); do
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.1
done
wait "$PID"
src=$?
check "SIGTERM: drains and exits 0" eq "$src" 0
rmdir "/var/run/dpdk/tfo$PID" 2>/dev/null
PID=""
ip netns del "$NS"

# -- purge: nothing left --
step "apt-get purge"
apt-get purge -y -q "${PKGS[@]}" >"$TMP/purge.log" 2>&1
check "apt-get purge exits 0" eq "$?" 0
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	check "$p not installed, no config-files left (${st:-unknown to dpkg})" \
		eval '[ -z "$st" ] || [ "$st" = not-installed ]'
done
for f in /usr/bin/tfo-server /usr/bin/tfo-loadgen /usr/include/tfo /etc/tfo-fastpath \
	/usr/share/tfo-fastpath /usr/share/doc/tfo-fastpath /lib/systemd/system/tfo-server.service \
	/lib/systemd/system/tfo-prom.service /usr/share/man/man1/tfo-server.1.gz; do
	check "purged: $f gone" [ ! -e "$f" ]
done
check "purged: no deb-systemd-helper state left" \
	eval '! ls /var/lib/systemd/deb-systemd-helper-enabled/ 2>/dev/null | grep -q tfo- &&
		! ls /var/lib/systemd/deb-systemd-helper-masked/ 2>/dev/null | grep -q tfo-'
check "purged: user tfo gone" eval '! getent passwd tfo >/dev/null'
check "purged: group tfo gone" eval '! getent group tfo >/dev/null'
step "done"
tfo_done
