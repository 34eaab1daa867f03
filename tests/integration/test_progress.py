"""Progress of long stages: counts, rate and ETA, at most every N seconds and always at the
end, to Dagster's log and (FINCHUNK_PROGRESS=1, set by finchunk run) to the terminal."""
from __future__ import annotations

from finchunk_pipeline.progress import Progress, duration


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_messages_with_counts_rate_and_eta_throttled_to_every_n_seconds():
    clock, logged = Clock(), []
    progress = Progress("parsing", "documents", logged.append, every=10, clock=clock, terminal=False)
    assert progress(1, 1000) is None  # too early
    clock.t += 10
    assert progress(100, 1000) == "parsing: 100/1,000 documents (10%), 10.0/s, ETA 1m 30s"
    clock.t += 5
    assert progress(150, 1000) is None
    clock.t += 5
    assert progress(200, 1000) == "parsing: 200/1,000 documents (20%), 10.0/s, ETA 1m 20s"
    clock.t += 1
    assert progress(1000, 1000) == "parsing: 1,000/1,000 documents in 21s"
    assert progress(1000, 1000) is None  # once
    assert len(logged) == 3


def test_terminal_output_when_asked(capsys, monkeypatch):
    monkeypatch.setenv("FINCHUNK_PROGRESS", "1")
    clock = Clock()
    progress = Progress("chunk set semantic", "documents chunked", None, clock=clock)
    clock.t += 12
    progress(3, 4)
    progress(4, 4)
    err = capsys.readouterr().err
    assert "chunk set semantic: 3/4 documents chunked (75%), 0.2/s, ETA 4s" in err
    assert "chunk set semantic: 4/4 documents chunked in 12s" in err
    monkeypatch.delenv("FINCHUNK_PROGRESS")
    Progress("x", "y", None, clock=clock)(1, 1)
    assert capsys.readouterr().err == ""


def test_durations():
    assert [duration(s) for s in (0, 59.4, 61, 3599, 3600, 7322)] == ["0s", "59s", "1m 01s", "59m 59s", "1h 00m",
                                                                     "2h 02m"]


def test_parsing_and_chunking_report_progress_in_the_run(tmp_path, default_corpus_copy, chunkers_file, monkeypatch,
                                                         capsys):
    from dagster import DagsterInstance

    from tests.integration.test_pipeline_dagster import make_pipeline, run_chunk_set, run_documents

    monkeypatch.setenv("FINCHUNK_PROGRESS", "1")
    pipeline = make_pipeline(tmp_path, default_corpus_copy, chunkers_file)
    instance = DagsterInstance.ephemeral()
    docs = run_documents(pipeline, instance)
    chunks = run_chunk_set(pipeline, instance, "fixed")
    err = capsys.readouterr().err
    n = len(__import__("pandas").read_parquet(default_corpus_copy / "documents.parquet"))
    assert f"parsing: {n}/{n} documents in" in err
    assert f"chunk set fixed: {n}/{n} documents chunked in" in err
    messages = [r.user_message for r in instance.all_logs(docs.run_id)] + \
        [r.user_message for r in instance.all_logs(chunks.run_id)]
    assert any(f"parsing: {n}/{n} documents in" in m for m in messages)
    assert any(f"chunk set fixed: {n}/{n} documents chunked in" in m for m in messages)
