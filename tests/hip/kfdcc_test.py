#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Tests of kfdcc's own behaviour: the default optimisation level, clang's temporaries kept out
# of TMPDIR, the offload bundler it uses (KFDCC_BUNDLER), and C sources compiled as C.
#
#   kfdcc_test.py KFDCC KFDOBJ opt
#   kfdcc_test.py KFDCC KFDOBJ c
#   kfdcc_test.py KFDCC KFDOBJ tmpdir
#   kfdcc_test.py KFDCC KFDOBJ bundler BUNDLER HOST_ID   (HOST_ID: the host entry id it writes)
import os
import re
import subprocess
import sys
import tempfile

KERNEL = """#include <hip/hip_runtime.h>
__global__ void spread(const float* in, float* out, int n) {
  float acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = in[(threadIdx.x + k) % n];
  float s = 0;
  for (int k = 0; k < 8; ++k) s += acc[k] * float(k);
  out[threadIdx.x] = s;
}
"""

PROGRAM = KERNEL + """int main() { return hipDeviceSynchronize() == hipSuccess ? 0 : 1; }
"""


def run(cmd, env=None, ok=True):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if ok and r.returncode != 0:
        raise SystemExit("FAILED (%d): %s\n%s%s" % (r.returncode, " ".join(cmd), r.stdout, r.stderr))
    return r


def env_with(**kv):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)  # kfdcc and kfdobj need no device
    env.update(kv)
    return env


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def private_bytes(kfdobj, co):
    out = run([kfdobj, co], env=env_with()).stdout
    m = re.search(r"kernel \S*spread\S*.*?\n\s+kernarg .*?private (\d+)", out, re.S)
    if not m:
        raise SystemExit("kfdobj printed no private segment size for spread:\n" + out)
    return int(m.group(1))


def check_opt(kfdcc, kfdobj, d):
    """Without -O, -O3 (hipcc's rule): -g keeps it, any -O replaces it; the code object shows it."""
    src = write(d, "k.hip", KERNEL)
    fails = []
    cases = [([], True), (["-g"], True), (["-O0"], False), (["-O1"], False), (["-Os"], False)]
    for i, (extra, want_o3) in enumerate(cases):
        co = os.path.join(d, "k%d.co" % i)
        r = run([kfdcc, "--genco"] + extra + [src, "-o", co], env=env_with(KFDCC_VERBOSE="1"))
        line = [l for l in r.stderr.splitlines() if l.startswith("kfdcc: ") and " -o " in l]
        has_o3 = bool(line) and " -O3 " in line[-1] + " "
        print("%-8s -O3 passed: %s" % (" ".join(extra) or "(none)", has_o3))
        if has_o3 != want_o3:
            fails.append("%s: -O3 %s" % (extra, "missing" if want_o3 else "added"))
        if extra in ([], ["-O0"]):
            priv = private_bytes(kfdobj, co)
            print("%-8s private segment: %d bytes" % (" ".join(extra) or "(none)", priv))
            # Unoptimised, the array lives in scratch; optimised, in registers.
            if (priv == 0) != (extra == []):
                fails.append("%s: private segment %d bytes" % (extra, priv))
    return fails


def leftovers(d):
    return sorted(os.path.relpath(os.path.join(r, n), d) for r, ds, fs in os.walk(d) for n in ds + fs)


def check_tmpdir(kfdcc, kfdobj, d):
    """A compile, a link, an -fgpu-rdc build and a failing compile leave TMPDIR as they found it."""
    src = write(d, "p.hip", PROGRAM)
    bad = write(d, "bad.hip", "__global__ void k() { undeclared(); }\n")
    fails = []
    steps = [
        ("compile and link", [src, "-o", os.path.join(d, "p")], True),
        ("-fgpu-rdc compile", ["-fgpu-rdc", "-c", src, "-o", os.path.join(d, "p.o")], True),
        ("-fgpu-rdc link", ["-fgpu-rdc", os.path.join(d, "p.o"), "-o", os.path.join(d, "p_rdc")], True),
        ("failing compile", ["-c", bad, "-o", os.path.join(d, "bad.o")], False),
    ]
    for what, args, ok in steps:
        tmp = tempfile.mkdtemp(dir=d, prefix="tmpdir-")
        r = run([kfdcc] + args, env=env_with(TMPDIR=tmp), ok=ok)
        if not ok and r.returncode == 0:
            fails.append(what + ": compiled")
        left = leftovers(tmp)
        print("%s: %s" % (what, "TMPDIR empty" if not left else "left " + ", ".join(left)))
        if left:
            fails.append(what + ": left " + ", ".join(left))
    return fails


