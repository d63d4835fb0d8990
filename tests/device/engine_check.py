#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Runs a program and, on the emulated GPU, checks which engines did its work (KFDEMU_STATS).
"""engine_check.py CONDITIONS -- PROGRAM [ARGS...]

CONDITIONS: comma-separated `name>=N`, `name==N` or `name<=N` over the emulator's statistics
(emu/control.h kfdemu_stats: queues_aql, queues_pm4, queues_sdma, aql_dispatches, pm4_dispatches,
sdma_copies, sdma_copy_bytes, ...). A program's results cannot show that a copy ran on SDMA or a
kernel on a PM4 queue; the device's own counts can. The program's exit code is kept (77: skip);
on a real GPU (the emulator not preloaded) only the program runs."""

import json
import os
import re
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    conds = []
    for c in sys.argv[1].split(","):
        m = re.fullmatch(r"\s*([a-z_0-9]+)\s*(>=|==|<=)\s*(\d+)\s*", c)
        if not m:
            sys.exit("engine_check.py: bad condition %r" % c)
        conds.append((m.group(1), m.group(2), int(m.group(3))))
    prog = sys.argv[3:]
    if "libkfdemu" not in os.environ.get("LD_PRELOAD", ""):
        return subprocess.call(prog)
    with tempfile.TemporaryDirectory(prefix="kfdrt-engines-") as tmp:
        path = os.path.join(tmp, "stats-%p.json")
        rc = subprocess.call(prog, env=dict(os.environ, KFDEMU_STATS=path))
        if rc != 0:
            return rc
        files = [os.path.join(tmp, f) for f in os.listdir(tmp)]
        if not files:
            print("FAIL engine_check: the program wrote no KFDEMU_STATS report (did it open /dev/kfd?)")
            return 1
        stats = {}
        for f in files:  # one per process that opened /dev/kfd: summed
            for k, v in json.load(open(f)).items():
                stats[k] = stats.get(k, 0) + v
    bad = [(n, op, want, stats.get(n)) for n, op, want in conds
           if n not in stats or not {">=": stats[n] >= want, "==": stats[n] == want, "<=": stats[n] <= want}[op]]
    for n, op, want, got in bad:
        print("FAIL engine_check: %s %s %d, but the emulator counted %s" % (n, op, want, got))
    if not bad:
        print("engine_check: %s hold (%s)" % (sys.argv[1], json.dumps(stats, sort_keys=True)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
