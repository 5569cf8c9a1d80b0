#!/usr/bin/env bash
# Builds Tutti in release (one build) and installs, under --prefix DIR:
#   lib/libtutti.so.ABI       the C ABI of include/tutti.h: soname libtutti.so.ABI, only tutti_*
#                             symbols exported (a linker version script), the Swift runtime
#                             linked in (it needs only libc, libm, libstdc++, libgcc_s and the
#                             system's libsndfile, libsamplerate and libsoxr)
#   lib/libtutti.so           -> libtutti.so.ABI (for -ltutti)
#   include/tutti.h
#   lib/pkgconfig/tutti.pc    its version is the header's TUTTI_VERSION_* macros
#   bin/tutti                 the command-line tool (Swift runtime linked in as well)
# A C program then builds with
#   cc app.c $(PKG_CONFIG_PATH=DIR/lib/pkgconfig pkg-config --cflags --libs tutti)
# and runs with at most LD_LIBRARY_PATH=DIR/lib.
# Runtime dependencies (Debian): libsndfile1, libsamplerate0, libsoxr0. ALSA and JACK are
# optional: alsa-lib (libasound2, named libasound2t64 since Debian 13 / Ubuntu 24.04) and libjack
# (libjack-jackd2-0) are not linked but opened when an output first uses that backend
# (checked below: neither the library nor the tool lists them as NEEDED).
#
#   scripts/install.sh --prefix DIR [--strip]     # --strip: strip the library and the tool
#
# The packaging flags live here, not in Package.swift (a package others depend on may not
# carry unsafeFlags): -static-stdlib links the Swift runtime into the library and the tool;
# the version script and the soname apply to the library (the tool exports nothing anyway).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/install.sh --prefix DIR [--strip]" >&2; exit 64; }
prefix=""
strip=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --strip) strip=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument \"$1\"" >&2; usage ;;
  esac
done
[ -n "$prefix" ] || usage

# The version comes from the header alone: the macros, tutti_version() and tutti.pc agree.
header=include/tutti.h
macro() {
  local v
  v=$(sed -n "s/^#define $1 \([0-9][0-9]*\)\$/\1/p" "$header")
  [ -n "$v" ] || { echo "install.sh: $header has no #define $1 NUMBER" >&2; exit 1; }
  echo "$v"
}
major=$(macro TUTTI_VERSION_MAJOR)
minor=$(macro TUTTI_VERSION_MINOR)
patch=$(macro TUTTI_VERSION_PATCH)
abi=$(macro TUTTI_ABI_VERSION)
version="$major.$minor.$patch"
soname="libtutti.so.$abi"

bash scripts/install-deps.sh

# Only tutti_* leave the library; the version node is named after the ABI.
mkdir -p .build
map="$PWD/.build/tutti-$abi.map"
printf 'TUTTI_%s {\n  global: tutti_*;\n  local: *;\n};\n' "$abi" >"$map.new"
if cmp -s "$map.new" "$map"; then rm "$map.new"; else mv "$map.new" "$map"; fi

flags=(-c release -Xswiftc -static-stdlib
  -Xlinker "--version-script=$map" -Xlinker "-soname=$soname"
  # dlclose must not unmap the Swift runtime (its thread-exit hooks outlive a dlclose).
  -Xlinker -z -Xlinker nodelete)
start=$(date +%s)
echo "== install.sh: release build (libtutti $version, soname $soname)" >&2
swift build "${flags[@]}"
bin=$(swift build "${flags[@]}" --show-bin-path)
echo "== install.sh: built in $(( $(date +%s) - start )) s" >&2

lib="$bin/libTuttiC.so"
# The promises of the packaging, checked before anything is installed.
readelf -d "$lib" | grep "Library soname: \[$soname\]" >/dev/null || { echo "install.sh: $lib has no soname $soname" >&2; exit 1; }
others=$(readelf --dyn-syms -W "$lib" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $7 != "ABS" { print $8 }' \
  | sed 's/@.*//' | grep -v '^tutti_' || true)
[ -z "$others" ] || { echo "install.sh: $lib exports more than tutti_*: $others" >&2; exit 1; }
for file in "$lib" "$bin/tutti"; do
  linked=$(readelf -d "$file" | grep -E 'NEEDED.*(libasound|libjack)' || true)
  [ -z "$linked" ] || { echo "install.sh: $file links a backend's library (they are opened when used): $linked" >&2; exit 1; }
done

mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
install -d "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/bin"
install -m 755 "$lib" "$prefix/lib/$soname"
ln -sfn "$soname" "$prefix/lib/libtutti.so"
install -m 644 "$header" "$prefix/include/tutti.h"
install -m 755 "$bin/tutti" "$prefix/bin/tutti"
if [ "$strip" = 1 ]; then
  strip --strip-unneeded "$prefix/lib/$soname"
  strip "$prefix/bin/tutti"
fi
cat >"$prefix/lib/pkgconfig/tutti.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: tutti
Description: Real-time audio mixing engine with a phone-style audio policy (C ABI)
Version: $version
Libs: -L\${libdir} -ltutti
Cflags: -I\${includedir}
EOF
echo "installed tutti $version under $prefix: lib/$soname ($(du -k "$prefix/lib/$soname" | cut -f1) KiB), lib/libtutti.so, include/tutti.h, lib/pkgconfig/tutti.pc, bin/tutti" >&2
