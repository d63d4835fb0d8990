#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the kfdrt demo programs from a build directory, on /dev/kfd when present, else the emulator.
set -euo pipefail
build=${1:-build}
if [ -e /dev/kfd ] && [ "${KFDRT_DEVICE:-auto}" != emu ]; then
  echo "== running on the real amdkfd (/dev/kfd)"
  pre=()
else
  echo "== no /dev/kfd: running on the emulated GPU (libkfdemu.so)"
  pre=(env LD_PRELOAD="$build/emu/libkfdemu.so")
fi
echo "== kfdinfo"
"${pre[@]}" "$build/tools/kfdinfo/kfdinfo"
# HIP programs built with tools/kfdcc (tests/hip/programs): each prints its checks and PASS/FAIL.
# With KFDRT_TRACE_DIR set, each writes a trace there (<program>.json, README "Tracing").
status=0
here=$(dirname "$0")
for p in vector_add matmul streams_events matrix_cores; do
  exe="$build/tests/hip/hip-$p"
  if [ -x "$exe" ]; then
    echo "== HIP $p (tests/hip/programs/$p.hip)"
    if [ -n "${KFDRT_TRACE_DIR:-}" ]; then
      mkdir -p "$KFDRT_TRACE_DIR"
      KFDRT_TRACE="$KFDRT_TRACE_DIR/$p.json" "${pre[@]}" "$exe" | grep -v '^PASS ' || status=1
      echo "   trace $KFDRT_TRACE_DIR/$p.json: $("$here/kfdtrace/kfdtrace" summary "$KFDRT_TRACE_DIR/$p.json" | grep '^kernel dispatches')"
    else
      "${pre[@]}" "$exe" | grep -v '^PASS ' || status=1
    fi
  fi
done
if [ -x "$build/tests/hc/hc-demo" ]; then echo "== hc demo (tests/hc/programs/demo.cpp)"; "${pre[@]}" "$build/tests/hc/hc-demo" || status=1; fi
exit $status
