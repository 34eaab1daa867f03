"""Proxy statements (HTML, doc_type "proxy") with a summary compensation table.

The table has one header ``<tr>`` whose column labels carry ``<sup>N</sup>`` marks
(1 bonus, 2 stock awards, 3 option awards, 4 non-equity incentive, 5 all other
compensation); each named executive officer has a row for the latest and the prior
year, the name only on the first (as in real proxies, the second row is meaningless
without it). Officer-specific footnotes (6, 7, ...) are attached to the latest
"All other compensation" cell. All footnotes follow the table as
``<p class="footnote"><sup>N</sup> ...</p>``.
"""
from __future__ import annotations

import datetime as dt
import random

from .common import HtmlBuilder, Question, long_date, make_doc, utc
from .figures import US_FY
from .names import people

_TITLES = ["Chief Executive Officer", "Chief Financial Officer", "Chief Operating Officer", "General Counsel"]
_PERKS = ["personal use of company aircraft", "relocation benefits", "executive physical examinations",
          "financial planning services", "security services", "tax gross-ups on relocation"]


def _usd(x: int) -> str:
    return f"{x:,}"


def proxy_statement(seed: int, ctx):
    """The proxy statement of the filer ``ctx``, section by section; its own random stream
    draws the dates and officers first, then the sections' figures in document order."""
    p = _Proxy(seed, ctx)
    p.b.heading(1, p.title)
    _notice_and_proposals(p)
    head, rowp, info = _summary_compensation_table(p)
    notes = _compensation_footnotes(p, info)
    p.b.heading(3, "Pay Versus Performance")
    p.b.p("The relationship between compensation actually paid and company performance is described in this section.")
    _proxy_questions(p, head, rowp, info, notes)
    iss = ctx.iss
    return make_doc(p.b, p.qs, doc_id=p.doc_id, title=p.title, doc_type="proxy", issuer=p.name, ticker=iss.ticker,
                    fiscal_year=US_FY, period_end=ctx.fy_end, filed_at=p.filed, format="html",
                    source_uri=f"https://example.invalid/proxy/{iss.ticker.lower()}-{p.year}.htm")


class _Proxy:
    """What every section reads: the filer, the meeting, the named executive officers, the
    builder, the questions so far and the proxy's random stream."""

    def __init__(self, seed, ctx):
        iss, f = ctx.iss, ctx.fig
        self.f = f
        self.rng = rng = random.Random(f"{seed}|proxy|{iss.index}")
        filed_date = ctx.fy_end + dt.timedelta(days=rng.randint(95, 115))
        self.filed = utc(filed_date.year, filed_date.month, filed_date.day, 13, 0)
        self.year = self.filed.year
        self.doc_id = f"proxy-{iss.slug}-{self.year}"
        self.name = iss.name
        self.title = f"{self.name} — {self.year} Proxy Statement"
        self.neos = [f.ceo, f.cfo] + [p for p in people(rng, 6) if p not in (f.ceo, f.cfo)][:2]
        self.meeting = filed_date + dt.timedelta(days=rng.randint(35, 50))
        self.b = HtmlBuilder(self.doc_id, self.title)
        self.qs: list[Question] = []

    def Q(self, text, qtype, gold, answer):
        self.qs.append(Question(text, qtype, [self.doc_id], gold, answer))


def _notice_and_proposals(p: _Proxy) -> None:
    b = p.b
    b.p(f"Notice of {p.year} Annual Meeting of Stockholders to be held on {long_date(p.meeting)}.")
    b.heading(2, "Proposal 1 — Election of Directors")
    b.p(f"The Board recommends a vote FOR each of the {p.rng.randint(7, 12)} director nominees.")
    b.heading(2, "Proposal 2 — Ratification of Independent Registered Public Accounting Firm")
    b.p("The Audit Committee has appointed our independent auditor for the current fiscal year.")
    b.heading(2, "Proposal 3 — Advisory Vote to Approve Executive Compensation")
    b.p("Stockholders are asked to approve, on an advisory basis, the compensation of our named executive officers.")
    b.heading(2, "Executive Compensation")
    b.heading(3, "Compensation Discussion and Analysis")
    b.p(f"Our program for fiscal {US_FY} emphasized performance-based pay: a majority of target compensation for "
        f"our Chief Executive Officer was at risk.")


