"""The ``finchunk`` command. Each sub-command lives in its own module with a
``register(subparsers)`` function that adds its parser and sets ``func``."""
from __future__ import annotations

import argparse
import importlib
import sys

# one module per command group; each defines register(subparsers)
COMMAND_MODULES = ("run", "partitions", "corpus", "facts", "edgar", "search", "serve", "fetch")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="finchunk",
        description="Parse, chunk, index and evaluate financial documents (a Dagster pipeline).")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a clear one-line error for the user, the traceback with -v
        if getattr(args, "verbose", False):
            raise
        print(f"finchunk: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
