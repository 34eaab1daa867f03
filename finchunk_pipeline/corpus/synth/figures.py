"""Issuer numbers. Amounts are integers in tenths of a million (printed with
``common.money``), so totals printed in a document always add up exactly and the
XBRL value of a printed figure is ``tenths * 100_000``.

Each issuer draws from its own ``random.Random(f"{seed}|<class>|<index>")``: the
numbers of issuer i do not depend on how many issuers are generated.
"""
from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from .common import add_months

AR_YEARS = (2023, 2024)


@dataclass
class ARYear:
    revenue: int
    op_profit: int
    pbt: int
    net_debt: int
    eps: int            # tenths of a cent
    dividend: int       # tenths of a cent
    employees: int
    discontinued: int   # revenue of discontinued operations excluded (tenths of €m)
    amortisation: int   # amortisation of acquired intangibles excluded from operating profit
    leases: int         # lease liabilities excluded from net debt
    sites_opened: int
    backlog: int
    acquisition: str
    consideration: int
    one_off: int        # one-off gain in operating profit (first year only)
    disposal: str


@dataclass
class ARFigures:
    years: dict[int, ARYear]
    restated_prev_op: int      # prior-year operating profit as restated in the latest report
    restatement_reason: str
    ceo: str
    chair: str
    cfo: str
    city: str


_TARGETS = ["Haldane Sensors", "Ostmark Cold Chain", "Pyrite Analytics", "Tolland Packaging",
            "Varden Marine", "Wexley Controls", "Ilford Biotech", "Marlow Fleet Services"]
_DISPOSALS = ["its legacy printing division", "a minority stake in a joint venture",
              "its Iberian distribution business", "a surplus warehouse site",
              "the consumer testing unit", "a non-core software product line"]
_REASONS = ["a change in the accounting for customer rebates",
            "the reclassification of restructuring costs",
            "the correction of an error in inventory valuation",
            "the adoption of a new policy for capitalised development costs"]


def ar_figures(seed: int, index: int) -> ARFigures:
    from .names import CITIES, people
    rng = random.Random(f"{seed}|ar|{index}")
    ceo, chair, cfo = people(rng, 3)
    rev = rng.randint(4000, 90000)
    nd, eps_, div, emp = int(rev * rng.uniform(0.1, 0.6)), rng.randint(150, 1500), rng.randint(50, 600), rng.randint(800, 40000)
    years = {}
    for y in (AR_YEARS[0] - 1,) + AR_YEARS:
        rev = int(rev * rng.uniform(0.96, 1.16))
        op = int(rev * rng.uniform(0.06, 0.18))
        pbt = op - int(op * rng.uniform(0.03, 0.15))
        years[y] = ARYear(
            revenue=rev, op_profit=op, pbt=pbt,
            net_debt=int(nd * rng.uniform(0.8, 1.2)), eps=int(eps_ * rng.uniform(0.9, 1.2)),
            dividend=int(div * rng.uniform(1.0, 1.1)), employees=int(emp * rng.uniform(0.97, 1.08)),
            discontinued=int(rev * rng.uniform(0.01, 0.05)),
            amortisation=int(op * rng.uniform(0.02, 0.1)),
            leases=int(rev * rng.uniform(0.02, 0.08)),
            sites_opened=rng.randint(3, 40), backlog=int(rev * rng.uniform(0.3, 0.9)),
            acquisition=rng.choice(_TARGETS), consideration=int(rev * rng.uniform(0.02, 0.1)),
            one_off=int(op * rng.uniform(0.04, 0.12)), disposal=rng.choice(_DISPOSALS),
        )
    prev = years[AR_YEARS[-2]].op_profit
    return ARFigures(
        years=years,
        restated_prev_op=prev - max(5, int(prev * rng.uniform(0.02, 0.07))),
        restatement_reason=rng.choice(_REASONS),
        ceo=ceo, chair=chair, cfo=cfo, city=rng.choice(CITIES),
    )


# ---------------------------------------------------------------- US filers

US_FY = 2024
FYE_MONTHS = (12, 6, 9)     # issuer i ends its fiscal year in FYE_MONTHS[i % 3]


