#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds kfdrt's libFuzzer targets (tests/fuzz/meson.build: the loader's ELF, MessagePack and bundle
# parsers, the emulator's ISA decoder and AQL/PM4/SDMA engines, HIP fat-binary registration) with
# clang, ASan and UBSan, and runs each for N seconds on a writable copy of its regression corpus.
# Exits non-zero when any target finds a crash, a hang (one input running longer than the
# per-input timeout), a leak, an out-of-memory or a sanitizer report: CI fails on any finding.
# The reproducer is left as <out>/<target>-crash-* (or -timeout-, -leak-, -oom-); replay it with
#   <build>/tests/fuzz/<target> <reproducer>
# and, once fixed, add it to the target's corpus (tests/fuzz/corpus/<target>/ or
# tests/loader/corpus/<target>/), which the `fuzz` suite replays in every build.
#
# Usage: tools/fuzz.sh [seconds per target, default 60] [targets...]
#        tools/fuzz.sh --selftest [seconds, default 60]
#   --selftest runs fuzz_selftest (tests/fuzz/fuzz_selftest.cpp: a crash planted behind the
#   MessagePack parser) and succeeds only when the run finds it: the check that a finding fails
#   the step, which CI makes on every landing before it fuzzes for real.
# Environment: KFDRT_FUZZ_BUILD (default build-fuzz), KFDRT_FUZZ_OUT (default <build>/fuzz-out),
#   CXX (default clang++-15), KFDRT_FUZZ_TIMEOUT per-input seconds (default 20), KFDRT_FUZZ_SEED
#   (libFuzzer's -seed; default random: each run explores differently, which is how findings are
#   made; CI passes a fixed seed so that a landing's result does not depend on luck).
#
# That a finding fails the run is checked by --selftest (CI runs it first). By hand, a crash
# planted in a parser (e.g. `if (!input.empty() && input[0] == 0x92) __builtin_trap();` as the
# first line of loader::msgpack::parse) made `tools/fuzz.sh 30 fuzz_msgpack` print FOUND with
# the reproducer and exit 1 within 10 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
selftest=0
if [ "${1:-}" = --selftest ]; then
  selftest=1
  shift
fi
secs=${1:-60}
shift || true
build=${KFDRT_FUZZ_BUILD:-build-fuzz}
out=${KFDRT_FUZZ_OUT:-$build/fuzz-out}
per_input=${KFDRT_FUZZ_TIMEOUT:-20}
seed_arg=()
[ -n "${KFDRT_FUZZ_SEED:-}" ] && seed_arg=(-seed="$KFDRT_FUZZ_SEED")
all=(fuzz_elf fuzz_msgpack fuzz_bundle fuzz_isa fuzz_aql fuzz_pm4 fuzz_sdma fuzz_hip_register)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
[ "$selftest" -eq 0 ] || targets=(fuzz_selftest)

if [ ! -f "$build/build.ninja" ]; then
  rm -rf "$build"
  CXX=${CXX:-clang++-15} CC=${CC:-clang-15} meson setup "$build" -Dfuzzers=enabled >/dev/null
fi
nice -n 5 ninja -C "$build" "${targets[@]/#/tests/fuzz/}"

corpus_of() {
  case "$1" in
    fuzz_elf|fuzz_msgpack|fuzz_bundle) echo "tests/loader/corpus/$1" ;;
    *) echo "tests/fuzz/corpus/$1" ;;
  esac
}

mkdir -p "$out"
status=0
for t in "${targets[@]}"; do
  corpus="$out/corpus-$t"  # a writable copy: libFuzzer adds what it finds
  mkdir -p "$corpus"
  cp -n "$(corpus_of "$t")"/* "$corpus/" 2>/dev/null || true
  rm -f "$out/$t"-crash-* "$out/$t"-timeout-* "$out/$t"-leak-* "$out/$t"-oom-*
  if [ "$t" = fuzz_selftest ]; then
    # One seed, a well-formed near miss (["kfe", 1]): the planted crash is a one-byte mutation
    # away. From nothing it was luck: the 3-byte string compare is inlined, so libFuzzer gets no
    # hint from it, and a run with CI's fixed seed missed it in 60 s (949 161 inputs).
    rm -rf "$corpus" && mkdir -p "$corpus"
    printf '\x92\xa3kfe\x01' >"$corpus/near-miss"
  fi
  echo "kfdrt: fuzzing $t for ${secs}s"
  # -timeout: an input running longer is a hang (a finding); -rss_limit_mb: so is runaway memory.
  # The engine targets' emulator keeps its GPU memory in a reserved arena: keep it small.
  if KFDEMU_ARENA_GB=${KFDEMU_ARENA_GB:-8} timeout -k 10 $((secs + 3 * per_input + 60)) \
       "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout="$per_input" -rss_limit_mb=3072 \
       -max_len=65536 "${seed_arg[@]}" -print_final_stats=1 -artifact_prefix="$out/$t-" "$corpus" >"$out/$t.log" 2>&1; then
    grep -E 'stat::number_of_executed_units' "$out/$t.log" | tail -n 1 || true
  else
    echo "kfdrt: FOUND: $t failed (exit $?); see $out/$t.log and its reproducer:" >&2
    for f in "$out/$t"-crash-* "$out/$t"-timeout-* "$out/$t"-leak-* "$out/$t"-oom-*; do
      [ -e "$f" ] && echo "  $f" >&2
    done
    grep -E 'ERROR: |SUMMARY: |runtime error|==[0-9]+== ' "$out/$t.log" | head -n 20 >&2 || true
    tail -n 30 "$out/$t.log" >&2
    status=1
  fi
done
if [ "$selftest" -eq 1 ]; then
  if [ $status -ne 0 ] && ls "$out"/fuzz_selftest-crash-* >/dev/null 2>&1; then
    echo "kfdrt: selftest passed: the planted crash was found and failed the run (as a real finding would)"
    rm -f "$out"/fuzz_selftest-crash-*
    exit 0
  fi
  echo "kfdrt: selftest FAILED: the planted crash of fuzz_selftest was not found in ${secs}s" >&2
  exit 1
fi
exit $status
