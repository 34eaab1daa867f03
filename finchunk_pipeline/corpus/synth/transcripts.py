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
    """The third-quarter call of the filer ``ctx``, section by section; its figures are drawn
    from the filer's random stream (after the filings) when the call is set up."""
    k = _Call(ctx, q3_doc)
    k.b.heading(1, k.title)
    k.b.para(f"Call date: {long_date(k.filed.date())}. Company participants: {k.ceo}, Chief Executive Officer; "
             f"{k.cfo}, Chief Financial Officer. Analysts: {k.a1} ({k.bank1}), {k.a2} ({k.bank2}), {k.a3} ({k.bank3}).")
    t_cfo = _prepared_remarks(k)
    turns = _questions_and_answers(k)
    _call_questions(k, t_cfo, turns)
    iss = ctx.iss
    return make_doc(k.b, k.qs, doc_id=k.doc_id, title=k.title, doc_type="earnings_call", issuer=iss.name,
                    ticker=iss.ticker, fiscal_year=US_FY, period_end=k.qe, filed_at=k.filed, format="text",
                    source_uri=f"https://example.invalid/transcripts/{iss.ticker.lower()}-{US_FY}-q{CALL_Q}.txt")


class _Call:
    """What every part of the call reads: speakers, the quarter, the figures said on the call,
    the builder and the questions so far."""

    def __init__(self, ctx, q3_doc):
        iss, f, rng = ctx.iss, ctx.fig, ctx.rng
        self.name = iss.name
        self.doc_id = f"call-{iss.slug}-{US_FY}q{CALL_Q}"
        self.filed = q3_doc.row["filed_at"] + dt.timedelta(hours=1, minutes=25)
        self.qe = f.quarter_ends[CALL_Q - 1]
        self.q3 = f.cur[CALL_Q - 1]
        self.ceo, self.cfo = f.ceo, f.cfo
        (self.a1, self.bank1), (self.a2, self.bank2), (self.a3, self.bank3) = f.analysts
        self.CEO, self.CFO = f"{self.ceo} -- Chief Executive Officer", f"{self.cfo} -- Chief Financial Officer"
        self.A1, self.A2, self.A3 = (f"{self.a1} -- Analyst, {self.bank1}", f"{self.a2} -- Analyst, {self.bank2}",
                                     f"{self.a3} -- Analyst, {self.bank3}")
        self.charge = int(ctx.restructuring * rng.uniform(0.4, 0.7))
        self.savings = rng.randint(100, 900)
        self.backlog = rng.randint(20000, 90000)
        self.wrong = self.backlog + rng.choice([-1, 1]) * rng.randint(800, 5000)
        self.margin_q4 = rng.uniform(40, 55)
        self.buyback = rng.randint(1000, 20000)
        self.deal = rng.randint(500, 5000)
        self.guide_lo = int(self.q3.revenue * 4.1)
        self.guide_hi = self.guide_lo + rng.randint(500, 2500)
        self.title = f"{self.name} ({iss.ticker}) Q{CALL_Q} Fiscal {US_FY} Earnings Call"
        self.b = BlockBuilder(self.doc_id, markdown=False)
        self.qs: list[Question] = []

    def Q(self, text, qtype, gold, answer):
        self.qs.append(Question(text, qtype, [self.doc_id], gold, answer))


def _prepared_remarks(k: _Call):
    """Operator, CEO and CFO; returns the CFO's turn (guidance, and the misstated backlog)."""
    b, ceo, cfo = k.b, k.ceo, k.cfo
    b.heading(2, "Prepared Remarks")
    b.para(f"Operator: Good day, and welcome to the {k.name} third quarter fiscal {US_FY} earnings conference call. "
           f"All participants are in listen-only mode. I would now like to turn the call over to {ceo}, Chief "
           f"Executive Officer.", "turn")
    b.para(f"{k.CEO}: Thank you, operator, and good afternoon, everyone. Revenues for the quarter ended "
           f"{long_date(k.qe)} were ${money(k.q3.revenue)} million, and we continued to invest in our product "
           f"roadmap.\n\nOur teams executed well in a demanding environment, and I want to thank them for their "
           f"work. I will now hand over to {cfo.split()[0]}.", "turn")
    t_cfo = b.para(f"{k.CFO}: Thanks, {ceo.split()[0]}. Net income for the quarter was ${money(k.q3.net_income)} "
                   f"million. During the quarter we recorded a restructuring charge of ${money(k.charge)} million. "
                   f"We ended the quarter with a backlog of ${money(k.wrong)} million. For the full fiscal year we now "
                   f"expect revenues between ${money(k.guide_lo)} million and ${money(k.guide_hi)} million.", "turn")
    b.para(f"Operator: We will now begin the question-and-answer session. Our first question comes from {k.a1} "
           f"with {k.bank1.rstrip('.')}.", "turn")
    return t_cfo


