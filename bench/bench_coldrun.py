"""A cold default `finchunk run` in a clean clone of this checkout: wall time, peak RSS, CPU
time (over the cores: the least wall time any schedule could take) and where the time goes (each step's "done in" line), with the machine's load before and after.

The clone (``git clone`` of the checked-out commit: uncommitted changes are not in it) gets
its optional C word counter built in place (``setup.py build_ext --inplace``, as the install
does; not timed), a fresh data root, Dagster home and output folder; it runs with this interpreter and the
clone first on PYTHONPATH (its code, not an installed one). Peak RSS is the largest of the
run's processes (``getrusage(RUSAGE_CHILDREN)`` of a wrapper process).

    python bench/bench_coldrun.py [--keep DIR] [--set FINCHUNK_EMBED_BACKEND=torch] [-- extra finchunk run arguments]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WRAPPER = r"""
import json, os, resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.run(sys.argv[2:], cwd=sys.argv[1], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
dt = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": p.returncode, "seconds": dt, "output": p.stdout, "maxrss_kb": ru.ru_maxrss,
                  "user_s": ru.ru_utime, "system_s": ru.ru_stime}))
"""


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "load average: %.2f, %.2f, %.2f" % os.getloadavg()


def run(extra: list[str] | None = None, keep: str | None = None, settings: dict[str, str] | None = None) -> dict:
    tmp = keep or tempfile.mkdtemp(prefix="finchunk_coldrun_")
    clone = Path(tmp) / "clone"
    if clone.exists():
        raise SystemExit(f"{clone} exists: pass an empty --keep folder")
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    # the optional C word counter, as the install builds it (not timed; without a compiler
    # the run counts in Python, as an install without one would)
    built = subprocess.run([sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"], cwd=clone,
                           capture_output=True, text=True).returncode == 0 if (clone / "setup.py").exists() else False
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FINCHUNK_", "DAGSTER_HOME"))}  # the defaults: data/store, out, dagster_home
    env["PYTHONPATH"] = str(clone) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["FINCHUNK_PROGRESS"] = "0"
    env.update(settings or {})  # --set: a setting other than the default (e.g. FINCHUNK_EMBED_BACKEND=torch)
    cmd = [sys.executable, "-c", "import sys; from finchunk_pipeline.cli import main; sys.exit(main())", "run",
           *(extra or [])]
    load_before = uptime()
    out = subprocess.run([sys.executable, "-c", WRAPPER, str(clone), *cmd], env=env, capture_output=True, text=True)
    load_after = uptime()
    try:
        r = json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise SystemExit(f"the cold run's wrapper failed:\n{out.stdout}\n{out.stderr}")
    cpu = r["user_s"] + r["system_s"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    steps = []
    label = None
    for line in r["output"].splitlines():
        m = re.match(r"^\s{2}(\S.*?) \.\.\.\s*$", line)
        if m:
            label = m.group(1)
        m = re.match(r"^\s+(done|FAILED) in ([\d.]+)s", line)
        if m and label:
            steps.append((label, float(m.group(2)), m.group(1)))
            label = None
    lines = [f"clone of {commit} in {clone}", f"`uptime` before: {load_before}", f"`uptime` after:  {load_after}",
             f"exit code {r['rc']}; wall {r['seconds']:.1f} s; peak RSS {r['maxrss_kb'] / 1024:.0f} MB; "
             f"C word counter {'built' if built else 'not built (token counts in Python)'}",
             f"CPU {cpu:.1f} s (user {r['user_s']:.1f}, system {r['system_s']:.1f}): on this machine's {cores} "
             f"core(s) no schedule finishes that work in under {cpu / cores:.1f} s of wall", "",
             "| step | s |", "|---|---:|"]
    lines += [f"| {s} | {t:.1f}{'' if st == 'done' else ' (FAILED)'} |" for s, t, st in steps]
    if r["rc"] != 0:
        lines += ["", "output (tail):", *r["output"].splitlines()[-30:]]
    return {"seconds": r["seconds"], "peak_rss_mb": r["maxrss_kb"] / 1024, "rc": r["rc"], "ok": r["rc"] == 0,
            "cpu_seconds": cpu, "cores": cores,
            "steps": steps, "load_before": load_before.split("load average:")[-1].strip(),
            "load_after": load_after.split("load average:")[-1].strip(), "lines": lines, "clone": str(clone)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="clone into this (empty) folder and keep it")
    ap.add_argument("--set", action="append", default=[], metavar="FINCHUNK_X=VALUE",
                    help="a setting for the run (the environment's FINCHUNK_* are not passed)")
    ap.add_argument("extra", nargs="*", help="extra `finchunk run` arguments (after --)")
    args = ap.parse_args()
    print(f"$ {' '.join(['python'] + sys.argv)}")
    r = run(args.extra, args.keep, dict(s.split("=", 1) for s in args.set))
    print("\n".join(r["lines"]))
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
