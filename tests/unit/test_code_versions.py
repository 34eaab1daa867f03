"""code_versions.import_closure: the package's modules a module runs, read from the sources."""
from __future__ import annotations

import pytest

from finchunk_pipeline.code_versions import code_hash, import_closure


def _package(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "a.py").write_text("import json\n\ndef f():\n    from .sub import b  # inside a function\n    return b\n")
    (root / "sub" / "b.py").write_text("try:\n    from ..c import X\nexcept ImportError:\n    X = None\n")
    (root / "c.py").write_text("from pkg import report\nX = 1\n")
    (root / "report.py").write_text("R = 1\n")
    (root / "unused.py").write_text("U = 1\n")
    return root


def test_the_closure_follows_nested_and_relative_imports_and_leaves_out_what_it_is_told(tmp_path):
    root = _package(tmp_path)
    names = lambda files: sorted(f.relative_to(root).as_posix() for f in files)  # noqa: E731
    assert names(import_closure(["pkg.a"], root)) == [
        "__init__.py", "a.py", "c.py", "report.py", "sub/__init__.py", "sub/b.py"]  # from pkg import: pkg runs
    assert names(import_closure(["pkg.a"], root, leave_out=["pkg.report"])) == [
        "__init__.py", "a.py", "c.py", "sub/__init__.py", "sub/b.py"]
    before = code_hash(import_closure(["pkg.a"], root), root)
    (root / "unused.py").write_text("U = 2\n")
    assert code_hash(import_closure(["pkg.a"], root), root) == before
    (root / "c.py").write_text("from pkg import report\nX = 2\n")
    assert code_hash(import_closure(["pkg.a"], root), root) != before


def test_a_root_that_is_not_a_module_of_the_package_is_named(tmp_path):
    root = _package(tmp_path)
    with pytest.raises(ModuleNotFoundError, match="pkg.missing"):
        import_closure(["pkg.missing"], root)


def test_docstrings_are_documentation_not_code(tmp_path):
    (tmp_path / "m.py").write_text('"""A module."""\ndef f():\n    """Says one."""\n    return 1\n\n\nclass C:\n    """A class."""\n    X = "a string that is code"\n')
    before = code_hash([tmp_path / "m.py"], root=tmp_path)
    (tmp_path / "m.py").write_text('"""Reworded."""\ndef f():\n    """Returns one."""\n    return 1\n\n\nclass C:\n    """Reworded too."""\n    X = "a string that is code"\n')
    assert code_hash([tmp_path / "m.py"], root=tmp_path) == before
    (tmp_path / "m.py").write_text('"""Reworded."""\ndef f():\n    """Returns one."""\n    return 1\n\n\nclass C:\n    """Reworded too."""\n    X = "another string"\n')
    assert code_hash([tmp_path / "m.py"], root=tmp_path) != before
