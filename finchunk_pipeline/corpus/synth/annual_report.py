"""Annual reports (Markdown, doc_type "annual_report"), one template for every issuer.

Layout (identical for every issuer and year, only the numbers and names change)::

    # <Issuer> — Annual report <year>
    ## Chairman's letter            2 paragraphs
    ## Highlights                   1 paragraph
    ### Key figures                 pipe table (€ million) <year> | <year-1>, row labels
                                    carry superscript marks ("Revenue¹"); the footnotes
                                    follow the table, one paragraph each: "¹ Revenue ..."
    ## Business review              ### Markets / ### Operations / ### Acquisitions / ### Outlook
    ## Risks                        intro paragraph + bulleted list
    ## Notes to the financial statements
                                    ### Note 1 — ... to ### Note 8 — ...; Note 4 qualifies the
                                    operating profit printed in the key-figures table
                                    (one-off gain, or a restatement of the prior year).
"""
from __future__ import annotations

import datetime as dt
import random

from .common import BlockBuilder, Question, make_doc, money, sup, utc
from .figures import AR_YEARS, ar_figures
from .names import eu_issuer


def _m(tenths: int) -> str:
    return f"€{money(tenths)} million"


def _cents(tenths: int) -> str:
    return f"{tenths / 10:.1f}"


def annual_reports(seed: int, index: int):
    """Yield the annual reports of EU issuer `index`, one per year in AR_YEARS."""
    iss = eu_issuer(index)
    fig = ar_figures(seed, index)
    for year in AR_YEARS:
        yield _report(seed, iss, fig, year)


def _report(seed, iss, fig, year):
    """One annual report, section by section (the layout in the module docstring); the
    sections draw from one random stream in document order."""
    r = _Report(seed, iss, fig, year)
    r.b.heading(1, f"{iss.name} — Annual report {year}")
    _chairmans_letter(r)
    key = _highlights(r)
    p_acq = _business_review(r)
    _risks(r)
    _notes(r, key, p_acq)
    _unanswerable(r)
    filed = utc(year + 1, 3, r.rng.randint(1, 28), 7, 0)
    return make_doc(
        r.b, r.qs, doc_id=r.doc_id, title=f"{iss.name} — Annual report {year}", doc_type="annual_report",
        issuer=iss.name, ticker=iss.ticker, fiscal_year=year, period_end=dt.date(year, 12, 31), filed_at=filed,
        format="markdown", source_uri=f"https://example.invalid/{iss.slug}/annual-report-{year}.md",
    )


class _Report:
    """What every section of one report reads: the issuer, its figures for the year and the
    prior year, the block builder, the questions so far and the report's random stream."""

    def __init__(self, seed, iss, fig, year):
        self.rng = random.Random(f"{seed}|ar|{iss.index}|{year}")
        self.doc_id = f"ar-{iss.slug}-{year}"
        self.iss, self.fig, self.year = iss, fig, year
        self.cur, self.prev = fig.years[year], fig.years[year - 1]
        self.latest = year == AR_YEARS[-1]
        self.prev_op = fig.restated_prev_op if self.latest else self.prev.op_profit
        self.b = BlockBuilder(self.doc_id)
        self.qs: list[Question] = []

    def Q(self, qtype, text, gold, answer):
        self.qs.append(Question(text, qtype, [self.doc_id], gold, answer))


def _chairmans_letter(r: _Report) -> None:
    b, rng, Q, fig, cur, prev, year, name = r.b, r.rng, r.Q, r.fig, r.cur, r.prev, r.year, r.iss.name
    b.heading(2, "Chairman's letter")
    growth = (cur.revenue / prev.revenue - 1) * 100
    trend = "grew" if growth >= 0 else "declined"
    b.para(f"Dear shareholders, {year} was a year in which the group {trend} and kept its focus on "
           f"cash generation. Revenue {trend} to {_m(cur.revenue)}, and the Board proposes a total "
           f"dividend of {_cents(cur.dividend)} cents per share.")
    p_ceo = b.para(f"After {rng.randint(3, 9)} years with the group, {fig.ceo} continues as Chief Executive, "
                   f"supported by {fig.cfo} as Chief Financial Officer. Our head office remains in {fig.city}. "
                   f"On behalf of the Board, {fig.chair}, Chair.")
    Q("text", f"Who was the Chief Financial Officer of {name} according to its {year} annual report?",
      [p_ceo], fig.cfo)


