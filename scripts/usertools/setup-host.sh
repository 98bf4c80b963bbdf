#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Prepare a host to run tfo-server on a real NIC (docs/runbook.md, "Host").
#
#   scripts/usertools/setup-host.sh [--dry-run] [--config FILE [--server PATH]]
#                         [--pages N] [--page-size 2M|1G] [--nodes N[,N...]]
#                         [--persist] [--bind PCI_ADDR]... [--driver DRV]
#                         [--no-iommu] [--force]
#
# 1. Hugepages: with --config, what `tfo-server -- --config FILE
#    --print-config` says the configuration needs on each node (its lcores,
#    tables, pools: the one sizing rule, docs/runbook.md "Hugepages";
#    --server names the binary, default tfo-server on PATH or
#    /usr/local/bin); else at least N pages of the given size in all
#    (default 1024 x 2M). A count is raised, never lowered; hugetlbfs is
#    mounted (/dev/hugepages, or /dev/hugepages1G for 1G pages). On a NUMA
#    host (/sys/devices/system/node/nodeN) they are reserved per node:
#    --config's per node, or N split evenly over the nodes that have CPUs
#    or over the --nodes given (e.g. the NIC's node alone when every lcore
#    is there). --persist also writes them down so that a reboot keeps
#    them (2M: /etc/sysctl.d, or per node /etc/tmpfiles.d; 1G pages are
#    reserved at boot: the kernel command line hint is printed).
# 2. The vfio-pci module (with --no-iommu, vfio's unsafe no-IOMMU mode, for
#    VMs without a virtual IOMMU; DMA is then not isolated).
# 3. Each --bind PCI address is unbound from its kernel driver and bound to
#    vfio-pci (--driver uio_pci_generic for old setups) with dpdk-devbind.py.
#    A device whose kernel interface is up (routes, addresses: maybe the one
#    you are logged in through) is refused unless --force. A device on a
#    bifurcated driver (mlx5_core, mlx4_core: Mellanox/NVIDIA ConnectX) is
#    never bound: DPDK's mlx5 PMD drives it beside the kernel driver,
#    through rdma-core (libibverbs1 and ibverbs-providers: libibverbs.so.1,
#    libmlx5.so.1, checked; TFO_LIBDIRS lists where to look); so the
#    same --bind line serves hosts with either kind of NIC.
#
# --dry-run prints what would be done (one "+ ..." line per action) and
# changes nothing; it needs no root. Exit status: 0 done, 1 an action or a
# check failed, 2 usage error. TFO_SYSFS (default /sys) and TFO_PROC (/proc)
# point at another tree (tests).
set -uo pipefail

SYSFS=${TFO_SYSFS:-/sys}
PROC=${TFO_PROC:-/proc}
DRY=0
PAGES=1024
PSIZE=2M
NODES=
PERSIST=0
DRIVER=vfio-pci
NOIOMMU=0
FORCE=0
BIND=()
CONFIG=
SERVER=

usage() {
	awk 'NR < 3 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit "${1:-2}"
}

die() { echo "setup-host: $*" >&2; exit 1; }

# run CMD...: print it, and run it unless --dry-run
run() {
	echo "+ $*"
	[ "$DRY" = 1 ] && return 0
	"$@" || die "failed: $*"
}

# put VALUE PATH: write a sysfs/procfs value
put() {
	echo "+ echo $1 > $2"
	[ "$DRY" = 1 ] && return 0
	echo "$1" >"$2" 2>/dev/null || die "cannot write $1 to $2"
}

while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) DRY=1 ;;
	--pages) PAGES=${2:-}; shift ;;
	--config) CONFIG=${2:-}; shift ;;
	--server) SERVER=${2:-}; shift ;;
	--page-size) PSIZE=${2:-}; shift ;;
	--nodes) NODES=${2:-}; shift ;;
	--persist) PERSIST=1 ;;
	--bind) BIND+=("${2:-}"); shift ;;
	--driver) DRIVER=${2:-}; shift ;;
	--no-iommu) NOIOMMU=1 ;;
	--force) FORCE=1 ;;
	-h|--help) usage 0 ;;
	*) echo "setup-host: unknown option $1" >&2; usage 2 ;;
	esac
	shift
done

[[ $PAGES =~ ^[0-9]+$ ]] || { echo "setup-host: --pages $PAGES: not a number" >&2; exit 2; }
[ -z "$NODES" ] || [[ $NODES =~ ^[0-9]+(,[0-9]+)*$ ]] ||
	{ echo "setup-host: --nodes $NODES: expected node numbers like 0 or 0,1" >&2; exit 2; }
case $PSIZE in
2M) KB=2048; MNT=/dev/hugepages ;;
1G) KB=1048576; MNT=/dev/hugepages1G ;;
*) echo "setup-host: --page-size $PSIZE: 2M or 1G" >&2; exit 2 ;;
esac
case $DRIVER in
vfio-pci|uio_pci_generic|igb_uio) ;;
*) echo "setup-host: --driver $DRIVER: vfio-pci, uio_pci_generic or igb_uio" >&2; exit 2 ;;
esac
for a in "${BIND[@]}"; do
	[[ $a =~ ^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$ ]] ||
		{ echo "setup-host: --bind $a: expected a PCI address like 0000:01:00.0" >&2; exit 2; }
