"""The shortcuts of the vertical-table search (issue 16) against the plain definitions they stand
for, on generated documents of label, figure, sign and blank lines: each line's kind told by its
first character, the rows with two figures counted by prefix sums, and the scan that skips the
label lines no table can start at (``vertical_rows.vertical_tables``)."""
import random

from finchunk_pipeline.parse import vertical_rows as vr

LINES = ["Cash and cash equivalents", "Current assets:", "Total", " and $", "x" * 130, "Revenue", "June 30,",
         "", " ", "  ", "$", "(", ")", "%", "$(", ")%", "34,704", "(1,444", "1,444)", "2023", "2022", "—", "-", "12.5",
         "(12)", "$ 5", "12%", "(1) note", "1 note", "3 of 7", "— Alaska", "٣٤", "€", "¥ 9", "-- ", "(a)", "…"]


def _doc(rng: random.Random) -> list[str]:
    # runs of statement-like lines (a label, then signs, figures and blanks) and of other lines
    out: list[str] = []
    while len(out) < rng.randint(5, 120):
        if rng.random() < 0.5:
            out.append(rng.choice(LINES[:7]))
            out += [rng.choice(LINES[7:26]) for _ in range(rng.randint(0, 6))]
        else:
            out += [rng.choice(LINES) for _ in range(rng.randint(1, 8))]
    return out


def _plain_vertical_tables(texts, stop, taken):
    """``vertical_tables`` as first written: a run tried from every label line."""
    n = len(texts)
    kinds = [vr.line_kind(t) for t in texts]
    if sum(1 for k in range(n - 1) if (vr._row_at(kinds, texts, k, n) or (0, 0))[1] >= 2) < vr.MIN_ROWS:
        return {}
    stop = [s and kind not in ("figure", "sign") for s, kind in zip(stop, kinds)]
    busy = [False] * n
    for h, (_, last) in taken.items():
        for k in range(h, last + 1):
            busy[k] = True
    out = {}
    k = 0
    while k < n:
        if busy[k] or stop[k] or kinds[k] != "label":
            k += 1
            continue
        first, last, full, labels, j = k, None, 0, 0, k
        while j < n and not busy[j] and not stop[j]:
            if kinds[j] != "label":
                j += 1
                continue
            row = vr._row_at(kinds, texts, j, n)
            if row is None:
                break
            row_last, figures = row
            if figures >= 2:
                full, labels, last = full + 1, 0, row_last
            else:
                labels += 1
                if labels > vr.MAX_LABELS:
                    break
            if any(stop[x] for x in range(j, row_last + 1)):
                break
            j = row_last + 1
        if full >= vr.MIN_ROWS and last is not None:
            out[vr._header_start(texts, first, busy)] = (first, last)
            k = last + 1
        else:
            k += 1
    return out


def test_kinds_match_line_kind():
    rng = random.Random(11)
    for _ in range(300):
        texts = _doc(rng)
        assert vr._kinds(texts) == [vr.line_kind(t) for t in texts], texts


def test_full_rows_match_the_rows_read():
    rng = random.Random(12)
    for _ in range(500):
        texts = _doc(rng)
        n = len(texts)
        kinds = [vr.line_kind(t) for t in texts]
        labels = [k for k in range(n) if kinds[k] == "label"]
        rank = [sum(1 for x in kinds[:j] if x == "label") for j in range(n + 1)]
        want = [k for k in range(n) if (vr._row_at(kinds, texts, k, n) or (0, 0))[1] >= 2]
        assert vr._full_rows(kinds, texts, labels, rank) == want, texts


def test_vertical_tables_match_the_plain_scan():
    rng = random.Random(13)
    found = 0
    for _ in range(1500):
        texts = _doc(rng)
        n = len(texts)
        stop = [rng.random() < 0.05 for _ in range(n)]
        taken = {}
        for h in sorted(rng.sample(range(n), min(n, rng.randint(0, 3)))):
            if all(h > last for _, last in taken.values()):
                taken[h] = (h, min(n - 1, h + rng.randint(0, 4)))
        want = _plain_vertical_tables(texts, stop, taken)
        assert vr.vertical_tables(texts, stop, taken) == want, (texts, stop, taken)
        found += bool(want)
    assert found > 100   # the documents hold tables often enough to test the scan
