#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Every instruction of ROCm's own gfx90a kernels must be one the emulated shader core implements:
# ROCclr's blit kernels (compiled by comgr at run time, kept with AMD_COMGR_SAVE_TEMPS), the code
# objects in ROCr's library, the rocm suite's hipcc programs (HIP's device libraries), and AMD's
# prebuilt libraries with kernels of their own where Debian's packages are installed (rocSPARSE's
# 222 translation units, rocRAND's generators).
# No gaps are allowed: the image instructions (MIMG, and buffer_*_format, which ROCm's image
# kernels use) and the global wave sync (ds_gws_*) of cooperative grid launches were the last.
import ctypes.util
import glob
import os
import re
import subprocess
import sys
import tempfile

KNOWN_GAPS = re.compile(r"^$")  # none


def hsa_library():
    name = ctypes.util.find_library("hsa-runtime64")
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/opt/rocm/lib"):
        for cand in ([name] if name else []) + ["libhsa-runtime64.so.1"]:
            p = os.path.join(d, cand)
            if os.path.exists(p):
                return p
    return None


def amd_libraries():
    found = []
    for name, soname in (("rocsparse", "librocsparse.so.0"), ("rocrand", "librocrand.so.1")):
        cands = [ctypes.util.find_library(name), soname]
        for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/opt/rocm/lib"):
            hits = [os.path.join(d, c) for c in cands if c and os.path.exists(os.path.join(d, c))]
            if hits:
                found.append(hits[0])
                break
    return found


def comgr_outputs(program, tmp):
    env = dict(os.environ, AMD_COMGR_SAVE_TEMPS="1", TMPDIR=tmp)
    r = subprocess.run([program], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, "%s failed:\n%s\n%s" % (program, r.stdout[-2000:], r.stderr[-2000:])
    return sorted(glob.glob(os.path.join(tmp, "comgr-*", "output", "*.so")))


def main():
    coverage, program, others = sys.argv[1], sys.argv[2], sys.argv[3:]
    hsa = hsa_library()
    if not hsa or not os.path.exists(program):
        print("SKIP: ROCm's HSA runtime or the hipcc-built programs are missing (packages "
              "libhsa-runtime64-1, hipcc)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        blits = comgr_outputs(program, tmp)
        assert blits, "no code object compiled by comgr (ROCclr's blit kernels) in " + tmp
        libs = amd_libraries()
        print("AMD libraries checked: " + (", ".join(libs) or "none installed"))
        r = subprocess.run([coverage, hsa] + blits + [program] + others + libs, capture_output=True,
                           text=True, timeout=300)
    print(r.stdout)
    assert r.returncode in (0, 1), "the checker failed (%d): %s" % (r.returncode, r.stderr)
    missing = [l[len("NOT IMPLEMENTED: "):] for l in r.stdout.splitlines() if l.startswith("NOT IMPLEMENTED: ")]
    unknown = [m for m in missing if not KNOWN_GAPS.match(m)]
    for m in missing:
        if m not in unknown:
            print("known gap: " + m)
    assert not unknown, "instructions of ROCm's kernels the shader core lacks:\n" + "\n".join(unknown)
    per_file = re.findall(r"^(\S+): (\d+) AMDGPU code object", r.stdout, re.M)
    assert all(int(n) > 0 for f, n in per_file), "a file without code objects: %s" % per_file
    return 0


if __name__ == "__main__":
    sys.exit(main())
