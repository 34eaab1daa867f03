"""artefacts.py: reuse when the marker carries the key and the data is there, build otherwise."""
from pathlib import Path

from finchunk_pipeline.code_versions import code_hash, code_version
from finchunk_pipeline.storage.artefacts import Artefact, artefact_key, reuse_or_build
from finchunk_pipeline.hashing import sha256_bytes


class Recorder:
    def __init__(self):
        self.pulled, self.pushed = [], []

    def pull(self, *paths):
        self.pulled.append(paths)

    def push(self, *paths):
        self.pushed.append(paths)


def _build(folder: Path, calls: list):
    def build():
        calls.append(1)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "data.bin").write_bytes(b"x")
        return {"rows": 1}
    return build


def test_builds_once_then_reuses(tmp_path):
    art = Artefact(tmp_path / "m.json", (tmp_path / "d",), (tmp_path / "d" / "data.bin",))
    calls, t = [], Recorder()
    first = reuse_or_build(art, "k1", _build(tmp_path / "d", calls), t)
    again = reuse_or_build(art, "k1", _build(tmp_path / "d", calls), t)
    assert (first.built, again.built, len(calls)) == (True, False, 1)
    assert again.info == {"inputs": "k1", "rows": 1,  # and the size and hash of the data it vouches for
                          "files": {"d/data.bin": {"bytes": 1, "sha256": sha256_bytes(b"x")}}}
    # the marker is pushed last, after the data it vouches for
    assert t.pushed == [(tmp_path / "d", tmp_path / "m.json")]
    assert len(t.pulled) == 2


def test_changed_key_missing_data_or_force_rebuild(tmp_path):
    art = Artefact(tmp_path / "m.json", (tmp_path / "d",), (tmp_path / "d" / "data.bin",))
    calls = []
    reuse_or_build(art, "k1", _build(tmp_path / "d", calls))
    assert reuse_or_build(art, "k2", _build(tmp_path / "d", calls)).built
    (tmp_path / "d" / "data.bin").unlink()
    assert reuse_or_build(art, "k2", _build(tmp_path / "d", calls)).built
    assert reuse_or_build(art, "k2", _build(tmp_path / "d", calls), force=True).built
    assert len(calls) == 4


def test_failed_build_writes_no_marker(tmp_path):
    art = Artefact(tmp_path / "m.json")

    def boom():
        raise RuntimeError("bad input")
    try:
        reuse_or_build(art, "k", boom)
    except RuntimeError:
        pass
    assert not art.marker.exists()


def test_keys_and_code_versions(tmp_path):
    assert artefact_key(a=1, b=[2]) == artefact_key(b=[2], a=1) != artefact_key(a=1, b=[3])
    mod = tmp_path / "m.py"
    mod.write_text("def f():\n    return 1\n\ndef report():\n    return 2\n")
    before = code_hash([mod], root=tmp_path)
    before_report_aside = code_hash([mod], root=tmp_path, drop={"m.py": {"report"}})
    # a comment and an edit of a dropped (report-only) function: the same code version
    mod.write_text("# a comment\ndef f():\n    return 1  # same code\n\ndef report():\n    return 3\n")
    assert code_hash([mod], root=tmp_path, drop={"m.py": {"report"}}) == before_report_aside
    assert code_hash([mod], root=tmp_path) != before
    mod.write_text("def f():\n    return 2\n\ndef report():\n    return 2\n")
    assert code_hash([mod], root=tmp_path, drop={"m.py": {"report"}}) != before_report_aside
    mod.write_text("def f():\n    return 1\n\ndef report():\n    return 2\n")
    assert code_hash([mod], root=tmp_path) == before
    assert code_version("finchunk_pipeline.storage.files") == code_version("finchunk_pipeline.storage.files")
    assert code_version("finchunk_pipeline.storage.files") != code_version("finchunk_pipeline.storage.artefacts")


def test_settings_read_the_environment_once_and_overrides_win(monkeypatch, tmp_path):
    from finchunk_pipeline import Settings
    from finchunk_pipeline.settings import ENV

    monkeypatch.setenv("FINCHUNK_MODEL", "/models/m")
    monkeypatch.setenv("FINCHUNK_RETRIEVERS", "bm25")
    monkeypatch.setenv("FINCHUNK_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    s = Settings()
    monkeypatch.setenv("FINCHUNK_MODEL", "/models/other")   # read at construction only
    assert (s.model_path, s.retrievers, s.model()) == ("/models/m", "bm25", "/models/m")
    assert s.llm_env["FINCHUNK_LLM_BASE_URL"] == "http://127.0.0.1:1/v1"
    o = s.override(retrievers="dense", data_root=str(tmp_path), model_path="")
    assert (o.retrievers, o.data_root, o.model_path) == ("dense", tmp_path.resolve(), "/models/m")
    e = Settings.from_env({"FINCHUNK_DOC_PRIOR": "0.5"})
    assert (e.doc_prior, e.model_path, e.model()) == ("0.5", "", None)
    assert set(ENV) <= {f for f in Settings.__dataclass_fields__}
