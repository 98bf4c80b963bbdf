#!/bin/bash
# Foundation: tfo-server on net_tap with the embedded default configuration
# answers ARP, ICMP echo, IPv6 ND and ICMPv6 echo; /tfo/stats counts them;
# SIGINT stops it with exit code 0.
. "$(dirname "$0")/lib.sh"
tfo_need_root ping dpdk-telemetry.py
tfo_start "$1" --stats-period 1

check "ping 198.18.0.2 answered 3/3" tfo_ns ping -c 3 -i 0.2 -W 2 -q 198.18.0.2
check "ping -6 fd00:7f0::2 answered 3/3" tfo_ns ping -6 -c 3 -i 0.2 -W 2 -q fd00:7f0::2
check "kernel learned our MAC by ARP" bash -c "ip netns exec $TFO_NS ip neigh show 198.18.0.2 | grep -q lladdr"
check "kernel learned our MAC by ND" bash -c "ip netns exec $TFO_NS ip -6 neigh show fd00:7f0::2 | grep -q lladdr"

check "/tfo/stats icmp_echo_tx >= 3" ge "$(tfo_stat icmp_echo_tx)" 3
check "/tfo/stats icmp6_echo_tx >= 3" ge "$(tfo_stat icmp6_echo_tx)" 3
check "/tfo/stats arp_reply_tx >= 1" ge "$(tfo_stat arp_reply_tx)" 1
check "/tfo/stats nd_na_tx >= 1" ge "$(tfo_stat nd_na_tx)" 1
check "/tfo/stats rx_pkts >= 8" ge "$(tfo_stat rx_pkts)" 8
check "/tfo/stats tx_pkts >= 8" ge "$(tfo_stat tx_pkts)" 8
# the stats line: rates in key=value form, the keys in their order
# (drop_top only with drops), the running services' own counters last
check "stats line of rates printed (key=value)" grep -Eq \
	"^stats: txn=[0-9.e+-]+ tfo=.* drops=[0-9.e+-]+( drop_top=[a-z0-9_]+)? imissed=[0-9.e+-]+ rx=[0-9.e+-]+ .*worker_busy_pct=[0-9.]+ worker_busiest=[0-9-]+ control_busy_pct=[0-9.]+ control_busiest=0( http_[2-5]xx=[0-9.e+-]+)* conns=[0-9]+ pending=[0-9]+( [a-z0-9_]+=[0-9.e+-]+)*\$" \
	"$TFO_LOG"

tfo_stop
tfo_done
