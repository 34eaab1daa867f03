"""`finchunk ui` killed with SIGKILL (nothing can catch it) leaves no orphans: dagster dev gets
SIGTERM from the kernel (PR_SET_PDEATHSIG) and stops its webserver, daemon and code servers;
the port is free again. Starts the real `dagster dev` (~20-30 s): slow."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from finchunk_pipeline import PROJECT_ROOT

from tests.servers import free_port
from tests.system.test_signals import _wait_for

START_TIMEOUT = 300  # generous: dagster dev serves after ~20 s on an idle machine, the machine is shared
STOP_TIMEOUT = 120


def _serving(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and (_stat(int(p)) or ["", ""])[1] == str(pid)]


def _session(sid: int) -> list[int]:
    """The living processes of session ``sid`` (dagster dev leads its own: webserver, daemon,
    code servers are in it)."""
    out = []
    for p in os.listdir("/proc"):
        st = _stat(int(p)) if p.isdigit() else None
        if st is not None and st[3] == str(sid) and st[0] not in ("Z", "X"):
            out.append(int(p))
    return out


@pytest.mark.slow
def test_sigkill_of_finchunk_ui_leaves_no_dagster_process_and_frees_the_port(tmp_path):
    port = free_port()  # dagster dev takes no port 0
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "dagster_home"), "PYTHONPATH": str(PROJECT_ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from finchunk_pipeline.cli import main; "
                             "sys.exit(main())", "ui", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dev, members = None, []
    try:
        _wait_for(lambda: _serving(port) or proc.poll() is not None, "the UI to serve", START_TIMEOUT)
        assert proc.poll() is None
        dev = _children(proc.pid)[0]  # dagster dev, the leader of its own session
        members = _session(dev)
        assert len(members) >= 3, members  # dagster dev, its webserver and daemon at least
        proc.kill()
        proc.wait(30)
        _wait_for(lambda: not _session(dev) and not _serving(port), "dagster dev's processes to end", STOP_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _session(dev) if dev else []:  # on failure: no orphans left behind by the test
            os.kill(pid, signal.SIGKILL)
