"""Issue 14: small modules of small functions, so a reader finds one idea in one place —
no module of the package over 400 lines, no function over 60 (nested ones included)."""
import ast
from pathlib import Path

import finchunk_pipeline

PACKAGE = Path(finchunk_pipeline.__file__).parent
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def _sources():
    return [(p.relative_to(PACKAGE.parent).as_posix(), p.read_text(encoding="utf-8"))
            for p in sorted(PACKAGE.rglob("*.py"))]


def test_no_module_over_400_lines():
    long = {name: src.count("\n") for name, src in _sources() if src.count("\n") > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_over_60_lines():
    long = [f"{name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for name, src in _sources() for node in ast.walk(ast.parse(src))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"