@dataclass
class Quarter:
    revenue: int
    cost: int
    sga: int
    rnd: int
    interest: int

    @property
    def gross(self): return self.revenue - self.cost
    @property
    def op_income(self): return self.gross - self.sga - self.rnd
    @property
    def pretax(self): return self.op_income - self.interest
    @property
    def tax(self): return round(self.pretax * 0.21)
    @property
    def net_income(self): return self.pretax - self.tax


def add_q(qs: list[Quarter]) -> dict[str, int]:
    keys = ("revenue", "cost", "gross", "sga", "rnd", "op_income", "interest", "pretax", "tax", "net_income")
    return {k: sum(getattr(q, k) for q in qs) for k in keys}


def q_dict(q: Quarter) -> dict[str, int]:
    return add_q([q])


@dataclass
class USFigures:
    fye_month: int
    fy_start: dt.date
    quarter_ends: list[dt.date]          # Q1..Q4 of US_FY
    prior_quarter_ends: list[dt.date]
    cur: list[Quarter]                   # corrected values, Q1..Q4
    prior: list[Quarter]
    shares: int                          # diluted shares, tenths of a million
    prior_shares: int
    balance: dict[dt.date, dict[str, int]]   # instants: cash, assets, debt, equity
    amended_q: int                       # 1..3: the quarter whose 10-Q is amended
    overstatement: int                   # revenue originally overstated by (tenths)
    ceo: str
    cfo: str
    analysts: list[tuple[str, str]] = field(default_factory=list)

    def original(self, q: int) -> Quarter:
        """Quarter q (1-based) as originally reported (before the 10-Q/A)."""
        c = self.cur[q - 1]
        if q != self.amended_q:
            return c
        return Quarter(c.revenue + self.overstatement, c.cost, c.sga, c.rnd, c.interest)


def eps(net_income_tenths: int, shares_tenths: int) -> str:
    return f"{net_income_tenths / shares_tenths:.2f}"


def us_figures(seed: int, index: int) -> USFigures:
    from .names import BANKS, people
    rng = random.Random(f"{seed}|us|{index}")
    fye = FYE_MONTHS[index % 3]
    fy_end = add_months(dt.date(US_FY, fye, 1), 0)
    prior_end = add_months(fy_end, -12)
    fy_start = prior_end + dt.timedelta(days=1)
    qe = [add_months(prior_end, 3 * k) for k in (1, 2, 3, 4)]
    pqe = [add_months(add_months(prior_end, -12), 3 * k) for k in (1, 2, 3, 4)]
    base = rng.randint(3000, 60000)

    def quarter(scale):
        r = int(base * scale * rng.uniform(0.9, 1.1))
        return Quarter(r, int(r * rng.uniform(0.45, 0.52)), int(r * rng.uniform(0.1, 0.18)),
                       int(r * rng.uniform(0.03, 0.1)), int(r * rng.uniform(0.005, 0.02)))

    prior = [quarter(1.0) for _ in range(4)]
    cur = [quarter(rng.uniform(1.02, 1.15)) for _ in range(4)]
    balance = {}
    assets = base * rng.randint(5, 9)
    for d in [prior_end] + qe:
        assets = int(assets * rng.uniform(0.98, 1.05))
        balance[d] = {"cash": int(assets * rng.uniform(0.05, 0.15)), "assets": assets,
                      "debt": int(assets * rng.uniform(0.15, 0.3)),
                      "equity": int(assets * rng.uniform(0.3, 0.5))}
    ceo, cfo, *analysts = people(rng, 5)
    banks = rng.sample(BANKS, 3)
    amended_q = index % 3 + 1
    return USFigures(
        fye_month=fye, fy_start=fy_start, quarter_ends=qe, prior_quarter_ends=pqe,
        cur=cur, prior=prior, shares=rng.randint(800, 6000), prior_shares=0,
        balance=balance, amended_q=amended_q,
        overstatement=max(12, int(cur[amended_q - 1].revenue * rng.uniform(0.015, 0.04))),
        ceo=ceo, cfo=cfo, analysts=list(zip(analysts, banks)),
    )
