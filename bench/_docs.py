"""Benchmark pages under docs/benchmarks/: one header, one writer.

Every page a bench script writes starts each of its sections with where its numbers come from:

    Command: `python bench/<script>.py ARGS`
    Machine: x86_64, 2 cores, Python 3.11.7; date 2026-12-04; commit 648c17b

then the section's tables. ``section`` builds such a section, ``write_page`` writes a page
(``# TITLE`` and the section) or appends the section to the page it finds.
"""
from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# arguments that say where and how to write, not what was measured: left out of `Command:`
WRITE_FLAGS = ("--write", "--append")


def commit(root: Path = ROOT) -> str:
    """The short hash of the checked-out commit ("" outside a git checkout)."""
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                          text=True).stdout.strip()


def command(script: str, argv: list[str], drop: tuple[str, ...] = WRITE_FLAGS) -> str:
    """The command line that produced a section: ``python bench/<script> ARGS`` without ``drop``."""
    return f"python bench/{script} " + " ".join(a for a in argv if a not in drop)


def provenance(cmd: str, note: str | None = None) -> str:
    """``Command: `cmd`  `` and ``Machine: …; date …; commit …`` (then ``note`` on its own
    line), ending in a blank line."""
    return (f"Command: `{cmd}`  \nMachine: {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}; date {dt.date.today()}; commit {commit()}"
            + (f"  \n{note}" if note else "") + "\n\n")


def section(cmd: str, body: str, title: str | None = None, note: str | None = None) -> str:
    """A page section: ``## title`` (when given), the provenance lines, then ``body``."""
    return (f"## {title}\n\n" if title else "") + provenance(cmd, note) + body


def write_page(path: Path, page_title: str, block: str, append: bool = False, separator: str = "\n") -> None:
    """Write ``# page_title`` and ``block`` to ``path``; with ``append``, add ``separator`` and
    ``block`` to the page when it exists (a page that does not exist yet is written whole)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if append and path.exists():
        with path.open("a") as fh:
            fh.write(separator + block)
    else:
        path.write_text(f"# {page_title}\n\n" + block)
