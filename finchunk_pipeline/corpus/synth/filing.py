"""What a US issuer's SEC filings share: the issuer's context (figures, dates and the one
random stream every filing, the call and the proxy draw from), the per-filing context a
section writes into, and the sections a 10-Q and a 10-K both print — the cover and the
financial statements (operations table, balance sheet, their footnotes)."""
from __future__ import annotations

import datetime as dt
import random

from .common import HtmlBuilder, Question, long_date, make_doc, money, utc
from .figures import US_FY, USFigures, eps, us_figures
from .inline_xbrl import NAMESPACES, InlineXbrl
from .names import us_issuer
from .xbrl import filing_facts

UNITS = "(in millions, except per-share amounts)"
OPS_LINES = [
    ("Revenues", "revenue", 1), ("Cost of revenues", "cost", 0), ("Gross profit", "gross", 0),
    ("Selling, general and administrative", "sga", 0), ("Research and development", "rnd", 0),
    ("Operating income", "op_income", 0), ("Interest expense, net", "interest", 0),
    ("Income before income taxes", "pretax", 0), ("Provision for income taxes", "tax", 0),
    ("Net income", "net_income", 2),
]
BAL_LINES = [("Cash and cash equivalents", "cash", 0), ("Total assets", "assets", 0),
             ("Long-term debt", "debt", 3), ("Total stockholders' equity", "equity", 0)]


def md(d: dt.date) -> str:
    return f"{d.strftime('%B')} {d.day}"


def _label(text: str, mark: int) -> str:
    return f"{text}<sup>{mark}</sup>" if mark else text


def accession(iss, year: int, seq: int) -> str:
    return f"{iss.cik}-{year % 100:02d}-{iss.index * 10 + seq:06d}"


def source_uri(iss, acc: str, period_end: dt.date) -> str:
    return (f"https://www.sec.gov/Archives/edgar/data/{int(iss.cik)}/{acc.replace('-', '')}/"
            f"{iss.ticker.lower()}-{period_end:%Y%m%d}.htm")


class Filer:
    """A US issuer for the whole fiscal year: figures, filing dates and the random stream the
    filings, then the earnings call, draw from in that order."""

    def __init__(self, seed, index):
        self.iss = us_issuer(index)
        self.fig: USFigures = us_figures(seed, index)
        self.rng = random.Random(f"{seed}|us|{index}|filings")
        f = self.fig
        self.fy_end = f.quarter_ends[3]
        self.prior_end = f.fy_start - dt.timedelta(days=1)
        self.prior_shares = int(f.shares * 1.03)
        rng = self.rng
        self.returns = [rng.randint(20, 200) for _ in range(4)]          # tenths, per quarter
        self.sbc = [rng.randint(30, 400) for _ in range(4)]
        self.current_debt = {d: rng.randint(50, 900) for d in f.balance}
        self.restructuring = rng.randint(80, 900)                       # FY charge, tenths
        self.severance = int(self.restructuring * rng.uniform(0.5, 0.8))
        self.filed_q = [utc(*(qe + dt.timedelta(days=rng.randint(35, 44))).timetuple()[:3], 20, 5)
                        for qe in f.quarter_ends[:3]]
        self.filed_k = utc(*(self.fy_end + dt.timedelta(days=rng.randint(55, 62))).timetuple()[:3], 21, 10)
        aq = f.amended_q
        self.filed_amend = self.filed_q[aq - 1] + dt.timedelta(days=rng.randint(30, 40), hours=-2)
        self.employees = rng.randint(900, 60000)
        self.hq = rng.choice(["Austin, Texas", "Columbus, Ohio", "Raleigh, North Carolina", "Denver, Colorado",
                              "Minneapolis, Minnesota", "Tampa, Florida", "Portland, Oregon"])

    def q_start(self, q: int) -> dt.date:
        return (self.prior_end if q == 1 else self.fig.quarter_ends[q - 2]) + dt.timedelta(days=1)

    def cur_quarters(self, upto: int, original_q: int | None = None):
        """Current-year quarters 1..upto; quarter original_q as originally reported."""
        return [self.fig.original(k) if k == original_q else self.fig.cur[k - 1] for k in range(1, upto + 1)]


