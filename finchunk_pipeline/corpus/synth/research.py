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
    """The research note on the filer ``ctx``, section by section; its own random stream
    draws the note's figures first, then the footnotes' amounts in document order."""
    n = _Note(seed, ctx)
    n.b.heading(1, n.title)
    n.b.para(f"Equity research, {long_date(n.date)}. Analyst: {n.analyst}.")
    p_rate = _rating_and_thesis(n)
    est = _estimates(n)
    p_val = _valuation_risks_disclosures(n)
    _note_questions(n, p_rate, est, p_val)
    iss, date = ctx.iss, n.date
    return make_doc(n.b, n.qs, doc_id=n.doc_id, title=n.title, doc_type="research", issuer=iss.name,
                    ticker=iss.ticker, fiscal_year=US_FY, period_end=None,
                    filed_at=utc(date.year, date.month, date.day, 11, 0), format="markdown", source_uri=None)


class _Note:
    """What every section of the note reads: broker, analyst, rating, estimates, the builder,
    the questions so far and the note's random stream."""

    def __init__(self, seed, ctx):
        iss, f = ctx.iss, ctx.fig
        self.rng = rng = random.Random(f"{seed}|research|{iss.index}")
        self.broker = BANKS[(iss.index + 3) % len(BANKS)]
        self.analyst = person(rng)
        self.date = (ctx.filed_k + dt.timedelta(days=rng.randint(2, 20))).date()
        self.doc_id = f"research-{iss.slug}-{US_FY}"
        self.name = iss.name
        self.rating = rng.choice(["Buy", "Overweight", "Hold", "Underweight"])
        self.price = rng.randint(2000, 30000) / 100
        self.target = round(self.price * rng.uniform(0.8, 1.4), 0)
        fy = add_q(f.cur)
        rev = [fy["revenue"], int(fy["revenue"] * rng.uniform(1.02, 1.12))]
        rev.append(int(rev[1] * rng.uniform(1.02, 1.12)))
        margin = rng.uniform(0.2, 0.3)
        self.rev = rev
        self.ebitda = [int(r * (margin + 0.01 * k + rng.uniform(-0.005, 0.005))) for k, r in enumerate(rev)]
        eps0 = rng.randint(100, 900) / 100
        self.adj_eps = [eps0 * (1 + 0.08 * k + rng.uniform(-0.03, 0.03)) for k in range(3)]
        self.fcf = [int(e * rng.uniform(0.4, 0.7)) for e in self.ebitda]
        self.mult = rng.uniform(7, 14)
        self.years = [f"FY{US_FY}A", f"FY{US_FY + 1}E", f"FY{US_FY + 2}E"]
        headline = rng.choice(['Execution on track', 'Margins inflecting', 'Restructuring under way',
                               'Cash return ahead'])
        self.title = f"{self.broker} — {self.name} ({iss.ticker}): {headline}"
        self.b = BlockBuilder(self.doc_id)
        self.qs: list[Question] = []


def _rating_and_thesis(n: _Note):
    """Returns the rating paragraph."""
    b, rev = n.b, n.rev
    upside = (n.target / n.price - 1) * 100
    b.heading(2, "Rating and price target")
    p_rate = b.para(f"We rate {n.name} {n.rating} with a 12-month price target of ${n.target:,.0f}, implying "
                    f"{abs(upside):.1f}% {'upside' if upside >= 0 else 'downside'} from the last close of "
                    f"${n.price:,.2f}.")
    b.heading(2, "Investment thesis")
    b.para(f"Fiscal {US_FY} results confirmed that pricing is holding and that the restructuring announced during "
           f"the year will lift margins. We see scope for capital returns given the balance sheet.")
    b.para(f"Our estimates assume revenue growth of {(rev[1] / rev[0] - 1) * 100:.1f}% in fiscal "
           f"{US_FY + 1}; EBITDA as we define it is explained below the estimates table.")
    return p_rate


