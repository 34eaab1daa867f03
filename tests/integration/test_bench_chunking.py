"""bench/bench_chunking.py runs end to end in a mini mode (no timing is asserted: speed and
memory figures live in bench/, as ratios to a baseline measured in the same run)."""
from __future__ import annotations

import subprocess
import sys

from finchunk_pipeline import PROJECT_ROOT

BENCH = PROJECT_ROOT / "bench" / "bench_chunking.py"


def test_bench_chunking_mini_run():
    out = subprocess.run(
        [sys.executable, str(BENCH), "--repeat", "1", "--min-seconds", "0", "--scale-docs", "11",
         "--strategies", "fixed,structure"],
        capture_output=True, text=True, timeout=120, cwd=PROJECT_ROOT,
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "baseline: slice 500-char windows" in text
    assert "| chunk: structure |" in text and "| chunk: structure + token counting |" in text
    assert "| parse: all parsers |" in text
    assert "## Scale: parse + chunk over 11 generated documents" in text
    assert "peak RSS (MB)" in text
