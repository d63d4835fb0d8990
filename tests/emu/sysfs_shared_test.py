#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The emulated sysfs parts are shared by a user's processes (emu/sysfs.cpp): a process writes a
# part once under its content's hash and later ones use it; a part anyone may write is not used
# (that process writes a private one and removes it at exit). Run with libkfdemu.so preloaded.
import glob
import json
import os
import subprocess
import sys


def kfdinfo_gpu_ids(kfdinfo, env):
    out = subprocess.run([kfdinfo, "--json"], capture_output=True, text=True, check=True, env=env).stdout
    return sorted(a["gpu_id"] for a in json.loads(out)["agents"] if a["type"] == "GPU")


def parts(kind):
    return set(glob.glob("/dev/shm/kfdemu-sysfs-u%d-%s-*" % (os.geteuid(), kind)))


def private_parts():
    return set(p for p in glob.glob("/dev/shm/kfdemu-sysfs-*") if not os.path.basename(p).startswith("kfdemu-sysfs-u"))


def main():
    kfdinfo = sys.argv[1]
    if not os.path.isdir("/dev/shm"):
        print("no /dev/shm: the parts are written to /tmp, not checked here")
        return 77
    env = dict(os.environ)
    # A configuration no other test uses, so that this test's topology part is its own.
    env["KFDEMU_CUS"] = str(50 + os.getpid() % 40)
    env["KFDEMU_VRAM_MB"] = str(40000 + os.getpid() % 1000)
    before = parts("topology")
    ids = kfdinfo_gpu_ids(kfdinfo, env)
    made = parts("topology") - before
    assert len(made) == 1, "expected one new shared topology part, got %s" % sorted(made)
    part = made.pop()
    try:
        st = os.stat(part)
        assert st.st_mode & 0o022 == 0, "shared part %s is writable by others: %o" % (part, st.st_mode)
        # A second process uses the same part (no new one, same answers).
        assert kfdinfo_gpu_ids(kfdinfo, env) == ids
        assert parts("topology") - before == {part}, "a second process wrote another part"
        # Tampered with, and made writable by anyone: not used. The process writes its own part,
        # answers from the model, and removes that part at its exit.
        gpu_nodes = [d for d in glob.glob(part + "/kfd/topology/nodes/*")
                     if open(d + "/gpu_id").read().strip() != "0"]
        assert gpu_nodes, "no GPU node in " + part
        with open(gpu_nodes[0] + "/gpu_id", "w") as f:
            f.write("12345\n")
        os.chmod(part, 0o777)
        privates = private_parts()
        assert kfdinfo_gpu_ids(kfdinfo, env) == ids, "a part anyone may write was used"
        left = private_parts() - privates
        assert not left, "private parts left after exit: %s" % sorted(left)
    finally:
        subprocess.run(["rm", "-rf", part], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
