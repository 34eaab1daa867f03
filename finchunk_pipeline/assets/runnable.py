"""Which declared chunk sets can run in this environment: the sensor keeps exactly these as
chunk-set partitions, and the report covers exactly these (a chunk set it retired is not shown
with an old evaluation as if it were current)."""
from __future__ import annotations

from .resources import PipelineResource


def not_runnable(pipeline: PipelineResource, configs: list | None = None) -> dict[str, str]:
    """Declared chunk sets (or ``configs``) whose runs could only fail here, with why: a strategy
    whose optional extra is missing (e.g. the LangChain baseline without ``.[baselines]``), or
    ``enrich: llm`` without an LLM endpoint (README "Enrichment")."""
    from ..chunking.registry import STRATEGIES
    from ..enrichment.client import LLMSettings

    skipped = {}
    llm_env = pipeline.settings().llm_env
    for config in pipeline.chunker_configs() if configs is None else configs:
        strategy = STRATEGIES[config.strategy]
        if not strategy.available():
            skipped[config.name] = (f"strategy {config.strategy!r} needs the optional module "
                                    f"{strategy.requires!r}, which is not installed")
        elif config.enrich is not None and config.enrich.enricher == "llm" and not LLMSettings.configured("FINCHUNK_LLM", llm_env):
            skipped[config.name] = ("enrich: llm needs an OpenAI-compatible endpoint and FINCHUNK_LLM_BASE_URL "
                                    "is not set here")
    return skipped


def runnable_configs(pipeline: PipelineResource) -> tuple[list, dict[str, str]]:
    """(the declared chunk sets that can run here, {name: why} of those that cannot)."""
    configs = pipeline.chunker_configs()
    skipped = not_runnable(pipeline, configs)
    return [c for c in configs if c.name not in skipped], skipped
