"""A small accounting vocabulary: one concept, the names filings and questions give it.

A question says "statement of income", the filing prints "CONSOLIDATED STATEMENTS OF
OPERATIONS"; a question says "PP&E" or "capex", the cash-flow statement says "Purchases of
property and equipment". Lexical retrieval cannot bridge that without knowing the names are
one thing. Each concept below lists surface forms (as written; matched on the analyzer's
normalised tokens, stop words removed), and the analyzer adds one concept token wherever a
form occurs — in documents and in questions alike — beside the words themselves.

``METRICS`` are query-side only: a metric a question asks for, and the line items it is
computed from ("working capital" is current assets minus current liabilities), so a
question about the metric also looks for its parts.

This is general accounting language (US GAAP / IFRS statement and line-item names), written
from financial statements, not from any evaluation set's questions. Changing it changes the
analyzer's output: bump ``VOCABULARY_VERSION``.
"""
from __future__ import annotations

VOCABULARY_VERSION = "1"

CONCEPTS: dict[str, tuple[str, ...]] = {
    # the statements
    "income_statement": (
        "income statement", "income statements", "statement of income", "statements of income",
        "statement of operations", "statements of operations", "statement of earnings", "statements of earnings",
        "profit and loss statement", "statement of profit or loss", "statements of profit or loss",
        "profit and loss account"),
    "balance_sheet": (
        "balance sheet", "balance sheets", "statement of financial position", "statements of financial position",
        "statement of financial condition", "statements of financial condition", "statement of condition"),
    "cash_flow_statement": (
        "cash flow statement", "cash flows statement", "statement of cash flows", "statements of cash flows",
        "statement of cash flow", "statements of cash flow"),
    "equity_statement": (
        "statement of shareholders equity", "statements of shareholders equity",
        "statement of stockholders equity", "statements of stockholders equity",
        "statement of changes in equity", "statements of changes in equity",
        "statements of changes in shareholders equity", "statements of changes in stockholders equity"),
    # line items
    "revenue": ("revenue", "revenues", "net revenue", "net revenues", "net sales", "total revenue",
                "total revenues", "total net sales", "total net revenue", "total net revenues", "turnover",
                "top line"),
    "cogs": ("cogs", "cost of goods sold", "cost of sales", "cost of revenue", "cost of revenues",
             "cost of products sold", "costs of goods sold", "costs of sales", "costs of revenues"),
    "gross_profit": ("gross profit", "gross margin", "gross margins"),
    "operating_income": ("operating income", "operating profit", "income from operations", "operating loss",
                         "earnings from operations", "operating earnings"),
    "net_income": ("net income", "net earnings", "net profit", "net loss", "profit for the year",
                   "net income attributable", "net earnings attributable"),
    "ebitda": ("ebitda", "adjusted ebitda"),
    "eps": ("earnings per share", "eps", "net income per share", "earnings per common share"),
    "effective_tax_rate": ("effective tax rate", "effective income tax rate", "effective tax rates"),
    "ppe": ("pp e", "ppe", "ppne", "property plant and equipment", "property and equipment",
            "property plant equipment", "fixed assets", "fixed asset", "tangible fixed assets"),
    "capex": ("capex", "capital expenditure", "capital expenditures", "capital spending",
              "purchases of property plant and equipment", "purchases of property and equipment",
              "purchase of property plant and equipment", "purchase of property and equipment",
              "payments for property plant and equipment", "payments for property and equipment",
              "additions to property plant and equipment", "additions to property and equipment",
              "capital additions"),
    "depreciation": ("depreciation", "depreciation and amortization", "depreciation amortization"),
    "operating_cash_flow": (
        "operating cash flow", "operating cash flows", "cash from operations", "cash flow from operations",
        "cash from operating activities", "cash provided by operating activities",
        "cash provided by used in operating activities", "cash generated from operating activities",
        "cash flows from operating activities", "cash flow from operating activities",
        "net cash provided by operating activities", "net cash from operating activities"),
    "free_cash_flow": ("free cash flow", "free cash flows"),
    "accounts_payable": ("accounts payable", "trade payables", "trade accounts payable", "trade and other payables"),
    "accounts_receivable": ("accounts receivable", "trade receivables", "trade accounts receivable",
                            "trade and other receivables", "receivables net"),
    "inventory": ("inventory", "inventories", "merchandise inventories", "merchandise inventory"),
    "total_assets": ("total assets",),
    "current_assets": ("current assets", "total current assets"),
    "current_liabilities": ("current liabilities", "total current liabilities"),
    "total_liabilities": ("total liabilities",),
    "equity": ("shareholders equity", "stockholders equity", "shareowners equity", "total equity",
               "total shareholders equity", "total stockholders equity"),
    "long_term_debt": ("long term debt", "long term borrowings", "non current borrowings", "notes payable"),
    "cash": ("cash and cash equivalents", "cash and equivalents"),
    "dividends": ("dividend", "dividends", "dividends paid", "cash dividends", "dividends declared"),
    "share_repurchase": ("share repurchase", "share repurchases", "stock repurchase", "stock repurchases",
                         "repurchases of common stock", "buyback", "buybacks", "treasury stock"),
    "interest_expense": ("interest expense", "interest expenses", "interest and other expense"),
    "segment": ("segment", "segments", "reportable segment", "reportable segments", "operating segments"),
}

METRICS: dict[str, tuple[str, ...]] = {
    "working capital": ("current_assets", "current_liabilities"),
    "current ratio": ("current_assets", "current_liabilities"),
    "quick ratio": ("current_assets", "current_liabilities", "inventory"),
    "fixed asset turnover": ("revenue", "ppe"),
    "asset turnover": ("revenue", "total_assets"),
    "inventory turnover": ("cogs", "inventory"),
    "days inventory outstanding": ("cogs", "inventory"),
    "days payable outstanding": ("accounts_payable", "cogs"),
    "days sales outstanding": ("accounts_receivable", "revenue"),
    "operating cash flow ratio": ("operating_cash_flow", "current_liabilities"),
    "net profit margin": ("net_income", "revenue"),
    "net margin": ("net_income", "revenue"),
    "operating margin": ("operating_income", "revenue"),
    "gross margin": ("gross_profit", "revenue", "cogs"),
    "return on assets": ("net_income", "total_assets"),
    "return on equity": ("net_income", "equity"),
    "debt to equity": ("long_term_debt", "equity"),
    "capex as a of revenue": ("capex", "revenue"),
    "dividend payout ratio": ("dividends", "net_income"),
    "interest coverage": ("operating_income", "interest_expense"),
    "free cash flow": ("operating_cash_flow", "capex"),
}
