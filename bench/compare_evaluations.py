"""Compare two evaluation.json files metric by metric: a structural change must leave every
number identical.

    python bench/compare_evaluations.py BEFORE/evaluation.json AFTER/evaluation.json

Left out of the comparison (``IGNORED``): versions and input keys (they name code and inputs,
which a refactoring changes on purpose) and timings; index sizes, which count the markers'
recorded timings, are compared within a few bytes (``MARKER_SIZED``). Prints every difference, by path, and
exits 1 on any; 0 when every other value is identical. ``--ignore KEY,...`` leaves more keys
out — e.g. ``index_bytes,index_bytes_retriever`` when the markers' key format changed (the index
data files themselves are then compared with ``--stores BEFORE_ROOT AFTER_ROOT``: every chunk
Parquet and non-JSON index file byte for byte).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator

# keys whose values name versions / inputs or measure time, not results
IGNORED = {"version", "enricher_version", "inputs", "evaluation_code", "seconds", "elapsed", "timings"}
# sizes that count the indexes' JSON markers, which record build timings ("seconds": 1.324,
# "texts_per_second": 48.1): any two runs differ by a few bytes there, so these may differ by
# at most SIZE_TOLERANCE bytes; a real change of an index is far larger
MARKER_SIZED = {"index_bytes", "index_bytes_retriever"}
SIZE_TOLERANCE = 16


def differences(before: Any, after: Any, path: str = "") -> Iterator[str]:
    """Every place where ``after`` differs from ``before``, as 'path: before -> after'."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            if key in IGNORED:
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in after:
                yield f"{where}: missing after"
            elif key not in before:
                yield f"{where}: new after"
            elif key in MARKER_SIZED and isinstance(before[key], int) and isinstance(after[key], int):
                if abs(before[key] - after[key]) > SIZE_TOLERANCE:
                    yield f"{where}: {before[key]!r} -> {after[key]!r}"
            else:
                yield from differences(before[key], after[key], where)
    elif isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            yield f"{path}: {len(before)} items -> {len(after)} items"
        for i, (b, a) in enumerate(zip(before, after)):
            yield from differences(b, a, f"{path}[{i}]")
    elif before != after or type(before) is not type(after):
        yield f"{path}: {before!r} -> {after!r}"


def stored_files(root: Path) -> dict[str, str]:
    """{path under the data root: sha256} of every chunk set's Parquet and every index file
    but the JSON markers."""
    import hashlib

    out = {}
    for f in sorted(root.glob("corpora/*/chunks/*/*.parquet")) + sorted(root.glob("corpora/*/indexes/**/*")):
        if f.is_file() and f.suffix != ".json":
            rel = f.relative_to(root).as_posix().split("/", 2)[2]   # corpus folder names differ by path
            out[rel] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ignore", default="", help="more keys to leave out, comma-separated")
    parser.add_argument("--stores", nargs=2, type=Path, metavar=("BEFORE_ROOT", "AFTER_ROOT"),
                        help="also compare the stored chunk sets and index files byte for byte")
    args = parser.parse_args(argv)
    IGNORED.update(k for k in args.ignore.split(",") if k)
    found = list(differences(json.loads(args.before.read_text()), json.loads(args.after.read_text())))
    if args.stores:
        b, a = (stored_files(r) for r in args.stores)
        found += [f"{rel}: missing after" for rel in sorted(set(b) - set(a))]
        found += [f"{rel}: new after" for rel in sorted(set(a) - set(b))]
        found += [f"{rel}: bytes differ" for rel in sorted(set(a) & set(b)) if a[rel] != b[rel]]
        print(f"stored files compared: {len(b)} before, {len(a)} after")
    for line in found[:200]:
        print(line)
    if len(found) > 200:
        print(f"... and {len(found) - 200} more")
    print(f"{len(found)} difference(s) ({', '.join(sorted(IGNORED))} aside; "
          f"{', '.join(sorted(MARKER_SIZED))} within {SIZE_TOLERANCE} bytes)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
