#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds kfdrt with a sanitizer in its own build directory and runs tests under it; any sanitizer
# report fails the test that made it (tests/meson.build's `sanitize` setup: halt_on_error, exit 66),
# and so this script.
# Usage: tools/ci-sanitize.sh asan|tsan [build dir] [meson test args...]
#   asan: -Db_sanitize=address,undefined, every suite (the emulator and libkfdrt instrumented)
#   tsan: -Db_sanitize=thread, the multi-threaded suites only (queues, signals, HIP streams,
#         hostcall, multi-threaded launch, reliability), unless test names are given
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
kind=${1:?usage: tools/ci-sanitize.sh asan|tsan [build dir] [meson test args...]}
shift
case "$kind" in
  asan) san=address,undefined; build=${1:-build-asan}; args=(-Dc_args=-fno-sanitize-recover=all -Dcpp_args=-fno-sanitize-recover=all) ;;
  tsan) san=thread; build=${1:-build-tsan}; args=() ;;
  *) echo "usage: tools/ci-sanitize.sh asan|tsan [build dir] [meson test args...]" >&2; exit 2 ;;
esac
shift || true

if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" -Db_sanitize="$san" "${args[@]}" >/dev/null ||
    { rm -rf "$build"; meson setup "$build" -Db_sanitize="$san" "${args[@]}" >/dev/null; }
else
  rm -rf "$build"
  meson setup "$build" -Db_sanitize="$san" "${args[@]}" >/dev/null
fi

# The threaded suites under TSan: the queues suite (queues, signals, the copy engine's threads),
# the HIP programs that run streams, hostcall (printf) and launches from several threads, and the
# reliability suite's soak. Slower tests of those suites that are not about threads are left to
# the ASan run.
# reliability_fork is not among them: under TSan its forked child (of a process with running
# threads) hung about once in five runs (2026-11-25), in no run of the normal or ASan builds; TSan
# documents fork in multi-threaded programs as unreliable. The normal and ASan suites run it.
tsan_tests=(queues_unit queues_device queues_error queues_injected_reset queues_injected_page
            stream_test printf_test threads launch_test streams_events
            reliability_soak)
tests=("$@")
if [ "$kind" = tsan ] && [ ${#tests[@]} -eq 0 ]; then tests=("${tsan_tests[@]}"); fi

if [ ${#tests[@]} -eq 0 ]; then
  nice -n 5 ninja -C "$build"
else
  # Only what the chosen tests need (meson 1.0's `meson test` would rebuild everything): their
  # programs and declared dependencies, from meson's introspection.
  mapfile -t targets < <(python3 - "$build" "${tests[@]}" <<'PY'
import json, os, subprocess, sys
build, names = os.path.abspath(sys.argv[1]), set(sys.argv[2:])
intro = lambda what: json.loads(subprocess.check_output(['meson', 'introspect', build, what]))
files = {t['id']: t['filename'] for t in intro('--targets')}
tests = [t for t in intro('--tests') if t['name'] in names]
missing = names - {t['name'] for t in tests}
if missing:
    sys.exit('kfdrt: no such tests in %s: %s' % (build, ' '.join(sorted(missing))))
# Only what a target builds: a test's arguments also name directories and source files.
outputs = {os.path.normpath(f) for fs in files.values() for f in fs}
out = set()
for t in tests:
    for f in [a for a in t['cmd'] if os.path.normpath(a) in outputs] + sum((files.get(d, []) for d in t['depends']), []):
        out.add(os.path.relpath(f, build))
print('\n'.join(sorted(out)))
PY
  )
  nice -n 5 ninja -C "$build" "${targets[@]}"
fi
# ThreadSanitizer's shadow mapping leaves too little address space for the emulator's default
# 1 TiB arena of GPU memory.
if [ "$kind" = tsan ]; then export KFDEMU_ARENA_GB=${KFDEMU_ARENA_GB:-64}; fi
echo "kfdrt: $kind tests in $build"
exec meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 2 "${tests[@]}"
