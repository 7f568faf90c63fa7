#!/usr/bin/env bash
# Builds C++ db_bench of the RocksDB version rocksdbjni ships (pom.xml's rocksdb.version) and links it
# against the very engine binary Java uses: librocksdbjni-linux64.so from the rocksdbjni jar. RocksDB's
# source comes at run time from the published crates.io package librocksdb-sys (fetched with cargo into
# cargo's registry cache); nothing of it is kept in this repository. The result is cached, keyed by
# version, and reused:
#
#   ${XDG_CACHE_HOME:-$HOME/.cache}/ferry/db_bench-<version>/
#       db_bench                    the program (RUNPATH $ORIGIN: it loads the .so beside it)
#       librocksdbjni-linux64.so    copied byte for byte from the rocksdbjni jar
#       build-info.txt              versions, sha256 of the .so and of the source package, compiler flags
#
#   benchmarks/cpp-dbbench/build.sh             build unless cached; print the cache directory
#   benchmarks/cpp-dbbench/build.sh --force     rebuild
#   benchmarks/cpp-dbbench/build.sh --path      print the db_bench path if it is cached (exit 1 if not)
#
# Needs: cargo, g++ (C++20), Maven (the rocksdbjni jar), libgflags-dev (installed with apt-get when missing
# and the user is root). About a minute of compiling on 2 cores. Never run by ./ferry test or CI.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ROCKS_VER="$(awk -F'[<>]' '/<rocksdb.version>/ {print $3; exit}' "$ROOT/pom.xml")"
# The crates.io package that carries RocksDB $ROCKS_VER's source. Update both together.
CRATE=librocksdb-sys
CRATE_VER="0.19.0+11.8.1"
[[ "${CRATE_VER#*+}" == "$ROCKS_VER" ]] || {
    echo "build.sh: pom.xml says rocksdbjni $ROCKS_VER but this script fetches $CRATE $CRATE_VER: update CRATE_VER" >&2
    exit 1
}
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/ferry/db_bench-$ROCKS_VER"
LIB=librocksdbjni-linux64.so

FORCE=0
case "${1:-}" in
    --force) FORCE=1 ;;
    --path) [[ -x "$CACHE/db_bench" && -f "$CACHE/$LIB" ]] && { echo "$CACHE/db_bench"; exit 0; }; exit 1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    "") ;;
    *) echo "build.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

if [[ $FORCE == 0 && -x "$CACHE/db_bench" && -f "$CACHE/$LIB" && -f "$CACHE/build-info.txt" ]]; then
    echo "$CACHE"
    exit 0
