"""Real servers for the scale-out tests, started by the tests themselves on 127.0.0.1.

- PostgreSQL: the binaries of the ``pgserver`` wheel (installed by ``make``, extra ``test``),
  else the machine's own (``initdb`` on PATH, ``/usr/lib/postgresql/*/bin``), or
  ``FINCHUNK_TEST_PG_BIN``. A throw-away cluster: ``initdb`` into a temporary folder, then
  ``postgres`` on 127.0.0.1 at a free port, trust authentication, fsync off. Postgres refuses
  to run as root, so under root the cluster belongs to the ``postgres`` user (or ``nobody``).
- S3: moto's server mode (``moto[server]``, extra ``test``) on 127.0.0.1 at a free port, with
  authentication switched on (``INITIAL_NO_AUTH_ACTION_COUNT``): the tests create an IAM user
  and a key, so wrong credentials are refused as by a real S3.

A test skips, saying why, only when the server software is not installed.
"""
from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- a threaded HTTP server on 127.0.0.1 for the fetch / EDGAR tests --------------------------

class LocalHTTPServer:
    """``handler`` (a BaseHTTPRequestHandler class) served on 127.0.0.1 at a port the system
    picks (port 0: parallel test workers never ask for the same one), by a daemon thread,
    until ``close()``. ``url`` is ``http://127.0.0.1:PORT``."""

    def __init__(self, handler, poll_interval: float = 0.5):
        from http.server import ThreadingHTTPServer
        import threading

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": poll_interval},
                                       daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --- PostgreSQL ---------------------------------------------------------------------------------

def postgres_bindir() -> Path | None:
    candidates = []
    if os.environ.get("FINCHUNK_TEST_PG_BIN"):
        candidates.append(Path(os.environ["FINCHUNK_TEST_PG_BIN"]))
    try:
        import pgserver._commands as pgc  # the wheel's own build of PostgreSQL

        candidates.append(Path(pgc.POSTGRES_BIN_PATH))
    except ImportError:
        pass
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for c in candidates:
        if (c / "initdb").exists() and (c / "pg_ctl").exists() and (c / "postgres").exists():
            return c
    return None


