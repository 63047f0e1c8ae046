#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build make bench's instruction counter: the QEMU TCG plugin
# tests/bench/insn_plugin.c and the marker program tests/bench/insn_mark.c,
# into $CACHE/insn/<QEMU version>/. The one header a plugin needs,
# qemu-plugin.h, is not packaged as a header: it comes from Debian's qemu
# source package, fetched with a private apt configuration (deb-src for the
# archive this machine uses; nothing is added to the system's sources) and
# cached. Prints the directory holding insn_plugin.so and insn_mark.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
. "$src/scripts/lib.sh"

ver=$(dpkg-query -W -f '${Version}' qemu-system-x86 2>/dev/null) ||
	{ say "qemu-system-x86 is not installed (scripts/deps.sh vm)"; exit 1; }
base=$CACHE/insn
dir=$base/${ver//[:+~]/_}
hdr=$base/qemu-plugin.h-${ver//[:+~]/_}
mkdir -p "$dir"
if [ ! -s "$hdr" ]; then
	apt=$base/apt
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/etc" "$base/src"
	m=$(debian_mirror)
	printf 'deb-src %s bookworm main\ndeb-src %s bookworm-updates main\n' "$m" "$m" \
		>"$apt/etc/sources.list"
	opts=(-o "Dir::Etc::sourcelist=$apt/etc/sources.list" -o "Dir::Etc::sourceparts=-"
	      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::pkgcache=$apt/pkgcache.bin"
	      -o "Dir::Cache::srcpkgcache=$apt/srcpkgcache.bin")
	say "fetching Debian's qemu source package for qemu-plugin.h"
	apt-get "${opts[@]}" update -qq >/dev/null || { say "apt-get update (deb-src) failed"; exit 1; }
	rm -rf "$base/src"/*
	(cd "$base/src" && apt-get "${opts[@]}" source --download-only qemu >/dev/null 2>&1) ||
		{ say "apt-get source --download-only qemu failed"; exit 1; }
	orig=$(ls "$base/src"/qemu_*.orig.tar.* | head -n 1)
	tar -xf "$orig" -C "$base/src" --wildcards '*/include/qemu/qemu-plugin.h' ||
		{ say "no qemu-plugin.h in $orig"; exit 1; }
	cp "$(find "$base/src" -name qemu-plugin.h | head -n 1)" "$hdr"
	rm -rf "${base:?}/src"
fi
mkdir -p "$dir/include"
cp "$hdr" "$dir/include/qemu-plugin.h"
if [ ! -x "$dir/insn_plugin.so" ] || [ "$src/tests/bench/insn_plugin.c" -nt "$dir/insn_plugin.so" ]; then
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC -I"$dir/include" \
		-o "$dir/insn_plugin.so" "$src/tests/bench/insn_plugin.c" -lpthread ||
		{ say "building the plugin failed"; exit 1; }
fi
if [ ! -x "$dir/insn_mark" ] || [ "$src/tests/bench/insn_mark.c" -nt "$dir/insn_mark" ]; then
	gcc -O2 -static -o "$dir/insn_mark" "$src/tests/bench/insn_mark.c" ||
		{ say "building the marker failed"; exit 1; }
fi
echo "$dir"
