"""The pure domain: a merged pull request and what the rules concluded about it.

These models are the contract between every layer: ingestion (GitHub, git, JSONL) produces
``PullRequest``; the classifier turns it into a ``Classification``; storage keeps both; commands
read them back — whole (``StoredPR``: one PR) or as lists read them (``ListedPR``: a digest, a risk
list, a search page). They carry no I/O and no platform knowledge.

Why plain dataclasses and not pydantic models: every one-shot command (``prdigest pr N``,
``risks``, ``search``) imports these, and pydantic's import chain alone took ~8× the start of a
bare ``python -c pass``, most of the CLI's start-up. Every object checks its own invariants in
``__post_init__`` (the repository's form, a positive number, non-negative counts, the closed
vocabularies, UTC times) with pydantic's wording, cheaply when the values are right; the JSON
Lines records of ``prdigest import`` are parsed by pydantic over these same classes
(``classify.records``), which adds the type checks and loads pydantic only where it is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

FlagKind = Literal["core-path", "missing-tests", "breaking", "dependency", "large", "revert"]
FLAG_KINDS: tuple[FlagKind, ...] = ("core-path", "missing-tests", "breaking", "dependency", "large", "revert")

ChangeType = Literal["added", "modified", "removed", "renamed", "copied", "changed"]
CHANGE_TYPES: tuple[ChangeType, ...] = ("added", "modified", "removed", "renamed", "copied", "changed")
# "demo": loaded by `prdigest demo` from the bundled fictional history (never from a user's file)
Source = Literal["api", "git", "import", "demo"]
SOURCES: tuple[Source, ...] = ("api", "git", "import", "demo")
# the same vocabularies as sets: the checks below run for every object read back from the cache
_FLAG_KINDS = frozenset(FLAG_KINDS)
_CHANGE_TYPES = frozenset(CHANGE_TYPES)
_SOURCES = frozenset(SOURCES)

REPO_PATTERN = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"
_repo_ok = re.compile(REPO_PATTERN).match


class FieldError(ValueError):
    """A value breaks a field's rule. ``field`` names it and ``message`` says what is accepted,
    in pydantic's words, so an import reports ``prs.jsonl:2: number: Input should be greater than
    0`` whichever check caught it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted, so comparisons never mix."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _one_of(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise FieldError(name, f"Input should be {choices}")


def _not_negative(obj: object, *names: str) -> None:
    for name in names:
        value = getattr(obj, name)
        if value is not None and value < 0:
            raise FieldError(name, "Input should be greater than or equal to 0")


@dataclass(slots=True, frozen=True, kw_only=True)
class FileChange:
    """One changed file of a PR with its own line counts."""

    path: str
    additions: int = 0
    deletions: int = 0
    change_type: ChangeType = "modified"
    previous_path: str | None = None

    def __post_init__(self) -> None:
        if self.additions < 0 or self.deletions < 0:
            _not_negative(self, "additions", "deletions")
        if self.change_type not in _CHANGE_TYPES:
            _one_of("change_type", self.change_type, CHANGE_TYPES)


@dataclass(slots=True, kw_only=True)
class PullRequest:
    """A merged pull request as the cache knows it.

    ``url`` defaults to the PR's github.com page and ``changed_files`` to the number of ``files``;
    times are kept in UTC (naive ones are taken as UTC).
    """

    repo: str
    number: int
    title: str
    body: str = ""
    author: str = ""
    created_at: datetime | None = None
    merged_at: datetime
    updated_at: datetime | None = None
    base_branch: str = "main"
    labels: list[str] = field(default_factory=list)
    additions: int = 0
    deletions: int = 0
    files: list[FileChange] = field(default_factory=list)
    changed_files: int | None = None
    url: str = ""
    source: Source = "import"

    def __post_init__(self) -> None:
        if not _repo_ok(self.repo):
            raise FieldError("repo", f"String should match pattern '{REPO_PATTERN}'")
        if self.number <= 0:
            raise FieldError("number", "Input should be greater than 0")
        if self.additions < 0 or self.deletions < 0 or (self.changed_files or 0) < 0:
            _not_negative(self, "additions", "deletions", "changed_files")
        if self.source not in _SOURCES:
            _one_of("source", self.source, SOURCES)
        if self.merged_at.tzinfo is not UTC:
            self.merged_at = _as_utc(self.merged_at)
        if self.created_at is not None and self.created_at.tzinfo is not UTC:
            self.created_at = _as_utc(self.created_at)
        if self.updated_at is not None and self.updated_at.tzinfo is not UTC:
            self.updated_at = _as_utc(self.updated_at)
        if not self.url:
            self.url = f"https://github.com/{self.repo}/pull/{self.number}"
        if self.changed_files is None:
            self.changed_files = len(self.files)


@dataclass(slots=True, kw_only=True)
class Flag:
    """A risk flag and the evidence that raised it (files, words or numbers)."""

    kind: FlagKind
    evidence: list[str]

    def __post_init__(self) -> None:
        if self.kind not in _FLAG_KINDS:
            _one_of("kind", self.kind, FLAG_KINDS)


@dataclass(slots=True, kw_only=True)
class ScorePart:
    """One line of a key-PR score breakdown: why, and how many points.

    ``reason`` is the English sentence shown by default; ``rule`` (which rule of the profile's
    ``[score]`` gave the points) and ``detail`` (the value it matched: a kind, a module, a size
    threshold, a theme's name) let a front end say the same in another language.
    """

    reason: str
    points: float
    rule: str = ""
    detail: str = ""

    def __post_init__(self) -> None:
        self.points = float(self.points)  # a profile's whole points (TOML ints) are stored as floats


@dataclass(slots=True, kw_only=True)
class Classification:
    """What a rule profile concluded about one PR; stored with the profile's name and version."""

    modules: list[str] = field(default_factory=list)
    kind: str = "other"
    flags: list[Flag] = field(default_factory=list)
    score: float = 0.0
    breakdown: list[ScorePart] = field(default_factory=list)
    highlights: list[str] = field(default_factory=list)
    gist: str = ""
    profile: str = ""
    profile_version: str = ""
    profile_hash: str = ""  # the profile's ``content_hash``: which content (not just which version) made this

    def __post_init__(self) -> None:
        self.score = float(self.score)  # stored and shown as a float even when the points were whole

    def flag(self, kind: FlagKind) -> Flag | None:
        return next((f for f in self.flags if f.kind == kind), None)

    @property
    def flag_kinds(self) -> list[FlagKind]:
        return [f.kind for f in self.flags]


@dataclass(frozen=True, slots=True)
class StoredPR:
    """A PR and its classification as read back from the cache, whole (lists read ``ListedPR``s)."""

    pr: PullRequest
    cls: Classification

    @property
    def number(self) -> int:
        return self.pr.number


@dataclass(slots=True)
class PRHead:
    """What lists of PRs read of a cached PR (a digest, a risk list, a search page): who merged
    what, where to see it, when, and how big. Not its body, files, labels, branch, source or other
    dates: ``PullRequest`` (``StoredPR``, one whole row) has them all."""

    repo: str
    number: int
    title: str
    author: str
    url: str
    merged_at: datetime
    additions: int = 0
    deletions: int = 0


@dataclass(frozen=True, slots=True)
class ListedPR:
    """A PR as a list reads it from the cache: its ``PRHead`` and its classification without the
    stored score breakdown and profile identity — ``cls.breakdown`` holds only the parts the period
    adds (``classify.key_prs.with_period_parts``) and ``cls.profile*`` are empty."""

    pr: PRHead
    cls: Classification

    @property
    def number(self) -> int:
        return self.pr.number
