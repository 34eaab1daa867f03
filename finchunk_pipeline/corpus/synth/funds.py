"""Fund documents (Markdown): for each fund family, five ETF prospectuses (doc_type
"prospectus") and their five Key Information Documents ("kid"). The documents of a
family are nearly identical; each fund has its own ongoing-charges figure (distinct
within a family), risk indicator, ISIN and performance scenarios."""
from __future__ import annotations

import datetime as dt
import itertools
import random

from .common import BlockBuilder, Question, make_doc, utc
from .names import fund_manager

FUND_YEAR = 2024
_FUNDS = [("Global Equity", "Global Developed Equity Index", 5), ("Europe Equity", "Europe Large Cap Index", 5),
          ("US Treasury 1-3 Year", "US Treasury 1-3 Year Bond Index", 2),
          ("Emerging Markets Equity", "Emerging Markets Equity Index", 6),
          ("Global Clean Energy", "Global Clean Energy Index", 6)]
_OCF = [7, 10, 12, 15, 18, 20, 22, 25, 30, 35, 40, 45, 50, 55, 65]   # basis points


def fund_family(seed: int, index: int):
    """The 10 documents of fund family `index` (each fund's prospectus, then its KID), then
    comparison questions as a list; one random stream for the family, drawn in that order."""
    fam = _Family(seed, index)
    docs = []
    for k, (label, index_name, sri) in enumerate(_FUNDS):
        fund = _Fund(fam, k, label, index_name, sri)
        docs.append(_prospectus(fam, fund))
        docs.append(_kid(fam, fund))
    return docs, _comparisons(fam)


class _Family:
    """A fund family: manager, index provider, the funds' charges, the family's random stream,
    and each document's ongoing-charges passage (for the comparisons)."""

    def __init__(self, seed, index):
        self.mgr, self.mslug = fund_manager(index)
        self.brand = self.mgr.replace(" Asset Management", "")
        self.rng = random.Random(f"{seed}|fund|{index}")
        self.ocfs = self.rng.sample(_OCF, len(_FUNDS))
        self.provider = self.rng.choice(["Solstice", "Northstar", "Apex", "Clearwater"])
        self.cost_kid, self.cost_pro = [], []


class _Fund:
    """One fund of the family: its name, ISIN, charges, launch, risk class and holding period."""

    def __init__(self, fam: _Family, k: int, label: str, index_name: str, sri: int):
        rng = fam.rng
        self.k, self.label, self.index_name, self.sri = k, label, index_name, sri
        self.name = f"{fam.brand} {label} UCITS ETF"
        self.isin = f"IE000{rng.randint(0, 9999999):07d}"[:12]
        self.ocf = f"{fam.ocfs[k] / 100:.2f}%"
        self.launch = dt.date(rng.randint(2012, 2021), rng.randint(1, 12), rng.randint(1, 28))
        self.hold = 1 if sri <= 2 else 5
        self.slug = f"{fam.mslug}-{label.lower().replace(' ', '-')}"
        self.filed = utc(FUND_YEAR, 2, 1 + k, 9, 0)


def _prospectus(fam: _Family, fd: _Fund):
    fund, launch, pid = fd.name, fd.launch, f"prospectus-{fd.slug}-{FUND_YEAR}"
    b = BlockBuilder(pid)
    b.heading(1, f"{fund} — Prospectus {FUND_YEAR}")
    b.para(f"This prospectus relates to the {fund}, a sub-fund of {fam.brand} ETF Funds plc, an umbrella "
           f"investment company with segregated liability between sub-funds, managed by {fam.mgr}.")
    b.heading(2, "Investment objective")
    p_obj = b.para(f"The investment objective of the Fund is to track the performance of the {fam.provider} "
                   f"{fd.index_name}, before fees and expenses.")
    b.heading(2, "Investment policy")
    b.para("The Fund uses a physical replication strategy and may lend securities to generate additional "
           "income. The Fund may use derivatives for efficient portfolio management only.")
    b.heading(2, "Fund details")
    head, r_isin, _r_cur, _r_launch, _r_div = b.table(["Item", "Detail"], [
        ["ISIN", fd.isin], ["Base currency", "USD" if "US" in fd.label else "EUR"],
        ["Launch date", f"{launch.day} {launch.strftime('%B')} {launch.year}"],
        ["Distribution policy", fam.rng.choice(["Accumulating", "Distributing (quarterly)"])]])
    b.heading(2, "Risk factors")
    b.bullets(["Investment risk: the value of your investment may go down as well as up.",
               "Index tracking risk: the Fund's return may differ from the index return.",
               "Currency risk: returns may be affected by exchange-rate movements.",
               "Counterparty risk: securities lending exposes the Fund to borrower default."])
    b.heading(2, "Fees and expenses")
    p_cost_pro = b.para(f"The ongoing charges of the {fund} are {fd.ocf} per annum of the net asset value, "
                        f"accrued daily and paid monthly.")
    b.heading(2, "Dealing")
    b.para("Shares may be subscribed or redeemed on each business day through authorised participants; "
           "investors buy and sell shares on the secondary market.")
    qs = [
        Question(f"What index does the {fund} track, according to its {FUND_YEAR} prospectus?", "text", [pid],
                 [p_obj], f"{fam.provider} {fd.index_name}"),
        Question(f"What is the ISIN of the {fund} in its {FUND_YEAR} prospectus?", "table", [pid],
                 [head, r_isin], fd.isin),
    ]
    fam.cost_pro.append((fund, fam.ocfs[fd.k], pid, p_cost_pro))
    return make_doc(b, qs, doc_id=pid, title=f"{fund} — Prospectus {FUND_YEAR}", doc_type="prospectus",
                    issuer=fund, ticker=None, fiscal_year=FUND_YEAR, period_end=None, filed_at=fd.filed,
                    format="markdown", source_uri=f"https://example.invalid/funds/{fd.slug}/prospectus.md")


