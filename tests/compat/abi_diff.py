#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Compares the ABI two sets of HIP headers define: enumerator values, struct layouts, C function types, numeric macros.
"""abi_diff.py CXX HEADER REF_INCLUDE TEST_INCLUDE [--allow FILE] [--require-version MAJOR.MINOR]

Both header sets are parsed by clang (CXX, a clang++) as host C++; every name both define at file
scope in their hip/ directory is compared by compiling and running a generated probe against each
set: enumerator values, sizeof/alignof and field offsets and sizes of structs (bit-fields by the
bytes one set bit occupies), the canonical type and language linkage of non-inline functions, and
the value of numeric macros. Differences are printed one per line; exit 1 if any is not listed in
the allow file (lines "key  # reason"), 77 when the reference headers are missing or (with
--require-version) of another HIP version.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

LOC_KEYS = ('spellingLoc', 'expansionLoc')


class Walker:
    """Collects the file-scope declarations of one header set from clang's JSON AST.

    clang prints a location's file only when it differs from the previous location printed, so the
    walk follows the document order and remembers the last file seen.
    """

    def __init__(self, hip_dir):
        self.hip_dir = os.path.realpath(hip_dir) + os.sep
        self.last = ''
        self.enums = {}      # enumerator -> enum name
        self.records = {}    # record name -> [(field, is_bitfield)]
        self.functions = {}  # name -> (qualType, linkage)
        self.overloaded = set()

    def _update(self, loc):
        if not isinstance(loc, dict):
            return
        if any(k in loc for k in LOC_KEYS):
            for k in LOC_KEYS:
                self._update(loc.get(k))
            return
        if 'file' in loc:
            self.last = loc['file']

    def _file_of(self, node):
        self._update(node.get('loc'))
        f = self.last
        rng = node.get('range', {})
        self._update(rng.get('begin'))
        self._update(rng.get('end'))
        return f

    def _skip(self, node):
        """Walks a subtree only to keep the last-file state right."""
        for k, v in node.items():
            if k in ('loc',):
                self._update(v)
            elif k == 'range':
                self._update(v.get('begin'))
                self._update(v.get('end'))
            elif k == 'inner':
                for c in v:
                    self._skip(c)

    def mine(self, f):
        return os.path.realpath(f).startswith(self.hip_dir) if f else False

    def walk(self, nodes, linkage='C++'):
        pending_anon = None
        for n in nodes:
            kind = n.get('kind')
            f = self._file_of(n)
            ours = self.mine(f)
            if kind == 'LinkageSpecDecl':
                self.walk(n.get('inner', []), n.get('language', 'C++'))
                continue
            if kind == 'NamespaceDecl':
                self._skip_inner(n)
                continue
            if not ours:
                self._skip_inner(n)
                continue
            if kind == 'EnumDecl':
                self._skip_inner(n)
                for c in n.get('inner', []):
                    if c.get('kind') == 'EnumConstantDecl':
                        self.enums[c['name']] = n.get('name', '')
            elif kind in ('RecordDecl', 'CXXRecordDecl'):
                fields = self._fields(n)
                self._skip_inner(n)
                if n.get('completeDefinition') and n.get('tagUsed') in ('struct', 'union'):
                    if n.get('name'):
                        self.records[n['name']] = fields
                    else:
                        pending_anon = fields
                continue
            elif kind == 'TypedefDecl':
                self._skip_inner(n)
                name = n.get('name')
                qt = n.get('type', {}).get('qualType', '')
                if pending_anon is not None and ('struct' in qt or 'union' in qt) and '*' not in qt:
                    self.records.setdefault(name, pending_anon)
                elif name and 'struct ' + name == qt.replace('struct ', 'struct ', 1) and name in self.records:
                    pass
            elif kind == 'FunctionDecl':
                self._skip_inner(n)
                name = n['name']
                if n.get('inline') or n.get('storageClass') == 'static' or 'isImplicit' in n:
                    pass
                elif name in self.functions and self.functions[name][0] != n['type']['qualType']:
                    self.overloaded.add(name)
                else:
                    self.functions[name] = (n['type']['qualType'], linkage)
            else:
                self._skip_inner(n)
            pending_anon = None

    def _skip_inner(self, n):
        for c in n.get('inner', []):
            self._skip(c)

    def _fields(self, rec, prefix=''):
        out = []
        inner = rec.get('inner', [])
        for i, c in enumerate(inner):
            if c.get('kind') == 'FieldDecl':
                if c.get('name'):
                    out.append((c['name'], bool(c.get('isBitfield'))))
            elif c.get('kind') in ('RecordDecl', 'CXXRecordDecl') and not c.get('name') \
                    and c.get('completeDefinition'):
                # An unnamed struct/union is anonymous (its members are the enclosing record's)
                # unless the next declaration is a named member of that type: `union {...} res;`.
                nxt = inner[i + 1] if i + 1 < len(inner) else {}
                qt = nxt.get('type', {}).get('qualType', '')
                if nxt.get('kind') == 'FieldDecl' and nxt.get('name') and ('unnamed' in qt or 'anonymous' in qt):
                    continue
                out.extend(self._fields(c))  # anonymous struct/union members
        return out


def ast(cxx, header, inc, lang):
    src = '#include <%s>\n' % header
    cmd = [cxx, '-x', lang, '-std=c++17', '-fsyntax-only', '-Xclang', '-ast-dump=json', '-'] + inc
    r = subprocess.run(cmd, input=src, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('abi_diff: %s failed:\n%s' % (' '.join(cmd), r.stderr[-4000:]))
    return json.loads(r.stdout)


def macros(cxx, header, inc, lang):
    src = '#include <%s>\n' % header
    r = subprocess.run([cxx, '-x', lang, '-std=c++17', '-E', '-dM', '-'] + inc, input=src,
                       capture_output=True, text=True, check=True)
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r'#define ((?:hip|HIP|__HIP)\w*) (.+)$', line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


NUMERIC = re.compile(r'^[\s()0-9a-fA-FxXuUlL|&<>+\-~*]*[0-9][\s()0-9a-fA-FxXuUlL|&<>+\-~*]*$')
CAST = re.compile(r'\((?:unsigned|int|void\s*\*|hip\w+|size_t)\s*\)')


def numeric_macro(body):
    return bool(NUMERIC.match(CAST.sub('', body)))


def probe_source(header, w, mac, common):
    enums, records, funcs, macs = common
    lines = ['#include <%s>' % header, '#include <cstddef>', '#include <cstdio>', '#include <cstring>',
             '#include <typeinfo>',
             'static void P(const char* k, long long v) { std::printf("%s = %lld\\n", k, v); }',
             'static void S(const char* k, const char* v) { std::printf("%s = %s\\n", k, v); }',
             'template <class T> static void B(const char* k, const T& t) {',
             '  std::printf("%s =", k);',
             '  const unsigned char* b = reinterpret_cast<const unsigned char*>(&t);',
             '  for (size_t i = 0; i < sizeof t; ++i) std::printf(" %02x", b[i]);',
             '  std::printf("\\n");', '}']
    for i, f in enumerate(funcs):
        lines.append('using F%d = %s;' % (i, w.functions[f][0]))
    lines.append('int main() {')
    for e in enums:
        lines.append('  P("enum %s", (long long)(%s));' % (e, e))
    for r in records:
        lines.append('  P("sizeof %s", (long long)sizeof(%s));' % (r, r))
        lines.append('  P("alignof %s", (long long)alignof(%s));' % (r, r))
        theirs = dict(records[r])
        for name, bit in w.records[r]:
            if name not in theirs or theirs[name] != bit:
                continue
            if bit:
                lines.append('  { %s t; std::memset(&t, 0, sizeof t); t.%s = 1; B("bits %s.%s", t); }'
                             % (r, name, r, name))
            else:
                lines.append('  P("offsetof %s.%s", (long long)offsetof(%s, %s));' % (r, name, r, name))
                lines.append('  P("sizeof %s.%s", (long long)sizeof(((%s*)0)->%s));' % (r, name, r, name))
    for i, f in enumerate(funcs):
        lines.append('  S("type %s", typeid(F%d).name());' % (f, i))
    for m in macs:
        lines.append('  P("macro %s", (long long)(%s));' % (m, m))
    lines.append('  return 0;\n}')
    return '\n'.join(lines) + '\n'


def run_probe(cxx, src, inc, tmp, tag):
    path = os.path.join(tmp, 'probe_%s.cpp' % tag)
    exe = os.path.join(tmp, 'probe_%s' % tag)
    with open(path, 'w') as f:
        f.write(src)
    r = subprocess.run([cxx, '-x', 'c++', '-std=c++17', '-w', '-Wno-invalid-offsetof', path, '-o', exe] + inc,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('abi_diff: probe for %s does not compile:\n%s' % (tag, r.stderr[-6000:]))
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return dict(line.split(' = ', 1) for line in out.splitlines())


def load_allow(path):
    allow = {}
    if path:
        for line in open(path):
            key, _, why = line.partition('#')
            if key.strip():
                allow[key.strip()] = why.strip()
    return allow


def main(argv):
    args = argv[1:]
    allow_file = require = None
    if '--allow' in args:
        i = args.index('--allow')
        allow_file = args[i + 1]
        del args[i:i + 2]
    if '--require-version' in args:
        i = args.index('--require-version')
        require = args[i + 1]
        del args[i:i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    cxx, header, ref_inc, test_inc = args
    if not os.path.exists(os.path.join(ref_inc, header)):
        print('abi_diff: SKIP: no reference header %s' % os.path.join(ref_inc, header))
        return 77
    sets = {'ref': ['-I' + ref_inc, '-D__HIP_PLATFORM_AMD__'], 'test': ['-I' + test_inc]}
    hip_dirs = {'ref': os.path.join(ref_inc, 'hip'), 'test': os.path.join(test_inc, 'hip')}
    walkers, macs = {}, {}
    for tag, inc in sets.items():
        w = Walker(hip_dirs[tag])
        w.walk(ast(cxx, header, inc, 'c++').get('inner', []))
        walkers[tag], macs[tag] = w, macros(cxx, header, inc, 'c++')
    ref_version = '%s.%s' % (macs['ref'].get('HIP_VERSION_MAJOR'), macs['ref'].get('HIP_VERSION_MINOR'))
    if require and ref_version != require:
        print('abi_diff: SKIP: the reference headers in %s are HIP %s, not %s' % (ref_inc, ref_version, require))
        return 77
    ref, test = walkers['ref'], walkers['test']
    diffs = []
    enums = sorted(set(ref.enums) & set(test.enums))
    records = sorted(set(ref.records) & set(test.records))
    for r in records:
        a, b = [n for n, _ in ref.records[r]], [n for n, _ in test.records[r]]
        if a != b:
            only_a = [n for n in a if n not in b]
            only_b = [n for n in b if n not in a]
            diffs.append('fields %s: reference-only %s, test-only %s%s' % (
                r, only_a, only_b, ', order differs' if not only_a and not only_b else ''))
    funcs = sorted((set(ref.functions) & set(test.functions)) - ref.overloaded - test.overloaded)
    for f in funcs:
        if ref.functions[f][1] != test.functions[f][1]:
            diffs.append('linkage %s: reference %s, test %s' % (f, ref.functions[f][1], test.functions[f][1]))
    mnames = sorted(m for m in set(macs['ref']) & set(macs['test'])
                    if numeric_macro(macs['ref'][m]) and numeric_macro(macs['test'][m]))
    with tempfile.TemporaryDirectory() as tmp:
        out = {}
        for tag, w in walkers.items():
            other = walkers['test' if tag == 'ref' else 'ref']
            common = (enums, {r: other.records[r] for r in records}, funcs, mnames)
            out[tag] = run_probe(cxx, probe_source(header, w, macs[tag], common), sets[tag], tmp, tag)
    for k in sorted(set(out['ref']) | set(out['test'])):
        a, b = out['ref'].get(k), out['test'].get(k)
        if a != b:
            diffs.append('%s: reference %s, test %s' % (k, a, b))
    allow = load_allow(allow_file)
    bad = 0
    for d in diffs:
        key = d.split(':', 1)[0]
        if key in allow:
            print('allowed %s  (%s)' % (d, allow[key]))
        else:
            print('DIFF %s' % d)
            bad += 1
    print('abi_diff: %s: %d enumerators, %d structs, %d functions, %d macros compared; %d differences'
          % (header, len(enums), len(records), len(funcs), len(mnames), bad))
    only = sorted(set(ref.functions) - set(test.functions))
    print('abi_diff: %d functions only in the reference headers' % len(only))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