class Filing:
    """One filing being written: its form, ids, dates, builder and questions; every section
    writes into it (the random stream is the filer's, ``self.c.rng``)."""

    def __init__(self, c: Filer, form: str, doc_id: str, filed, seq: int, period_end: dt.date, title: str):
        self.c, self.iss, self.f = c, c.iss, c.fig
        self.form, self.doc_id, self.filed, self.period_end, self.title = form, doc_id, filed, period_end, title
        self.acc = accession(c.iss, filed.year, seq)
        self.b = HtmlBuilder(doc_id, title, NAMESPACES)
        self.ix = InlineXbrl(c.iss.cik)
        self.qs: list[Question] = []

    def Q(self, text, qtype, gold, answer, doc_ids=None):
        self.qs.append(Question(text, qtype, doc_ids or [self.doc_id], gold, answer))

    def finish(self, fp: str, durations):
        """(document, xbrl facts): ``durations`` are (start, end, values) of the tagged columns."""
        iss, f = self.iss, self.f
        self.b.tail.append(self.ix.header())
        facts = filing_facts(iss, form=self.form, accession=self.acc, filed=self.filed, fy=US_FY, fp=fp,
                             durations=[(s, e, v, eps(v["net_income"], f.shares)) for s, e, v in durations],
                             instant=(self.period_end, f.balance[self.period_end]))
        doc = make_doc(self.b, self.qs, doc_id=self.doc_id, title=self.title, doc_type=self.form, issuer=iss.name,
                       ticker=iss.ticker, fiscal_year=US_FY, period_end=self.period_end, filed_at=self.filed,
                       format="html", source_uri=source_uri(iss, self.acc, self.period_end))
        return doc, facts


def cover(fl: Filing, intro: str, period: tuple) -> None:
    """The title (the registrant's name tagged for the filing's ``period``) and ``intro``."""
    name = fl.ix.registrant(fl.iss.name, *period)
    fl.b.heading(1, f"{fl.iss.name} — Form {fl.form}", f"{name} — Form {fl.form}")
    fl.b.p(intro)


class Statements:
    """The passages of the printed statements the questions cite."""

    def __init__(self, ops, heads, bal, bal_head, notes):
        self.ops, self.heads, self.bal, self.bal_head = ops, heads, bal, bal_head
        self.n1, self.n2, self.n3 = notes


def statements(fl: Filing, prefix: str, suffix: str, header_rows, columns, shares, notes,
               periods) -> Statements:
    """The statement of operations (``columns`` under ``header_rows``) with footnotes 1-2, the
    balance sheet at the period end and prior year end with footnote 3; ``prefix``/``suffix``
    frame the headings ("Condensed " ... " (Unaudited)" in a 10-Q). ``periods``: per column,
    the (start, end) its figures are tagged for, or None for an untagged (comparative) column;
    the balance sheet is tagged at the period end."""
    b, c, f, end = fl.b, fl.c, fl.f, fl.period_end
    b.heading(3, f"{prefix}Consolidated Statements of Operations{suffix}")
    ops, heads = _ops_table(b, header_rows, columns, shares, [_tagger(fl.ix, p) for p in periods])
    n1 = b.note(1, notes[0])
    n2 = b.note(2, notes[1])
    b.heading(3, f"{prefix}Consolidated Balance Sheets{suffix}")
    bal, bal_head = _bal_table(b, [end, c.prior_end], [f.balance[end], f.balance[c.prior_end]],
                               [_tagger(fl.ix, (None, end)), _tagger(fl.ix, None)])
    n3 = b.note(3, notes[2])
    return Statements(ops, heads, bal, bal_head, (n1, n2, n3))


def _tagger(ix: InlineXbrl, period):
    """key, printed -> the printed figure in its tag for ``period`` (None: as printed)."""
    if period is None:
        return lambda key, printed: printed
    return lambda key, printed: ix.figure(key, printed, *period)


def _ops_table(b: HtmlBuilder, header_rows, columns, shares_cols, tags):
    """columns: list of {line: tenths}; tags: per column, key, printed -> cell html; returns
    ({key: row pid}, header pids)."""
    rows, keys = [], []
    for label, key, mark in OPS_LINES:
        rows.append([_label(label, mark)] + [t(key, money(c[key])) for c, t in zip(columns, tags)])
        keys.append(key)
    rows.append(["Diluted earnings per share"] + [t("eps", eps(c["net_income"], s))
                                                  for c, s, t in zip(columns, shares_cols, tags)])
    keys.append("eps")
    pids = b.table(header_rows, rows)
    n = len(header_rows)
    return dict(zip(keys, pids[n:])), pids[:n]


def _bal_table(b: HtmlBuilder, dates, values, tags):
    header = [[("(in millions)", 1)] + [(long_date(d), 1) for d in dates]]
    rows = [[_label(label, mark)] + [t(key, money(v[key])) for v, t in zip(values, tags)]
            for label, key, mark in BAL_LINES]
    pids = b.table(header, rows)
    return dict(zip([k for _, k, _ in BAL_LINES], pids[1:])), pids[:1]
