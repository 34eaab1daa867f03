"""The Spanish names of the accounting concepts of ``finance_terms.py``.

Same concepts (the concept term is language-neutral: "cuenta de pérdidas y ganancias" and
"income statement" both add ``§income_statement``), Spanish surface forms as Spanish annual
accounts (PGC / IFRS-EU, CNMV filings) print them. Forms are matched on the Spanish
analyzer's normalised tokens (accents folded, Spanish stop words removed), before stemming,
so singular and plural are listed. Changing this changes the Spanish analyzer's output:
bump ``LANGUAGE_VERSIONS["es"]`` in ``analyzer.py``.
"""
from __future__ import annotations

CONCEPTS_ES: dict[str, tuple[str, ...]] = {
    "income_statement": ("cuenta de resultados", "cuentas de resultados", "cuenta de pérdidas y ganancias",
                         "cuentas de pérdidas y ganancias", "estado de resultados", "estado del resultado"),
    "balance_sheet": ("balance", "balance de situación", "balances de situación", "estado de situación financiera"),
    "cash_flow_statement": ("estado de flujos de efectivo", "estados de flujos de efectivo", "flujos de caja",
                            "estado de flujos de caja"),
    "equity_statement": ("estado de cambios en el patrimonio neto", "estado total de cambios en el patrimonio neto"),
    "revenue": ("ventas", "ventas netas", "ingresos", "ingresos ordinarios", "cifra de negocios",
                "importe neto de la cifra de negocios", "ingresos totales", "facturación"),
    "cogs": ("coste de las ventas", "coste de ventas", "aprovisionamientos", "consumos"),
    "gross_profit": ("margen bruto", "beneficio bruto"),
    "operating_income": ("resultado de explotación", "beneficio de explotación", "resultado operativo",
                         "beneficio operativo", "ebit"),
    "net_income": ("beneficio neto", "resultado neto", "resultado del ejercicio", "beneficio del ejercicio",
                   "beneficio atribuido", "resultado atribuido", "pérdida neta"),
    "ebitda": ("ebitda", "ebitda ajustado", "resultado bruto de explotación"),
    "eps": ("beneficio por acción", "bpa", "resultado por acción"),
    "effective_tax_rate": ("tipo impositivo efectivo", "tasa impositiva efectiva", "tipo efectivo"),
    "ppe": ("inmovilizado material", "inmovilizado", "propiedades planta y equipo", "activos fijos"),
    "capex": ("capex", "inversiones en inmovilizado", "inversión en inmovilizado", "inversiones materiales",
              "adquisiciones de inmovilizado"),
    "depreciation": ("amortización", "amortizaciones", "dotación a la amortización", "depreciación"),
    "operating_cash_flow": ("flujo de caja operativo", "flujos de efectivo de las actividades de explotación",
                            "flujo de efectivo de explotación", "flujo de caja de explotación"),
    "free_cash_flow": ("flujo de caja libre", "flujos de caja libres"),
    "accounts_payable": ("proveedores", "acreedores comerciales"),
    "accounts_receivable": ("clientes", "deudores comerciales"),
    "inventory": ("existencias", "inventarios"),
    "total_assets": ("total activo", "activo total"),
    "current_assets": ("activo corriente", "activos corrientes"),
    "current_liabilities": ("pasivo corriente", "pasivos corrientes"),
    "total_liabilities": ("total pasivo", "pasivo total"),
    "equity": ("patrimonio neto", "fondos propios"),
    "long_term_debt": ("deuda financiera", "deuda financiera neta", "deuda a largo plazo", "deudas con entidades de crédito"),
    "cash": ("efectivo y otros activos líquidos equivalentes", "efectivo y equivalentes", "tesorería"),
    "dividends": ("dividendo", "dividendos", "dividendo por acción", "dividendos pagados"),
    "share_repurchase": ("recompra de acciones", "recompras de acciones", "autocartera", "acciones propias"),
    "interest_expense": ("gastos financieros", "gasto financiero"),
    "segment": ("segmento", "segmentos", "segmentos de negocio", "segmentos operativos"),
}

METRICS_ES: dict[str, tuple[str, ...]] = {
    "fondo de maniobra": ("current_assets", "current_liabilities"),
    "capital circulante": ("current_assets", "current_liabilities"),
    "ratio de liquidez": ("current_assets", "current_liabilities"),
    "margen ebitda": ("ebitda", "revenue"),
    "margen neto": ("net_income", "revenue"),
    "margen operativo": ("operating_income", "revenue"),
    "margen de explotación": ("operating_income", "revenue"),
    "rentabilidad sobre fondos propios": ("net_income", "equity"),
    "rentabilidad sobre activos": ("net_income", "total_assets"),
    "ratio de endeudamiento": ("long_term_debt", "equity"),
    "apalancamiento": ("long_term_debt", "ebitda"),
    "pay out": ("dividends", "net_income"),
    "payout": ("dividends", "net_income"),
    "flujo de caja libre": ("operating_cash_flow", "capex"),
}
