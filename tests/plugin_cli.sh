#!/bin/bash
# Service plugins on the command line, no root, no EAL: a good one loads
# and its keys are checked; a missing file, a file that is not a shared
# object, one that is not a service plugin and one built for another
# service ABI each stop the start with one line naming the file.
#   plugin_cli.sh TFO_SERVER GOOD.so BAD_ABI.so NOT_A_PLUGIN.so
set -u
SERVER=$(realpath "$1") GOOD=$2 ABI=$3 NONE=$4
fails=0
checks=0
check() {
	local what=$1
	shift
	checks=$((checks + 1))
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	timeout 60 "$SERVER" -- "$@" >"$o" 2>"$e"
	rc=$?
	out=$(cat "$o") err=$(cat "$e")
	rm -f "$o" "$e"
}
one_line() { [ "$(printf '%s\n' "$err" | grep -c '^tfo-server:')" = 1 ]; }
refused() {	# WHAT PATTERN: exit 1, one line naming the plugin file
	check "$1: exit 1" [ "$rc" = 1 ]
	check "$1: one line" one_line
	check "$1: names the file and says why" grep -q -- "$2" <<<"$err"
}

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$GOOD" "$dir/plug.so"
printf '[service plug]\nplugin = plug.so\nport = 7070\nprefix = hi: \n' >"$dir/tfo.ini"
run --config "$dir/tfo.ini" --set "port net_tap0.ipv4=198.18.0.2/24" --print-config
check "good plugin (relative path): loads, --print-config shows it" \
	bash -c '[ '"$rc"' = 0 ] && grep -q "^plugin = '"$dir"'/plug.so$" <<<"$0" && grep -q "^prefix = hi:" <<<"$0"' "$out"
printf '%s\n' "$out" >"$dir/printed.ini"
(cd / && timeout 60 "$SERVER" -- --config "$dir/printed.ini" --print-config >/dev/null 2>&1)
check "--print-config's output loads again from another directory" [ $? = 0 ]
run --set "service plug.plugin=$dir/plug.so" --set "service plug.prefix=this one is far too long"
check "the plugin's check_key runs: exit 1, the key named" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "prefix = \"this one is far too long\": expected at most 16" <<<"$0"' "$err"
run --set "service plug.port=7070"
check "unknown service without plugin: says plugin = PATH.so" \
	bash -c '[ '"$rc"' = 1 ] && grep -q "no service named .plug.*plugin = PATH.so" <<<"$0"' "$err"
run --set "service other.plugin=$dir/plug.so"
refused "plugin of another name" "plug.so: defines service 'plug', not 'other'"
run --set "service http.plugin=$dir/plug.so"
refused "plugin for a built-in service" "\[service http\] plugin = .*plugin must come first"

run --set "service plug.plugin=$dir/nosuch.so"
refused "missing file" "plugin = \"$dir/nosuch.so\": $dir/nosuch.so: No such file or directory"
printf 'not an ELF file\n' >"$dir/text.so"
run --set "service plug.plugin=$dir/text.so"
refused "not a shared object" "cannot load: $dir/text.so: "
cp "$NONE" "$dir/none.so"
run --set "service plug.plugin=$dir/none.so"
refused "not a service plugin" "$dir/none.so: not a tfo-fastpath service plugin"
cp "$ABI" "$dir/abi.so"
run --set "service plug.plugin=$dir/abi.so"
refused "wrong service ABI" "$dir/abi.so: built for service ABI 10[0-9], this tfo-server has ABI [0-9]*: rebuild"

echo "checks: $checks, failed: $fails"
[ "$fails" = 0 ]
