#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The trace suite: KFDRT_TRACE of a known HIP program and of copy engine work, kfdtrace summary and html.
"""trace_test.py KFDTRACE TRACE_KNOWN TRACE_COPIES emu|kfd STREAMS_DEMO

Every check prints PASS/FAIL; the script exits non-zero on any failure."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

KFDTRACE, KNOWN, COPIES, DEVICE, DEMO = sys.argv[1:6]
EMU = DEVICE == "emu"
SCALE, ADD = 3, 2          # launches of trace_scale and trace_add in trace_known.hip
GROUPS = 4096 // 256       # workgroups per launch
EPS = 0.011                # us: device timestamps are printed with ns precision
failures = 0


def check(ok, what):
    global failures
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failures += 1
    return ok


def run(cmd, env_extra=None, expect=0, bare=False, timeout=300):
    env = dict(os.environ)
    if bare:  # a program of the system (the browser): no emulator or sanitizer runtime preloaded
        for k in ("LD_PRELOAD", "LD_LIBRARY_PATH", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"):
            env.pop(k, None)
    env.update(env_extra or {})
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != expect:
        print("command %s exited %d\nstdout:\n%s\nstderr:\n%s" % (cmd, p.returncode, p.stdout, p.stderr))
    return p


def load(path):
    with open(path) as f:
        data = json.load(f)
    return data["traceEvents"]


def device(events):
    return [e for e in events if e.get("ph") == "X" and e.get("cat") in ("packet", "copy", "pm4")]


def end(e):
    return e["ts"] + e["dur"]


def check_packets(dev, label):
    check(all(e["dur"] >= 0 for e in dev), label + ": every packet starts before it ends")
    check(all(e["args"]["device_ts"] for e in dev), label + ": every packet carries device timestamps")
    # The device started a packet only after the host submitted it (the clocks agree).
    late = [e for e in dev if e["ts"] + 1.0 < e["args"]["submit_us"]]
    check(not late, label + ": no packet starts before its submission (%d do)" % len(late))


def check_dependencies(dev, label):
    """Each signal a packet waited on was completed by an earlier packet that ended before it started."""
    by_completion = {}
    for e in dev:
        c = e["args"]["completion"]
        if c != "0x0":
            by_completion.setdefault(c, []).append(e)
    checked, bad = 0, []
    for e in dev:
        if e["args"]["kind"] == "barrier-value":  # a timeline or host-progress value, not one packet
            continue
        for d in e["args"]["deps"]:
            producers = [p for p in by_completion.get(d, []) if p["args"]["submit_us"] <= e["args"]["submit_us"]]
            if not producers:
                continue
            p = max(producers, key=lambda p: p["args"]["submit_us"])
            checked += 1
            if end(p) > e["ts"] + EPS:
                bad.append((p["name"], e["name"], end(p), e["ts"]))
    check(checked > 0 and not bad, "%s: %d dependencies ended before their waiters started %s" % (label, checked, bad[:3]))
    return checked


def known_program(tmp):
    path = os.path.join(tmp, "known.json")
    p = run([KNOWN], {"KFDRT_TRACE": path})
    if not check(p.returncode == 0 and os.path.exists(path), "trace_known ran with KFDRT_TRACE and wrote the trace"):
        return None
    events = load(path)
    dev = device(events)
    aql = [e for e in dev if e["cat"] == "packet"]
    check_packets(aql, "known program")
    scale = [e for e in aql if e["args"]["kind"] == "dispatch" and "trace_scale" in e["args"]["kernel"]]
    add = [e for e in aql if e["args"]["kind"] == "dispatch" and "trace_add" in e["args"]["kernel"]]
    check(len(scale) == SCALE and len(add) == ADD, "kernel counts: trace_scale %d (want %d), trace_add %d (want %d)"
          % (len(scale), SCALE, len(add), ADD))
    check(all(e["args"]["grid"] == [4096, 1, 1] and e["args"]["workgroup"] == [256, 1, 1] for e in scale + add),
          "dispatches carry their grid and workgroup sizes")
    check(all(e["args"]["acquire"] in ("agent", "system") and e["args"]["release"] in ("agent", "system")
              for e in scale + add), "dispatches carry their fence scopes")
    queues = {e["tid"] for e in scale} | {e["tid"] for e in add}
    check(len(queues) == 2, "the two streams' kernels ran on two queues (%s)" % sorted(queues))
    if scale and add:
        check(min(e["ts"] for e in add) + EPS >= max(end(e) for e in scale),
              "trace_add (stream 2, after the event) started after every trace_scale ended")
    check_dependencies(aql, "known program")
    waits = [e for e in aql if e["args"]["kind"] == "barrier-and" and e["args"]["deps"]]
    markers = {e["args"]["completion"] for e in aql if e["args"]["kind"] == "marker"}
    check(any(d in markers for w in waits for d in w["args"]["deps"]),
          "hipStreamWaitEvent shows as a barrier-AND waiting on the event's marker")
    hip = [e for e in events if e.get("cat") == "hip" and e.get("ph") == "X"]
    names = [e["name"] for e in hip]
    check(names.count("stream callback") == 1, "one stream callback (%d)" % names.count("stream callback"))
    check(names.count("hip copy/fill (async)") == 3, "three async copies (%d)" % names.count("hip copy/fill (async)"))
    check("hipDeviceSynchronize" in names and "hipEventRecord" in names and "hipStreamWaitEvent" in names,
          "HIP entry points are recorded with their durations")
    check(all(e["dur"] >= 0 for e in hip), "HIP calls have non-negative durations")
    waits = [e for e in events if e.get("cat") == "wait" and e.get("ph") == "X"]
    check(any(e["name"].startswith("wait (") for e in waits), "host waits are recorded (%d)" % len(waits))
    if EMU:
        emu = [e for e in events if e.get("cat") == "emulator"]
        check(emu and all(e["args"].get("emulator_only") for e in emu), "the emulator's view is merged, marked emulator-only")
        # The program's kernels' workgroups (the copies' blit kernels run workgroups too).
        objects = {e["args"].get("kernel_object") for e in scale + add}
        groups = [e for e in emu if e["name"] == "workgroup" and e["args"].get("kernel_object") in objects]
        check(len(groups) == (SCALE + ADD) * GROUPS, "emulator: %d workgroups (want %d)" % (len(groups), (SCALE + ADD) * GROUPS))
        check(any(e["name"].startswith("doorbell") for e in emu), "emulator: doorbells seen")
        check(any("fence" in e["name"] or "write-back" in e["name"] for e in emu), "emulator: fences and cache actions")
    return path


def pm4_program(tmp):
    """The same program with HIP's streams on PM4 queues: PM4 dispatches and barriers carry their
    kernels, grids, scopes, waits and device timestamps as AQL packets do."""
    path = os.path.join(tmp, "known_pm4.json")
    p = run([KNOWN], {"KFDRT_TRACE": path, "KFDRT_HIP_QUEUE": "pm4"})
    if not check(p.returncode == 0 and os.path.exists(path), "trace_known on PM4 queues wrote the trace"):
        return
    pm4 = [e for e in device(load(path)) if e["cat"] == "pm4"]
    check_packets(pm4, "known program on PM4 queues")
    scale = [e for e in pm4 if e["args"]["kind"] == "pm4-dispatch" and "trace_scale" in e["args"]["kernel"]]
    add = [e for e in pm4 if e["args"]["kind"] == "pm4-dispatch" and "trace_add" in e["args"]["kernel"]]
    check(len(scale) == SCALE and len(add) == ADD, "PM4 kernel counts: trace_scale %d (want %d), trace_add %d (want %d)"
          % (len(scale), SCALE, len(add), ADD))
    check(all(e["args"]["grid"] == [4096, 1, 1] and e["args"]["workgroup"] == [256, 1, 1] for e in scale + add),
          "PM4 dispatches carry their grid and workgroup sizes")
    check(all(e["args"]["acquire"] == "system" and e["args"]["release"] in ("agent", "system") for e in scale + add),
          "PM4 dispatches carry their fence scopes")
    if scale and add:
        check(min(e["ts"] for e in add) + EPS >= max(end(e) for e in scale),
              "PM4: trace_add (stream 2, after the event) started after every trace_scale ended")
    check_dependencies(pm4, "known program on PM4 queues")
    p = run([KFDTRACE, "summary", path, "--json"])
    kernels = json.loads(p.stdout)["kernels"] if p.returncode == 0 else {}
    check(sum(v["count"] for v in kernels.values()) >= SCALE + ADD,
          "kfdtrace summary counts the PM4 dispatches as kernels (%s)" % sorted(kernels))


def api_mode(tmp):
    path = os.path.join(tmp, "api.json")
    env = {"KFDRT_TRACE": ""}
    p = run([KNOWN, path], env)
    if not check(p.returncode == 0 and os.path.exists(path), "kfdrtTraceStart/Stop wrote the trace"):
        return
    dev = device(load(path))
    n = len([e for e in dev if e["args"]["kind"] == "dispatch"])
    check(n == SCALE + ADD, "kfdrtTraceStart trace holds %d dispatches (want %d)" % (n, SCALE + ADD))


def copies(tmp):
    path = os.path.join(tmp, "copies.json")
    p = run([COPIES], {"KFDRT_TRACE": path})
    if not check(p.returncode == 0 and os.path.exists(path), "trace_copies ran and wrote the trace"):
        return
    dev = [e for e in device(load(path)) if e["cat"] == "copy"]
    check_packets(dev, "copy engine")
    for path_name in ("sdma", "blit"):
        ops = [e for e in dev if e["args"]["path"] == path_name]
        kinds = sorted(e["args"]["kind"] for e in ops)
        check(kinds == ["copy", "fill"], "%s: one copy and one fill (%s)" % (path_name, kinds))
        check(all(e["args"]["bytes"] == 1 << 20 for e in ops), "%s: operations carry their sizes" % path_name)
    check_dependencies(dev, "copy engine")


def summary(trace):
    p = run([KFDTRACE, "summary", trace])
    out = p.stdout
    check(p.returncode == 0 and "kernel dispatches: %d" % (SCALE + ADD) in out, "kfdtrace summary counts the dispatches")
    rows = dict(m.groups() for m in re.finditer(r"^\s+(trace_\w+)\(.*?\)\s+(\d+)\s", out, re.M))
    check(rows == {"trace_scale": str(SCALE), "trace_add": str(ADD)}, "kfdtrace summary prints per-kernel counts %s" % rows)
    check("queue occupancy" in out and "host gaps" in out, "kfdtrace summary prints queue occupancy and host idle gaps")
    p = run([KFDTRACE, "summary", trace, "--json"])
    s = json.loads(p.stdout)
    counts = {k.split("(")[0]: v["count"] for k, v in s["kernels"].items()}
    check(counts.get("trace_scale") == SCALE and counts.get("trace_add") == ADD, "kfdtrace summary --json counts %s" % counts)
    check(all(v["min_us"] <= v["p50_us"] <= v["p90_us"] <= v["max_us"] for v in s["kernels"].values()),
          "percentiles are ordered")


def demo(tmp):
    """The README's check: the streams demo's trace counts its 5 launches (4 scale, 1 add_into)."""
    path = os.path.join(tmp, "demo.json")
    p = run([DEMO], {"KFDRT_TRACE": path})
    if not check(p.returncode == 0 and os.path.exists(path), "the streams demo wrote its trace"):
        return
    p = run([KFDTRACE, "summary", path, "--json"])
    counts = {k.split("(")[0]: v["count"] for k, v in json.loads(p.stdout)["kernels"].items()}
    check(counts == {"scale": 4, "add_into": 1}, "the demo's trace holds its launches %s" % counts)


def bad_input(tmp):
    junk = os.path.join(tmp, "junk.json")
    with open(junk, "w") as f:
        f.write("{not json")
    p = run([KFDTRACE, "summary", junk], expect=2)
    check(p.returncode == 2 and "not trace-event JSON" in p.stderr, "kfdtrace refuses a file that is not JSON")
    p = run([KFDTRACE, "summary", os.path.join(tmp, "missing.json")], expect=2)
    check(p.returncode == 2 and "cannot read" in p.stderr, "kfdtrace names a missing file")


def html(tmp, trace):
    out = os.path.join(tmp, "out.html")
    p = run([KFDTRACE, "html", trace, "-o", out])
    if not check(p.returncode == 0 and os.path.exists(out), "kfdtrace html wrote the page"):
        return
    page = open(out, encoding="utf-8").read()
    check("http://" not in page and "https://" not in page and "<script src" not in page and "<link" not in page,
          "the HTML timeline is self-contained (no network references)")
    check("trace_scale" in page, "the HTML page embeds the trace")
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if not browser:
        print("SKIP headless rendering: chromium is not installed")
        return
    # Without network: the page must render from the file alone.
    # No network at all (a proxy that refuses, no background services), a profile of its own.
    args = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--proxy-server=127.0.0.1:9",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-quic", "--no-first-run", "--user-data-dir=" + os.path.join(tmp, "chromium-profile"),
            "--window-size=1200,900"]
    p = run(args + ["--virtual-time-budget=5000", "--dump-dom", "file://" + out], bare=True, timeout=120)
    check(p.returncode == 0 and "rendered " in p.stdout and " of " in p.stdout and "rendered 0 of" not in p.stdout,
          "headless chromium ran the timeline's script and drew events")
    shot = os.path.join(tmp, "shot.png")
    p = run(args + ["--screenshot=" + shot, "file://" + out], bare=True, timeout=120)
    check(os.path.exists(shot) and os.path.getsize(shot) > 2000, "headless chromium took a screenshot of the timeline")


def main():
    tmp = tempfile.mkdtemp(prefix="kfdrt-trace-")
    try:
        trace = known_program(tmp)
        pm4_program(tmp)
        api_mode(tmp)
        copies(tmp)
        if trace:
            summary(trace)
            html(tmp, trace)
        demo(tmp)
        bad_input(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
