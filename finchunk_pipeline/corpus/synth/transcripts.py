"""Earnings-call transcripts (format "text", doc_type "earnings_call").

Line convention (one turn = one passage of kind "turn"):

* ``Operator: <text>`` for the operator;
* ``<Name> -- <Title>: <text>`` for company speakers, e.g.
  ``Jane Roe -- Chief Financial Officer: Thanks, operator.``;
* ``<Name> -- Analyst, <Firm>: <text>`` for analysts.

A turn starts at its speaker label; a long turn continues over further paragraphs
(separated by blank lines, no label) until the next labelled line or heading. The
title line and the section headings "Prepared Remarks" / "Questions and Answers"
are plain-text lines (kind "heading"); the participants paragraph is kind "text".
Each call has an answer that only makes sense with its question ("that charge"),
a long multi-paragraph answer, an interruption and a correction of a misstated figure.
"""
from __future__ import annotations

import datetime as dt

from .common import BlockBuilder, Question, long_date, make_doc, money
from .figures import US_FY

CALL_Q = 3   # the call discusses the third fiscal quarter


def earnings_call(ctx, q3_doc):
    iss, f, rng = ctx.iss, ctx.fig, ctx.rng
    name = iss.name
    doc_id = f"call-{iss.slug}-{US_FY}q{CALL_Q}"
    filed = q3_doc.row["filed_at"] + dt.timedelta(hours=1, minutes=25)
    qe = f.quarter_ends[CALL_Q - 1]
    q3 = f.cur[CALL_Q - 1]
    ceo, cfo = f.ceo, f.cfo
    (a1, bank1), (a2, bank2), (a3, bank3) = f.analysts
    CEO, CFO = f"{ceo} -- Chief Executive Officer", f"{cfo} -- Chief Financial Officer"
    A1, A2, A3 = f"{a1} -- Analyst, {bank1}", f"{a2} -- Analyst, {bank2}", f"{a3} -- Analyst, {bank3}"
    charge = int(ctx.restructuring * rng.uniform(0.4, 0.7))
    savings = rng.randint(100, 900)
    backlog = rng.randint(20000, 90000)
    wrong = backlog + rng.choice([-1, 1]) * rng.randint(800, 5000)
    margin_q4 = rng.uniform(40, 55)
    buyback = rng.randint(1000, 20000)
    deal = rng.randint(500, 5000)
    guide_lo = int(q3.revenue * 4.1)
    guide_hi = guide_lo + rng.randint(500, 2500)
    title = f"{name} ({iss.ticker}) Q{CALL_Q} Fiscal {US_FY} Earnings Call"

    b = BlockBuilder(doc_id, markdown=False)
    qs: list[Question] = []
    b.heading(1, title)
    b.para(f"Call date: {long_date(filed.date())}. Company participants: {ceo}, Chief Executive Officer; {cfo}, "
           f"Chief Financial Officer. Analysts: {a1} ({bank1}), {a2} ({bank2}), {a3} ({bank3}).")
    b.heading(2, "Prepared Remarks")
    b.para(f"Operator: Good day, and welcome to the {name} third quarter fiscal {US_FY} earnings conference call. "
           f"All participants are in listen-only mode. I would now like to turn the call over to {ceo}, Chief "
           f"Executive Officer.", "turn")
    b.para(f"{CEO}: Thank you, operator, and good afternoon, everyone. Revenues for the quarter ended "
           f"{long_date(qe)} were ${money(q3.revenue)} million, and we continued to invest in our product "
           f"roadmap.\n\nOur teams executed well in a demanding environment, and I want to thank them for their "
           f"work. I will now hand over to {cfo.split()[0]}.", "turn")
    t_cfo = b.para(f"{CFO}: Thanks, {ceo.split()[0]}. Net income for the quarter was ${money(q3.net_income)} "
                   f"million. During the quarter we recorded a restructuring charge of ${money(charge)} million. "
                   f"We ended the quarter with a backlog of ${money(wrong)} million. For the full fiscal year we now "
                   f"expect revenues between ${money(guide_lo)} million and ${money(guide_hi)} million.", "turn")
    b.para(f"Operator: We will now begin the question-and-answer session. Our first question comes from {a1} "
           f"with {bank1.rstrip('.')}.", "turn")
    b.heading(2, "Questions and Answers")
    q1 = b.para(f"{A1}: Thanks for taking my question. Could you unpack the restructuring charge you took this "
                f"quarter? What is it for, and should we expect more of it?", "turn")
    r1 = b.para(f"{CFO}: Sure. That charge relates mostly to severance and lease exits at the two sites we are "
                f"consolidating. We expect the program to be substantially complete by fiscal year end, with "
                f"annualized savings of about ${money(savings)} million once it is done.", "turn")
    b.para(f"Operator: Our next question comes from {a2} with {bank2.rstrip('.')}.", "turn")
    q2 = b.para(f"{A2}: Good afternoon. What are you seeing on pricing, and how should we think about gross "
                f"margin for the rest of the year?", "turn")
    r2 = b.para(f"{CEO}: Let me take that in a few parts, because there is a lot going on.\n\n"
                f"On pricing, we implemented increases at the start of the quarter, and retention has been better "
                f"than we planned. Customers are accepting the value story, especially in our larger accounts.\n\n"
                f"On costs, freight and component costs have stabilized, and the restructuring will help from next "
                f"year.\n\nPutting it together, we expect gross margin of about {margin_q4:.1f}% in the fourth "
                f"quarter.", "turn")
    q2b = b.para(f"{A2}: Thanks. And just to clarify, you said backlog was ${money(wrong)} million, was —", "turn")
    r2b = b.para(f"{CFO}: Sorry to jump in, yes, I misspoke in my prepared remarks. Backlog at quarter end was "
                 f"${money(backlog)} million, not ${money(wrong)} million.", "turn")
    b.para(f"Operator: Our next question comes from {a3} with {bank3.rstrip('.')}.", "turn")
    q3t = b.para(f"{A3}: Question on capital allocation. Is there any plan to return more cash to shareholders?",
                 "turn")
    r3 = b.para(f"{CEO}: Yes. The board has authorized a share repurchase program of ${money(buyback)} million, "
                f"which we expect to execute over the next two years.", "turn")
    q4 = b.para(f"{A3}: And on M&A, how large a deal would you consider?", "turn")
    r4 = b.para(f"{CEO}: We look at bolt-on acquisitions of up to ${money(deal)} million; anything larger is "
                f"not on our agenda.", "turn")
    b.para("Operator: This concludes today's question-and-answer session and today's conference call. Thank you "
           "for participating. You may now disconnect.", "turn")

    call = f"Q{CALL_Q} fiscal {US_FY} earnings call"
    qs += [
        Question(f"On {name}'s {call}, what did the CFO say the restructuring charge relates to?", "transcript",
                 [doc_id], [q1, r1], "severance and lease exits"),
        Question(f"What annualized savings does {name} expect from the restructuring discussed on its {call}?",
                 "transcript", [doc_id], [q1, r1], f"${money(savings)} million"),
        Question(f"What fourth-quarter gross margin did {name}'s CEO guide to on the {call}?", "transcript",
                 [doc_id], [q2, r2], f"{margin_q4:.1f}%"),
        Question(f"What was {name}'s backlog at the end of the third quarter of fiscal {US_FY}, as corrected on "
                 f"its earnings call?", "transcript", [doc_id], [q2b, r2b], f"${money(backlog)} million"),
        Question(f"How large is the share repurchase program {name} announced on its {call}?", "transcript",
                 [doc_id], [q3t, r3], f"${money(buyback)} million"),
        Question(f"Up to what size of acquisition would {name} consider, according to its {call}?",
                 "transcript", [doc_id], [q4, r4], f"${money(deal)} million"),
        Question(f"What full-year revenue range did {name} guide to on its {call}?", "text", [doc_id], [t_cfo],
                 f"${money(guide_lo)} million and ${money(guide_hi)} million"),
        Question(f"What dividend did {name} declare on its {call}?", "unanswerable", [doc_id], [], None),
    ]
    return make_doc(b, qs, doc_id=doc_id, title=title, doc_type="earnings_call", issuer=name, ticker=iss.ticker,
                    fiscal_year=US_FY, period_end=qe, filed_at=filed, format="text",
                    source_uri=f"https://example.invalid/transcripts/{iss.ticker.lower()}-{US_FY}-q{CALL_Q}.txt")
