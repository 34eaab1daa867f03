"""Screenshot the Dagster UI after a pipeline run and verify the asset graph and the report table.

    /work/venv/bin/python bench/ui_screenshot.py [--out DIR] [--port 3999] [--skip-run]
        [--chunkers FILE] [--retrievers bm25]

1. ``finchunk run`` into a tmp data root / output folder with a tmp DAGSTER_HOME (so runs exist);
2. ``dagster dev -w workspace.yaml -h 127.0.0.1 -p PORT`` in its own session / process group;
3. waits for the webserver, asks its GraphQL API for the asset graph nodes and the latest
   evaluation_report materialization metadata (the "report" Markdown table);
4. headless Chromium screenshots of the asset graph and the evaluation_report asset page;
5. kills the dagster dev process group; exits 1 when the graph or the report table is missing,
   2 when chromium is not installed (``apt-get install -y chromium``; this script does not install).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
LOCATION = "finchunk_pipeline.definitions"

QUERY = """{
  assetNodes { assetKey { path } groupName }
  assetOrError(assetKey: {path: ["evaluation_report"]}) {
    ... on Asset { assetMaterializations(limit: 1) { runId metadataEntries {
        label ... on MarkdownMetadataEntry { mdStr } } } }
  }
}"""


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def gql(port: int, query: str) -> dict:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", data=json.dumps({"query": query}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def screenshot(browser: str, url: str, out: Path, dump_dom: bool = False) -> str:
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}", "--window-size=1600,1000",
            "--virtual-time-budget=20000"]
    subprocess.run(args + [f"--screenshot={out}", url], check=False, capture_output=True, timeout=120)
    if dump_dom:
        return subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    return ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(PROJECT / "bench" / "screenshots"))
    ap.add_argument("--port", type=int, default=3999)
    ap.add_argument("--skip-run", action="store_true", help="reuse DAGSTER_HOME from the environment")
    ap.add_argument("--chunkers", default=None)
    ap.add_argument("--retrievers", default="bm25")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    browser = chromium()
    if browser is None:
        print("chromium not found: install Debian's chromium (apt-get install -y chromium) and rerun", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="finchunk-ui-"))
    env = dict(os.environ)
    if not args.skip_run:
        home = work / "dagster_home"
        home.mkdir()
        shutil.copy(PROJECT / "dagster.yaml", home / "dagster.yaml")  # nux / telemetry off
        env["DAGSTER_HOME"] = str(home)
        env["FINCHUNK_DATA"], env["FINCHUNK_OUT"] = str(work / "data"), str(work / "out")
        if args.chunkers:
            env["FINCHUNK_CHUNKERS"] = str(Path(args.chunkers).resolve())
        cmd = [str(VENV_BIN / "finchunk"), "run", "--retrievers", args.retrievers]
        print("$", " ".join(cmd), flush=True)
        subprocess.run(cmd, env=env, check=True, cwd=work, stdout=subprocess.DEVNULL)
    log = open(work / "dagster_dev.log", "w")
    dev = subprocess.Popen([str(VENV_BIN / "dagster"), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1",
                            "-p", str(args.port)], cwd=PROJECT, env=env, stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)
    ok = False
    try:
        deadline = time.time() + 120
        data = None
        while time.time() < deadline:
            if dev.poll() is not None:
                print(f"dagster dev exited ({dev.returncode}); log: {work / 'dagster_dev.log'}", file=sys.stderr)
                return 1
            try:
                data = gql(args.port, QUERY)
                if data.get("data", {}).get("assetNodes"):
                    break
            except Exception:
                pass
            time.sleep(2)
        nodes = [".".join(n["assetKey"]["path"]) for n in (data or {}).get("data", {}).get("assetNodes") or []]
        mats = (((data or {}).get("data") or {}).get("assetOrError") or {}).get("assetMaterializations") or []
        report = next((e.get("mdStr") for m in mats for e in m["metadataEntries"] if e["label"] == "report"), None)
        base = f"http://127.0.0.1:{args.port}"
        graph_png, asset_png = out / "asset_graph.png", out / "evaluation_report.png"
        screenshot(browser, f"{base}/asset-groups", graph_png)
        dom = screenshot(browser, f"{base}/assets/evaluation_report", asset_png, dump_dom=True)
        graph_ok = {"chunk_sets", "retrieval_evaluation", "evaluation_report"} <= set(nodes)
        table_ok = bool(report) and "| chunk set |" in report
        print(f"asset graph nodes: {len(nodes)} ({'ok' if graph_ok else 'MISSING'})")
        print(f"evaluation_report table in latest materialization: {'ok' if table_ok else 'MISSING'}"
              f"; asset page DOM mentions it: {'evaluation_report' in dom}")
        print(f"screenshots: {graph_png}\n             {asset_png}")
        ok = graph_ok and table_ok and graph_png.exists() and asset_png.exists()
    finally:
        os.killpg(dev.pid, signal.SIGTERM)
        try:
            dev.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(dev.pid, signal.SIGKILL)
        log.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
