"""US SEC filings as EDGAR-like HTML: a 10-K, three 10-Qs and one 10-Q/A per issuer.

HTML structure (see common.HtmlBuilder): ``<h1>`` title, Items as ``<h2>`` ("Item 7.
Management's Discussion and ..."), statements and notes as ``<h3>``; statements are
``<table>`` elements whose first ``<tr>`` rows are ``<th>`` header rows — in a 10-Q a
period row ("Three months ended June 30" / "Six months ended June 30", colspan 2) over
a year row whose first cell carries the unit "(in millions, except per-share amounts)".
Row labels carry footnote marks as ``<sup>N</sup>``; the footnotes follow the table as
``<p class="footnote"><sup>N</sup> ...</p>``. Amounts are printed "1,234.5" (USD
millions) and EPS "2.15". The 10-Q/A restates the quarter whose revenue was overstated
(figures.USFigures.amended_q) and says so in an Explanatory Note.

Each filing is written section by section into a ``filing.Filing``; the sections a 10-Q
and a 10-K share (cover, statements) live in filing.py, and every section draws from the
filer's one random stream in document order.
"""
from __future__ import annotations

import datetime as dt

from .common import Question, long_date, money
from .figures import US_FY, add_q
from .filing import UNITS, Filer, Filing, Statements, cover, md, statements

YTD_WORD = {2: "Six", 3: "Nine"}
Q_WORD = {1: "first", 2: "second", 3: "third"}


def ten_q(c: Filer, q: int, amendment: bool):
    """A 10-Q (or the 10-Q/A of the amended quarter), section by section."""
    t = _Quarter(c, q, amendment)
    iss = t.iss
    cover(t, f"Quarterly report pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934 for the "
             f"quarterly period ended {long_date(t.period_end)} (the {Q_WORD[q]} quarter of fiscal {US_FY}). "
             f"Commission file number 001-{int(iss.cik) % 100000:05d}. Common stock trades under the symbol "
             f"{iss.ticker}.", (c.q_start(q), t.period_end))
    if amendment:
        _explanatory_note(t)
    t.b.p("<b>PART I — FINANCIAL INFORMATION</b>")
    t.b.heading(2, "Item 1. Financial Statements")
    st = _quarter_statements(t)
    p_mda, chg, p_liq = _quarter_mda(t)
    _quarter_controls_and_risks(t)
    # Questions about the amended quarter go to the 10-Q/A (the original repeats its passages, so a gold
    # passage there would be ambiguous); the point-in-time questions cover the original.
    if amendment or q != t.f.amended_q:
        _quarter_questions(t, st, p_mda, chg)
    durations = [(c.q_start(q), t.period_end, t.q_cur)]
    if q > 1:
        durations.append((t.f.fy_start, t.period_end, t.y_cur))
    doc, facts = t.finish(f"Q{q}", durations)
    doc.extra = {"ops": st.ops, "heads": st.heads, "cols": t.cols, "n2": st.n2, "n3": st.n3, "bal": st.bal,
                 "p_liq": p_liq}
    return doc, facts


