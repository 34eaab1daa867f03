"""RowGroupTokens (chunking/row_tokens.py) against its plain definition: a row group's count
is the count of its spans' texts joined by SPAN_JOINER, on random tables whose rows are
apart, touching, or separated by text or by characters the normalizer deletes."""
import random
from types import SimpleNamespace

from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline.chunking.packer import Packer
from finchunk_pipeline.chunking.row_tokens import RowGroupTokens

CELLS = ["Revenue", "1,234.5", "(12)", "—", "2024", "é", "x" * 120, "\u0301", "\x00", "Total:", "$", "n/a"]
GAPS = ["\n", "\n", " \n ", "\t", "\xa0", "", "\x0b", "\n\x1c\n", "|", " x "]


def _table(rng: random.Random) -> tuple[str, list]:
    text, rows = rng.choice(["", "Caption (in millions)\n"]), []
    for _ in range(rng.randint(1, 12)):
        text += rng.choice(GAPS) if rows else ""
        row = " ".join(rng.choice(CELLS) for _ in range(rng.randint(0, 5)))
        rows.append(SimpleNamespace(vstart=len(text), vend=len(text) + len(row)))
        text += row
    return text + rng.choice(["", "\n¹ Note text."]), rows


def test_row_group_counts_are_the_counts_of_the_joined_text():
    packer = Packer.for_model(budget=100)
    rng = random.Random(31)
    for _ in range(1500):
        view, rows = _table(rng)
        by_rows = RowGroupTokens(view, rows, packer.count_many, packer.special)
        for _ in range(5):
            i = rng.randrange(len(rows))
            j = rng.randrange(i, len(rows))
            extra = sorted(rng.randint(0, len(view)) for _ in range(2))
            spans = rng.sample([(rows[i].vstart, rows[j].vend), (rows[i].vstart, rows[i].vend), tuple(extra),
                                (0, rows[0].vstart)], rng.randint(1, 4))
            assert by_rows(spans) == packer.count(SPAN_JOINER.join(view[s:e] for s, e in spans)), (view, spans)
