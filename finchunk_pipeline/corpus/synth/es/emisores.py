"""The fictitious Spanish issuers, people and ETFs of the es corpus (no real company)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Emisor:
    index: int
    name: str        # "Iberia Energía, S.A."
    short: str       # "Iberia Energía"
    slug: str
    ticker: str
    sector: str
    cik: str         # an id for the facts table (no CIK in Spain: the LEI-like code here)


EMISORES = (
    Emisor(0, "Iberia Energía, S.A.", "Iberia Energía", "iberia-energia", "IBE9", "energía", "ES0000000001"),
    Emisor(1, "Construcciones Meseta, S.A.", "Construcciones Meseta", "meseta", "CMS9", "infraestructuras",
           "ES0000000002"),
    Emisor(2, "Banco Alhambra, S.A.", "Banco Alhambra", "alhambra", "BAL9", "banca", "ES0000000003"),
    Emisor(3, "Telecomunicaciones Cantábrico, S.A.", "Telecomunicaciones Cantábrico", "cantabrico", "TCA9",
           "telecomunicaciones", "ES0000000004"),
)

HOMBRES = ("Javier", "Álvaro", "Íñigo", "Sergio", "Ramón", "Jordi")
MUJERES = ("Lucía", "Carmen", "Begoña", "Marta", "Nuria", "Elena")
APELLIDOS = ("García", "Martínez", "López", "Sánchez", "Pérez", "Gómez", "Fernández", "Ruiz", "Díaz", "Moreno",
             "Muñoz", "Álvarez", "Romero", "Navarro", "Torres", "Domínguez")


def persona(rng, mujer: bool | None = None) -> tuple[str, str]:
    """(tratamiento + nombre, nombre): ("Dña. Lucía Ruiz Díaz", "Lucía Ruiz Díaz")."""
    mujer = rng.random() < 0.5 if mujer is None else mujer
    nombre = rng.choice(MUJERES if mujer else HOMBRES)
    full = f"{nombre} {rng.choice(APELLIDOS)} {rng.choice(APELLIDOS)}"
    return ("Dña. " if mujer else "D. ") + full, full


@dataclass(frozen=True)
class Etf:
    index: int
    name: str
    slug: str
    isin: str
    indice: str
    ter_bp: int           # gastos corrientes in basis points
    riesgo: int           # SRRI 1..7


ETFS = (
    Etf(0, "Meseta IBEX 35 UCITS ETF", "ibex35", "IE00ES0000A1", "IBEX 35®", 15, 6),
    Etf(1, "Meseta Euro Stoxx 50 UCITS ETF", "eurostoxx50", "IE00ES0000B2", "EURO STOXX 50®", 9, 6),
    Etf(2, "Meseta MSCI World UCITS ETF", "msci-world", "IE00ES0000C3", "MSCI World", 20, 5),
    Etf(3, "Meseta Bonos Gobierno Euro UCITS ETF", "bonos-euro", "IE00ES0000D4", "Bloomberg Euro Treasury", 7, 3),
    Etf(4, "Meseta Dividendo España UCITS ETF", "dividendo-espana", "IE00ES0000E5", "IBEX Top Dividendo®", 30, 6),
)