done
# --config: the pages each node needs, from tfo-server's own plan
declare -A NODE_WANT=()
if [ -n "$CONFIG" ]; then
	[ -n "$NODES" ] && { echo "setup-host: --nodes and --config: the configuration's lcores say the nodes" >&2; exit 2; }
	if [ -z "$SERVER" ]; then
		SERVER=$(command -v tfo-server 2>/dev/null || echo /usr/local/bin/tfo-server)
	fi
	[ -x "$SERVER" ] || die "--config: no tfo-server at $SERVER (use --server PATH)"
	plan=$("$SERVER" -- --config "$CONFIG" --print-config 2>&1 >/dev/null |
		sed -n 's/^tfo-server: //p' | head -1)
	line=$("$SERVER" -- --config "$CONFIG" --print-config 2>/dev/null |
		grep '^; tfo-plan: hugepages-2M ')
	[ -n "$line" ] || die "--config $CONFIG: tfo-server --print-config refused it: ${plan:-no plan printed}"
	PAGES=0
	for w in $line; do
		case $w in
		node[0-9]*=*)
			n=${w#node}; n=${n%%=*}; c=${w#*=}
			# 1G pages: the 2M count rounded up to whole gigabytes
			[ "$PSIZE" = 1G ] && c=$(((c + 511) / 512))
			NODE_WANT[$n]=$c
			PAGES=$((PAGES + c))
			NODES=${NODES:+$NODES,}$n
			;;
		esac
	done
	echo "hugepages: $CONFIG needs $PAGES x $PSIZE (${line#; tfo-plan: })"
	# no node directories (no NUMA): the total, as without --config
	[ -d "$SYSFS/devices/system/node/node0" ] || NODES=
fi
if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
	die "run as root (or with --dry-run to see what it would do)"
fi
[ "$DRY" = 1 ] && echo "setup-host: dry run: nothing is changed"

# ---- 1. hugepages ----------------------------------------------------------
HP=$SYSFS/kernel/mm/hugepages/hugepages-${KB}kB
NODEDIR=$SYSFS/devices/system/node
[ -d "$HP" ] || die "no $PSIZE hugepages on this kernel ($HP missing)"

# numa_nodes: the nodes to reserve on, one per line in numeric order:
# --nodes, or every node with CPUs (a memory-only node runs no lcore);
# none on a kernel without node directories
numa_nodes() {
	local d n
	if [ -n "$NODES" ]; then
		tr , '\n' <<<"$NODES" | sort -nu
		return
	fi
	for d in "$NODEDIR"/node[0-9]*; do
		[ -d "$d" ] || continue
		n=${d##*/node}
		[ -n "$(tr -d ' \n' <"$d/cpulist" 2>/dev/null)" ] && echo "$n"
	done | sort -n
}

# reserve WANT FILE WHAT: raise the count in FILE to WANT, never lower it
# (RAISED=1 when it did)
RAISED=0
reserve() {
	local want=$1 file=$2 what=$3 have got
	have=$(cat "$file")
	if [ "$have" -ge "$want" ]; then
		echo "hugepages: $what$have x $PSIZE reserved (>= $want): unchanged"
		return
	fi
	put "$want" "$file"
	RAISED=1
	[ "$DRY" = 0 ] && [ "$KB" = 2048 ] || return 0
	got=$(cat "$file")
	[ "$got" -ge "$want" ] ||
		die "${what}asked for $want hugepages, the kernel gave $got (memory fragmented: reboot, or reserve at boot)"
}

mapfile -t nodes < <(numa_nodes)
if [ ${#nodes[@]} -gt 0 ]; then
	# one share per node, the rest of the division to the first ones
	share=$((PAGES / ${#nodes[@]}))
	rest=$((PAGES % ${#nodes[@]}))
	boot=()
	tmpfiles=()
	for n in "${nodes[@]}"; do
		f=$NODEDIR/node$n/hugepages/hugepages-${KB}kB/nr_hugepages
		[ -f "$f" ] || die "node $n: no $PSIZE hugepages ($f missing; see --nodes)"
		want=$share
		[ "$rest" -gt 0 ] && want=$((want + 1)) && rest=$((rest - 1))
		[ -n "${NODE_WANT[$n]:-}" ] && want=${NODE_WANT[$n]}
		reserve "$want" "$f" "node $n: "
		boot+=("$n:$want")
		tmpfiles+=("w $f - - - - $want")
	done
	# node:count on the command line: Linux 5.16 and later
	bootarg=$(IFS=,; echo "${boot[*]}")
else
	reserve "$PAGES" "$HP/nr_hugepages" ""
	bootarg=$PAGES
fi
if [ "$KB" = 1048576 ] && [ "$RAISED" = 1 ]; then
	echo "hugepages: 1G pages are best reserved at boot: add 'default_hugepagesz=1G" \
		"hugepagesz=1G hugepages=$bootarg' to the kernel command line"
fi
if [ "$PERSIST" = 1 ] && [ "$KB" = 2048 ] && [ ${#nodes[@]} -gt 0 ]; then
	# vm.nr_hugepages would spread them over every node with memory
	conf=/etc/tmpfiles.d/80-tfo-hugepages.conf
	echo "+ write ${#tmpfiles[@]} line(s) to $conf (per node, at boot)"
	printf '  %s\n' "${tmpfiles[@]}"
	[ "$DRY" = 1 ] || printf '%s\n' "${tmpfiles[@]}" >"$conf" || die "cannot write $conf"
elif [ "$PERSIST" = 1 ] && [ "$KB" = 2048 ]; then
	echo "+ echo vm.nr_hugepages = $PAGES > /etc/sysctl.d/80-tfo-hugepages.conf"
	[ "$DRY" = 1 ] || echo "vm.nr_hugepages = $PAGES" >/etc/sysctl.d/80-tfo-hugepages.conf ||
		die "cannot write /etc/sysctl.d/80-tfo-hugepages.conf"
fi
mounted=$(awk -v k="$KB" '$3 == "hugetlbfs" {
	ps = "2048"; if ($4 ~ /pagesize=1G/) ps = "1048576"
	if (ps == k) { print $2; exit } }' "$PROC/mounts")
if [ -n "$mounted" ]; then
	echo "hugetlbfs: mounted at $mounted"
else
	run mkdir -p "$MNT"
	run mount -t hugetlbfs -o "pagesize=$PSIZE" nodev "$MNT"
fi

# ---- 2. the driver module ------------------------------------------------
# bifurcated NICs stay on their kernel driver: DPDK's PMD works beside it
# through rdma-core's verbs, and binding them to vfio-pci breaks it
LIBDIRS=${TFO_LIBDIRS:-/usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib}
TOBIND=()
for a in "${BIND[@]}"; do
	dev=$SYSFS/bus/pci/devices/$a
	cur=""
	[ -L "$dev/driver" ] && cur=$(basename "$(readlink "$dev/driver")")
	case $cur in
	mlx5_core|mlx4_core)
		echo "$a: on $cur, a bifurcated driver: not bound (DPDK's mlx5 PMD drives" \
			"it beside the kernel; -a $a in [eal] args is all it needs)"
		for lib in libibverbs.so.1 libmlx5.so.1; do
			found=0
			for d in $LIBDIRS; do
				[ -e "$d/$lib" ] && found=1
			done
			[ "$found" = 1 ] || die "$a: the mlx5 PMD needs rdma-core: apt-get install" \
				"libibverbs1 ibverbs-providers (no $lib in $LIBDIRS)"
		done
		;;
	*) TOBIND+=("$a") ;;
	esac
done
if [ ${#TOBIND[@]} -gt 0 ]; then
	if [ "$DRIVER" = vfio-pci ]; then
		groups=$(ls "$SYSFS/kernel/iommu_groups" 2>/dev/null | wc -l)
		if [ "$groups" = 0 ] && [ "$NOIOMMU" = 0 ]; then
			die "no IOMMU (no $SYSFS/kernel/iommu_groups): enable it (intel_iommu=on / amd_iommu=on" \
				"on the kernel command line), or use --no-iommu in a VM without one"
		fi
		run modprobe vfio-pci
		if [ "$groups" = 0 ]; then
			echo "vfio: no IOMMU: unsafe no-IOMMU mode (DMA not isolated)"
			put 1 "$SYSFS/module/vfio/parameters/enable_unsafe_noiommu_mode"
		fi
	else
		run modprobe "$DRIVER"
	fi
fi

# ---- 3. bind the NICs ----------------------------------------------------
for a in "${TOBIND[@]}"; do
	dev=$SYSFS/bus/pci/devices/$a
	[ -d "$dev" ] || die "$a: no such PCI device (see: dpdk-devbind.py --status-dev net)"
	cur=""
	[ -L "$dev/driver" ] && cur=$(basename "$(readlink "$dev/driver")")
	if [ "$cur" = "$DRIVER" ]; then
		echo "$a: already bound to $DRIVER"
		continue
	fi
	for n in "$dev"/net/*; do
		[ -e "$n" ] || continue
		ifc=$(basename "$n")
		if [ "$(cat "$n/operstate" 2>/dev/null)" = up ] && [ "$FORCE" = 0 ]; then
			die "$a is $ifc, which is up (maybe your way in): take it down first" \
				"(ip link set $ifc down), or --force"
		fi
	done
	echo "$a: ${cur:-no driver} -> $DRIVER"
	run dpdk-devbind.py -b "$DRIVER" "$a"
done

[ "$DRY" = 1 ] && { echo "setup-host: dry run done"; exit 0; }
echo "setup-host: done; hugepages: $(cat "$HP/nr_hugepages") x $PSIZE," \
	"$(cat "$HP/free_hugepages") free"
[ ${#TOBIND[@]} -gt 0 ] && dpdk-devbind.py --status-dev net
exit 0
