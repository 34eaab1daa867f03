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
    """Yield the 10 documents of fund family `index`, then comparison questions as a list."""
    mgr, mslug = fund_manager(index)
    brand = mgr.replace(" Asset Management", "")
    rng = random.Random(f"{seed}|fund|{index}")
    ocfs = rng.sample(_OCF, len(_FUNDS))
    provider = rng.choice(["Solstice", "Northstar", "Apex", "Clearwater"])
    docs, cost_kid, cost_pro = [], [], []
    for k, (label, index_name, sri) in enumerate(_FUNDS):
        fund = f"{brand} {label} UCITS ETF"
        isin = f"IE000{rng.randint(0, 9999999):07d}"[:12]
        ocf = f"{ocfs[k] / 100:.2f}%"
        launch = dt.date(rng.randint(2012, 2021), rng.randint(1, 12), rng.randint(1, 28))
        hold = 1 if sri <= 2 else 5
        fslug = f"{mslug}-{label.lower().replace(' ', '-')}"
        filed = utc(FUND_YEAR, 2, 1 + k, 9, 0)
        # ---------------- prospectus
        pid = f"prospectus-{fslug}-{FUND_YEAR}"
        b = BlockBuilder(pid)
        b.heading(1, f"{fund} — Prospectus {FUND_YEAR}")
        b.para(f"This prospectus relates to the {fund}, a sub-fund of {brand} ETF Funds plc, an umbrella "
               f"investment company with segregated liability between sub-funds, managed by {mgr}.")
        b.heading(2, "Investment objective")
        p_obj = b.para(f"The investment objective of the Fund is to track the performance of the {provider} "
                       f"{index_name}, before fees and expenses.")
        b.heading(2, "Investment policy")
        b.para("The Fund uses a physical replication strategy and may lend securities to generate additional "
               "income. The Fund may use derivatives for efficient portfolio management only.")
        b.heading(2, "Fund details")
        head, r_isin, r_cur, r_launch, r_div = b.table(["Item", "Detail"], [
            ["ISIN", isin], ["Base currency", "USD" if "US" in label else "EUR"],
            ["Launch date", f"{launch.day} {launch.strftime('%B')} {launch.year}"],
            ["Distribution policy", rng.choice(["Accumulating", "Distributing (quarterly)"])]])
        b.heading(2, "Risk factors")
        b.bullets(["Investment risk: the value of your investment may go down as well as up.",
                   "Index tracking risk: the Fund's return may differ from the index return.",
                   "Currency risk: returns may be affected by exchange-rate movements.",
                   "Counterparty risk: securities lending exposes the Fund to borrower default."])
        b.heading(2, "Fees and expenses")
        p_cost_pro = b.para(f"The ongoing charges of the {fund} are {ocf} per annum of the net asset value, "
                            f"accrued daily and paid monthly.")
        b.heading(2, "Dealing")
        b.para("Shares may be subscribed or redeemed on each business day through authorised participants; "
               "investors buy and sell shares on the secondary market.")
        qs = [
            Question(f"What index does the {fund} track, according to its {FUND_YEAR} prospectus?", "text", [pid],
                     [p_obj], f"{provider} {index_name}"),
            Question(f"What is the ISIN of the {fund} in its {FUND_YEAR} prospectus?", "table", [pid],
                     [head, r_isin], isin),
        ]
        docs.append(make_doc(b, qs, doc_id=pid, title=f"{fund} — Prospectus {FUND_YEAR}", doc_type="prospectus",
                             issuer=fund, ticker=None, fiscal_year=FUND_YEAR, period_end=None, filed_at=filed,
                             format="markdown", source_uri=f"https://example.invalid/funds/{fslug}/prospectus.md"))
        cost_pro.append((fund, ocfs[k], pid, p_cost_pro))
        # ---------------- KID
        kid = f"kid-{fslug}-{FUND_YEAR}"
        b = BlockBuilder(kid)
        b.heading(1, f"Key Information Document — {fund} ({FUND_YEAR})")
        b.heading(2, "Purpose")
        b.para("This document provides you with key information about this investment product. It is not "
               "marketing material.")
        b.heading(2, "Product")
        b.para(f"{fund} (ISIN {isin}). Manufacturer: {mgr}.")
        b.heading(2, "What is this product?")
        b.para(f"The Fund aims to track the {provider} {index_name}. It is an exchange-traded fund.")
        b.heading(2, "What are the risks and what could I get in return?")
        p_sri = b.para(f"We have classified this product as {sri} out of 7, which is "
                       f"{'a low' if sri <= 2 else 'a medium-high' if sri <= 5 else 'a high'} risk class.")
        start = 10000
        scen = [("Stress", rng.uniform(0.3, 0.7), rng.uniform(0.2, 0.6)), ("Unfavourable", rng.uniform(0.7, 0.9), rng.uniform(0.6, 0.95)),
                ("Moderate", rng.uniform(1.0, 1.08), rng.uniform(1.1, 1.4)), ("Favourable", rng.uniform(1.1, 1.4), rng.uniform(1.4, 2.2))]
        shead, *srows = b.table(["Scenario (investment €10,000)", "1 year", f"{hold} years" if hold > 1 else "1 year (recommended)"],
                                [[s, f"€{int(start * a):,}", f"€{int(start * c):,}"] for s, a, c in scen])
        b.heading(2, "What are the costs?")
        p_cost = b.para(f"The ongoing charges of the {fund} are {ocf} of the value of your investment per year. "
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
        docs.append(make_doc(b, qs, doc_id=kid, title=f"Key Information Document — {fund} ({FUND_YEAR})",
                             doc_type="kid", issuer=fund, ticker=None, fiscal_year=FUND_YEAR, period_end=None,
                             filed_at=filed, format="markdown",
                             source_uri=f"https://example.invalid/funds/{fslug}/kid.md"))
        cost_kid.append((fund, ocfs[k], kid, p_cost))

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
    for (fa, oa, da, pa_), (fb, ob, db, pb) in zip(cost_pro, cost_pro[1:]):
        comps.append(Question(f"Which is cheaper to hold according to the {FUND_YEAR} prospectuses: the {fa} or the "
                              f"{fb}?", "comparison", [da, db], [pa_, pb], fa if oa < ob else fb))
    return docs, comps
