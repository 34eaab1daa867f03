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
"""
from __future__ import annotations

import datetime as dt
import random

from .common import HtmlBuilder, Question, add_months, long_date, make_doc, money, utc
from .figures import US_FY, USFigures, add_q, eps, us_figures
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
YTD_WORD = {2: "Six", 3: "Nine"}
Q_WORD = {1: "first", 2: "second", 3: "third"}


def _md(d: dt.date) -> str:
    return f"{d.strftime('%B')} {d.day}"


def _label(text: str, mark: int) -> str:
    return f"{text}<sup>{mark}</sup>" if mark else text


def accession(iss, year: int, seq: int) -> str:
    return f"{iss.cik}-{year % 100:02d}-{iss.index * 10 + seq:06d}"


def source_uri(iss, acc: str, period_end: dt.date) -> str:
    return (f"https://www.sec.gov/Archives/edgar/data/{int(iss.cik)}/{acc.replace('-', '')}/"
            f"{iss.ticker.lower()}-{period_end:%Y%m%d}.htm")


class _Ctx:
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


def _ops_table(b: HtmlBuilder, header_rows, columns, shares_cols):
    """columns: list of {line: tenths}; returns ({key: row pid}, header pids)."""
    rows, keys = [], []
    for label, key, mark in OPS_LINES:
        rows.append([_label(label, mark)] + [money(c[key]) for c in columns])
        keys.append(key)
    rows.append(["Diluted earnings per share"] + [eps(c["net_income"], s) for c, s in zip(columns, shares_cols)])
    keys.append("eps")
    pids = b.table(header_rows, rows)
    n = len(header_rows)
    return dict(zip(keys, pids[n:])), pids[:n]


def _bal_table(b: HtmlBuilder, dates, values):
    header = [[("(in millions)", 1)] + [(long_date(d), 1) for d in dates]]
    rows = [[_label(label, mark)] + [money(v[key]) for v in values] for label, key, mark in BAL_LINES]
    pids = b.table(header, rows)
    return dict(zip([k for _, k, _ in BAL_LINES], pids[1:])), pids[:1]


def ten_q(c: _Ctx, q: int, amendment: bool):
    iss, f = c.iss, c.fig
    qe, pqe = f.quarter_ends[q - 1], f.prior_quarter_ends[q - 1]
    original_q = None if (amendment or q > f.amended_q) else f.amended_q
    cur = c.cur_quarters(q, original_q)
    prior = f.prior[:q]
    form = "10-Q/A" if amendment else "10-Q"
    doc_id = f"{'10qa' if amendment else '10q'}-{iss.slug}-{US_FY}q{q}"
    filed = c.filed_amend if amendment else c.filed_q[q - 1]
    acc = accession(iss, filed.year, 5 if amendment else q)
    title = f"{iss.name} — Form {form} for the quarter ended {long_date(qe)}"
    b = HtmlBuilder(doc_id, title)
    qs: list[Question] = []
    b.heading(1, f"{iss.name} — Form {form}")
    b.p(f"Quarterly report pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934 for the "
        f"quarterly period ended {long_date(qe)} (the {Q_WORD[q]} quarter of fiscal {US_FY}). Commission "
        f"file number 001-{int(iss.cik) % 100000:05d}. Common stock trades under the symbol {iss.ticker}.")
    if amendment:
        orig = f.original(q)
        b.heading(2, "Explanatory Note")
        b.p(f"This Amendment No. 1 on Form 10-Q/A amends the Quarterly Report on Form 10-Q for the quarterly "
            f"period ended {long_date(qe)}, originally filed on {long_date(c.filed_q[q - 1].date())}, to correct "
            f"revenues, which were overstated by ${money(f.overstatement)} million because of a cut-off error. "
            f"Revenues for the three months ended {long_date(qe)}, previously reported as "
            f"${money(orig.revenue)} million, are restated to ${money(f.cur[q - 1].revenue)} million. No other "
            f"information in the original report has been updated.")
    b.p("<b>PART I — FINANCIAL INFORMATION</b>")
    b.heading(2, "Item 1. Financial Statements")
    b.heading(3, "Condensed Consolidated Statements of Operations (Unaudited)")
    q_cur, q_prior = add_q(cur[-1:]), add_q(prior[-1:])
    hdr1 = [("", 1), (f"Three months ended {_md(qe)}", 2)]
    hdr2 = [(UNITS, 1), (str(qe.year), 1), (str(pqe.year), 1)]
    cols = [q_cur, q_prior]
    shares = [f.shares, c.prior_shares]
    col_names = [("three months", qe.year, "Three months ended"), ("three months", pqe.year, "Three months ended")]
    if q > 1:
        y_cur, y_prior = add_q(cur), add_q(prior)
        hdr1.append((f"{YTD_WORD[q]} months ended {_md(qe)}", 2))
        hdr2 += [(str(qe.year), 1), (str(pqe.year), 1)]
        cols += [y_cur, y_prior]
        shares += [f.shares, c.prior_shares]
        col_names += [("ytd", qe.year, f"{YTD_WORD[q]} months ended"), ("ytd", pqe.year, f"{YTD_WORD[q]} months ended")]
    ops, heads = _ops_table(b, [hdr1, hdr2], cols, shares)
    ytd_txt = f" and ${money(sum(c.returns[:q]))} million for the {YTD_WORD[q].lower()} months" if q > 1 else ""
    n1 = b.note(1, f"Revenues are net of sales returns and allowances of ${money(c.returns[q - 1])} million for "
                   f"the three months{ytd_txt} ended {long_date(qe)}.")
    n2 = b.note(2, f"Net income includes stock-based compensation expense of ${money(c.sbc[q - 1])} million for "
                   f"the three months ended {long_date(qe)}.")
    b.heading(3, "Condensed Consolidated Balance Sheets (Unaudited)")
    bal_vals = [f.balance[qe], f.balance[c.prior_end]]
    bal, bal_head = _bal_table(b, [qe, c.prior_end], bal_vals)
    n3 = b.note(3, f"Long-term debt excludes the current portion of ${money(c.current_debt[qe])} million as of "
                   f"{long_date(qe)}.")
    b.p("The accompanying notes are an integral part of these condensed consolidated financial statements.")

    b.heading(2, "Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations")
    chg = (q_cur["revenue"] / q_prior["revenue"] - 1) * 100
    word = "an increase" if chg >= 0 else "a decrease"
    p_mda = b.p(f"Revenues for the three months ended {long_date(qe)} were ${money(q_cur['revenue'])} million, "
                f"{word} of {abs(chg):.1f}% compared with ${money(q_prior['revenue'])} million in the prior-year "
                f"period, reflecting {c.rng.choice(['higher volumes', 'price increases', 'new customer wins', 'a stronger product mix'])}.")
    p_liq = b.p(f"As of {long_date(qe)}, we had cash and cash equivalents of ${money(f.balance[qe]['cash'])} "
                f"million and ${money(f.balance[qe]['debt'])} million of long-term debt outstanding.")
    b.heading(2, "Item 4. Controls and Procedures")
    b.p("Our disclosure controls and procedures were evaluated by management, with the participation of the "
        "Chief Executive Officer and Chief Financial Officer, as of the end of the period covered by this report."
        + (" In connection with the restatement, management identified a material weakness in controls over "
           "revenue cut-off." if amendment else ""))
    b.p("<b>PART II — OTHER INFORMATION</b>")
    b.heading(2, "Item 1A. Risk Factors")
    b.p("There have been no material changes to the risk factors disclosed in our most recent Annual Report "
        "on Form 10-K.")

    period = f"quarter ended {long_date(qe)}"
    # Questions about the amended quarter go to the 10-Q/A (the original repeats its passages, so a gold
    # passage there would be ambiguous); the point-in-time questions cover the original.
    if amendment or q != f.amended_q:
        name = iss.name
        # filing_period: a figure for a named period column
        picks = [("revenues", "revenue", 0), ("net income", "net_income", 2 if q > 1 else 1),
                 ("research and development expenses", "rnd", 1)]
        for what, key, col in picks:
            kind, year, lab = col_names[col]
            qs.append(Question(
                f"What were {name}'s {what} for the {lab.lower()} {_md(qe)}, {year}, as reported in its Form "
                f"{form} for the {period}?", "filing_period", [doc_id], heads + [ops[key]], money(cols[col][key])))
        qs.append(Question(
            f"What sales returns and allowances were netted from {name}'s revenues for the three months ended "
            f"{long_date(qe)}, per its Form {form}?", "footnote", [doc_id], [ops["revenue"], n1],
            f"${money(c.returns[q - 1])} million"))
        qs.append(Question(
            f"By what percentage did {name}'s revenues change in the three months ended {long_date(qe)} versus the "
            f"prior-year period, according to its Form {form}?", "text", [doc_id], [p_mda], f"{abs(chg):.1f}%"))
    facts_durations = [(c.q_start(q), qe, q_cur, eps(q_cur["net_income"], f.shares))]
    if q > 1:
        facts_durations.append((f.fy_start, qe, y_cur, eps(y_cur["net_income"], f.shares)))
    facts = filing_facts(iss, form=form, accession=acc, filed=filed, fy=US_FY, fp=f"Q{q}",
                         durations=facts_durations, instant=(qe, f.balance[qe]))
    doc = make_doc(b, qs, doc_id=doc_id, title=title, doc_type=form, issuer=iss.name, ticker=iss.ticker,
                   fiscal_year=US_FY, period_end=qe, filed_at=filed, format="html",
                   source_uri=source_uri(iss, acc, qe))
    doc.extra = {"ops": ops, "heads": heads, "cols": cols, "n2": n2, "n3": n3, "bal": bal, "p_liq": p_liq}
    return doc, facts


def ten_k(c: _Ctx, q3_doc):
    iss, f = c.iss, c.fig
    doc_id = f"10k-{iss.slug}-{US_FY}"
    filed = c.filed_k
    acc = accession(iss, filed.year, 4)
    title = f"{iss.name} — Form 10-K for the fiscal year ended {long_date(c.fy_end)}"
    b = HtmlBuilder(doc_id, title)
    qs: list[Question] = []
    name = iss.name
    b.heading(1, f"{iss.name} — Form 10-K")
    b.p(f"Annual report pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934 for the fiscal "
        f"year ended {long_date(c.fy_end)}. Common stock trades under the symbol {iss.ticker}.")
    b.p("<b>PART I</b>")
    b.heading(2, "Item 1. Business")
    p_bus = b.p(f"{name} is headquartered in {c.hq}. As of {long_date(c.fy_end)} we had approximately "
                f"{c.employees:,} full-time employees.")
    qs.append(Question(f"Where is {name} headquartered, according to its fiscal {US_FY} Form 10-K?", "text",
                       [doc_id], [p_bus], c.hq))
    qs.append(Question(f"How many full-time employees did {name} have at the end of fiscal {US_FY}?", "text",
                       [doc_id], [p_bus], f"{c.employees:,}"))
    b.heading(2, "Item 1A. Risk Factors")
    b.p("Our business is subject to numerous risks, including the following:")
    b.ul(c.rng.sample(["Competition could reduce our market share and margins.",
                       "We depend on a limited number of suppliers for key components.",
                       "Cyber-attacks could disrupt our operations.",
                       "Changes in interest rates could increase our borrowing costs.",
                       "We may not realize the expected benefits of our restructuring."], 4))
    b.p("<b>PART II</b>")
    b.heading(2, "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations")
    fy_vals, prior_vals = add_q(f.cur), add_q(f.prior)
    p_mda = b.p(f"Revenues for fiscal {US_FY} were ${money(fy_vals['revenue'])} million compared with "
                f"${money(prior_vals['revenue'])} million in fiscal {US_FY - 1}.")
    p_rs = b.p(f"During fiscal {US_FY} we recorded a restructuring charge related to the consolidation of "
               f"manufacturing sites; see Note 9.")
    b.heading(2, "Item 8. Financial Statements and Supplementary Data")
    b.heading(3, "Consolidated Statements of Operations")
    hdr = [[("", 1), (f"Year ended {_md(c.fy_end)}", 2)],
           [(UNITS, 1), (str(c.fy_end.year), 1), (str(c.prior_end.year), 1)]]
    ops, heads = _ops_table(b, hdr, [fy_vals, prior_vals], [f.shares, c.prior_shares])
    n1 = b.note(1, f"Revenues are net of sales returns and allowances of ${money(sum(c.returns))} million for "
                   f"fiscal {US_FY}.")
    n2 = b.note(2, f"Net income includes a restructuring charge of ${money(c.restructuring)} million; see Note 9.")
    b.heading(3, "Consolidated Balance Sheets")
    bal, bal_head = _bal_table(b, [c.fy_end, c.prior_end], [f.balance[c.fy_end], f.balance[c.prior_end]])
    n3 = b.note(3, f"Long-term debt excludes the current portion of ${money(c.current_debt[c.fy_end])} million.")
    b.heading(3, "Notes to Consolidated Financial Statements")
    b.p("<b>Note 1 — Summary of Significant Accounting Policies.</b> The consolidated financial statements are "
        "prepared in accordance with U.S. generally accepted accounting principles.")
    b.p(f"<b>Note 5 — Debt.</b> Long-term debt consists of senior notes maturing between {US_FY + 3} and "
        f"{US_FY + 9}.")
    n9 = b.p(f"<b>Note 9 — Restructuring.</b> The restructuring charge of ${money(c.restructuring)} million "
             f"consisted of severance costs of ${money(c.severance)} million and lease exit costs of "
             f"${money(c.restructuring - c.severance)} million.")
    b.heading(2, "Item 9A. Controls and Procedures")
    amend_q = f.amended_q
    b.p(f"As previously disclosed in our Form 10-Q/A for the {Q_WORD[amend_q]} quarter of fiscal {US_FY}, "
        f"management identified a material weakness relating to revenue cut-off, which has been remediated.")

    fy = f"fiscal {US_FY} (year ended {long_date(c.fy_end)})"
    qs += [
        Question(f"What were {name}'s revenues for {fy}, per its Form 10-K?", "table", [doc_id],
                 heads + [ops["revenue"]], money(fy_vals["revenue"])),
        Question(f"What was {name}'s total assets at the end of fiscal {US_FY}?", "table", [doc_id],
                 bal_head + [bal["assets"]], money(f.balance[c.fy_end]["assets"])),
        Question(f"What current portion of long-term debt is excluded from {name}'s long-term debt at the end "
                 f"of fiscal {US_FY}?", "footnote", [doc_id], [bal["debt"], n3],
                 f"${money(c.current_debt[c.fy_end])} million"),
        Question(f"What sales returns and allowances were netted from {name}'s fiscal {US_FY} revenues?",
                 "footnote", [doc_id], [ops["revenue"], n1], f"${money(sum(c.returns))} million"),
        Question(f"How much of the restructuring charge included in {name}'s fiscal {US_FY} net income was "
                 f"severance?", "table_and_note", [doc_id], [ops["net_income"], n2, n9],
                 f"${money(c.severance)} million"),
        Question(f"What was {name}'s net income for fiscal {US_FY}, and what restructuring charge does it "
                 f"include?", "table_and_note", [doc_id], heads + [ops["net_income"], n2],
                 money(fy_vals["net_income"])),
        Question(f"What were the lease exit costs of the restructuring {name} describes in the MD&A of its fiscal "
                 f"{US_FY} 10-K?", "text_and_note", [doc_id], [p_rs, n9],
                 f"${money(c.restructuring - c.severance)} million"),
        Question(f"What were {name}'s fourth-quarter fiscal {US_FY} revenues (fiscal year minus the first nine "
                 f"months), in USD millions?", "calculation", [doc_id, q3_doc.doc_id],
                 heads + [ops["revenue"]] + q3_doc.extra["heads"] + [q3_doc.extra["ops"]["revenue"]],
                 money(f.cur[3].revenue)),
        Question(f"What was {name}'s fourth-quarter fiscal {US_FY} net income, derived from the 10-K and the "
                 f"third-quarter 10-Q, in USD millions?", "calculation", [doc_id, q3_doc.doc_id],
                 heads + [ops["net_income"]] + q3_doc.extra["heads"] + [q3_doc.extra["ops"]["net_income"]],
                 money(f.cur[3].net_income)),
        Question(f"What was {name}'s operating margin for fiscal {US_FY}, in percent with one decimal?",
                 "calculation", [doc_id], heads + [ops["revenue"], ops["op_income"]],
                 f"{fy_vals['op_income'] / fy_vals['revenue'] * 100:.1f}%"),
        Question(f"How much did {name} spend on share repurchases in fiscal {US_FY}?", "unanswerable",
                 [doc_id], [], None),
    ]
    facts = filing_facts(iss, form="10-K", accession=acc, filed=filed, fy=US_FY, fp="FY",
                         durations=[(f.fy_start, c.fy_end, fy_vals, eps(fy_vals["net_income"], f.shares))],
                         instant=(c.fy_end, f.balance[c.fy_end]))
    doc = make_doc(b, qs, doc_id=doc_id, title=title, doc_type="10-K", issuer=iss.name, ticker=iss.ticker,
                   fiscal_year=US_FY, period_end=c.fy_end, filed_at=filed, format="html",
                   source_uri=source_uri(iss, acc, c.fy_end))
    return doc, facts


def _pit_questions(c: _Ctx, orig, amend):
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
    c = _Ctx(seed, index)
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
