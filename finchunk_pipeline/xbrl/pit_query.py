"""What a point-in-time question asks (``PitQuery``) and the measures it may name.

Kept apart from the English and Spanish question forms (``answer.py``, ``answer_es.py``):
both parse into a ``PitQuery`` and map a measure to its concepts here, so neither imports the
other's module for it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

MEASURES: dict[str, tuple[str, ...]] = {
    "revenues": ("us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
                 "us-gaap:SalesRevenueNet", "ifrs-full:Revenue"),
    "cost of revenue": ("us-gaap:CostOfRevenue", "us-gaap:CostOfGoodsAndServicesSold"),
    "gross profit": ("us-gaap:GrossProfit", "ifrs-full:GrossProfit"),
    "selling, general and administrative expenses": ("us-gaap:SellingGeneralAndAdministrativeExpense",),
    "research and development expenses": ("us-gaap:ResearchAndDevelopmentExpense",),
    "operating income": ("us-gaap:OperatingIncomeLoss", "ifrs-full:ProfitLossFromOperatingActivities"),
    "income tax expense": ("us-gaap:IncomeTaxExpenseBenefit", "ifrs-full:IncomeTaxExpenseContinuingOperations"),
    "net income": ("us-gaap:NetIncomeLoss", "ifrs-full:ProfitLoss"),
    "diluted earnings per share": ("us-gaap:EarningsPerShareDiluted", "ifrs-full:DilutedEarningsLossPerShare"),
    "cash and cash equivalents": ("us-gaap:CashAndCashEquivalentsAtCarryingValue",
                                  "ifrs-full:CashAndCashEquivalents"),
    "total assets": ("us-gaap:Assets", "ifrs-full:Assets"),
    "long-term debt": ("us-gaap:LongTermDebt", "us-gaap:LongTermDebtNoncurrent"),
    "stockholders' equity": ("us-gaap:StockholdersEquity", "ifrs-full:Equity"),
}
_ALIASES = {
    "revenue": "revenues", "net revenues": "revenues", "net revenue": "revenues", "sales": "revenues",
    "net sales": "revenues", "total revenues": "revenues", "total revenue": "revenues",
    "cost of revenues": "cost of revenue", "cost of sales": "cost of revenue",
    "sg&a": "selling, general and administrative expenses",
    "selling, general and administrative expense": "selling, general and administrative expenses",
    "research and development expense": "research and development expenses",
    "r&d expenses": "research and development expenses",
    "operating loss": "operating income", "income from operations": "operating income",
    "operating profit": "operating income", "income tax": "income tax expense",
    "provision for income taxes": "income tax expense", "net loss": "net income",
    "net earnings": "net income", "diluted eps": "diluted earnings per share",
    "earnings per share": "diluted earnings per share", "cash": "cash and cash equivalents",
    "assets": "total assets", "debt": "long-term debt", "shareholders' equity": "stockholders' equity",
    "total stockholders' equity": "stockholders' equity", "equity": "stockholders' equity",
}


@dataclass
class PitQuery:
    entity: str
    measure: str
    concepts: tuple[str, ...]
    as_of: date | None
    period_end: date | None = None
    duration: str | None = None   # Q / H1 / 9M / FY; None = instant
    fiscal_year: int | None = None
    scale: float = 1e6
    locale: str = "en"            # how the expected answer writes numbers


def measure_concepts(measure: str) -> tuple[str, ...] | None:
    """The concepts a measure names ("net sales" -> revenues' concepts; a concept named
    directly stands for itself), or None."""
    m = re.sub(r"\s+", " ", measure.strip().lower().replace("\u2019", "'"))
    if re.match(r"^[a-z][a-z0-9-]*:[A-Za-z0-9_]+$", measure.strip()):  # a concept named directly
        return (measure.strip(),)
    m = _ALIASES.get(m, m)
    return MEASURES.get(m)
