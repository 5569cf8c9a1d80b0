#!/usr/bin/env bash
# The Python side of the tests: installs Tutti (one release build, scripts/install.sh) into a
# temporary prefix, then, against the INSTALLED library and offline:
#   - a venv (--system-site-packages: numpy and pytest come from the system's Python) gets
#     `pip install --no-build-isolation --no-deps ./bindings/python` (pure ctypes, nothing
#     compiled or downloaded);
#   - the pytest tests of bindings/python/tests run against it (TUTTI_LIBRARY names the
#     installed libtutti.so.1), from outside the source tree so the installed package is used;
#   - examples/python/ducking.py renders its WAV.
#
#   scripts/test-python.sh [--prefix DIR]    # DIR: use (and keep) this install prefix; a
#                                            # prefix that already has lib/libtutti.so.1 is
#                                            # reused without building
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)

work=$(mktemp -d /tmp/tutti-python.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
if [ "${1:-}" = "--prefix" ]; then prefix=${2:?--prefix needs a directory}; fi

abi=$(sed -n 's/^#define TUTTI_ABI_VERSION \([0-9][0-9]*\)$/\1/p' include/tutti.h)
if [ -e "$prefix/lib/libtutti.so.$abi" ] && [ "${1:-}" = "--prefix" ]; then
  echo "== test-python: reusing $prefix/lib/libtutti.so.$abi"
else
  echo "== test-python: install into $prefix"
  bash scripts/install.sh --prefix "$prefix"
fi
prefix=$(cd "$prefix" && pwd)
export TUTTI_LIBRARY="$prefix/lib/libtutti.so.$abi"

python=${PYTHON:-python3}
"$python" -c 'import numpy, pytest, setuptools' 2>/dev/null || {
  echo "test-python: $python needs numpy, pytest and setuptools (pip install numpy pytest setuptools)" >&2
  exit 1
}

echo "== test-python: venv + pip install ./bindings/python"
"$python" -m venv --system-site-packages "$work/venv"
venv_python="$work/venv/bin/python"
PIP_NO_INDEX=1 "$venv_python" -m pip install --quiet --no-build-isolation --no-deps --no-index "$root/bindings/python"
# The installed package, not the source tree, is what the tests import.
(cd "$work" && "$venv_python" -c 'import tutti, sys; assert "site-packages" in tutti.__file__, tutti.__file__; print("tutti", tutti.__version__, "from", tutti.__file__, "->", tutti.library_path)')

echo "== test-python: pytest bindings/python/tests"
cp -r "$root/bindings/python/tests" "$work/tests"
TUTTI_HEADER="$root/include/tutti.h" "$venv_python" -m pytest -q -p no:cacheprovider "$work/tests"

echo "== test-python: examples/python/ducking.py"
(cd "$work" && "$venv_python" "$root/examples/python/ducking.py" "$work/ducking.wav")
test -s "$work/ducking.wav"

echo "== test-python: passed in $(( $(date +%s) - start )) s"