fi
say() { printf '[build.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# ---- tools ----
for t in cargo g++ mvn sha256sum unzip; do
    command -v "$t" >/dev/null || { echo "build.sh: '$t' not found (needs cargo, g++, mvn, sha256sum, unzip)" >&2; exit 1; }
done
if [[ ! -f /usr/include/gflags/gflags.h ]]; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        say "installing libgflags-dev with apt-get"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libgflags-dev >&2
    else
        echo "build.sh: gflags headers missing: install libgflags-dev (Debian/Ubuntu) and run again" >&2
        exit 1
    fi
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# ---- RocksDB source: the published package, fetched by cargo into its registry cache ----
say "fetching $CRATE $CRATE_VER with cargo"
mkdir -p "$WORK/fetch/src"
cat > "$WORK/fetch/Cargo.toml" <<EOF
[package]
name = "ferry-rocksdb-source"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$CRATE = { version = "=$CRATE_VER", default-features = false }
EOF
echo 'fn main() {}' > "$WORK/fetch/src/main.rs"
(cd "$WORK/fetch" && cargo fetch -q >&2)
# cargo metadata names the unpacked package's directory (no registry path guessed here)
SRC_PKG="$(cd "$WORK/fetch" && cargo metadata -q --format-version 1 | python3 -c '
import json, sys
m = json.load(sys.stdin)
for p in m["packages"]:
    if p["name"] == sys.argv[1] and p["version"] == sys.argv[2]:
        print(p["manifest_path"].rsplit("/", 1)[0]); break
' "$CRATE" "$CRATE_VER")"
SRC="$SRC_PKG/rocksdb"
[[ -f "$SRC/tools/db_bench_tool.cc" ]] || { echo "build.sh: $SRC/tools/db_bench_tool.cc not found in the fetched package" >&2; exit 1; }
CRATE_FILE="$(ls "$SRC_PKG/../../../cache/"*/"$CRATE-$CRATE_VER.crate" 2>/dev/null | head -1 || true)"

# ---- the engine binary: from the rocksdbjni jar Maven resolves ----
say "copying rocksdbjni $ROCKS_VER from Maven's local repository (mvn dependency:copy)"
(cd "$ROOT" && { mvn -B -q -o -N -Dstyle.color=never dependency:copy "-Dartifact=org.rocksdb:rocksdbjni:$ROCKS_VER" "-DoutputDirectory=$WORK/jar" >&2 \
    || mvn -B -q -N -Dstyle.color=never dependency:copy "-Dartifact=org.rocksdb:rocksdbjni:$ROCKS_VER" "-DoutputDirectory=$WORK/jar" >&2; })
JAR="$WORK/jar/rocksdbjni-$ROCKS_VER.jar"
mkdir -p "$WORK/lib"
unzip -q -o "$JAR" "$LIB" -d "$WORK/lib"

# ---- compile and link ----
# RocksDB's usual Linux defines (build_tools/build_detect_platform). -fno-rtti is required: the .so is built
# without RTTI and has no typeinfo for rocksdb::Customizable.
DEFINES=(-DNDEBUG -DGFLAGS=1 -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DOS_LINUX
    -DROCKSDB_FALLOCATE_PRESENT -DROCKSDB_MALLOC_USABLE_SIZE -DROCKSDB_PTHREAD_ADAPTIVE_MUTEX -DROCKSDB_BACKTRACE
    -DROCKSDB_RANGESYNC_PRESENT -DROCKSDB_SCHED_GETCPU_PRESENT -DROCKSDB_AUXV_GETAUXVAL_PRESENT
    -DHAVE_UINT128_EXTENSION -DHAVE_ALIGNED_NEW -D_REENTRANT -D__STDC_FORMAT_MACROS)
CXXFLAGS=(-O2 -std=c++20 -fPIC -fno-rtti -w "${DEFINES[@]}" -I"$SRC" -I"$SRC/include")
SOURCES=(tools/db_bench.cc tools/db_bench_tool.cc tools/tool_hooks.cc tools/simulated_hybrid_file_system.cc test_util/testutil.cc)
say "compiling ${SOURCES[*]} (g++ $(g++ -dumpfullversion), 2 at a time)"
mkdir -p "$WORK/obj"
pids=()
for s in "${SOURCES[@]}"; do
    o="$WORK/obj/$(basename "${s%.cc}").o"
    g++ "${CXXFLAGS[@]}" -c "$SRC/$s" -o "$o" &
    pids+=($!)
    if [[ ${#pids[@]} -ge 2 ]]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
say "linking against $LIB"
g++ -o "$WORK/lib/db_bench" "$WORK"/obj/*.o -L"$WORK/lib" -l:"$LIB" -Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags -lgflags -lpthread

# the program must load the .so beside it and nothing else
loaded="$(ldd "$WORK/lib/db_bench" | awk -v l="$LIB" '$1 == l {print $3}')"
[[ "$loaded" == "$WORK/lib/$LIB" ]] || { echo "build.sh: db_bench resolves $LIB to '$loaded', not the copy beside it" >&2; exit 1; }

# ---- install into the cache ----
mkdir -p "$CACHE"
rm -f "$CACHE/db_bench" "$CACHE/build-info.txt"
cp "$WORK/lib/$LIB" "$CACHE/$LIB"
cp "$WORK/lib/db_bench" "$CACHE/db_bench"
{
    echo "rocksdb_version: $ROCKS_VER"
    echo "source: crates.io $CRATE $CRATE_VER${CRATE_FILE:+ sha256 $(sha256sum "$CRATE_FILE" | cut -d' ' -f1)}"
    echo "engine: $CACHE/$LIB sha256 $(sha256sum "$CACHE/$LIB" | cut -d' ' -f1) (from org.rocksdb:rocksdbjni:$ROCKS_VER)"
    echo "jar_sha256: $(sha256sum "$JAR" | cut -d' ' -f1)"
    echo "compiler: g++ $(g++ -dumpfullversion)"
    echo "cxxflags: -O2 -std=c++20 -fPIC -fno-rtti ${DEFINES[*]}"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$CACHE/build-info.txt"
say "done: $CACHE/db_bench"
cat "$CACHE/build-info.txt" >&2
echo "$CACHE"