def _highlights(r: _Report) -> tuple:
    """The key-figures table and its footnotes; returns the (header, revenue row, operating
    profit row) passages the notes' questions cite."""
    b, rng, Q, cur, prev, prev_op, year, name = r.b, r.rng, r.Q, r.cur, r.prev, r.prev_op, r.year, r.iss.name
    b.heading(2, "Highlights")
    b.para("The table below summarises the key figures of the group for the year and the prior year. "
           "All amounts are in € million unless stated otherwise.")
    b.heading(3, "Key figures")
    rows = [
        ["Revenue" + sup(1), money(cur.revenue), money(prev.revenue)],
        ["Operating profit" + sup(2), money(cur.op_profit), money(prev_op)],
        ["Profit before tax", money(cur.pbt), money(prev.pbt)],
        ["Net debt" + sup(3), money(cur.net_debt), money(prev.net_debt)],
        ["Basic earnings per share (cents)", _cents(cur.eps), _cents(prev.eps)],
        ["Dividend per share (cents)" + sup(4), _cents(cur.dividend), _cents(prev.dividend)],
        ["Employees (year end)", f"{cur.employees:,}", f"{prev.employees:,}"],
    ]
    head, r_rev, r_op, r_pbt, r_nd, r_eps, r_div, r_emp = b.table(["€ million", str(year), str(year - 1)], rows)
    agm = dt.date(year + 1, 5, rng.randint(2, 28))
    n1 = b.para(f"{sup(1)} Revenue excludes {_m(cur.discontinued)} from discontinued operations.", "note")
    b.para(f"{sup(2)} Operating profit is stated before amortisation of acquired intangibles of "
           f"{_m(cur.amortisation)}.", "note")
    n3 = b.para(f"{sup(3)} Net debt excludes lease liabilities of {_m(cur.leases)}.", "note")
    b.para(f"{sup(4)} Includes a proposed final dividend subject to approval at the annual general "
           f"meeting on {agm.day} {agm.strftime('%B')} {agm.year}.", "note")

    Q("table", f"What was the revenue of {name} in {year}, in € million, per its {year} annual report?",
      [head, r_rev], money(cur.revenue))
    Q("table", f"What profit before tax did {name} report for {year - 1} in its {year} annual report (€ million)?",
      [head, r_pbt], money(prev.pbt))
    Q("footnote", f"How much revenue from discontinued operations is excluded from {name}'s {year} revenue figure?",
      [r_rev, n1], _m(cur.discontinued))
    Q("footnote", f"What lease liabilities are excluded from the {year} net debt of {name}?",
      [r_nd, n3], _m(cur.leases))
    Q("calculation", f"By what percentage did {name}'s revenue change from {year - 1} to {year}, per its {year} "
      f"annual report? Round to one decimal.", [head, r_rev], f"{(cur.revenue / prev.revenue - 1) * 100:.1f}%")
    Q("calculation", f"What was {name}'s operating margin (operating profit / revenue) in {year}, in percent "
      f"with one decimal?", [head, r_rev, r_op], f"{cur.op_profit / cur.revenue * 100:.1f}%")
    return head, r_rev, r_op


def _business_review(r: _Report):
    """Markets, operations, acquisitions, outlook; returns the acquisitions paragraph (Note 6 cites it)."""
    b, rng, Q, cur, year, name = r.b, r.rng, r.Q, r.cur, r.year, r.iss.name
    b.heading(2, "Business review")
    b.heading(3, "Markets")
    b.para(f"Demand in our main markets was {rng.choice(['resilient', 'mixed', 'strong', 'softer than expected'])} "
           f"during {year}. Pricing discipline and a broader customer base supported volumes, while input "
           f"costs {rng.choice(['eased', 'stabilised', 'rose modestly'])} in the second half.")
    b.heading(3, "Operations")
    p_sites = b.para(f"We opened {cur.sites_opened} new sites during the year and closed the order year with a "
                     f"backlog of {_m(cur.backlog)}. Capital expenditure was directed at automation and energy "
                     f"efficiency.")
    Q("text", f"How many new sites did {name} open in {year}?", [p_sites], f"{cur.sites_opened} new sites")
    b.heading(3, "Acquisitions")
    p_acq = b.para(f"In {year} the group acquired {cur.acquisition}, which strengthens our position in "
                   f"adjacent markets. The consideration and the fair values acquired are set out in Note 6.")
    b.heading(3, "Outlook")
    b.para(f"For {year + 1} the Board expects {rng.choice(['modest', 'continued', 'mid-single-digit'])} "
           f"revenue growth and further progress on margins, subject to the risks described below.")
    return p_acq


