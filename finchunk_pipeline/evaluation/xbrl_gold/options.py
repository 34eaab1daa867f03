"""How questions are generated from inline XBRL (GoldOptions, read from the settings) and the
generator's modules whose code keys the generated gold (``CODE``). The generated gold is built
over the stores by builders/xbrl_gold.py and stored by storage/gold.py."""
from __future__ import annotations

from dataclasses import dataclass

from . import EVIDENCE, PER_DOCUMENT

CODE = ("finchunk_pipeline.evaluation.xbrl_gold", "finchunk_pipeline.evaluation.xbrl_gold.evidence",
        "finchunk_pipeline.evaluation.xbrl_gold.questions", "finchunk_pipeline.evaluation.xbrl_gold.words")


@dataclass(frozen=True)
class GoldOptions:
    """How questions are generated: on (``auto``) or ``off``, questions per filing (None: all),
    the gold evidence of a table figure, the sample's seed."""

    enabled: bool = True
    per_filing: int | None = PER_DOCUMENT
    evidence: str = "row+header"
    seed: int = 0

    @classmethod
    def from_settings(cls, settings) -> "GoldOptions":
        mode = (settings.generated_gold or "auto").lower()
        if mode not in ("auto", "off"):
            raise ValueError(f"FINCHUNK_GENERATED_GOLD: expected auto or off, got {settings.generated_gold!r}")
        per = (settings.gold_per_filing or str(PER_DOCUMENT)).lower()
        try:
            per_filing = None if per == "all" else int(per)
        except ValueError:
            raise ValueError(f"FINCHUNK_GOLD_PER_FILING: expected a number or 'all', got {per!r}") from None
        if per_filing is not None and per_filing < 1:
            raise ValueError(f"FINCHUNK_GOLD_PER_FILING: expected at least 1, got {per_filing}")
        evidence = settings.gold_evidence or "row+header"
        if evidence not in EVIDENCE:
            raise ValueError(f"FINCHUNK_GOLD_EVIDENCE: expected one of {EVIDENCE}, got {evidence!r}")
        try:
            seed = int(settings.gold_seed or 0)
        except ValueError:
            raise ValueError(f"FINCHUNK_GOLD_SEED: expected an integer, got {settings.gold_seed!r}") from None
        return cls(mode == "auto", per_filing, evidence, seed)