def _estimates(n: _Note) -> dict:
    """The estimates table and its footnotes; returns the passages the questions cite, by name."""
    b, rng, ebitda, years = n.b, n.rng, n.ebitda, n.years
    b.heading(2, "Estimates")
    head, r_rev, r_ebitda, _r_eps, r_fcf = b.table(["$ million", *years], [
        ["Revenue", *[money(r) for r in n.rev]],
        ["EBITDA" + sup(1), *[money(e) for e in ebitda]],
        ["Adjusted EPS ($)" + sup(2), *[f"{e:.2f}" for e in n.adj_eps]],
        ["Free cash flow" + sup(3), *[money(x) for x in n.fcf]],
    ])
    n1 = b.para(f"{sup(1)} EBITDA excludes restructuring charges and stock-based compensation.", "note")
    b.para(f"{sup(2)} Adjusted EPS excludes amortization of acquired intangibles of "
           f"${money(rng.randint(50, 500))} million after tax.", "note")
    n3 = b.para(f"{sup(3)} Free cash flow is operating cash flow less capital expenditure of "
                f"${money(int(ebitda[1] * rng.uniform(0.1, 0.3)))} million in {years[1]}.", "note")
    return {"head": head, "rev": r_rev, "ebitda": r_ebitda, "fcf": r_fcf, "n1": n1, "n3": n3}


def _valuation_risks_disclosures(n: _Note):
    """Returns the valuation paragraph."""
    b = n.b
    b.heading(2, "Valuation")
    p_val = b.para(f"Our price target is based on {n.mult:.1f}x {n.years[1]} EBITDA, in line with peers.")
    b.heading(2, "Risks")
    b.bullets(["Slower demand in core markets", "Execution risk on the restructuring", "Higher interest costs"])
    b.heading(2, "Disclosures")
    b.para(f"{n.broker} may seek to do business with companies covered in its research reports. This note is "
           f"fictitious and for testing only.")
    return p_val


def _note_questions(n: _Note, p_rate, e: dict, p_val) -> None:
    name, years, d = n.name, n.years, n.doc_id
    note = f"{n.broker} research note of {long_date(n.date)}"
    n.qs += [
        Question(f"What rating does the {note} give {name}?", "text", [d], [p_rate], f"{name} {n.rating}"),
        Question(f"What 12-month price target does the {note} set for {name}?", "text", [d], [p_rate],
                 f"${n.target:,.0f}"),
        Question(f"What {years[1]} revenue does the {note} forecast for {name}?", "table", [d],
                 [e["head"], e["rev"]], money(n.rev[1])),
        Question(f"What does the EBITDA in the {note} on {name} exclude?", "footnote", [d], [e["ebitda"], e["n1"]],
                 "restructuring charges and stock-based compensation"),
        Question(f"What capital expenditure is assumed in the {years[1]} free cash flow of {name} in the {note}?",
                 "footnote", [d], [e["fcf"], e["n3"]], n3_amount(n.b.get(e["n3"]))),
        Question(f"What {years[1]} EBITDA, and on what definition, underlies the price target for {name} in the "
                 f"{note}?", "table_and_note", [d], [e["head"], e["ebitda"], e["n1"], p_val],
                 money(n.ebitda[1])),
        Question(f"What EBITDA multiple is the price target for {name} based on in the {note}, and what does that "
                 f"EBITDA exclude?", "text_and_note", [d], [p_val, e["n1"]], f"{n.mult:.1f}x"),
        Question(f"What EBITDA margin does the {note} forecast for {name} in {years[1]}, in percent with one "
                 f"decimal?", "calculation", [d], [e["head"], e["rev"], e["ebitda"]],
                 f"{n.ebitda[1] / n.rev[1] * 100:.1f}%"),
        Question(f"What was the previous price target for {name} before the {note}?", "unanswerable", [d], [],
                 None),
    ]


def n3_amount(text: str) -> str:
    return text.split("capital expenditure of ")[1].split(" in ")[0]
