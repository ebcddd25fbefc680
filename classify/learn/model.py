"""What a profile is learned from (``History``) and what learning gives (``Learned``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from classify.learn.render import render
from classify.models import PullRequest


@dataclass(frozen=True)
class History:
    """What a profile is learned from; every field is data the caller read."""

    repo: str
    prs: Sequence[PullRequest]
    base: Mapping[str, Any]
    """the generic profile's data: the kinds' vocabulary and the flags' defaults"""
    learned_on: date
    tree: Sequence[str] | None = None
    """every file path of the repository's tree (a clone's ``git ls-files``), when one is at hand"""
    codeowners: str | None = None
    """the text of the repository's CODEOWNERS file, when there is one"""
    previous: Mapping[str, Any] | None = None
    """the profile learned before (its module ids are kept where the directory is the same)"""


@dataclass
class Learned:
    """A learned profile: its data (what ``profile_from_data`` compiles) and its comments."""

    data: dict[str, Any]
    comments: dict[tuple[str, ...], list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """what the learner could not learn and why (said at the head of the file and to the user)"""

    def toml(self) -> str:
        return render(self.data, self.comments)

    @property
    def prs(self) -> int:
        return int(self.data["learned"]["prs"])
