"""Search delivers what the evaluation scores: a chunk set declaring ``expand`` answers with
each hit's bounded parent (the evaluation's own delivery), each parent once; ``--units`` with
the matched chunks."""
from __future__ import annotations

import json

from finchunk_pipeline import Settings, Workspace
from finchunk_pipeline.builders.evaluation import document_reader
from finchunk_pipeline.builders.search import open_searcher, resolve_chunk_set
from finchunk_pipeline.chunking.expand import expand_chunk
from finchunk_pipeline.cli import main
from finchunk_pipeline.types.chunks import spans_of

CHUNKERS = """
chunk_sets:
  - name: evidence
    strategy: structure
    params: {max_chars: 300, table_max_chars: 150, link_notes_chars: 0}
    header: true
    context_fields: [title, period, section]
    expand: 800
    dense: false
"""
QUERY = "revenue by segment"


def test_a_chunk_set_with_expand_is_searched_as_its_parents(tmp_path, default_corpus_copy, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(CHUNKERS)
    store = ["--corpus", str(default_corpus_copy), "--data", str(tmp_path / "store"), "--chunkers", str(chunkers)]
    assert main(["run", *store, "--out", str(tmp_path / "out"), "--retrievers", "bm25"]) == 0
    capsys.readouterr()
    ws = Workspace(Settings().with_paths(str(default_corpus_copy), str(tmp_path / "store"), str(chunkers)))

    units = open_searcher("evidence", "bm25", ws, units=True).search(QUERY, 40)
    parents = open_searcher("evidence", "bm25", ws).search(QUERY, 5)
    assert len(parents) == 5 and [h.rank for h in parents] == [1, 2, 3, 4, 5]
    assert all(h.extra.get("delivery") is None for h in units)

    # each parent: the expansion of the best-ranked chunk not yet delivered, its header first
    chunks = ws.chunks.read(resolve_chunk_set(ws, "evidence"))
    by_id = chunks.set_index("chunk_id")
    read = document_reader(ws.manifest_path, ws.blocks)
    delivered, expected = set(), []
    for u in units:
        row = by_id.loc[u.chunk_id]
        spans, text = expand_chunk({"view_spans": row["view_spans"]}, read(u.doc_id), 800)
        key = (u.doc_id, tuple(map(tuple, spans)))
        if key not in delivered:
            delivered.add(key)
            header = row["embedding_text"][:len(row["embedding_text"]) - len(row["source_text"])]
            expected.append((u.chunk_id, [tuple(s) for s in spans], header + text))
    assert [(h.chunk_id, h.spans, h.display_text) for h in parents] == expected[:5]
    for h in parents:
        matched = [tuple(s) for s in h.extra["matched"]["spans"]]
        assert matched == spans_of(by_id.loc[h.chunk_id, "spans"])
        assert all(any(ps <= s and e <= pe for ps, pe in h.spans) for s, e in matched)  # the match is inside
        assert len(h.display_text) > len(h.extra["matched"]["text"])
    assert len({(h.doc_id, tuple(h.spans)) for h in parents}) == 5   # each parent once

    # the CLI: parents by default, with what matched; --units the chunks
    assert main(["search", QUERY, "--chunk-set", "evidence", "--retriever", "bm25", "--no-route", "-k", "2", *store]) == 0
    out = capsys.readouterr().out
    assert out.count("parent of the match") == 2
    assert main(["search", QUERY, "--chunk-set", "evidence", "--retriever", "bm25", "--no-route", "-k", "2",
                 "--units", "--json", *store]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [h["chunk_id"] for h in hits] == [u.chunk_id for u in units[:2]] and "matched" not in hits[0]
