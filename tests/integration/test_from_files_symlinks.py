"""`finchunk corpus from-files DIR`: a folder is a folder. Symbolic links — to a file outside
(e.g. /etc/hostname), to a folder, dangling — are not followed unless --follow-links says so,
and every one is reported in the output with what it points to."""
from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

from finchunk_pipeline.cli import main
from finchunk_pipeline.corpus.from_files import FromFilesError, build_corpus

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")

DOC = "# Annual report 2024\n\nRevenue rose to 12.3 million.\n\n## Outlook\n\nSteady.\n"


@pytest.fixture
def folder(tmp_path):
    outside = tmp_path / "outside"
    (outside / "more").mkdir(parents=True)
    (outside / "secret.txt").write_text("root:x:0:0 a secret the folder does not hold\n")
    (outside / "more" / "other.md").write_text("# Other\n\nSome *other* text.\n\n## More\n\nx\n")
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "report.md").write_text(DOC)
    (src / "sub" / "note.txt").write_text("A plain note about dividends.\n")
    os.symlink(outside / "secret.txt", src / "hostname")             # a file outside
    os.symlink(outside / "more", src / "linked-folder")                # a folder outside
    os.symlink(src / "report.md", src / "sub" / "same-report.md")      # a file inside
    os.symlink(tmp_path / "nowhere.txt", src / "dangling")             # nothing
    os.symlink(src, src / "sub" / "loop")                               # a cycle
    return src


def _doc_files(corpus) -> list[str]:
    return sorted(pq.read_table(corpus / "documents.parquet").column("source_uri").to_pylist())


def test_links_are_not_followed_and_are_reported(folder, tmp_path):
    result = build_corpus(folder, tmp_path / "corpus")
    assert result.documents == 2
    assert sorted(u.rsplit("/", 1)[1] for u in _doc_files(tmp_path / "corpus")) == ["note.txt", "report.md"]
    skipped = result.skipped
    assert set(skipped) == {"hostname", "linked-folder", "sub/same-report.md", "dangling", "sub/loop"}
    assert "symbolic link" in skipped["hostname"] and "secret.txt" in skipped["hostname"]
    assert "outside the folder" in skipped["hostname"] and "--follow-links" in skipped["hostname"]
    assert "folder" in skipped["linked-folder"] and "outside the folder" in skipped["linked-folder"]
    assert "outside" not in skipped["sub/same-report.md"]
    assert "does not exist" in skipped["dangling"]
    # nothing of what the links point to was copied into the corpus
    copied = b"".join(p.read_bytes() for p in (tmp_path / "corpus" / "files").iterdir())
    assert b"secret" not in copied and b"Other" not in copied


def test_follow_links_includes_them_once_and_survives_a_cycle(folder, tmp_path):
    result = build_corpus(folder, tmp_path / "corpus", follow_links=True)
    names = [u.rsplit("/", 1)[1] for u in _doc_files(tmp_path / "corpus")]
    assert sorted(names) == ["note.txt", "other.md", "report.md", "report.md", "secret.txt"]
    assert "does not exist" in result.skipped["dangling"]
    assert "a cycle" in result.skipped["sub/loop"]


def test_the_command_says_so(folder, tmp_path, capsys):
    assert main(["corpus", "from-files", str(folder), "--out", str(tmp_path / "c1")]) == 0
    out = capsys.readouterr().out
    assert "skipped hostname: symbolic link to" in out and "not followed" in out
    assert main(["corpus", "from-files", str(folder), "--out", str(tmp_path / "c2"), "--follow-links"]) == 0
    assert "secret.txt" in " ".join(_doc_files(tmp_path / "c2"))


def test_a_folder_of_links_only_says_why_nothing_was_found(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    os.symlink("/etc/hostname", src / "hostname")
    with pytest.raises(FromFilesError, match="symbolic link"):
        build_corpus(src, tmp_path / "corpus")
