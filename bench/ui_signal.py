"""Check that `finchunk ui` stops on a signal with all its children, as a user would stop it.

    /work/venv/bin/python bench/ui_signal.py [--port 3998] [--signal TERM|INT]

1. starts ``finchunk ui --port PORT`` the way ``finchunk ui &`` does in a script (no job
   control: SIGINT ignored), with a temporary DAGSTER_HOME;
2. waits for the webserver to answer on 127.0.0.1:PORT (dagster dev takes ~16 s);
3. lists the processes of dagster dev's process group (webserver, daemon, code servers);
4. sends the signal to the `finchunk ui` process and waits for it to exit;
5. reports the exit code, how long the stop took, and any process of the group still alive
   (exit 1 if one is).
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def group_members(pgid: int) -> list[tuple[int, str]]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            out.append((int(d.name), cmd[:100]))
    return out


def children_of(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(d.name))
            except OSError:
                pass
    return kids


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=3998)
    ap.add_argument("--signal", default="TERM", choices=("TERM", "INT", "HUP"))
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="dagster_home-")
    env = {**os.environ, "DAGSTER_HOME": home, "PYTHONPATH": str(PROJECT)}
    cmd = [sys.executable, "-c", "import sys; from finchunk_pipeline.cli import main; sys.exit(main())",
           "ui", "--port", str(args.port)]
    ui = subprocess.Popen(cmd, env=env, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    t0 = time.monotonic()
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{args.port}/server_info", timeout=2)
            break
        except OSError:
            if ui.poll() is not None or time.monotonic() - t0 > 180:
                print("the webserver did not come up", ui.stderr.read(), file=sys.stderr)
                ui.kill()
                return 2
            time.sleep(0.5)
    print(f"webserver up after {time.monotonic() - t0:.1f}s")
    dev = children_of(ui.pid)
    assert len(dev) == 1, dev
    pgid = dev[0]
    members = group_members(pgid)
    print(f"dagster dev group {pgid}: {len(members)} processes")
    for pid, c in members:
        print(f"  {pid} {c}")
    t1 = time.monotonic()
    ui.send_signal(getattr(signal, f"SIG{args.signal}"))
    rc = ui.wait(timeout=180)
    stopped = time.monotonic() - t1
    time.sleep(0.5)
    left = group_members(pgid)
    print(f"finchunk ui exited {rc} {stopped:.1f}s after SIG{args.signal}; processes left: {len(left)}")
    for pid, c in left:
        print(f"  LEFT {pid} {c}")
        os.kill(pid, signal.SIGKILL)
    print(ui.stderr.read().strip().splitlines()[-1])
    return 1 if left or rc != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