def _risks(r: _Report) -> None:
    b, rng = r.b, r.rng
    b.heading(2, "Risks")
    b.para("The principal risks that could affect the group's performance are:")
    risks = rng.sample(["Customer concentration in our largest market", "Volatility in energy and raw "
                        "material prices", "Cyber-security incidents affecting operations", "Availability of "
                        "skilled labour", "Changes in tax and trade regulation", "Foreign exchange movements",
                        "Integration of acquired businesses"], 4)
    b.bullets(risks)


def _notes(r: _Report, key: tuple, p_acq) -> None:
    b, rng, Q, fig, cur, prev, year, name, latest = r.b, r.rng, r.Q, r.fig, r.cur, r.prev, r.year, r.iss.name, r.latest
    head, r_rev, r_op = key
    b.heading(2, "Notes to the financial statements")
    b.heading(3, "Note 1 — Basis of preparation")
    b.para("The consolidated financial statements are prepared in accordance with International Financial "
           "Reporting Standards as adopted in the European Union, on a going-concern basis.")
    b.heading(3, "Note 2 — Segment information")
    b.para(f"The group reports {rng.randint(2, 4)} operating segments based on the internal reports reviewed "
           f"by the Chief Executive.")
    b.heading(3, "Note 3 — Revenue")
    b.para("Revenue is recognised when control of goods or services passes to the customer, generally on "
           "delivery or over the period of service.")
    b.heading(3, "Note 4 — Operating profit")
    if latest:
        n_op = b.para(f"Operating profit for {year - 1} has been restated from {_m(prev.op_profit)} as originally "
                      f"reported to {_m(fig.restated_prev_op)} following {fig.restatement_reason}.")
        Q("table_and_note", f"What was {name}'s {year - 1} operating profit as shown in its {year} annual report, "
          f"and was it restated?", [head, r_op, n_op], money(fig.restated_prev_op))
        Q("text_and_note", f"Why was {name}'s {year - 1} operating profit restated in its {year} annual report?",
          [r_op, n_op], fig.restatement_reason)
    else:
        n_op = b.para(f"Operating profit for {year} includes a one-off gain of {_m(cur.one_off)} on the disposal "
                      f"of {cur.disposal}.")
        Q("table_and_note", f"What one-off gain is included in {name}'s {year} operating profit as reported in "
          f"the key figures of its {year} annual report?", [r_op, n_op], _m(cur.one_off))
        Q("text_and_note", f"What did {name} dispose of in {year}, producing a one-off gain?",
          [r_op, n_op], cur.disposal)
    b.heading(3, "Note 5 — Taxation")
    b.para(f"The effective tax rate for the year was {rng.uniform(19, 29):.1f}%.")
    b.heading(3, "Note 6 — Acquisitions")
    n_acq = b.para(f"The consideration for {cur.acquisition} was {_m(cur.consideration)}, paid in cash on "
                   f"completion.")
    Q("text_and_note", f"How much did {name} pay for the business it acquired in {year}, per its {year} "
      f"annual report?", [p_acq, n_acq], _m(cur.consideration))
    b.heading(3, "Note 7 — Borrowings")
    b.para(f"The group's revolving credit facility of {_m(rng.randint(1000, 9000))} was undrawn at year end.")
    b.heading(3, "Note 8 — Events after the reporting period")
    b.para("There were no significant events after the reporting period.")


def _unanswerable(r: _Report) -> None:
    name, year, iss, qs, doc_id = r.iss.name, r.year, r.iss, r.qs, r.doc_id
    unans = [
        f"How much did {name} spend on research and development in {year}?",
        f"What was {name}'s revenue in Japan in {year}?",
        f"How many patents did {name} hold at the end of {year}?",
        f"What was the share price of {name} on the last trading day of {year}?",
    ]
    qs.append(Question(unans[(iss.index + year) % len(unans)], "unanswerable", [doc_id], [], None))
