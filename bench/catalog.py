"""What vLLM-like PRs are made of: the demo generator's vocabulary, read from ``bench/data/catalog.toml``.

The vocabulary — areas with their title subjects, file layout and regular authors, people and slot
values — is data, kept apart from the generator (``bench.generate``) so the realism can be tuned
without touching the mechanics; the file's own comments say what each table holds. This module
reads it once and hands it to the generator as the constants and small frozen classes it draws
from. Lists become tuples, so a vocabulary cannot be changed by accident while a run draws from it,
and an area's regulars, named by login in the file, become indices into ``PEOPLE``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.toml"


@dataclass(frozen=True)
class Subject:
    """One kind of change an area sees: how it is titled and explained, and what it touches.

    ``kind`` drives the title tag, the size, the add/delete balance and the test habit:
    fix, feat, perf, refactor, misc, remove, dep, doc, ci.
    """

    kind: str
    title: str
    purpose: str
    files: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    effect: bool = False
    small: bool = False


@dataclass(frozen=True)
class Area:
    """A part of the code base with its tags, files, regular authors and typical changes."""

    name: str
    weight: float
    tags: tuple[str, ...]
    src: tuple[str, ...]
    tests: tuple[str, ...]
    subjects: tuple[Subject, ...]
    people: tuple[int, ...]
    test_rate: float = 0.55
    series: float = 0.0
    scope: str = ""


def frozen(value: Any) -> Any:
    """A TOML value with every list turned into a tuple, all the way down."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


def _area(table: dict[str, Any], logins: dict[str, int]) -> Area:
    fields = {k: frozen(v) for k, v in table.items() if k not in ("subjects", "people")}
    subjects = tuple(Subject(**{k: frozen(v) for k, v in s.items()}) for s in table.get("subjects", ()))
    people = tuple(logins[login] for login in table.get("people", ()))
    return Area(subjects=subjects, people=people, **fields)


def load(path: Path = CATALOG_PATH) -> dict[str, Any]:
    """Every name the generator draws from, by the constant's name (``MODELS``, ``AREAS`` …)."""
    with path.open("rb") as f:
        data = tomllib.load(f)
    names = {key.upper(): frozen(value) for key, value in data["slots"].items()}
    people: tuple[tuple[str, str], ...] = frozen(data["people"]["contributors"])
    logins = {login: i for i, (login, _name) in enumerate(people)}
    names["PEOPLE"] = people
    names["DEPENDABOT"] = data["people"]["dependabot"]
    names["AREAS"] = tuple(_area(a, logins) for a in data["areas"])
    return names


_CATALOG = load()

MODELS: tuple[tuple[str, str, str], ...] = _CATALOG["MODELS"]
MODEL_WEIGHTS: tuple[int, ...] = _CATALOG["MODEL_WEIGHTS"]
MM_MODELS: tuple[tuple[str, str, str], ...] = _CATALOG["MM_MODELS"]
QUANTS: tuple[str, ...] = _CATALOG["QUANTS"]
HARDWARE: tuple[str, ...] = _CATALOG["HARDWARE"]
NV_HARDWARE: tuple[str, ...] = _CATALOG["NV_HARDWARE"]
AMD_HARDWARE: tuple[str, ...] = _CATALOG["AMD_HARDWARE"]
BACKENDS: tuple[tuple[str, str], ...] = _CATALOG["BACKENDS"]
PARSERS: tuple[tuple[str, str], ...] = _CATALOG["PARSERS"]
PARSER_WEIGHTS: tuple[int, ...] = _CATALOG["PARSER_WEIGHTS"]
CONNECTORS: tuple[tuple[str, str], ...] = _CATALOG["CONNECTORS"]
CONNECTOR_WEIGHTS: tuple[int, ...] = _CATALOG["CONNECTOR_WEIGHTS"]
OPS: tuple[str, ...] = _CATALOG["OPS"]
ENVS: tuple[str, ...] = _CATALOG["ENVS"]
DEPENDENCIES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = _CATALOG["DEPENDENCIES"]
GH_ACTIONS: tuple[str, ...] = _CATALOG["GH_ACTIONS"]
TESTS: tuple[str, ...] = _CATALOG["TESTS"]
PKGS: tuple[str, ...] = _CATALOG["PKGS"]
FIELDS: tuple[str, ...] = _CATALOG["FIELDS"]
CLI_OPTIONS: tuple[str, ...] = _CATALOG["CLI_OPTIONS"]
FEATURES: tuple[str, ...] = _CATALOG["FEATURES"]
DOCS: tuple[str, ...] = _CATALOG["DOCS"]
HELPERS: tuple[str, ...] = _CATALOG["HELPERS"]
UTIL_MODS: tuple[str, ...] = _CATALOG["UTIL_MODS"]
METRICS: tuple[str, ...] = _CATALOG["METRICS"]
DATASETS: tuple[str, ...] = _CATALOG["DATASETS"]
KV_DTYPES: tuple[str, ...] = _CATALOG["KV_DTYPES"]
ENDPOINTS: tuple[str, ...] = _CATALOG["ENDPOINTS"]
SUBCOMMANDS: tuple[str, ...] = _CATALOG["SUBCOMMANDS"]
CONFIGS: tuple[str, ...] = _CATALOG["CONFIGS"]
PEOPLE: tuple[tuple[str, str], ...] = _CATALOG["PEOPLE"]
DEPENDABOT: str = _CATALOG["DEPENDABOT"]
AREAS: tuple[Area, ...] = _CATALOG["AREAS"]
