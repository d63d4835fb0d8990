#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Runs a program built by ROCm's hipcc on kfdrt and checks which HIP library it loaded and what it printed.
"""run_compat.py [options] -- PROGRAM [ARGS...]

  --skip MESSAGE        print MESSAGE and exit 77 (meson's "skipped"): what is missing
  --lib-dir DIR         run with DIR first on LD_LIBRARY_PATH; libamdhip64.so.5 must resolve there
  --needs LIB=DIR       the program must load LIB from DIR (checked with ldd)
  --without LIB         the program must not load LIB at all
  --env NAME=VALUE      set in the program's environment
  --stdout TEXT         TEXT must appear in the program's stdout
  --stderr-once TEXT    TEXT must appear exactly once in the program's stderr

The program's exit code must be 0. The environment (LD_PRELOAD of the emulator) is passed on to
the program, but not to ldd.
"""
import os
import subprocess
import sys


def parse(argv):
    opts = {'skip': None, 'lib_dir': None, 'needs': [], 'without': [], 'env': {}, 'stdout': [],
            'stderr_once': []}
    i = 1
    while i < len(argv) and argv[i] != '--':
        key, value = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if value is None:
            sys.exit('run_compat: %s needs a value' % key)
        if key == '--skip':
            opts['skip'] = value
        elif key == '--lib-dir':
            opts['lib_dir'] = value
        elif key == '--needs':
            opts['needs'].append(value.split('=', 1))
        elif key == '--without':
            opts['without'].append(value)
        elif key == '--env':
            name, _, val = value.partition('=')
            opts['env'][name] = val
        elif key == '--stdout':
            opts['stdout'].append(value)
        elif key == '--stderr-once':
            opts['stderr_once'].append(value)
        else:
            sys.exit('run_compat: unknown option %s\n%s' % (key, __doc__))
        i += 2
    return opts, argv[i + 1:]


def loaded_libraries(program, env):
    """The shared libraries ldd resolves for `program` under `env`, by soname."""
    env = dict(env)
    env.pop('LD_PRELOAD', None)
    out = subprocess.run(['ldd', program], capture_output=True, text=True, env=env).stdout
    libs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == '=>':
            libs[parts[0]] = parts[2]
    return libs


def main(argv):
    opts, cmd = parse(argv)
    if opts['skip'] is not None:
        print('SKIP: %s' % opts['skip'])
        return 77
    if not cmd:
        sys.exit(__doc__)
    env = dict(os.environ)
    env.update(opts['env'])
    if opts['lib_dir']:
        env['LD_LIBRARY_PATH'] = opts['lib_dir'] + (':' + env['LD_LIBRARY_PATH'] if env.get('LD_LIBRARY_PATH') else '')
        opts['needs'].append(['libamdhip64.so.5', opts['lib_dir']])
    libs = loaded_libraries(cmd[0], env)
    errors = []
    for lib, where in opts['needs']:
        got = libs.get(lib)
        if not got or os.path.dirname(os.path.realpath(got)) != os.path.realpath(where):
            errors.append('%s must load %s from %s; ldd says %s' % (cmd[0], lib, where, got or 'not loaded'))
    for lib in opts['without']:
        if lib in libs:
            errors.append('%s must not load %s; ldd says %s' % (cmd[0], lib, libs[lib]))
    if errors:
        print('\n'.join(errors))
        return 1
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    sys.stdout.write(r.stdout)
    sys.stdout.write(r.stderr)
    for text in opts['stdout']:
        if text not in r.stdout:
            errors.append('stdout lacks %r' % text)
    for text in opts['stderr_once']:
        n = r.stderr.count(text)
        if n != 1:
            errors.append('stderr has %r %d times, want once' % (text, n))
    if r.returncode != 0:
        errors.append('%s exited with %d' % (cmd[0], r.returncode))
    print('\n'.join(errors) if errors else 'run_compat: ok')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
