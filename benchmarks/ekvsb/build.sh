#!/usr/bin/env bash
# Builds ekvsb (the benchmark tool of the CannyLS benchmark, a published crates.io package) once per
# machine and caches it outside the repository; never run in CI.
#
#   benchmarks/ekvsb/build.sh          build (if not cached) and print the binary's path
#   benchmarks/ekvsb/build.sh --path   print the cached binary's path, or fail if it is not built
#
# ekvsb 0.0.13 compiles RocksDB 6.x from source through the rocksdb crate: 8 minutes measured on 2
# cores (up to 30 on a busy machine). It needs libclang (Debian libclang-dev: installed here with apt-get when missing and running as
# root) and, for bindgen, the compiler's own include directory in C_INCLUDE_PATH.
# Cache: ${FERRY_CACHE:-${XDG_CACHE_HOME:-~/.cache}/ferry}/ekvsb-0.0.13/bin/ekvsb
set -euo pipefail
VERSION=0.0.13
CACHE="${FERRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ferry}/ekvsb-$VERSION"
BIN="$CACHE/bin/ekvsb"
if [[ "${1:-}" == --path ]]; then
    [[ -x "$BIN" ]] && { echo "$BIN"; exit 0; }
    exit 1
fi
if [[ -x "$BIN" ]]; then echo "$BIN"; exit 0; fi
command -v cargo >/dev/null || { echo "ekvsb: cargo is needed (https://rustup.rs)" >&2; exit 1; }
# libclang itself (libclang.so.N or libclang-N.so.N), not libclang-cpp, which other packages bring and bindgen cannot use
if ! compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null && ! compgen -G '/usr/lib/*-linux-gnu/libclang-[0-9]*.so*' >/dev/null \
    && ! compgen -G '/usr/lib/*-linux-gnu/libclang.so*' >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "ekvsb: installing libclang-dev (bindgen needs libclang)" >&2
        apt-get install -y -q libclang-dev >&2 || { apt-get update -q >&2 && apt-get install -y -q libclang-dev >&2; }
    else
        echo "ekvsb: libclang is needed (Debian: apt-get install libclang-dev)" >&2; exit 1
    fi
fi
INC="$(${CC:-gcc} -print-file-name=include)"
echo "ekvsb: cargo install ekvsb $VERSION into $CACHE (8-30 minutes: it compiles RocksDB)" >&2
mkdir -p "$CACHE"
C_INCLUDE_PATH="$INC${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}" cargo install ekvsb --version "$VERSION" --locked --root "$CACHE" >&2
[[ -x "$BIN" ]] || { echo "ekvsb: the build did not produce $BIN" >&2; exit 1; }
echo "$BIN"
