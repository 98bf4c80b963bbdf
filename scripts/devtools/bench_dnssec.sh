# shellcheck shell=bash
# scripts/devtools/bench.sh's phase dnssec (bash; sourced by bench.sh after
# bench_afxdp.sh, whose bed and generator it uses: ax_bed, ax_unbed, ax_ini,
# ax_rows, ax_run; and bench_servers.sh's sv_prepare, sv_kernel,
# sv_kernel_stop): DNS over UDP with the DNSSEC OK bit (dnsperf -D) on the
# signed zone tests/dns/signed.example.zone (NSEC, ECDSA P-256), on
# phase afxdp's veth pair, one query mix for every server (answers, a
# CNAME, NODATA, NXDOMAIN, a wildcard: dn_queries), at a fixed rate
# (BENCH_DNSSEC_RATE, default 20,000/s) then the same short search up:
# - tfo-server's dns service (`udp = on`) on net_af_xdp, without response
#   rate limiting ("tfo-server") and with `rate_limit` so high that no
#   answer is limited but every one goes through the RRL table
#   ("tfo-server-rrl"): the difference of their busy_tsc per answer is
#   the cost of RRL per UDP answer (the runs without RRL at the fixed
#   rate are done again after those with it, "tfo-server-again": the
#   cost is measured against both);
# - knotd and NSD on kernel sockets on the same address, the same zone
#   file (one UDP worker each, on BENCH_DUT_CPU; neither limits: NSD's
#   default rrl-ratelimit of 200/s turned off);
# - one run of tfo-server with a real limit (BENCH_DNSSEC_RRL_LIMIT,
#   default 1000/s per source /24 and answer class; the generator is one
#   address, `slip = 2`) at the fixed rate: dnsperf's answers, the
#   dns_rrl_* counters and the bytes out / bytes in (rx_bytes, tx_bytes)
#   around it ("tfo-server-limit"); dnsperf keeps up to 50,000 queries in
#   flight there, as the dropped ones wait for its 2 s timeout.
# Each server answers one kdig +dnssec query first (its RRSIGs kept in
# SERVER.probe for the report). Raw files in RAW/dnssec, read by
# bench_report.py's dnssec_section; nothing fails on a number.

DN_ZONE=$ROOT/tests/dns/signed.example.zone
DN_RATE=${BENCH_DNSSEC_RATE:-20000}
DN_LIMIT=${BENCH_DNSSEC_RRL_LIMIT:-1000}

# dn_queries FILE: the query mix, 100 lines; mix.txt says what it holds
dn_queries() {
	local i

	{
		for i in $(seq 1 25); do echo "www.signed.example A"; done
		for i in $(seq 1 10); do echo "www.signed.example AAAA"; done
		for i in $(seq 1 5); do echo "mail.signed.example A"; done
		for i in $(seq 1 10); do echo "signed.example MX"; done
		for i in $(seq 1 5); do echo "alias.signed.example A"; done
		for i in $(seq 1 5); do echo "www.signed.example TXT"; done
		for i in $(seq 1 20); do echo "nx$i.signed.example A"; done
		for i in $(seq 1 20); do echo "h$i.wild.signed.example A"; done
	} >"$1"
	echo "50 answers (www A 25, www AAAA 10, mail A 5, the apex MX 10), 5 a CNAME" \
		"(alias A), 5 NODATA (www TXT), 20 NXDOMAIN (nxN), 20 wildcard (hN.wild A)" \
		>"$AX_DIR/mix.txt"
}

# dn_probe SERVER: one kdig query with DO=1 over UDP (two tries of 1 s),
# into SERVER.probe; 0 when the answer carries the A record and its RRSIG
dn_probe() {
	ip netns exec "${AX_NS[1]}" kdig @"$AX_ADDR" www.signed.example A +dnssec +timeout=1 \
		+retry=1 >"$AX_DIR/$1.probe" 2>&1
	grep -q 'IN[[:space:]]*A[[:space:]]*198\.18\.53\.80' "$AX_DIR/$1.probe" &&
		grep -q 'RRSIG[[:space:]]*A ' "$AX_DIR/$1.probe"
}

# dn_tfo NAME [LINE...]: tfo-server with the LINEs in its [service dns],
# the rows of NAME (or one line of missing.txt when it does not answer)
dn_tfo() {
	local name=$1

	shift
	ax_ini "$AX_DIR/$name.ini" "signed.example:$SV_DIR/signed.example.zone" "$@" ||
		return 1
	SRV_INI=$AX_DIR/$name.ini srv_start adaptive
	if dn_probe "$name"; then
		ax_rows "$name" udp "$DN_RATE"
	else
		echo "$name udp not_answered" >>"$AX_DIR/missing.txt"
		say "dnssec: $name did not answer kdig +dnssec (see $name.probe): its row says so"
	fi
	srv_stop
}

