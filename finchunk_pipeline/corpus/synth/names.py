"""Fictitious issuers, people and places. Everything is derived from an index (and,
for people, from a seeded ``random.Random``), so issuer i is the same whatever N is.
Any resemblance to real companies is unintended."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

_EU_PREFIX = ["Northwind", "Calder", "Brightwater", "Ashgrove", "Kestrel", "Harrowgate", "Lindqvist",
              "Morrow", "Pellham", "Quarrybay", "Redfern", "Saltmarsh", "Thornbury", "Westmoor", "Alder",
              "Bracken", "Corrib", "Dunmore", "Elmstead", "Fenwick"]
_EU_SECTOR = ["Holdings", "Industries", "Logistics", "Foods", "Energy", "Systems", "Materials",
              "Retail", "Engineering", "Telecom", "Pharma", "Shipping"]
_EU_SUFFIX = ["plc", "SE", "AG", "NV"]

_US_PREFIX = ["Granite Peak", "Bluefin", "Copperline", "Halvorsen", "Ironbridge", "Juniper Ridge",
              "Keystone Arc", "Lakeshore", "Mesa Verde", "Nightjar", "Orchard Lane", "Pinecrest",
              "Quillon", "Riverbend", "Silvergate", "Tidewater", "Union Forge", "Vireo", "Wrenfield",
              "Yarrow"]
_US_SECTOR = ["Technologies", "Therapeutics", "Brands", "Networks", "Semiconductor", "Software",
              "Industrial", "Logistics", "Energy", "Health", "Materials", "Media"]
_US_SUFFIX = ["Inc.", "Corp."]

_ROMAN = ["", " II", " III", " IV", " V", " VI", " VII", " VIII", " IX", " X"]

FIRST = ["Alice", "Ben", "Clara", "Daniel", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas",
         "Karin", "Liam", "Maya", "Nikhil", "Olivia", "Pavel", "Quinn", "Rosa", "Samuel", "Tara",
         "Umar", "Vera", "Walter", "Xenia", "Yusuf", "Zoe"]
LAST = ["Abbott", "Brennan", "Castell", "Delacroix", "Eriksen", "Fairley", "Garland", "Holt",
        "Ivanova", "Jarvis", "Kowalski", "Lindgren", "Marsh", "Novak", "Okafor", "Prescott",
        "Quayle", "Ridley", "Sorensen", "Thackeray", "Underwood", "Varga", "Whitlock", "Yates"]
CITIES = ["Leeds", "Rotterdam", "Lyon", "Gdansk", "Porto", "Aarhus", "Graz", "Turin", "Ghent",
          "Bilbao", "Tampere", "Brno"]
BANKS = ["Harbourview Securities", "Stonebridge Capital", "Larkspur and Co.", "Meridale Partners",
         "Crestline Research", "Oakhurst Bank"]


def slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


def _combo(i: int, prefixes, sectors) -> tuple[str, str, str]:
    a, b = i % len(prefixes), (i // len(prefixes)) % len(sectors)
    k = i // (len(prefixes) * len(sectors))
    roman = _ROMAN[k] if k < len(_ROMAN) else f" {k + 1}"
    return prefixes[a], sectors[(a + b) % len(sectors)], roman


@dataclass(frozen=True)
class Issuer:
    index: int
    name: str
    short: str          # used in prose: "Northwind"
    slug: str           # used in ids: "northwind-holdings"
    ticker: str
    cik: str


def _ticker(i: int, salt: int) -> str:
    code = (i * 7919 + salt) % 26 ** 4
    out = ""
    for _ in range(4):
        code, r = divmod(code, 26)
        out = chr(65 + r) + out
    return out


def eu_issuer(i: int) -> Issuer:
    p, s, roman = _combo(i, _EU_PREFIX, _EU_SECTOR)
    base = f"{p} {s}{roman}"
    name = f"{base} {_EU_SUFFIX[i % len(_EU_SUFFIX)]}"
    return Issuer(i, name, p, slug(base), _ticker(i, 1234), f"{9100000 + i:010d}")


def us_issuer(i: int) -> Issuer:
    p, s, roman = _combo(i, _US_PREFIX, _US_SECTOR)
    base = f"{p} {s}{roman}"
    name = f"{base} {_US_SUFFIX[i % len(_US_SUFFIX)]}"
    return Issuer(i, name, p, slug(base), _ticker(i, 98765), f"{1900000 + 37 * i:010d}")


_MANAGERS = ["Meridian", "Solenne", "Archway", "Bellbrook", "Cobalt Bay", "Driftwood", "Evenfield",
             "Foxglove", "Greywell", "Hollin"]


def fund_manager(i: int) -> tuple[str, str]:
    """(manager name, slug) for fund family i."""
    base = _MANAGERS[i % len(_MANAGERS)] + _ROMAN[min(i // len(_MANAGERS), 9)] + (
        f" {i // len(_MANAGERS) + 1}" if i // len(_MANAGERS) >= 10 else "")
    return f"{base} Asset Management", slug(base)


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def people(rng: random.Random, n: int) -> list[str]:
    """n distinct names."""
    out: list[str] = []
    while len(out) < n:
        p = person(rng)
        if p not in out and all(p.split()[1] != q.split()[1] for q in out):
            out.append(p)
    return out
