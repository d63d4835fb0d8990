#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Runs tools/kfdbw on the device: every mode and direction reports a positive bandwidth and latency
# per requested size in its JSON, the table form prints them, and bad arguments are refused.
import json
import subprocess
import sys


def run(args):
    return subprocess.run([sys.argv[1]] + args, capture_output=True, text=True, timeout=600)


def main():
    fails = []
    r = run(['--sizes', '4K,1M,3', '--iters', '3', '--json'])
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        return 1
    out = json.loads(r.stdout)
    rows = out['results']
    seen = {(x['mode'], x['direction'], x['bytes']) for x in rows}
    for mode, dirs in [('memcpy', ['h2h']), ('staged', ['h2h']), ('pinned', ['h2d', 'd2h']), ('unpinned', ['h2d', 'd2h']),
                       ('d2d', ['d2d'])]:
        for d in dirs:
            for size in (4096, 1 << 20, 3):
                if (mode, d, size) not in seen:
                    fails.append('missing %s %s %d' % (mode, d, size))
    for x in rows:
        if not (x['gbps'] > 0 and x['latency_us'] > 0 and x['iterations'] == 3):
            fails.append('bad row %s' % x)
    r = run(['--pinned', '--h2d', '--sizes', '64K', '--iters', '2'])
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or len(lines) != 2 or not lines[1].split()[:3] == ['pinned', 'h2d', '64K']:
        fails.append('table form: %r %r' % (r.stdout, r.stderr))
    for bad in (['--sizes', '0'], ['--sizes', '4Q'], ['--frobnicate']):
        r = run(bad)
        if r.returncode != 2:
            fails.append('%s: exit %d, wanted 2' % (bad, r.returncode))
    for f in fails:
        print('FAIL:', f)
    print('%d checks failed' % len(fails))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
