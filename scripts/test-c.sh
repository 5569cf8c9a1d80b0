#!/usr/bin/env bash
# The C side of the tests: installs Tutti (one release build, scripts/install.sh) into a
# temporary prefix, then, against the INSTALLED library and with nothing but pkg-config:
#   - the header compiles warning-free as C99 and as C++ (extern "C"), and every function it
#     declares is exported while nothing else is (readelf);
#   - the library needs no Swift runtime from outside (ldd);
#   - the C tests of Tests/C/ (every promise include/tutti.h makes) build and pass;
#   - the render path allocates nothing: a malloc-counting test, and RealtimeSanitizer
#     (clang -fsanitize=realtime) around tutti_engine_render, with a self-test that it does
#     catch an allocation made inside the library;
#   - examples/c builds and writes its WAV, and so does its threaded host (threaded.c: a
#     render, a feeder and a main thread; it checks what it rendered and exits 1 when wrong);
#     the README's C snippet is examples/c/minimal.c and runs; examples/swift (a separate
#     package that depends on this checkout by path) builds and runs, threaded-host included,
#     and the README's Swift snippet is its `minimal` target.
#
#   scripts/test-c.sh [--prefix DIR]    # DIR: use (and keep) this install prefix
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)

work=$(mktemp -d /tmp/tutti-c.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
if [ "${1:-}" = "--prefix" ]; then prefix=${2:?--prefix needs a directory}; fi

echo "== test-c: install into $prefix"
install_start=$(date +%s)
bash scripts/install.sh --prefix "$prefix"
install_seconds=$(( $(date +%s) - install_start ))

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
export LD_LIBRARY_PATH="$prefix/lib"
read -r -a tutti_flags <<<"$(pkg-config --cflags --libs tutti)"
version=$(pkg-config --modversion tutti)
lib="$prefix/lib/libtutti.so"
cstrict=(-std=c99 -Wall -Wextra -pedantic -Werror)
failed=0

echo "== test-c: the header alone, as C99 and as C++"
printf '#include <tutti.h>\nint main(void) { return tutti_version() == TUTTI_VERSION ? 0 : 1; }\n' >"$work/header.c"
cc "${cstrict[@]}" "$work/header.c" "${tutti_flags[@]}" -o "$work/header-c"
"$work/header-c"
c++ -std=c++11 -Wall -Wextra -pedantic -Werror -x c++ Tests/C/header_cxx.cpp "${tutti_flags[@]}" -o "$work/header-cxx"
"$work/header-cxx"

echo "== test-c: exported symbols = the header's functions"
declared=$(cc -E -P "${tutti_flags[@]}" -x c "$prefix/include/tutti.h" | tr '\n' ' ' | tr ';' '\n' \
  | grep -Eo '\btutti_[a-z0-9_]+[[:space:]]*\(' | grep -Eo 'tutti_[a-z0-9_]+' | sort -u)
exported=$(readelf --dyn-syms -W "$lib" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $7 != "ABS" { print $8 }' \
  | sed 's/@.*//' | sort -u)
if [ "$declared" != "$exported" ]; then
  echo "test-c: FAILED: header and exports differ (< declared only, > exported only):" >&2
  diff <(echo "$declared") <(echo "$exported") >&2 || true
  failed=1
fi
echo "$(echo "$exported" | wc -l) functions exported, all declared in tutti.h (readelf --dyn-syms: $(readelf --dyn-syms -W "$lib" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND"' | wc -l) defined global entries incl. the version node)"
if ldd "$lib" | grep -Ei 'swift|Foundation|dispatch|BlocksRuntime' >&2; then
  echo "test-c: FAILED: $lib needs a Swift runtime library from outside" >&2
  failed=1
fi

echo "== test-c: C tests (Tests/C), built with pkg-config against the installed library"
export TUTTI_TEST_TMP="$work/files"
mkdir -p "$TUTTI_TEST_TMP"
for src in Tests/C/test_*.c; do
  name=$(basename "$src" .c)
  [ "$name" = test_realtime_rtsan ] && continue
  extra=()
  # test_malloc counts allocations with the test-support counter (the Swift tests' one).
  [ "$name" = test_malloc ] && extra=(-ITests/CTuttiTestSupport/include Tests/CTuttiTestSupport/MallocCounter.c)
  cc "${cstrict[@]}" -Iexamples/c -DTUTTI_PC_VERSION="\"$version\"" "$src" Tests/C/harness.c "${extra[@]}" "${tutti_flags[@]}" -lm -lpthread -o "$work/$name"
  if ! (cd "$work" && "./$name" >"$work/$name.log" 2>&1); then
    echo "test-c: FAILED: $name" >&2
    cat "$work/$name.log" >&2
    failed=1
  else
    echo "$name: $(tail -1 "$work/$name.log")"
  fi
done

echo "== test-c: RealtimeSanitizer around tutti_engine_render"
clang=$(dirname "$(readlink -f "$(command -v swift)")")/clang
if [ -x "$clang" ] && "$clang" -fsanitize=realtime -x c /dev/null -c -o /dev/null 2>/dev/null; then
  "$clang" "${cstrict[@]}" -fsanitize=realtime -Iexamples/c Tests/C/test_realtime_rtsan.c Tests/C/harness.c "${tutti_flags[@]}" -lm -o "$work/rtsan"
  if ! "$work/rtsan" >"$work/rtsan.log" 2>&1; then
    echo "test-c: FAILED: RealtimeSanitizer reported the render path" >&2
    cat "$work/rtsan.log" >&2
    failed=1
  else
    grep "^rtsan:" "$work/rtsan.log"
  fi
  # Self-test: a non-real-time call (it allocates inside the library) in a nonblocking
  # context must be caught, or a clean run above proves nothing.
  if "$work/rtsan" --self-test >"$work/rtsan-self.log" 2>&1; then
    echo "test-c: FAILED: RealtimeSanitizer missed an allocation inside libtutti" >&2
    failed=1
  elif ! grep -q "RealtimeSanitizer" "$work/rtsan-self.log"; then
    echo "test-c: FAILED: the RealtimeSanitizer self-test failed for another reason:" >&2
    cat "$work/rtsan-self.log" >&2
    failed=1
  else
    echo "rtsan self-test: an allocation inside the library is reported ($(grep -m1 -o 'unsafe-library-call\|blocking-call' "$work/rtsan-self.log"))"
  fi
else
  echo "test-c: no clang with -fsanitize=realtime next to swift: RealtimeSanitizer check skipped (the malloc-counting test still ran)" >&2
fi

echo "== test-c: examples/c and the README's C snippet"
cc "${cstrict[@]}" examples/c/host.c "${tutti_flags[@]}" -lm -o "$work/host"
"$work/host" "$work/host.wav"
bytes=$(stat -c %s "$work/host.wav")
[ "$bytes" = $((44 + 3 * 48000 * 2 * 2)) ] || { echo "test-c: FAILED: host.wav has $bytes bytes" >&2; failed=1; }
cc "${cstrict[@]}" examples/c/threaded.c "${tutti_flags[@]}" -lm -lpthread -o "$work/threaded"
if ! "$work/threaded" "$work/threaded.wav"; then
  echo "test-c: FAILED: examples/c/threaded.c" >&2
  failed=1
else
  bytes=$(stat -c %s "$work/threaded.wav")
  [ "$bytes" = $((44 + 48000 * 5 / 2 * 2 * 2)) ] || { echo "test-c: FAILED: threaded.wav has $bytes bytes" >&2; failed=1; }
fi
cc "${cstrict[@]}" examples/c/minimal.c "${tutti_flags[@]}" -o "$work/minimal-c"
"$work/minimal-c"

echo "== test-c: README snippets are the examples, verbatim"
python3 scripts/readme-snippets.py check || failed=1

c_seconds=$(( $(date +%s) - start ))
echo "== test-c: examples/swift (a separate package depending on this checkout by path)"
swift_start=$(date +%s)
swift build --package-path examples/swift --scratch-path "$root/.build-examples"
bin=$(swift build --package-path examples/swift --scratch-path "$root/.build-examples" --show-bin-path)
"$bin/swift-host"
"$bin/minimal"
"$bin/threaded-host"
swift_seconds=$(( $(date +%s) - swift_start ))

echo "test-c: install ${install_seconds} s, C checks $(( c_seconds - install_seconds )) s, Swift examples ${swift_seconds} s"
[ "$failed" = 0 ] || { echo "test-c: FAILED" >&2; exit 1; }
echo "test-c: all passed"