class _Quarter(Filing):
    """A 10-Q being written: its quarter and its columns — three months, and after the first
    quarter the year to date, each beside the prior year's."""

    def __init__(self, c: Filer, q: int, amendment: bool):
        f = c.fig
        qe = f.quarter_ends[q - 1]
        form = "10-Q/A" if amendment else "10-Q"
        super().__init__(c, form, f"{'10qa' if amendment else '10q'}-{c.iss.slug}-{US_FY}q{q}",
                         c.filed_amend if amendment else c.filed_q[q - 1], 5 if amendment else q, qe,
                         f"{c.iss.name} — Form {form} for the quarter ended {long_date(qe)}")
        self.q, self.amendment, self.pqe = q, amendment, f.prior_quarter_ends[q - 1]
        original_q = None if (amendment or q > f.amended_q) else f.amended_q
        self._columns(c.cur_quarters(q, original_q), f.prior[:q])

    def _columns(self, cur, prior) -> None:
        q, qe, pqe, f = self.q, self.period_end, self.pqe, self.f
        self.q_cur, self.q_prior = add_q(cur[-1:]), add_q(prior[-1:])
        self.header = [[("", 1), (f"Three months ended {md(qe)}", 2)],
                       [(UNITS, 1), (str(qe.year), 1), (str(pqe.year), 1)]]
        self.cols = [self.q_cur, self.q_prior]
        self.shares = [f.shares, self.c.prior_shares]
        self.col_names = [("three months", qe.year, "Three months ended"),
                          ("three months", pqe.year, "Three months ended")]
        if q > 1:
            self.y_cur, y_prior = add_q(cur), add_q(prior)
            self.header[0].append((f"{YTD_WORD[q]} months ended {md(qe)}", 2))
            self.header[1] += [(str(qe.year), 1), (str(pqe.year), 1)]
            self.cols += [self.y_cur, y_prior]
            self.shares += [f.shares, self.c.prior_shares]
            self.col_names += [("ytd", qe.year, f"{YTD_WORD[q]} months ended"),
                               ("ytd", pqe.year, f"{YTD_WORD[q]} months ended")]


def _explanatory_note(t: _Quarter) -> None:
    f, q, qe = t.f, t.q, t.period_end
    orig = f.original(q)
    t.b.heading(2, "Explanatory Note")
    t.b.p(f"This Amendment No. 1 on Form 10-Q/A amends the Quarterly Report on Form 10-Q for the quarterly "
          f"period ended {long_date(qe)}, originally filed on {long_date(t.c.filed_q[q - 1].date())}, to correct "
          f"revenues, which were overstated by ${money(f.overstatement)} million because of a cut-off error. "
          f"Revenues for the three months ended {long_date(qe)}, previously reported as "
          f"${money(orig.revenue)} million, are restated to ${money(f.cur[q - 1].revenue)} million. No other "
          f"information in the original report has been updated.")


def _quarter_statements(t: _Quarter) -> Statements:
    c, q, qe = t.c, t.q, t.period_end
    ytd_txt = f" and ${money(sum(c.returns[:q]))} million for the {YTD_WORD[q].lower()} months" if q > 1 else ""
    notes = ((f"Revenues are net of sales returns and allowances of ${money(c.returns[q - 1])} million for "
              f"the three months{ytd_txt} ended {long_date(qe)}."),
             (f"Net income includes stock-based compensation expense of ${money(c.sbc[q - 1])} million for "
              f"the three months ended {long_date(qe)}."),
             (f"Long-term debt excludes the current portion of ${money(c.current_debt[qe])} million as of "
              f"{long_date(qe)}."))
    periods = [(c.q_start(q), qe), None] + ([(t.f.fy_start, qe), None] if q > 1 else [])
    st = statements(t, "Condensed ", " (Unaudited)", t.header, t.cols, t.shares, notes, periods)
    t.b.p("The accompanying notes are an integral part of these condensed consolidated financial statements.")
    return st


def _quarter_mda(t: _Quarter):
    """Item 2; returns (the revenue paragraph, its percentage change, the liquidity paragraph)."""
    b, qe, f = t.b, t.period_end, t.f
    b.heading(2, "Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations")
    chg = (t.q_cur["revenue"] / t.q_prior["revenue"] - 1) * 100
    word = "an increase" if chg >= 0 else "a decrease"
    reason = t.c.rng.choice(['higher volumes', 'price increases', 'new customer wins', 'a stronger product mix'])
    p_mda = b.p(f"Revenues for the three months ended {long_date(qe)} were ${money(t.q_cur['revenue'])} million, "
                f"{word} of {abs(chg):.1f}% compared with ${money(t.q_prior['revenue'])} million in the prior-year "
                f"period, reflecting {reason}.")
    p_liq = b.p(f"As of {long_date(qe)}, we had cash and cash equivalents of ${money(f.balance[qe]['cash'])} "
                f"million and ${money(f.balance[qe]['debt'])} million of long-term debt outstanding.")
    return p_mda, chg, p_liq


