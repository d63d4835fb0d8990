#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# ROCm's own rocminfo (Debian's ROCm 5.2: libhsa-runtime64 on libhsakmt) on the device: it must
# list every GPU with the properties the KFD topology gives (cross-checked against kfdinfo), and
# on the emulator the very part that was configured (name, marketing name, CUs, count).
import json
import os
import re
import subprocess
import sys

SKIP = 77


def run_rocminfo(rocminfo, extra_env):
    env = dict(os.environ, **extra_env)
    r = subprocess.run([rocminfo], capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0, "rocminfo failed (%d):\n%s\n%s" % (r.returncode, r.stdout[-3000:], r.stderr[-3000:])
    assert "*** Done ***" in r.stdout, "rocminfo did not finish:\n" + r.stdout[-3000:]
    return r.stdout


def gpu_agents(text):
    """The GPU agents of rocminfo's report, each as {key: value} plus its pools, caches and ISAs."""
    agents = []
    for block in re.split(r"\*{7}\s*\nAgent \d+\s*\n\*{7}\s*\n", text)[1:]:
        fields = {}
        for line in block.splitlines():
            m = re.match(r"^  (\S[^:]*?):\s+(.*?)\s*$", line)
            if m and m.group(1) not in fields:
                fields[m.group(1)] = m.group(2)
        if fields.get("Device Type") != "GPU":
            continue
        fields["pools"] = re.findall(r"Segment:\s+(\w+)(?:; FLAGS: ([^\n]*?))?\s*\n\s+Size:\s+(\d+)", block)
        fields["caches"] = dict(re.findall(r"^    (L\d):\s+(\d+)", block, re.M))
        fields["isas"] = re.findall(r"^      Name:\s+(\S+)", block, re.M)
        agents.append(fields)
    return agents


def number(v):
    return int(v.split("(")[0])


def check_against_kfdinfo(agents, kfdinfo, extra_env):
    env = dict(os.environ, **extra_env)
    doc = json.loads(subprocess.run([kfdinfo, "--json"], capture_output=True, text=True, env=env,
                                    check=True, timeout=120).stdout)
    gpus = [a for a in doc["agents"] if a["type"] == "GPU"]
    assert len(agents) == len(gpus), "rocminfo lists %d GPUs, the topology %d" % (len(agents), len(gpus))
    for a, g in zip(agents, gpus):
        want = {
            "Name": g["name"], "Marketing Name": g["marketing_name"], "Node": g["node"],
            "Chip ID": g["device_id"], "Compute Unit": g["compute_units"],
            "SIMDs per CU": g["simds_per_cu"], "Shader Engines": g["shader_engines"],
            "Shader Arrs. per Eng.": g["shader_arrays_per_engine"], "Wavefront Size": g["wavefront_size"],
            "Max Waves Per CU": g["max_waves_per_cu"], "Max Clock Freq. (MHz)": g["max_clock_mhz"],
            "BDFID": g["location_id"],
        }
        for key, value in want.items():
            assert key in a, "rocminfo's GPU agent has no %r" % key
            got = a[key] if isinstance(value, str) else number(a[key])
            assert got == value, "%s: rocminfo says %r, the topology %r" % (key, got, value)
        caches = {"L%d" % c["level"]: c["size_kb"] for c in g["caches"]}
        assert {k: int(v) for k, v in a["caches"].items()} == caches, (a["caches"], caches)
        vram = [int(size) for seg, flags, size in a["pools"] if seg == "GLOBAL" and "COARSE" in (flags or "")]
        assert vram and vram[0] == g["vram_bytes"] // 1024, ("VRAM pool", vram, g["vram_bytes"])
        group = [int(size) for seg, flags, size in a["pools"] if seg == "GROUP"]
        assert group == [g["lds_size_kb"]], ("GROUP pool", group, g["lds_size_kb"])
        assert any(i.startswith("amdgcn-amd-amdhsa--" + g["name"]) for i in a["isas"]), a["isas"]


def check_emulated(rocminfo, kfdinfo, config, name, marketing, cus, count):
    agents = gpu_agents(run_rocminfo(rocminfo, config))
    assert len(agents) == count, "%s: %d GPU agents, want %d" % (config, len(agents), count)
    for a in agents:
        assert a["Name"] == name, (config, a["Name"])
        assert a["Marketing Name"] == marketing, (config, a["Marketing Name"])
        assert number(a["Compute Unit"]) == cus, (config, a["Compute Unit"])
        assert a["Feature"].startswith("KERNEL_DISPATCH"), a["Feature"]
        # ECC on (the RAS capability of Instinct parts), XNACK off (ROCm's default mode).
        isa = "amdgcn-amd-amdhsa--%s:sramecc+:xnack-" % name
        assert a["isas"] == [isa], (config, a["isas"], isa)
    check_against_kfdinfo(agents, kfdinfo, config)
    print("ok: %s -> %d x %s (%s, %d CUs)" % (config or "default", count, name, marketing, cus))


def main():
    rocminfo, kfdinfo, device = sys.argv[1], sys.argv[2], sys.argv[3]
    if not rocminfo or not os.access(rocminfo, os.X_OK):
        print("SKIP: rocminfo (Debian package rocminfo) is not installed")
        return SKIP
    if device == "emu":
        # The emulator's default part, then another part, count and CU number.
        check_emulated(rocminfo, kfdinfo, {}, "gfx90a", "AMD Instinct MI210", 104, 1)
        check_emulated(rocminfo, kfdinfo, {"KFDEMU_TARGET": "gfx908", "KFDEMU_GPUS": "2", "KFDEMU_CUS": "60"},
                       "gfx908", "AMD Instinct MI100", 60, 2)
    else:
        agents = gpu_agents(run_rocminfo(rocminfo, {}))
        check_against_kfdinfo(agents, kfdinfo, {})
        print("ok: %d GPU agents match the topology" % len(agents))
    return 0


if __name__ == "__main__":
    sys.exit(main())
