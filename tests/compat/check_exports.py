#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks kfdrt's libamdhip64.so.5 exports exactly HIP 5.2's entry points, each with its symbol version, under HIP 5.2's soname.
"""check_exports.py LIBRARY SYMBOLS

SYMBOLS is api/compat/hip52_symbols.txt ("version name return-type" per line). The library must
have the soname libamdhip64.so.5, define the versions in HIP's chain (each after the previous),
export every listed function with its version and nothing else (no symbol of kfdrt's own).
"""
import re
import subprocess
import sys


def expected(path):
    want = set()
    for line in open(path):
        line = line.strip()
        if line and not line.startswith('#'):
            version, name, _ = line.split(' ', 2)
            want.add((version, name))
    return want


def exported(lib):
    out = subprocess.run(['objdump', '-T', lib], capture_output=True, text=True, check=True).stdout
    got, other = set(), []
    for line in out.splitlines():
        f = line.split()
        if len(f) < 6 or '*UND*' in line or f[-2].startswith('(') or not re.match(r'^[0-9a-f]{16}$', f[0]):
            continue
        version, name = f[-2], f[-1]
        if name == version:  # the version definitions' own absolute symbols
            continue
        if f[2] == 'DF':
            got.add((version, name))
        else:
            other.append('%s@%s (%s)' % (name, version, f[2]))
    return got, other


def version_chain(lib):
    out = subprocess.run(['objdump', '-p', lib], capture_output=True, text=True, check=True).stdout
    chain = []
    section = out.split('Version definitions:')[1].split('Version References:')[0] if 'Version definitions:' in out else ''
    lines = [l for l in section.splitlines() if l.strip()]
    for i, line in enumerate(lines):
        f = line.split()
        if len(f) == 4 and f[0].isdigit():
            parent = lines[i + 1].strip() if i + 1 < len(lines) and not lines[i + 1].split()[0].isdigit() else None
            chain.append((f[3], parent))
    m = re.search(r'SONAME\s+(\S+)', out)
    soname = m.group(1) if m else None
    return soname, chain


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    lib, symbols = argv[1], argv[2]
    want = expected(symbols)
    got, other = exported(lib)
    errors = []
    soname, chain = version_chain(lib)
    if soname != 'libamdhip64.so.5':
        errors.append('soname %s, want libamdhip64.so.5' % soname)
    versions = sorted({v for v, _ in want}, key=lambda v: [int(x) for x in v[4:].split('.')])
    want_chain = [('libamdhip64.so.5', None)] + [(v, versions[i - 1] if i else None) for i, v in enumerate(versions)]
    if chain != want_chain:
        errors.append('version definitions %s, want %s' % (chain, want_chain))
    for v, n in sorted(want - got):
        errors.append('missing: %s@%s' % (n, v))
    for v, n in sorted(got - want):
        errors.append('exported but not a HIP 5.2 entry point: %s@%s' % (n, v))
    errors.extend('exported but not a function: %s' % o for o in other)
    print('\n'.join(errors) if errors else
          'check_exports: %s exports the %d HIP 5.2 entry points in %d versions' % (lib, len(want), len(versions)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
