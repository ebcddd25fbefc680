"""The pure domain: a merged pull request and what the rules concluded about it.

These models are the contract between every layer: ingestion (GitHub, git, JSONL) produces
``PullRequest``; the classifier turns it into a ``Classification``; storage keeps both; commands
read them back. They carry no I/O and no platform knowledge.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

FlagKind = Literal["core-path", "missing-tests", "breaking", "dependency", "large", "revert"]
FLAG_KINDS: tuple[FlagKind, ...] = ("core-path", "missing-tests", "breaking", "dependency", "large", "revert")

ChangeType = Literal["added", "modified", "removed", "renamed", "copied", "changed"]
Source = Literal["api", "git", "import"]


def _as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted, so comparisons never mix."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class FileChange(BaseModel):
    """One changed file of a PR with its own line counts."""

    model_config = ConfigDict(frozen=True)

    path: str
    additions: int = Field(default=0, ge=0)
    deletions: int = Field(default=0, ge=0)
    change_type: ChangeType = "modified"
    previous_path: str | None = None


class PullRequest(BaseModel):
    """A merged pull request as the cache knows it."""

    repo: str = Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
    number: int = Field(gt=0)
    title: str
    body: str = ""
    author: str = ""
    created_at: datetime | None = None
    merged_at: datetime
    updated_at: datetime | None = None
    base_branch: str = "main"
    labels: list[str] = Field(default_factory=list)
    additions: int = Field(default=0, ge=0)
    deletions: int = Field(default=0, ge=0)
    files: list[FileChange] = Field(default_factory=list)
    changed_files: int | None = Field(default=None, ge=0)
    url: str = ""
    source: Source = "import"

    @field_validator("created_at", "merged_at", "updated_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else _as_utc(value)

    def model_post_init(self, __context: object) -> None:
        if not self.url:
            self.url = f"https://github.com/{self.repo}/pull/{self.number}"
        if self.changed_files is None:
            self.changed_files = len(self.files)


class Flag(BaseModel):
    """A risk flag and the evidence that raised it (files, words or numbers)."""

    kind: FlagKind
    evidence: list[str]


class ScorePart(BaseModel):
    """One line of a key-PR score breakdown: why, and how many points.

    ``reason`` is the English sentence shown by default; ``rule`` (which rule of the profile's
    ``[score]`` gave the points) and ``detail`` (the value it matched: a kind, a module, a size
    threshold, a theme's name) let a front end say the same in another language.
    """

    reason: str
    points: float
    rule: str = ""
    detail: str = ""


class Classification(BaseModel):
    """What a rule profile concluded about one PR; stored with the profile's name and version."""

    modules: list[str] = Field(default_factory=list)
    kind: str = "other"
    flags: list[Flag] = Field(default_factory=list)
    score: float = 0.0
    breakdown: list[ScorePart] = Field(default_factory=list)
    highlights: list[str] = Field(default_factory=list)
    gist: str = ""
    profile: str = ""
    profile_version: str = ""

    def flag(self, kind: FlagKind) -> Flag | None:
        return next((f for f in self.flags if f.kind == kind), None)

    @property
    def flag_kinds(self) -> list[FlagKind]:
        return [f.kind for f in self.flags]