def _quarter_controls_and_risks(t: _Quarter) -> None:
    b = t.b
    b.heading(2, "Item 4. Controls and Procedures")
    b.p("Our disclosure controls and procedures were evaluated by management, with the participation of the "
        "Chief Executive Officer and Chief Financial Officer, as of the end of the period covered by this report."
        + (" In connection with the restatement, management identified a material weakness in controls over "
           "revenue cut-off." if t.amendment else ""))
    b.p("<b>PART II — OTHER INFORMATION</b>")
    b.heading(2, "Item 1A. Risk Factors")
    b.p("There have been no material changes to the risk factors disclosed in our most recent Annual Report "
        "on Form 10-K.")


def _quarter_questions(t: _Quarter, st: Statements, p_mda, chg: float) -> None:
    name, qe, form, q = t.iss.name, t.period_end, t.form, t.q
    period = f"quarter ended {long_date(qe)}"
    # filing_period: a figure for a named period column
    picks = [("revenues", "revenue", 0), ("net income", "net_income", 2 if q > 1 else 1),
             ("research and development expenses", "rnd", 1)]
    for what, key, col in picks:
        _kind, year, lab = t.col_names[col]
        t.Q(f"What were {name}'s {what} for the {lab.lower()} {md(qe)}, {year}, as reported in its Form "
            f"{form} for the {period}?", "filing_period", st.heads + [st.ops[key]], money(t.cols[col][key]))
    t.Q(f"What sales returns and allowances were netted from {name}'s revenues for the three months ended "
        f"{long_date(qe)}, per its Form {form}?", "footnote", [st.ops["revenue"], st.n1],
        f"${money(t.c.returns[q - 1])} million")
    t.Q(f"By what percentage did {name}'s revenues change in the three months ended {long_date(qe)} versus the "
        f"prior-year period, according to its Form {form}?", "text", [p_mda], f"{abs(chg):.1f}%")


def ten_k(c: Filer, q3_doc):
    """The 10-K, section by section; the fourth-quarter questions also cite ``q3_doc``."""
    f, iss = c.fig, c.iss
    k = Filing(c, "10-K", f"10k-{iss.slug}-{US_FY}", c.filed_k, 4, c.fy_end,
               f"{iss.name} — Form 10-K for the fiscal year ended {long_date(c.fy_end)}")
    cover(k, f"Annual report pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934 for the fiscal "
             f"year ended {long_date(c.fy_end)}. Common stock trades under the symbol {iss.ticker}.",
          (f.fy_start, c.fy_end))
    k.b.p("<b>PART I</b>")
    _business_and_risks(k)
    k.b.p("<b>PART II</b>")
    fy_vals, prior_vals = add_q(f.cur), add_q(f.prior)
    p_rs = _annual_mda(k, fy_vals, prior_vals)
    st, n9 = _annual_statements(k, fy_vals, prior_vals)
    k.b.heading(2, "Item 9A. Controls and Procedures")
    k.b.p(f"As previously disclosed in our Form 10-Q/A for the {Q_WORD[f.amended_q]} quarter of fiscal {US_FY}, "
          f"management identified a material weakness relating to revenue cut-off, which has been remediated.")
    _annual_questions(k, st, n9, p_rs, fy_vals)
    _fourth_quarter_questions(k, st, q3_doc)
    return k.finish("FY", [(f.fy_start, c.fy_end, fy_vals)])


