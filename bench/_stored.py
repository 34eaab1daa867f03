"""What a finished run stored, read by the benches: every chunk set's evaluation entries.

Read by chunk-set name, whatever version named the evaluation's folder (the newest file per
name): a peer set's version names its library's version, so reading by the versions a chunker
file declares *here* would drop, say, the Unstructured sets whenever Unstructured is not
installed on the machine that reads the run — and with them, silently, the best plain
splitter of a cell. A declared set with no stored evaluation is named on stderr.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from finchunk_pipeline.evaluation.chunk_set import evaluation_file
from finchunk_pipeline.storage.workspace import corpus_key


def stored_entries(corpus: str | Path, data: str | Path, gold: str) -> dict[str, list[dict]]:
    """{chunk set name: its evaluation entries} of every evaluation stored for ``corpus`` in
    the data root (the newest file per name), whatever code version named its folder."""
    root = Path(data) / "corpora" / corpus_key(Path(corpus)) / "evaluations"
    newest: dict[str, tuple[float, list[dict]]] = {}
    for f in root.glob(f"*/{evaluation_file(gold)}"):
        try:
            payload = json.loads(f.read_text())
        except (OSError, ValueError):
            continue
        entries = [e for e in payload.get("entries") or [] if e.get("per_question")]
        if entries:
            name = entries[0]["name"]
            if name not in newest or f.stat().st_mtime > newest[name][0]:
                newest[name] = (f.stat().st_mtime, entries)
    return {n: e for n, (_, e) in newest.items()}


def declared_entries(corpus: str | Path, data: str | Path, gold: str, configs) -> list[dict]:
    """The stored entries of the chunk sets ``configs`` declares (by name), in their order;
    the declared sets with none are named on stderr."""
    by_name = stored_entries(corpus, data, gold)
    missing = [c.name for c in configs if c.name not in by_name]
    if missing:
        print(f"{corpus}: no stored {gold} evaluation of {len(missing)} declared chunk sets: {', '.join(missing)}",
              file=sys.stderr)
    return [e for c in configs for e in by_name.get(c.name, [])]
