#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Tests `meson install`: into a DESTDIR it puts libraries, headers, tools and kfdrt.pc, and a program
# built with `pkg-config kfdrt` against that tree runs (on the device; the installed emulator when
# the tests run on the emulator); with clang present, the installed kfdcc builds an hc program from
# the installed headers and it runs.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NEEDED = [
    "lib/libkfdrt.so", "lib/libkfdemu.so", "lib/pkgconfig/kfdrt.pc",
    "bin/kfdinfo", "bin/kfdcc", "bin/kfdobj",
    "include/kfdrt/kfd/kfd.h", "include/kfdrt/kfd/uapi_ext.h", "include/kfdrt/memory/context.h",
    "include/kfdrt/queues/runtime.h", "include/kfdrt/queues/packets.h",
    "include/kfdrt/hip/hip_runtime.h", "include/kfdrt/compat/drm/drm.h",
    "include/kfdrt/hc/hc.hpp", "include/kfdrt/hc/hc_am.hpp", "include/kfdrt/hc/pinned_vector.hpp",
]


def installed_files(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            full = os.path.join(d, f)
            out[os.path.relpath(full, root)] = full
    return out


def find(files, wanted):
    """The installed path of `wanted`; lib/ stands for any libdir (lib/, lib/x86_64-linux-gnu/)."""
    if wanted.startswith("lib/"):
        pattern = re.compile(r"(^|/)lib(/[^/]+)?/" + re.escape(wanted[4:]) + "$")
    else:
        pattern = re.compile(r"(^|/)" + re.escape(wanted) + "$")
    hits = [full for rel, full in files.items() if pattern.search(rel)]
    return hits[0] if hits else None


def run(cmd, env=None, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)
    if r.returncode != 0:
        raise SystemExit("FAILED (%d): %s\n%s%s" % (r.returncode, " ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def main():
    meson, build, cxx, consumer_src = sys.argv[1:5]
    hc_src = sys.argv[5] if len(sys.argv) > 5 else None
    dest = tempfile.mkdtemp(prefix="kfdrt-install-")
    try:
        run([meson, "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", dest])
        files = installed_files(dest)
        paths = {n: find(files, n) for n in NEEDED}
        missing = [n for n, p in paths.items() if p is None]
        assert not missing, "not installed: %s (installed: %s)" % (missing, sorted(files))

        # The HIP 5.2 compatible library sits in a directory of its own, never beside the system's
        # libraries, so that it cannot shadow a real ROCm (only LD_LIBRARY_PATH reaches it).
        compat = [rel for rel in files if os.path.basename(rel).startswith("libamdhip64.so")]
        assert compat, "libamdhip64.so.5 (the HIP 5.2 compatible library) is not installed"
        if compat:
            assert all(re.search(r"(^|/)lib(/[^/]+)?/kfdrt/hip5/libamdhip64\.so[.0-9]*$", rel) for rel in compat), \
                "libamdhip64 installed outside <libdir>/kfdrt/hip5: %s" % compat
            assert any(rel.endswith("libamdhip64.so.5") for rel in compat), "no libamdhip64.so.5: %s" % compat

        pc = paths["lib/pkgconfig/kfdrt.pc"]
        prefix = None
        for line in open(pc):
            if line.startswith("prefix="):
                prefix = line.split("=", 1)[1].strip()
        assert prefix, "kfdrt.pc has no prefix"
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pc))
        env.pop("LD_PRELOAD", None)  # the compiler and pkg-config run on the host
        flags = run(["pkg-config", "--define-variable=prefix=" + dest + prefix, "--cflags", "--libs",
                     "kfdrt"], env=env).split()
        exe = os.path.join(dest, "consumer")
        run([cxx, "-std=c++20", consumer_src, "-o", exe] + flags, env=env)

        libdir = os.path.dirname(paths["lib/libkfdrt.so"])
        run_env = dict(os.environ, LD_LIBRARY_PATH=libdir)
        if "LD_PRELOAD" in os.environ:  # emulated device: use the installed emulator
            # (after a sanitizer runtime that a sanitized build preloads ahead of it)
            run_env["LD_PRELOAD"] = ":".join(
                paths["lib/libkfdemu.so"] if p.endswith("libkfdemu.so") else p
                for p in os.environ["LD_PRELOAD"].split(":"))
        out = run([exe], env=run_env)
        assert "marker completed" in out, out
        doc = json.loads(run([paths["bin/kfdinfo"], "--json"], env=run_env))
        assert any(a["type"] == "GPU" for a in doc["agents"]), doc["agents"]

        if hc_src and shutil.which("clang++-15"):
            hc_exe = os.path.join(dest, "hc_consumer")
            run([paths["bin/kfdcc"], "-O1", hc_src, "-o", hc_exe], env=env)
            out = run([hc_exe], env=run_env)
            assert "hc kernel ok" in out, out
    finally:
        shutil.rmtree(dest, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