# dn_kernel NAME CMD...: a kernel server on the bed, its rows
dn_kernel() {
	local name=$1

	shift
	if ! command -v "$1" >/dev/null; then
		echo "$name udp not_installed" >>"$AX_DIR/missing.txt"
		return 0
	fi
	if ! sv_kernel "dnssec-$name" 53 "$@"; then
		echo "$name udp not_started" >>"$AX_DIR/missing.txt"
		return 0
	fi
	if dn_probe "$name"; then
		ax_rows "$name" udp "$DN_RATE" "${SV_PIDS[@]}"
	else
		echo "$name udp not_answered" >>"$AX_DIR/missing.txt"
	fi
	sv_kernel_stop
}

dn_phase() {
	# the helpers' directory, log prefix, generator and namespaces (bash's
	# dynamic scope)
	# shellcheck disable=SC2034
	local AX_DIR=$RAW/dnssec AX_PHASE=dnssec AX_GEN=dnsperf AX_DNSPERF=(-D) \
		AX_RCODES="NOERROR NXDOMAIN" SRV_NS=${AX_NS[0]} SRV_PREFIX=$TAG-bdn \
		NS=${AX_NS[0]} t r

	mkdir -p "$AX_DIR"
	for t in ethtool kdig dnsperf; do
		command -v "$t" >/dev/null ||
			{ ax_skip "$t is missing (scripts/setup.sh installs it)"; return 0; }
	done
	[ -f "$DN_ZONE" ] || { ax_skip "no $DN_ZONE"; return 0; }
	quiet dnssec
	sv_prepare
	# knotd's and NSD's configurations of the dns phase, for this zone
	cp "$DN_ZONE" "$SV_DIR/signed.example.zone"
	sed 's/example\.org/signed.example/g' "$SV_DIR/knot.conf" >"$AX_DIR/knot.conf"
	# NSD limits answers by default (rrl-ratelimit 200/s per /24): off, as
	# in knotd (no mod-rrl) and tfo-server's own row without RRL
	sed -e 's/example\.org/signed.example/g' -e '/^server:/a\    rrl-ratelimit: 0' \
		"$SV_DIR/nsd.conf" >"$AX_DIR/nsd.conf"
	dn_queries "$AX_DIR/queries.txt"
	echo "dnsperf 0 $DN_RATE" >"$AX_DIR/generator.txt"
	echo "$DN_LIMIT" >"$AX_DIR/limit.txt"
	ax_bed
	say "dnssec: DNS over UDP with DO=1 on signed.example at $DN_RATE/s (dnsperf -D)," \
		"$REPS x ${SECS}s, then up to $AX_STEPS steps up: tfo-server on net_af_xdp" \
		"without and with RRL, knotd, NSD (CPU $DUT)"
	if dn_tfo tfo-server; then
		dn_tfo tfo-server-rrl "rate_limit = 10000000"
		# without RRL again at the fixed rate: the RRL runs bracketed by
		# runs without, so that a machine growing busier or quieter meanwhile
		# (it is shared) does not pass for the cost of RRL
		SRV_INI=$AX_DIR/tfo-server.ini srv_start adaptive
		for r in $(seq 1 "$REPS"); do
			ax_run tfo-server-again udp "tfo-server-again_udp_fixed_$r" "$DN_RATE"
		done
		srv_stop
		# the limited run: one at the fixed rate, more queries in flight
		ax_ini "$AX_DIR/tfo-server-limit.ini" "signed.example:$SV_DIR/signed.example.zone" \
			"rate_limit = $DN_LIMIT" "slip = 2" || return 0
		SRV_INI=$AX_DIR/tfo-server-limit.ini srv_start adaptive
		# shellcheck disable=SC2034  # ax_gen reads it
		AX_DNSPERF=(-D -q 50000)
		ax_run tfo-server-limit udp tfo-server-limit_udp_fixed_1 "$DN_RATE"
		# shellcheck disable=SC2034
		AX_DNSPERF=(-D)
		srv_stop
	fi
	dn_kernel knotd knotd -c "$AX_DIR/knot.conf"
	dn_kernel nsd nsd -d -c "$AX_DIR/nsd.conf"
	ax_unbed
}
want dnssec && dn_phase
