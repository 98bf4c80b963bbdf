#!/bin/sh
# tests/dns/sign.sh: sign the test zones with fresh ECDSA P-256 keys
# (bind9-utils' dnssec-keygen and dnssec-signzone), signatures valid from
# 2026-01-01 to 2085-12-31 (within the 68 years RFC 4034's serial
# arithmetic allows), and write each zone's trust anchor (its KSK's DS).
#   signed.example      NSEC, with sub.signed.example (signed, DS in the
#                       parent) and plain.signed.example (insecure)
#   signed3.example     NSEC3, RFC 9276: 0 iterations, no salt
# Run from anywhere: tests/dns/sign.sh (the keys are thrown away).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
times="-s 20260101000000 -e 20851231000000"
keys() {
	dnssec-keygen -q -a ECDSAP256SHA256 -f KSK "$1" >/dev/null
	dnssec-keygen -q -a ECDSAP256SHA256 "$1" >/dev/null
}
sign() {	# ZONE SOURCE [NSEC3 options]
	z=$1 src=$2
	shift 2
	cp "$src" "$z.unsigned"
	cat K"$z".+013+*.key >> "$z.unsigned"
	# shellcheck disable=SC2086
	dnssec-signzone -q -o "$z" $times -g -d . -f "$z.signed" "$@" "$z.unsigned" K"$z".+013+*.private >/dev/null 2>&1 ||
		dnssec-signzone -o "$z" $times -g -d . -f "$z.signed" "$@" "$z.unsigned" K"$z".+013+*.private
	dnssec-dsfromkey -2 "$(grep -l 'key-signing' K"$z".+013+*.key | head -1)" > "$here/$z.ds"
}
keys sub.signed.example
sign sub.signed.example "$here/sub.signed.example.in"
keys signed.example
cp "$here/signed.example.in" signed.example.src
cat dsset-sub.signed.example. >> signed.example.src
sign signed.example signed.example.src
keys signed3.example
sign signed3.example "$here/signed3.example.in" -3 - -H 0
for z in signed.example sub.signed.example signed3.example; do
	{ echo "; $z signed by tests/dns/sign.sh (do not edit: edit $z.in)"; cat "$z.signed"; } > "$here/$z.zone"
done
