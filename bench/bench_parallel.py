"""``finchunk run --jobs N`` against ``--jobs 1`` in the same bench run: wall time of a cold run
(empty data root, fresh DAGSTER_HOME) on the same corpus and chunk sets, reported as ratios.

Each configuration runs ``finchunk run`` as a subprocess, as a user would; the documents
stage (parse) and the report are sequential in both, so the ratio is for the whole command.

    .venv/bin/python bench/bench_parallel.py                          # embedded corpus, 8 chunk sets, bm25
    .venv/bin/python bench/bench_parallel.py --jobs 1,2,3 --retrievers bm25,dense,hybrid
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FINCHUNK = Path(sys.executable).parent / "finchunk"
DEFAULT_SETS = "fixed,fixed-h,recursive,recursive-h,structure,structure-h,sentence,paragraph"


def one_run(jobs: int, args, work: Path) -> float:
    home, data, out = work / f"home-{jobs}", work / f"data-{jobs}", work / f"out-{jobs}"
    for p in (home, data, out):
        shutil.rmtree(p, ignore_errors=True)
    cmd = [str(FINCHUNK), "run", "--data", str(data), "--out", str(out), "--chunk-sets", args.chunk_sets,
           "--retrievers", args.retrievers, "--jobs", str(jobs)]
    if args.corpus:
        cmd += ["--corpus", args.corpus]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env={**os.environ, "DAGSTER_HOME": str(home)}, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"--jobs {jobs} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=None, help="corpus folder (default: the embedded one)")
    ap.add_argument("--chunk-sets", default=DEFAULT_SETS)
    ap.add_argument("--retrievers", default="bm25")
    ap.add_argument("--jobs", default="1,2", help="comma-separated --jobs values; the first is the baseline")
    ap.add_argument("--repeat", type=int, default=1, help="runs per value (the best is kept)")
    args = ap.parse_args()
    values = [int(j) for j in args.jobs.split(",")]
    print(f"cores {os.cpu_count()}, chunk sets {args.chunk_sets}, retrievers {args.retrievers}, "
          f"corpus {args.corpus or 'embedded default'}")
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as tmp:
        best = {}
        for _ in range(args.repeat):
            for jobs in values:  # interleaved, so drift in machine load hits every value alike
                s = one_run(jobs, args, Path(tmp))
                best[jobs] = min(best.get(jobs, s), s)
                print(f"  --jobs {jobs}: {s:6.1f} s", flush=True)
    base = best[values[0]]
    print("\n| --jobs | seconds (best) | speed-up vs --jobs %d |" % values[0])
    print("|---:|---:|---:|")
    for jobs in values:
        print(f"| {jobs} | {best[jobs]:.1f} | {base / best[jobs]:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