def _questions_and_answers(k: _Call) -> dict:
    """The analysts' questions and the answers; returns the turns the questions cite, by name."""
    b, CEO, CFO, A2, A3, wrong = k.b, k.CEO, k.CFO, k.A2, k.A3, k.wrong
    t = {}
    b.heading(2, "Questions and Answers")
    t["q1"] = b.para(f"{k.A1}: Thanks for taking my question. Could you unpack the restructuring charge you took "
                     f"this quarter? What is it for, and should we expect more of it?", "turn")
    t["r1"] = b.para(f"{CFO}: Sure. That charge relates mostly to severance and lease exits at the two sites we are "
                     f"consolidating. We expect the program to be substantially complete by fiscal year end, with "
                     f"annualized savings of about ${money(k.savings)} million once it is done.", "turn")
    b.para(f"Operator: Our next question comes from {k.a2} with {k.bank2.rstrip('.')}.", "turn")
    t["q2"] = b.para(f"{A2}: Good afternoon. What are you seeing on pricing, and how should we think about gross "
                     f"margin for the rest of the year?", "turn")
    t["r2"] = b.para(f"{CEO}: Let me take that in a few parts, because there is a lot going on.\n\n"
                     f"On pricing, we implemented increases at the start of the quarter, and retention has been "
                     f"better than we planned. Customers are accepting the value story, especially in our larger "
                     f"accounts.\n\nOn costs, freight and component costs have stabilized, and the restructuring "
                     f"will help from next year.\n\nPutting it together, we expect gross margin of about "
                     f"{k.margin_q4:.1f}% in the fourth quarter.", "turn")
    t["q2b"] = b.para(f"{A2}: Thanks. And just to clarify, you said backlog was ${money(wrong)} million, was —", "turn")
    t["r2b"] = b.para(f"{CFO}: Sorry to jump in, yes, I misspoke in my prepared remarks. Backlog at quarter end was "
                      f"${money(k.backlog)} million, not ${money(wrong)} million.", "turn")
    b.para(f"Operator: Our next question comes from {k.a3} with {k.bank3.rstrip('.')}.", "turn")
    t["q3"] = b.para(f"{A3}: Question on capital allocation. Is there any plan to return more cash to "
                     f"shareholders?", "turn")
    t["r3"] = b.para(f"{CEO}: Yes. The board has authorized a share repurchase program of ${money(k.buyback)} "
                     f"million, which we expect to execute over the next two years.", "turn")
    t["q4"] = b.para(f"{A3}: And on M&A, how large a deal would you consider?", "turn")
    t["r4"] = b.para(f"{CEO}: We look at bolt-on acquisitions of up to ${money(k.deal)} million; anything larger is "
                     f"not on our agenda.", "turn")
    b.para("Operator: This concludes today's question-and-answer session and today's conference call. Thank you "
           "for participating. You may now disconnect.", "turn")
    return t


def _call_questions(k: _Call, t_cfo, t: dict) -> None:
    name, Q = k.name, k.Q
    call = f"Q{CALL_Q} fiscal {US_FY} earnings call"
    Q(f"On {name}'s {call}, what did the CFO say the restructuring charge relates to?", "transcript",
      [t["q1"], t["r1"]], "severance and lease exits")
    Q(f"What annualized savings does {name} expect from the restructuring discussed on its {call}?",
      "transcript", [t["q1"], t["r1"]], f"${money(k.savings)} million")
    Q(f"What fourth-quarter gross margin did {name}'s CEO guide to on the {call}?", "transcript",
      [t["q2"], t["r2"]], f"{k.margin_q4:.1f}%")
    Q(f"What was {name}'s backlog at the end of the third quarter of fiscal {US_FY}, as corrected on "
      f"its earnings call?", "transcript", [t["q2b"], t["r2b"]], f"${money(k.backlog)} million")
    Q(f"How large is the share repurchase program {name} announced on its {call}?", "transcript",
      [t["q3"], t["r3"]], f"${money(k.buyback)} million")
    Q(f"Up to what size of acquisition would {name} consider, according to its {call}?",
      "transcript", [t["q4"], t["r4"]], f"${money(k.deal)} million")
    Q(f"What full-year revenue range did {name} guide to on its {call}?", "text", [t_cfo],
      f"${money(k.guide_lo)} million and ${money(k.guide_hi)} million")
    Q(f"What dividend did {name} declare on its {call}?", "unanswerable", [], None)