def check_bundler(kfdcc, kfdobj, d, bundler, host_id):
    """KFDCC_BUNDLER picks the bundler: its host entry id is in the object; a missing one is an error."""
    src = write(d, "p.hip", PROGRAM)
    obj = os.path.join(d, "p.o")
    r = run([kfdcc, "-c", src, "-o", obj], env=env_with(KFDCC_BUNDLER=bundler, KFDCC_VERBOSE="1"))
    fails = []
    if "kfdcc: bundler " + bundler + "\n" not in r.stderr:
        fails.append("kfdcc did not report the bundler:\n" + r.stderr)
    out = run([kfdobj, obj], env=env_with()).stdout
    entries = re.findall(r"^entry (\S+):", out, re.M)
    print("%s wrote %s" % (bundler, ", ".join(entries)))
    if host_id not in entries or not any(e.startswith("hipv4-amdgcn-amd-amdhsa-") for e in entries):
        fails.append("entries %s, want %s and a gfx entry" % (entries, host_id))
    r = run([kfdcc, "-c", src, "-o", obj], env=env_with(KFDCC_BUNDLER="/nonexistent/bundler"), ok=False)
    if r.returncode == 0 or "KFDCC_BUNDLER=/nonexistent/bundler not found" not in r.stderr:
        fails.append("a missing KFDCC_BUNDLER was not an error: %d %s" % (r.returncode, r.stderr))
    return fails


# A character literal is an int in C and a char in C++ (C11 6.4.4.4p10; C++17 [lex.ccon]/1):
# the program's exit status says which language compiled the C source.
# It also includes HIP's runtime API header, which must be kfdrt's (C-clean) even where ROCm's
# /usr/include/hip is installed.
C_SOURCE = """#include <hip/hip_runtime_api.h>
#ifndef __HIP_PLATFORM_KFDRT__
#error "not kfdrt's hip/hip_runtime_api.h"
#endif
#ifdef __cplusplus
extern "C"
#endif
int literal_size(void) { return (int)sizeof('a') + (int)hipSuccess; }
"""
C_MAIN = """#include <hip/hip_runtime.h>
extern "C" int literal_size(void);
__global__ void nothing() {}
int main() { return 40 + literal_size(); }
"""


def run_status(exe):
    """The program's exit status (40 + sizeof('a')) and its stderr. It runs in the test's own
    environment: in a sanitized build that preloads the sanitizer's runtime, which the
    instrumented libkfdrt needs ahead of the uninstrumented program."""
    r = subprocess.run([exe], capture_output=True, text=True)
    return r.returncode, r.stderr


def check_c(kfdcc, d):
    """.c sources, and sources after -x c, are compiled as C and linked with the HIP ones."""
    fails = []
    main = write(d, "main.hip", C_MAIN)
    c_src = write(d, "size.c", C_SOURCE)
    odd = write(d, "size.cc", C_SOURCE)  # a C++ name: only -x c makes it C
    env = env_with()
    cases = [
        ("a .c source", [main, c_src]),
        ("-x c before a .cc source", [main, "-x", "c", odd]),
    ]
    obj = os.path.join(d, "size.o")
    r = run([kfdcc, "-c", c_src, "-o", obj], env=env, ok=False)
    if r.returncode != 0 or not os.path.exists(obj):
        fails.append("kfdcc -c size.c -o size.o: %d %s" % (r.returncode, r.stderr))
    else:
        cases.append(("an object kfdcc -c made from a .c source", [main, obj]))
    for what, inputs in cases:
        exe = os.path.join(d, "prog")
        if os.path.exists(exe):
            os.unlink(exe)
        r = run([kfdcc] + inputs + ["-o", exe], env=env, ok=False)
        if r.returncode != 0:
            fails.append("%s: kfdcc failed (%d): %s" % (what, r.returncode, r.stderr))
            continue
        status, err = run_status(exe)
        if status != 44:
            fails.append("%s: exit status %d, wanted 44 (sizeof('a') 4: compiled as C) %s" % (what, status, err))
    # Compiling two C sources to one -o without linking is refused, as clang refuses it.
    other = write(d, "other.c", "int other(void) { return 0; }\n")
    r = run([kfdcc, "-c", c_src, other, "-o", os.path.join(d, "two.o")], env=env, ok=False)
    if r.returncode == 0 or "cannot specify -o" not in r.stderr:
        fails.append("two C sources to one -o with -c: exit %d %r, wanted an error" % (r.returncode, r.stderr))
    # Without -x c a .cc source stays C++ (HIP).
    r = run([kfdcc, main, odd, "-o", os.path.join(d, "prog2")], env=env, ok=False)
    status, err = run_status(os.path.join(d, "prog2")) if r.returncode == 0 else (-1, r.stderr)
    if status != 41:
        fails.append("a .cc source without -x c: exit status %d, wanted 41 (C++) %s" % (status, err))
    return fails


def main():
    kfdcc, kfdobj, what = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as d:
        if what == "opt":
            fails = check_opt(kfdcc, kfdobj, d)
        elif what == "tmpdir":
            fails = check_tmpdir(kfdcc, kfdobj, d)
        elif what == "c":
            fails = check_c(kfdcc, d)
        elif what == "bundler":
            fails = check_bundler(kfdcc, kfdobj, d, sys.argv[4], sys.argv[5])
        else:
            raise SystemExit("unknown check " + what)
    for f in fails:
        print("FAIL " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
