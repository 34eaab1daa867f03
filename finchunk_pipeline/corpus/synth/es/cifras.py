"""Figures of a Spanish issuer for 2022-2024 (tenths of € million), deterministic per seed."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

YEARS = (2023, 2024)


@dataclass
class Anio:
    ventas: int
    ebitda: int
    explotacion: int
    neto: int
    deuda: int
    dividendo_cent: int      # euro cents per share
    plantilla: int
    discontinuadas: int
    arrendamientos: int
    extraordinario: int      # one-off gain in the operating profit
    contraprestacion: int
    plantas: int
    tipo: float              # effective tax rate


@dataclass
class Cifras:
    anios: dict[int, Anio] = field(default_factory=dict)
    reexpresado_2023: int = 0    # 2023 operating profit as restated in the 2024 report
    motivo: str = ""


MOTIVOS = ("la reclasificación de una filial como actividad interrumpida",
           "la corrección de la periodificación de ingresos por contratos de mantenimiento",
           "la aplicación retroactiva de un cambio de política contable en arrendamientos",
           "la revisión del deterioro de un fondo de comercio")


def cifras(seed: int, index: int) -> Cifras:
    rng = random.Random(f"{seed}|es-cifras|{index}")
    out = Cifras()
    ventas = rng.randint(40_000, 180_000)
    plantilla, deuda, dividendo = rng.randint(2_000, 40_000), rng.uniform(0.3, 1.4), rng.randint(18, 95)
    for year in (2022, 2023, 2024):
        plantilla = int(plantilla * rng.uniform(0.97, 1.06))
        deuda *= rng.uniform(0.85, 1.1)
        dividendo += rng.randint(-3, 6)
        ventas = int(ventas * rng.uniform(0.96, 1.09))
        margen = rng.uniform(0.14, 0.28)
        ebitda = int(ventas * margen)
        explot = int(ebitda * rng.uniform(0.55, 0.75))
        out.anios[year] = Anio(
            ventas=ventas, ebitda=ebitda, explotacion=explot, neto=int(explot * rng.uniform(0.55, 0.7)),
            deuda=int(ventas * deuda), dividendo_cent=dividendo,
            plantilla=plantilla, discontinuadas=rng.randint(300, 2_500),
            arrendamientos=rng.randint(800, 6_000), extraordinario=rng.randint(150, 1_200),
            contraprestacion=rng.randint(900, 9_000), plantas=rng.randint(2, 14), tipo=rng.uniform(19, 28))
    out.reexpresado_2023 = out.anios[2023].explotacion - rng.randint(200, 900)
    out.motivo = MOTIVOS[index % len(MOTIVOS)]
    return out
