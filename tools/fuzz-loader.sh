#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the loader's libFuzzer targets (ELF, MessagePack, bundle) with clang-15 and ASan, then
# runs each for N seconds on the seed corpus in tests/loader/corpus/<target>/.
# Usage: tools/fuzz-loader.sh [seconds per target, default 60] [output dir, default build-fuzz]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
secs=${1:-60}
out=${2:-$here/build-fuzz}
cxx=${CLANGXX:-clang++-15}
mkdir -p "$out"

srcs=("$here"/loader/*.cpp "$here"/base/*.cpp)
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$here")
status=0
for t in fuzz_elf fuzz_msgpack fuzz_bundle; do
  echo "kfdrt: building $t"
  "$cxx" "${flags[@]}" -o "$out/$t" "$here/tests/loader/fuzz/$t.cpp" "${srcs[@]}" -lz -lzstd
  corpus="$out/corpus-$t"  # a writable copy: libFuzzer adds what it finds
  mkdir -p "$corpus"
  cp -n "$here/tests/loader/corpus/$t/"* "$corpus/" 2>/dev/null || true
  echo "kfdrt: running $t for ${secs}s"
  if ! "$out/$t" -max_total_time="$secs" -max_len=1048576 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$out/$t-" "$corpus" 2>"$out/$t.log"; then
    echo "kfdrt: $t FAILED; see $out/$t.log and $out/$t-crash-*" >&2
    tail -n 40 "$out/$t.log" >&2
    status=1
  else
    grep -E 'stat::number_of_executed_units|Done' "$out/$t.log" | tail -n 2
  fi
done
exit $status
