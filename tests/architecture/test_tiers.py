"""The test tiers stay honest: every test file lives in a tier folder, and no file of tests/unit
spawns a process, runs Dagster, starts a server, loads the embedding model, reads devdata or is
marked slow (read from each file's syntax tree: what it imports, names and marks)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
TIERS = ("unit", "integration", "system", "architecture")

# what a unit test may not import (a module or anything under it)
FORBIDDEN_MODULES = {
    "subprocess": "spawns processes",
    "multiprocessing": "spawns processes",
    "concurrent.futures.process": "spawns processes",
    "http.server": "starts a server",
    "socketserver": "starts a server",
    "tests.servers": "starts a server",
    "tests.llm_stub": "starts a server",
    "sentence_transformers": "loads the embedding model",
    "tests.integration": "imports a higher tier",
    "tests.system": "imports a higher tier",
}
# names (imported, called, read as attributes or asked for as fixtures) that do what a unit test may not
FORBIDDEN_NAMES = {
    "materialize": "runs Dagster", "materialize_to_memory": "runs Dagster", "execute_in_process": "runs Dagster",
    "execute_job": "runs Dagster", "DagsterInstance": "runs Dagster",
    "Popen": "spawns processes", "fork": "spawns processes", "ProcessPoolExecutor": "spawns processes",
    "serve_forever": "starts a server", "ThreadingHTTPServer": "starts a server", "HTTPServer": "starts a server",
    "LocalHTTPServer": "starts a server", "postgres_server": "starts a server", "s3_server": "starts a server",
    "SentenceTransformer": "loads the embedding model", "get_embedder": "loads the embedding model",
    "Embedder": "loads the embedding model",
    "DEVDATA": "reads devdata", "needs_devdata": "reads devdata",
}
# the CLI's commands that run the pipeline or its UI (``main(["run", ...])``)
CLI_COMMANDS = {"run": "runs the whole pipeline", "ui": "starts the UI"}
FORBIDDEN_MARKS = {"slow": "is marked slow", "devdata": "reads devdata"}


def violations(source: str) -> list[str]:
    """What in ``source`` (a test module) a unit test may not do, one line per finding."""
    found = []
    for node in ast.walk(ast.parse(source)):
        modules = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for m in modules:
            for bad, why in FORBIDDEN_MODULES.items():
                if m == bad or m.startswith(bad + "."):
                    found.append(f"line {node.lineno}: imports {m} ({why})")
        names = []
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        for n in names:
            if n in FORBIDDEN_NAMES:
                found.append(f"line {node.lineno}: {n} ({FORBIDDEN_NAMES[n]})")
        if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "main"
                and node.args and isinstance(node.args[0], ast.List) and node.args[0].elts
                and isinstance(node.args[0].elts[0], ast.Constant) and node.args[0].elts[0].value in CLI_COMMANDS):
            found.append(f"line {node.lineno}: main([{node.args[0].elts[0].value!r}, ...]) "
                         f"({CLI_COMMANDS[node.args[0].elts[0].value]})")
        if (isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_MARKS and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"):
            found.append(f"line {node.lineno}: @pytest.mark.{node.attr} ({FORBIDDEN_MARKS[node.attr]})")
    return sorted(set(found))


def test_every_test_file_lives_in_a_tier_folder():
    stray = [p.name for p in TESTS.glob("test_*.py")]
    stray += [str(p.relative_to(TESTS)) for p in TESTS.glob("*/**/test_*.py") if p.relative_to(TESTS).parts[0] not in TIERS]
    assert not stray, f"test files outside tests/{{{','.join(TIERS)}}}/: {stray}"


def test_unit_tests_spawn_no_process_run_no_dagster_start_no_server_and_are_not_slow():
    bad = {str(p.relative_to(TESTS)): v for p in sorted((TESTS / "unit").glob("**/*.py"))
           if (v := violations(p.read_text(encoding="utf-8")))}
    assert not bad, "tests/unit breaks the unit tier's rules (move the test to tests/integration or tests/system):\n" + \
        "\n".join(f"  {f}: {'; '.join(v)}" for f, v in bad.items())


@pytest.mark.parametrize("source, what", [
    ("import subprocess\n", "imports subprocess"),
    ("from dagster import materialize\n", "materialize"),
    ("def test_x(postgres_server):\n    pass\n", "postgres_server"),
    ("from tests.servers import LocalHTTPServer\n", "imports tests.servers"),
    ("import pytest\n@pytest.mark.slow\ndef test_x():\n    pass\n", "@pytest.mark.slow"),
    ("from tests.conftest import DEVDATA\n", "DEVDATA"),
    ("from tests.integration.test_pipeline_dagster import run_all\n", "imports a higher tier"),
    ("from finchunk_pipeline.cli import main\nassert main(['run', '--corpus', 'c']) == 0\n", "runs the whole pipeline"),
])
def test_the_rules_catch_each_kind_of_violation(source, what):
    assert any(what in v for v in violations(source)), violations(source)


def test_a_plain_unit_test_passes_the_rules():
    assert violations("import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_x(x, tmp_path):\n"
                      "    assert x == 1\n") == []