def _business_and_risks(k: Filing) -> None:
    """Items 1 and 1A (the risk factors are drawn from the filer's random stream)."""
    b, c, name = k.b, k.c, k.iss.name
    b.heading(2, "Item 1. Business")
    p_bus = b.p(f"{name} is headquartered in {c.hq}. As of {long_date(c.fy_end)} we had approximately "
                f"{c.employees:,} full-time employees.")
    k.Q(f"Where is {name} headquartered, according to its fiscal {US_FY} Form 10-K?", "text", [p_bus], c.hq)
    k.Q(f"How many full-time employees did {name} have at the end of fiscal {US_FY}?", "text",
        [p_bus], f"{c.employees:,}")
    b.heading(2, "Item 1A. Risk Factors")
    b.p("Our business is subject to numerous risks, including the following:")
    b.ul(c.rng.sample(["Competition could reduce our market share and margins.",
                       "We depend on a limited number of suppliers for key components.",
                       "Cyber-attacks could disrupt our operations.",
                       "Changes in interest rates could increase our borrowing costs.",
                       "We may not realize the expected benefits of our restructuring."], 4))


def _annual_mda(k: Filing, fy_vals, prior_vals):
    """Item 7; returns the restructuring paragraph (it refers to Note 9)."""
    b = k.b
    b.heading(2, "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations")
    b.p(f"Revenues for fiscal {US_FY} were ${money(fy_vals['revenue'])} million compared with "
        f"${money(prior_vals['revenue'])} million in fiscal {US_FY - 1}.")
    return b.p(f"During fiscal {US_FY} we recorded a restructuring charge related to the consolidation of "
               f"manufacturing sites; see Note 9.")


def _annual_statements(k: Filing, fy_vals, prior_vals):
    """Item 8: the statements and the notes; returns (statements, Note 9 passage)."""
    b, c, f = k.b, k.c, k.f
    b.heading(2, "Item 8. Financial Statements and Supplementary Data")
    hdr = [[("", 1), (f"Year ended {md(c.fy_end)}", 2)],
           [(UNITS, 1), (str(c.fy_end.year), 1), (str(c.prior_end.year), 1)]]
    returns = f"${money(sum(c.returns))} million"
    notes = (f"Revenues are net of sales returns and allowances of {returns} for fiscal {US_FY}.",
             f"Net income includes a restructuring charge of ${money(c.restructuring)} million; see Note 9.",
             f"Long-term debt excludes the current portion of ${money(c.current_debt[c.fy_end])} million.")
    st = statements(k, "", "", hdr, [fy_vals, prior_vals], [f.shares, c.prior_shares], notes,
                    [(f.fy_start, c.fy_end), None])
    b.heading(3, "Notes to Consolidated Financial Statements")
    b.p("<b>Note 1 — Summary of Significant Accounting Policies.</b> The consolidated financial statements are "
        "prepared in accordance with U.S. generally accepted accounting principles.")
    b.p(f"<b>Note 5 — Debt.</b> Long-term debt consists of senior notes maturing between {US_FY + 3} and "
        f"{US_FY + 9}.")
    n9 = b.p(f"<b>Note 9 — Restructuring.</b> The restructuring charge of ${money(c.restructuring)} million "
             f"consisted of severance costs of ${money(c.severance)} million and lease exit costs of "
             f"${money(c.restructuring - c.severance)} million.")
    return st, n9


def _annual_questions(k: Filing, st: Statements, n9, p_rs, fy_vals) -> None:
    c, f, name, ops, heads = k.c, k.f, k.iss.name, st.ops, st.heads
    fy = f"fiscal {US_FY} (year ended {long_date(c.fy_end)})"
    k.Q(f"What were {name}'s revenues for {fy}, per its Form 10-K?", "table", heads + [ops["revenue"]],
        money(fy_vals["revenue"]))
    k.Q(f"What was {name}'s total assets at the end of fiscal {US_FY}?", "table", st.bal_head + [st.bal["assets"]],
        money(f.balance[c.fy_end]["assets"]))
    k.Q(f"What current portion of long-term debt is excluded from {name}'s long-term debt at the end "
        f"of fiscal {US_FY}?", "footnote", [st.bal["debt"], st.n3], f"${money(c.current_debt[c.fy_end])} million")
    k.Q(f"What sales returns and allowances were netted from {name}'s fiscal {US_FY} revenues?",
        "footnote", [ops["revenue"], st.n1], f"${money(sum(c.returns))} million")
    k.Q(f"How much of the restructuring charge included in {name}'s fiscal {US_FY} net income was "
        f"severance?", "table_and_note", [ops["net_income"], st.n2, n9], f"${money(c.severance)} million")
    k.Q(f"What was {name}'s net income for fiscal {US_FY}, and what restructuring charge does it "
        f"include?", "table_and_note", heads + [ops["net_income"], st.n2], money(fy_vals["net_income"]))
    k.Q(f"What were the lease exit costs of the restructuring {name} describes in the MD&A of its fiscal "
        f"{US_FY} 10-K?", "text_and_note", [p_rs, n9], f"${money(c.restructuring - c.severance)} million")


