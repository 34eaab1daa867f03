"""Issue 14: the package imports without cycles — every module, the core packages and the
Dagster shell — counting imports inside functions (which hide a cycle rather than remove it)."""
from __future__ import annotations

import ast
from pathlib import Path

import finchunk_pipeline

PACKAGE = Path(finchunk_pipeline.__file__).parent


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """module -> the package modules it imports (at module level or inside functions)."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = ".".join(base[:len(base) - node.level + 1] + [node.module or ""]).strip(".") \
                if node.level else (node.module or "")
            for alias in node.names:
                hit = next((m for m in (f"{target}.{alias.name}", target) if m in modules), None)
                if hit and hit != name:
                    edges.setdefault(name, set()).add(hit)
    return edges


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, stack = set(), [start]
    while stack:
        for nxt in edges.get(stack.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def test_no_import_cycles_anywhere_in_the_package():
    edges = _imports()
    cycles = []
    for mod, targets in edges.items():
        for t in targets:
            if mod.startswith(t + ".") or t.startswith(mod + "."):
                continue  # a package and its own modules
            if _reaches(edges, t, mod):
                cycles.append(f"{mod} -> {t}")
    assert cycles == []