def _summary_compensation_table(p: _Proxy):
    """Two rows per officer (latest year, prior year); returns (header passage, row passages,
    per officer (name, stock awards, total, perk, perk amount, bonus) of the latest year)."""
    rng = p.rng
    p.b.heading(3, "Summary Compensation Table")
    header = [[("Name and principal position", 1), ("Year", 1), ("Salary ($)", 1), ("Bonus ($)<sup>1</sup>", 1),
               ("Stock awards ($)<sup>2</sup>", 1), ("Option awards ($)<sup>3</sup>", 1),
               ("Non-equity incentive plan compensation ($)<sup>4</sup>", 1),
               ("All other compensation ($)<sup>5</sup>", 1), ("Total ($)", 1)]]
    rows, info = [], []
    for k, neo in enumerate(p.neos):
        scale = [1.0, 0.55, 0.5, 0.4][k]
        perk = rng.choice(_PERKS)
        for j, y in enumerate((US_FY, US_FY - 1)):
            sal = int(rng.randint(900, 1300) * scale) * 1000
            bonus = int(rng.randint(0, 400) * scale) * 1000
            stock = int(rng.randint(4000, 12000) * scale) * 1000 + rng.randint(0, 999)
            option = int(rng.randint(0, 3000) * scale) * 1000 + rng.randint(0, 999)
            nei = int(rng.randint(800, 2500) * scale) * 1000
            other = rng.randint(20000, 400000)
            total = sal + bonus + stock + option + nei + other
            label = f"{neo}, {_TITLES[k]}" if j == 0 else ""
            other_cell = _usd(other) + (f"<sup>{6 + k}</sup>" if j == 0 else "")
            rows.append([label, str(y), _usd(sal), _usd(bonus), _usd(stock), _usd(option), _usd(nei), other_cell,
                         _usd(total)])
            if j == 0:
                perk_amt = int(other * rng.uniform(0.3, 0.8))
                info.append((neo, stock, total, perk, perk_amt, bonus))
    pids = p.b.table(header, rows)
    return pids[0], pids[1:], info


def _grant_date(p: _Proxy) -> dt.date:
    f = p.f
    return dt.date(US_FY, f.fy_start.month, 15) if f.fy_start.month != 1 else dt.date(US_FY, 2, 15)


def _compensation_footnotes(p: _Proxy, info) -> dict:
    """Footnotes 1-5 to the columns, then one per officer; returns those the questions cite."""
    b, grant_date = p.b, _grant_date(p)
    n1 = b.note(1, f"Bonus amounts are discretionary awards approved by the Compensation Committee in "
                   f"{grant_date.strftime('%B')} {grant_date.year + 1}.")
    n2 = b.note(2, "Amounts reflect the aggregate grant-date fair value of restricted stock units and performance "
                   "share units computed in accordance with FASB ASC Topic 718, assuming the probable outcome "
                   "of the performance conditions.")
    b.note(3, "Amounts reflect the grant-date fair value of stock options using a Black-Scholes model.")
    b.note(4, f"Amounts are annual cash incentive awards earned for fiscal {US_FY} performance and paid in the "
              f"following fiscal year.")
    b.note(5, "See the footnotes that follow for the components of all other compensation.")
    officers = []
    for k, (neo, _stock, _total, perk, amt, _bonus) in enumerate(info):
        officers.append(b.note(6 + k, f"For {neo}, includes ${_usd(amt)} for {perk} and company contributions to "
                                      f"the 401(k) plan."))
    return {"n1": n1, "n2": n2, "officers": officers}


def _proxy_questions(p: _Proxy, head, rowp, info, notes: dict) -> None:
    name, year, Q, grant_date = p.name, p.year, p.Q, _grant_date(p)
    for k, (neo, stock, total, perk, amt, _bonus) in enumerate(info):
        r = rowp[2 * k]
        Q(f"In {name}'s {year} proxy statement, how much of {neo}'s fiscal {US_FY} 'All other "
          f"compensation' was for {perk}?", "proxy_footnote", [head, r, notes["officers"][k]], f"${_usd(amt)}")
        Q(f"What stock awards did {name} report for {neo} for {US_FY} in its {year} proxy, and "
          f"on what basis are they valued?", "proxy_footnote", [head, r, notes["n2"]], _usd(stock))
        if k == 0:
            Q(f"When did the Compensation Committee approve the {US_FY} bonus of {neo} at {name}, "
              f"per the {year} proxy statement?", "proxy_footnote", [head, r, notes["n1"]],
              f"{grant_date.strftime('%B')} {grant_date.year + 1}")
        Q(f"What was the total {US_FY} compensation of {neo} in {name}'s {year} summary "
          f"compensation table?", "table", [head, r], _usd(total))
    Q(f"What was {name}'s CEO pay ratio for {US_FY}, according to its {year} proxy statement?",
      "unanswerable", [], None)