@dataclass
class Postgres:
    host: str
    port: int
    user: str
    folder: Path
    bindir: Path
    run_as: str | None

    def url(self, db: str = "postgres") -> str:
        return f"postgresql+psycopg2://{self.user}@{self.host}:{self.port}/{db}"

    def create_database(self) -> str:
        import psycopg2

        name = f"finchunk_{uuid.uuid4().hex[:12]}"
        con = psycopg2.connect(host=self.host, port=self.port, user=self.user, dbname="postgres")
        try:
            con.autocommit = True
            with con.cursor() as cur:
                cur.execute(f"CREATE DATABASE {name}")
        finally:
            con.close()
        return name

    def query(self, db: str, sql: str) -> list[tuple]:
        import psycopg2

        con = psycopg2.connect(host=self.host, port=self.port, user=self.user, dbname=db)
        try:
            with con.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall()
        finally:
            con.close()

    def stop(self) -> None:
        if not self.folder.exists():
            return
        subprocess.run([str(self.bindir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop"],
                       user=self.run_as, capture_output=True, cwd=self.folder)
        shutil.rmtree(self.folder, ignore_errors=True)


def _reachable_by_others(path: Path) -> bool:
    """Whether a user other than the owner can reach ``path`` (every folder above it has o+x)."""
    import stat

    return all(p.stat().st_mode & stat.S_IXOTH for p in [path, *path.parents])


def start_postgres() -> Postgres:
    bindir = postgres_bindir()
    if bindir is None:
        raise FileNotFoundError("no PostgreSQL server binaries (pip install pgserver, or Debian's postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="finchunk-pg-"))
    folder.chmod(0o755)
    run_as = None
    if os.geteuid() == 0:  # postgres will not run as root
        for name in ("postgres", "nobody"):
            try:
                pw = pwd.getpwnam(name)
            except KeyError:
                continue
            run_as = name
            os.chown(folder, pw.pw_uid, pw.pw_gid)
            break
        else:
            raise FileNotFoundError("running as root and no 'postgres' or 'nobody' user to run PostgreSQL as")
    if run_as is not None and not _reachable_by_others(bindir):
        # the binaries lie under a folder other users cannot enter (a venv inside a clone in
        # `mktemp -d`, mode 700): run a copy of the installation from the cluster's folder
        # (the pgserver wheel's layout: site-packages/pgserver/pginstall/{bin,lib,share}, its
        # binaries finding their libraries at $ORIGIN/../../../pgserver.libs)
        site, base = bindir.parents[2], folder / "pg"
        rel = bindir.parent.relative_to(site)
        shutil.copytree(bindir.parent, base / rel, symlinks=True)
        if (site / "pgserver.libs").is_dir():
            shutil.copytree(site / "pgserver.libs", base / "pgserver.libs", symlinks=True)
        bindir = base / rel / bindir.name
    data = folder / "data"
    init = subprocess.run([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                           "-E", "UTF8", "--no-sync"], user=run_as, capture_output=True, text=True, cwd=folder)
    if init.returncode != 0:
        raise RuntimeError(f"initdb ({bindir}) failed: {init.stderr.strip()[-800:]}")
    # postgres takes no port 0: a free port, and another one should it be taken before postgres
    # binds it (parallel test workers each start their own server)
    for _attempt in range(3):
        port = free_port()
        start = subprocess.run([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(folder / "postgres.log"), "-w",
                                "-t", "30", "-o", f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off "
                                "-c full_page_writes=off -c max_connections=200", "start"],
                               user=run_as, capture_output=True, text=True, cwd=folder)
        log = (folder / "postgres.log").read_text() if (folder / "postgres.log").exists() else ""
        if start.returncode == 0 or "already in use" not in log:
            break
    if start.returncode != 0:
        log = (folder / "postgres.log").read_text() if (folder / "postgres.log").exists() else ""
        raise RuntimeError(f"postgres ({bindir}) did not start: {start.stderr.strip()} {log[-800:]}")
    return Postgres("127.0.0.1", port, "postgres", folder, bindir, run_as)


# --- S3 (moto server) ---------------------------------------------------------------------------

@dataclass
class S3Server:
    endpoint: str
    key: str
    secret: str
    process: subprocess.Popen

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=self.key,
                            aws_secret_access_key=self.secret, region_name="us-east-1")

    def create_bucket(self) -> str:
        name = f"finchunk-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def storage_options(self) -> dict:
        return {"endpoint_url": self.endpoint, "key": self.key, "secret": self.secret}

    def env(self) -> dict:
        """The environment a Dagster / boto3 process needs to reach this server."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": self.key,
                "AWS_SECRET_ACCESS_KEY": self.secret, "AWS_DEFAULT_REGION": "us-east-1"}

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _running_on(proc: subprocess.Popen, timeout: float = 60) -> str:
    """The address a werkzeug server started with port 0 says it runs on; its stderr (one line
    per request) is drained from then on by a daemon thread, so the pipe never fills."""
    import re
    import threading

    found: list[str] = []
    seen = threading.Event()

    def read() -> None:
        for line in proc.stderr:
            m = re.search(r"Running on (http://127\.0\.0\.1:\d+)", line)
            if m and not found:
                found.append(m.group(1))
                seen.set()
        seen.set()  # the server ended

    threading.Thread(target=read, daemon=True).start()
    if not seen.wait(timeout) or not found:
        proc.kill()
        raise RuntimeError(f"moto server did not say where it runs (exit {proc.poll()})")
    return found[0]


def start_s3() -> S3Server:
    import importlib.util

    if importlib.util.find_spec("moto") is None or importlib.util.find_spec("flask") is None:
        raise FileNotFoundError("moto[server] is not installed (pip install -e '.[test]')")
    # the first 3 requests go unauthenticated (they create the IAM user below), the rest are checked
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "3"}
    for k in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        env.pop(k, None)
    # port 0: the server binds a port the system picks and names it (" * Running on http://...");
    # no port chosen here that another test worker's server could take first
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    endpoint = _running_on(proc)
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"moto server on {endpoint} did not start (exit {proc.poll()})")
            time.sleep(0.1)
    import boto3

    iam = boto3.client("iam", endpoint_url=endpoint, aws_access_key_id="bootstrap",
                       aws_secret_access_key="bootstrap", region_name="us-east-1")
    iam.create_user(UserName="finchunk")
    iam.put_user_policy(UserName="finchunk", PolicyName="all", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName="finchunk")["AccessKey"]
    return S3Server(endpoint, key["AccessKeyId"], key["SecretAccessKey"], proc)
