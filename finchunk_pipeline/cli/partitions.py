"""``finchunk partitions``: the chunk-set partitions of the Dagster instance (DAGSTER_HOME).

Dagster has no CLI for dynamic partitions; the sensor ``chunk_set_config_sensor`` keeps them
in step with the chunker config file when the daemon runs. This does the same at once, e.g.
before ``dagster job backfill`` or ``dagster asset materialize --partition``.
"""
from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("partitions", help="list or sync the chunk-set partitions of the Dagster instance")
    p.add_argument("action", choices=["list", "sync"],
                   help="list: registered partitions; sync: register the declared, runnable chunk sets "
                        "and retire the others (what the sensor does)")
    p.add_argument("--chunkers", help="chunker config file (default: FINCHUNK_CHUNKERS or data/chunkers.yaml)")
    p.set_defaults(func=run)


def run(args) -> int:
    from .run import dagster_home

    dagster_home()
    from dagster import DagsterInstance

    from ..assets.partitions import chunk_set_partitions
    from ..assets.resources import PipelineResource
    from ..assets.sensors import apply_partition_changes, partition_changes

    with DagsterInstance.get() as instance:
        if args.action == "sync":
            pipeline = PipelineResource(chunkers_file=str(Path(args.chunkers).resolve()) if args.chunkers else "")
            changes = partition_changes(pipeline, instance)
            apply_partition_changes(changes, instance)
            print(f"registered: {', '.join(changes.add) or '-'}\nretired:    {', '.join(changes.retire) or '-'}")
            for name, why in changes.skipped.items():
                print(f"not registered: {name}: {why}")
        for key in instance.get_dynamic_partitions(chunk_set_partitions.name):
            print(key)
    return 0
