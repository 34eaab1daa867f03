"""Sell-side research notes (Markdown, doc_type "research") on the US issuers.

Layout: title, a dateline paragraph, "## Rating and price target", "## Investment
thesis", "## Estimates" (pipe table FY columns, superscript-marked rows, footnotes
below), "## Valuation", "## Risks" (bulleted list), "## Disclosures"."""
from __future__ import annotations

import datetime as dt
import random

from .common import BlockBuilder, Question, long_date, make_doc, money, sup, utc
from .figures import US_FY, add_q
from .names import BANKS, person


def research_note(seed: int, ctx):
    iss, f = ctx.iss, ctx.fig
    rng = random.Random(f"{seed}|research|{iss.index}")
    broker = BANKS[(iss.index + 3) % len(BANKS)]
    analyst = person(rng)
    date = (ctx.filed_k + dt.timedelta(days=rng.randint(2, 20))).date()
    doc_id = f"research-{iss.slug}-{US_FY}"
    name = iss.name
    rating = rng.choice(["Buy", "Overweight", "Hold", "Underweight"])
    price = rng.randint(2000, 30000) / 100
    target = round(price * rng.uniform(0.8, 1.4), 0)
    upside = (target / price - 1) * 100
    fy = add_q(f.cur)
    rev = [fy["revenue"], int(fy["revenue"] * rng.uniform(1.02, 1.12))]
    rev.append(int(rev[1] * rng.uniform(1.02, 1.12)))
    margin = rng.uniform(0.2, 0.3)
    ebitda = [int(r * (margin + 0.01 * k + rng.uniform(-0.005, 0.005))) for k, r in enumerate(rev)]
    eps0 = rng.randint(100, 900) / 100
    adj_eps = [eps0 * (1 + 0.08 * k + rng.uniform(-0.03, 0.03)) for k in range(3)]
    fcf = [int(e * rng.uniform(0.4, 0.7)) for e in ebitda]
    mult = rng.uniform(7, 14)
    years = [f"FY{US_FY}A", f"FY{US_FY + 1}E", f"FY{US_FY + 2}E"]
    title = f"{broker} — {name} ({iss.ticker}): {rng.choice(['Execution on track', 'Margins inflecting', 'Restructuring under way', 'Cash return ahead'])}"
    b = BlockBuilder(doc_id)
    qs: list[Question] = []
    b.heading(1, title)
    b.para(f"Equity research, {long_date(date)}. Analyst: {analyst}.")
    b.heading(2, "Rating and price target")
    p_rate = b.para(f"We rate {name} {rating} with a 12-month price target of ${target:,.0f}, implying "
                    f"{abs(upside):.1f}% {'upside' if upside >= 0 else 'downside'} from the last close of ${price:,.2f}.")
    b.heading(2, "Investment thesis")
    b.para(f"Fiscal {US_FY} results confirmed that pricing is holding and that the restructuring announced during "
           f"the year will lift margins. We see scope for capital returns given the balance sheet.")
    p_val_ref = b.para(f"Our estimates assume revenue growth of {(rev[1] / rev[0] - 1) * 100:.1f}% in fiscal "
                       f"{US_FY + 1}; EBITDA as we define it is explained below the estimates table.")
    b.heading(2, "Estimates")
    head, r_rev, r_ebitda, r_eps, r_fcf = b.table(["$ million", *years], [
        ["Revenue", *[money(r) for r in rev]],
        ["EBITDA" + sup(1), *[money(e) for e in ebitda]],
        ["Adjusted EPS ($)" + sup(2), *[f"{e:.2f}" for e in adj_eps]],
        ["Free cash flow" + sup(3), *[money(x) for x in fcf]],
    ])
    n1 = b.para(f"{sup(1)} EBITDA excludes restructuring charges and stock-based compensation.", "note")
    n2 = b.para(f"{sup(2)} Adjusted EPS excludes amortization of acquired intangibles of "
                f"${money(rng.randint(50, 500))} million after tax.", "note")
    n3 = b.para(f"{sup(3)} Free cash flow is operating cash flow less capital expenditure of "
                f"${money(int(ebitda[1] * rng.uniform(0.1, 0.3)))} million in {years[1]}.", "note")
    b.heading(2, "Valuation")
    p_val = b.para(f"Our price target is based on {mult:.1f}x {years[1]} EBITDA, in line with peers.")
    b.heading(2, "Risks")
    b.bullets(["Slower demand in core markets", "Execution risk on the restructuring", "Higher interest costs"])
    b.heading(2, "Disclosures")
    b.para(f"{broker} may seek to do business with companies covered in its research reports. This note is "
           f"fictitious and for testing only.")
    note = f"{broker} research note of {long_date(date)}"
    qs += [
        Question(f"What rating does the {note} give {name}?", "text", [doc_id], [p_rate], f"{name} {rating}"),
        Question(f"What 12-month price target does the {note} set for {name}?", "text", [doc_id], [p_rate],
                 f"${target:,.0f}"),
        Question(f"What {years[1]} revenue does the {note} forecast for {name}?", "table", [doc_id],
                 [head, r_rev], money(rev[1])),
        Question(f"What does the EBITDA in the {note} on {name} exclude?", "footnote", [doc_id], [r_ebitda, n1],
                 "restructuring charges and stock-based compensation"),
        Question(f"What capital expenditure is assumed in the {years[1]} free cash flow of {name} in the {note}?",
                 "footnote", [doc_id], [r_fcf, n3], n3_amount(b.get(n3))),
        Question(f"What {years[1]} EBITDA, and on what definition, underlies the price target for {name} in the "
                 f"{note}?", "table_and_note", [doc_id], [head, r_ebitda, n1, p_val], money(ebitda[1])),
        Question(f"What EBITDA multiple is the price target for {name} based on in the {note}, and what does that "
                 f"EBITDA exclude?", "text_and_note", [doc_id], [p_val, n1], f"{mult:.1f}x"),
        Question(f"What EBITDA margin does the {note} forecast for {name} in {years[1]}, in percent with one "
                 f"decimal?", "calculation", [doc_id], [head, r_rev, r_ebitda],
                 f"{ebitda[1] / rev[1] * 100:.1f}%"),
        Question(f"What was the previous price target for {name} before the {note}?", "unanswerable", [doc_id], [], None),
    ]
    return make_doc(b, qs, doc_id=doc_id, title=title, doc_type="research", issuer=name, ticker=iss.ticker,
                    fiscal_year=US_FY, period_end=None, filed_at=utc(date.year, date.month, date.day, 11, 0),
                    format="markdown", source_uri=None)


def n3_amount(text: str) -> str:
    return text.split("capital expenditure of ")[1].split(" in ")[0]
