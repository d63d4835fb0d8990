#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Tests tools/kfdinfo: --json is valid JSON with the agent fields; without a device it says why.
import json
import os
import subprocess
import sys


def check_json(kfdinfo):
    out = subprocess.run([kfdinfo, "--json"], capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    assert doc["kfd"]["version"].startswith("1."), doc["kfd"]
    gpus = [a for a in doc["agents"] if a["type"] == "GPU"]
    cpus = [a for a in doc["agents"] if a["type"] == "CPU"]
    assert gpus and cpus, "need a CPU and a GPU agent"
    for g in gpus:
        for key in ("name", "marketing_name", "gpu_id", "compute_units", "simd_count",
                    "wavefront_size", "lds_size_kb", "max_waves_per_cu", "memory_banks",
                    "caches", "queues"):
            assert key in g, "GPU agent lacks " + key
        assert g["name"].startswith("gfx"), g["name"]
        assert g["compute_units"] * g["simds_per_cu"] == g["simd_count"]
        assert g["queues"]["ctl_stack_bytes"] % 4096 == 0


def check_missing_device(kfdinfo):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([kfdinfo], capture_output=True, text=True, env=env)
    assert r.returncode != 0, "kfdinfo succeeded without a device"
    assert "/dev/kfd" in r.stderr and "LD_PRELOAD=" in r.stderr, r.stderr
    assert "libkfdemu.so" in r.stderr, r.stderr
    # What is missing: no /dev/kfd means no amdgpu driver with KFD.
    assert "amdgpu driver is not loaded" in r.stderr, r.stderr
    assert r.stdout == "", "kfdinfo printed a report without a device: " + r.stdout


def main():
    kfdinfo, mode = sys.argv[1], sys.argv[2]
    if mode == "json":
        check_json(kfdinfo)
    elif os.path.exists("/dev/kfd"):
        return 77  # meson: skipped, a real device is present
    else:
        check_missing_device(kfdinfo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