def _fourth_quarter_questions(k: Filing, st: Statements, q3_doc) -> None:
    """Q4 derived from the 10-K and the third-quarter 10-Q, then the margin and an unanswerable one."""
    f, name, ops, heads = k.f, k.iss.name, st.ops, st.heads
    q3_heads, q3_ops = q3_doc.extra["heads"], q3_doc.extra["ops"]
    both = [k.doc_id, q3_doc.doc_id]
    k.Q(f"What were {name}'s fourth-quarter fiscal {US_FY} revenues (fiscal year minus the first nine "
        f"months), in USD millions?", "calculation", heads + [ops["revenue"]] + q3_heads + [q3_ops["revenue"]],
        money(f.cur[3].revenue), both)
    k.Q(f"What was {name}'s fourth-quarter fiscal {US_FY} net income, derived from the 10-K and the "
        f"third-quarter 10-Q, in USD millions?", "calculation",
        heads + [ops["net_income"]] + q3_heads + [q3_ops["net_income"]], money(f.cur[3].net_income), both)
    fy_vals = add_q(f.cur)
    k.Q(f"What was {name}'s operating margin for fiscal {US_FY}, in percent with one decimal?",
        "calculation", heads + [ops["revenue"], ops["op_income"]],
        f"{fy_vals['op_income'] / fy_vals['revenue'] * 100:.1f}%")
    k.Q(f"How much did {name} spend on share repurchases in fiscal {US_FY}?", "unanswerable", [], None)


def _pit_questions(c: Filer, orig, amend):
    """point_in_time: the value known at as_of, before and after the 10-Q/A."""
    f, iss = c.fig, c.iss
    q = f.amended_q
    qe = f.quarter_ends[q - 1]
    rng = c.rng
    before = (orig.row["filed_at"] + dt.timedelta(days=rng.randint(3, 20))).date()
    after = (amend.row["filed_at"] + dt.timedelta(days=rng.randint(3, 20))).date()
    assert before < amend.row["filed_at"].date()
    out = []
    for what, key in (("revenues", "revenue"), ("gross profit", "gross"), ("operating income", "op_income"),
                      ("net income", "net_income")):
        for as_of, doc in ((before, orig), (after, amend)):
            ex = doc.extra
            out.append(Question(
                f"As of {long_date(as_of)}, what were {iss.name}'s reported {what} for the three months ended "
                f"{long_date(qe)}, in USD millions?", "point_in_time", [orig.doc_id, amend.doc_id],
                ex["heads"] + [ex["ops"][key]], money(ex["cols"][0][key]), as_of))
    return out


def us_filings(seed: int, index: int):
    """(documents, xbrl facts, cross-document questions) of US issuer `index`."""
    c = Filer(seed, index)
    docs, facts = [], []
    for q in (1, 2, 3):
        d, fx = ten_q(c, q, amendment=False)
        docs.append(d)
        facts += fx
    amend, fx = ten_q(c, c.fig.amended_q, amendment=True)
    facts += fx
    k, fx = ten_k(c, docs[2])
    facts += fx
    extra = _pit_questions(c, docs[c.fig.amended_q - 1], amend)
    return docs + [amend, k], facts, extra, c
