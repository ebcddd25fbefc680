"""The ``[score]`` table of a rule profile: the schema's one part a read command may need.

Which PRs are key in a week depends on whether the profile scores storylines
(``profile.score.theme``), and ``prdigest pr N`` must see the week as the digest does. So these
models are apart from the rest of the schema (``classify.profile_schema``): the cached profile
(``bot.config.profile_cache``) unpickles its score settings with these three small classes, without
building the rest of the schema or importing the compiler.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Strs = list[str]
NotKey = Literal["docs-only", "typo", "own-version", "lockfile", "translation", "bot"]
NOT_KEY: tuple[NotKey, ...] = ("docs-only", "typo", "own-version", "lockfile", "translation", "bot")


# Every table of a profile: unknown keys are errors, no type is coerced, nothing changes.
TABLE_CONFIG = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=False)


class Table(BaseModel):
    model_config = TABLE_CONFIG


class SizeTier(Table):
    lines: Annotated[int, Field(ge=1)]
    points: float


class SmallSpec(Table):
    lines: Annotated[int, Field(ge=1)]
    points: float


class ScoreSpec(Table):
    highlight: float = 2.0
    many_modules: float = 1.0
    many_modules_min: Annotated[int, Field(ge=2)] = 3
    size: list[SizeTier] = []
    small: SmallSpec | None = None
    with_tests: float = 0.0
    series: float = 0.0
    bot: float = 0.0
    bot_authors: Strs = []
    theme: float = 0.0
    theme_min_prs: Annotated[int, Field(ge=2)] = 3
    theme_kinds: Strs = []
    never_key: list[NotKey] = []
    flags: dict[str, float] = {}
    kinds: dict[str, float] = {}
    modules: dict[str, float] = {}
    labels: dict[str, float] = {}
