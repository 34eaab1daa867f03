"""Print the project's requirements, one a line, from pyproject.toml: its dependencies and
those of the extras named (comma-separated). The image installs them before it copies the
code (deploy/Dockerfile), so a code change reuses the dependency layer.

    python deploy/requirements.py pyproject.toml postgres,s3,k8s
"""
from __future__ import annotations

import sys
import tomllib


def requirements(pyproject: str, extras: list[str]) -> list[str]:
    with open(pyproject, "rb") as f:
        project = tomllib.load(f)["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        raise SystemExit(f"{pyproject} declares no extra {', '.join(unknown)} (it has: {', '.join(optional)})")
    return list(project["dependencies"]) + [r for e in extras for r in optional[e]]


if __name__ == "__main__":
    path, extras = sys.argv[1], [e for e in (sys.argv[2] if len(sys.argv) > 2 else "").split(",") if e]
    print("\n".join(requirements(path, extras)))
