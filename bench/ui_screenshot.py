"""Screenshot the Dagster UI after a pipeline run and verify the asset graph and the report table.

    /work/venv/bin/python bench/ui_screenshot.py [--out DIR] [--port 3999] [--skip-run]
        [--chunkers FILE] [--retrievers bm25]

1. ``finchunk run`` into a tmp data root / output folder with a tmp DAGSTER_HOME (so runs exist);
2. ``dagster dev -w workspace.yaml -h 127.0.0.1 -p PORT`` in its own session / process group;
3. waits for the webserver, asks its GraphQL API for the asset graph nodes and the latest
   evaluation_report materialization metadata (the "report" Markdown table);
4. headless Chromium screenshots of the asset graph and the evaluation_report asset page, and
   (driven over the DevTools protocol) of the report's Markdown dialog, counting the plot
   images it rendered (embedded as data: URIs: the UI cannot open local files);
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


def report_dialog(browser: str, url: str, out: Path, timeout: float = 90.0) -> dict:
    """Open the asset page in headless Chromium driven over the DevTools protocol, click the
    report's "[Show Markdown]", count the images the dialog rendered (loaded: naturalWidth >
    0) and screenshot it. Needs only the ``websockets`` package (a dependency of the
    webserver)."""
    import asyncio
    import base64
    import socket

    import websockets

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                             "--no-first-run", "--disable-background-networking", "--disable-component-update",
                             "--disable-sync", f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}",
                             "--window-size=1600,1200", f"--remote-debugging-port={port}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=5) as r:
                    page = next(t for t in json.loads(r.read()) if t.get("type") == "page")
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)

        async def drive() -> dict:
            async with websockets.connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
                counter = iter(range(1, 10 ** 6))

                async def call(method, **params):
                    i = next(counter)
                    await ws.send(json.dumps({"id": i, "method": method, "params": params}))
                    while True:
                        msg = json.loads(await ws.recv())
                        if msg.get("id") == i:
                            return msg.get("result", {})

                async def js(expr):
                    res = await call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
                    return res.get("result", {}).get("value")

                await call("Page.enable")
                await call("Page.navigate", url=url)
                clicked = False
                while time.time() < deadline and not clicked:
                    await asyncio.sleep(1)
                    # the innermost element with the text: a click on a wrapper does not open it
                    clicked = await js("""(() => { const b = [...document.querySelectorAll('*')]
                        .find(e => e.children.length === 0 && e.textContent.trim() === '[Show Markdown]');
                        if (b) { b.click(); return true; } return false; })()""")
                images = {"total": 0, "loaded": 0}
                while time.time() < deadline:
                    await asyncio.sleep(1)
                    images = await js("""(() => { const imgs = [...document.querySelectorAll('img')]
                        .filter(i => i.src.startsWith('data:image/png'));
                        return {total: imgs.length, loaded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
                                widths: imgs.map(i => i.naturalWidth)}; })()""") or images
                    if images["total"] and images["loaded"] == images["total"]:
                        break
                # scroll the dialog to its plots, then screenshot
                await js("""(() => { const i = document.querySelector('img[src^="data:image/png"]');
                    if (i) i.scrollIntoView({block: 'center'}); })()""")
                await asyncio.sleep(1)
                shot = await call("Page.captureScreenshot", format="png")
                out.write_bytes(base64.b64decode(shot["data"]))
                return {"clicked": bool(clicked), **images}

        return asyncio.run(drive())
    finally:
        proc.kill()
        proc.wait()


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
        # the plots inside the report's Markdown, as the UI renders them
        plots_png = out / "evaluation_report_plots.png"
        shown = report_dialog(browser, f"{base}/assets/evaluation_report", plots_png)
        plots_ok = shown.get("total", 0) > 0 and shown.get("loaded") == shown.get("total")
        print(f"plots in the report dialog: {shown.get('loaded', 0)}/{shown.get('total', 0)} images rendered "
              f"(widths {shown.get('widths')}) ({'ok' if plots_ok else 'MISSING'})")
        print(f"screenshots: {graph_png}\n             {asset_png}\n             {plots_png}")
        ok = graph_ok and table_ok and plots_ok and graph_png.exists() and asset_png.exists()
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