def _kid(fam: _Family, fd: _Fund):
    fund, sri, hold, kid, rng = fd.name, fd.sri, fd.hold, f"kid-{fd.slug}-{FUND_YEAR}", fam.rng
    b = BlockBuilder(kid)
    b.heading(1, f"Key Information Document — {fund} ({FUND_YEAR})")
    b.heading(2, "Purpose")
    b.para("This document provides you with key information about this investment product. It is not "
           "marketing material.")
    b.heading(2, "Product")
    b.para(f"{fund} (ISIN {fd.isin}). Manufacturer: {fam.mgr}.")
    b.heading(2, "What is this product?")
    b.para(f"The Fund aims to track the {fam.provider} {fd.index_name}. It is an exchange-traded fund.")
    b.heading(2, "What are the risks and what could I get in return?")
    p_sri = b.para(f"We have classified this product as {sri} out of 7, which is "
                   f"{'a low' if sri <= 2 else 'a medium-high' if sri <= 5 else 'a high'} risk class.")
    start = 10000
    scen = [("Stress", rng.uniform(0.3, 0.7), rng.uniform(0.2, 0.6)),
            ("Unfavourable", rng.uniform(0.7, 0.9), rng.uniform(0.6, 0.95)),
            ("Moderate", rng.uniform(1.0, 1.08), rng.uniform(1.1, 1.4)),
            ("Favourable", rng.uniform(1.1, 1.4), rng.uniform(1.4, 2.2))]
    shead, *srows = b.table(["Scenario (investment €10,000)", "1 year",
                             f"{hold} years" if hold > 1 else "1 year (recommended)"],
                            [[s, f"€{int(start * a):,}", f"€{int(start * c):,}"] for s, a, c in scen])
    b.heading(2, "What are the costs?")
    p_cost = b.para(f"The ongoing charges of the {fund} are {fd.ocf} of the value of your investment per year. "
                    f"There are no entry or exit charges when you trade on the secondary market.")
    b.heading(2, "How long should I hold it and can I take money out early?")
    p_hold = b.para(f"Recommended holding period: {hold} year{'s' if hold > 1 else ''}.")
    qs = [
        Question(f"What risk class is the {fund} given in its {FUND_YEAR} Key Information Document?", "text",
                 [kid], [p_sri], f"{sri} out of 7"),
        Question(f"What is the recommended holding period of the {fund} per its {FUND_YEAR} KID?", "text",
                 [kid], [p_hold], f"{hold} year{'s' if hold > 1 else ''}"),
        Question(f"What is the moderate scenario value after 1 year for €10,000 invested in the {fund}, per "
                 f"its {FUND_YEAR} KID?", "table", [kid], [shead, srows[2]], f"€{int(start * scen[2][1]):,}"),
        Question(f"What was the {fund}'s return in calendar year 2019?", "unanswerable", [kid], [], None),
    ]
    fam.cost_kid.append((fund, fam.ocfs[fd.k], kid, p_cost))
    return make_doc(b, qs, doc_id=kid, title=f"Key Information Document — {fund} ({FUND_YEAR})",
                    doc_type="kid", issuer=fund, ticker=None, fiscal_year=FUND_YEAR, period_end=None,
                    filed_at=fd.filed, format="markdown", source_uri=f"https://example.invalid/funds/{fd.slug}/kid.md")


def _comparisons(fam: _Family) -> list[Question]:
    """Which fund is cheaper, across the KIDs and across the prospectuses."""
    brand, cost_kid, cost_pro = fam.brand, fam.cost_kid, fam.cost_pro
    comps = []
    for (fa, oa, da, pa_), (fb, ob, db, pb) in itertools.combinations(cost_kid, 2):
        comps.append(Question(f"Which has the lower ongoing charges according to their {FUND_YEAR} KIDs: the {fa} "
                              f"or the {fb}?", "comparison", [da, db], [pa_, pb], fa if oa < ob else fb))
    for src, what in ((cost_kid, "Key Information Documents"), (cost_pro, "prospectuses")):
        lo, hi = min(src, key=lambda t: t[1]), max(src, key=lambda t: t[1])
        comps.append(Question(f"Which of the five {brand} UCITS ETFs has the lowest ongoing charges, according to "
                              f"their {FUND_YEAR} {what}?", "comparison", [t[2] for t in src],
                              [t[3] for t in src], lo[0]))
        comps.append(Question(f"Which of the five {brand} UCITS ETFs has the highest ongoing charges, according to "
                              f"their {FUND_YEAR} {what}?", "comparison", [t[2] for t in src],
                              [t[3] for t in src], hi[0]))
    for (fa, oa, da, pa_), (fb, ob, db, pb) in itertools.pairwise(cost_pro):
        comps.append(Question(f"Which is cheaper to hold according to the {FUND_YEAR} prospectuses: the {fa} or "
                              f"the {fb}?", "comparison", [da, db], [pa_, pb], fa if oa < ob else fb))
    return comps
