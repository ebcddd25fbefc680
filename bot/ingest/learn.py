"""Learning a repository's profile from the cache: on demand (``prdigest profile learn``) and
automatically after a sync or an import (``learn_if_due``).

The learner itself is pure (``classify.learn``); this module reads what it learns from — the
cached PRs, and from a clone at hand its tree (``git ls-files``) and ``CODEOWNERS`` — and, for a
repository with no profile configured, keeps what was learned in the cache and reclassifies the
repository with it (no network): once it has ``MIN_LEARN_PRS`` PRs, and again whenever they have
grown by ``RELEARN_GROWTH`` since (module ids kept where the directory is the same, since
subscriptions filter by them).
"""

from __future__ import annotations

import functools
import subprocess
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.config.repo_profiles import (
    MIN_LEARN_PRS,
    RELEARN_GROWTH,
    Choosing,
    choose,
    configured,
)
from bot.ingest.load import ReclassifyResult, reclassify
from classify.learn import History, Learned, learn
from classify.rules import PROFILES_DIR
from storage.db import write_transaction
from storage.learned import read_learned, write_learned
from storage.prs import PRStore

CODEOWNERS_PLACES = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


@functools.cache
def generic_data() -> dict[str, Any]:
    """The generic profile's data: the vocabulary a learned profile's kinds and flags start from."""
    return tomllib.loads((PROFILES_DIR / "generic.toml").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Clone:
    """What a clone at hand tells the learner: every file of its tree, and its CODEOWNERS."""

    tree: list[str]
    codeowners: str | None


def read_clone(root: Path) -> Clone:
    """The clone's tracked files (``git ls-files``) and CODEOWNERS text (GitHub's three places)."""
    out = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True, timeout=120
    ).stdout
    tree = [p for p in out.decode("utf-8", "replace").split("\0") if p]
    owners = None
    for place in CODEOWNERS_PLACES:
        path = root / place
        if path.is_file():
            owners = path.read_text(encoding="utf-8", errors="replace")
            break
    return Clone(tree, owners)


def learn_from_cache(
    store: PRStore, repo: str, *, clone: Clone | None = None, previous: dict[str, Any] | None = None
) -> Learned:
    """Learn ``repo``'s profile from every PR the cache holds of it."""
    prs = [s.pr for s in store.history(repo)]
    return learn(
        History(
            repo=repo,
            prs=prs,
            base=generic_data(),
            learned_on=datetime.now(UTC).date(),
            tree=clone.tree if clone else None,
            codeowners=clone.codeowners if clone else None,
            previous=previous,
        )
    )


@dataclass(frozen=True)
class Learning:
    """What ``learn_if_due`` did for a repository, and what to tell the user."""

    repo: str
    outcome: str  # configured | too-few | current | learned | relearned
    prs: int
    learned_prs: int = 0
    reclassified: ReclassifyResult | None = None

    def message(self) -> str | None:
        """One line for the user, or None when there is nothing to say."""
        if self.outcome == "too-few":
            return (
                f"{self.repo}: {self.prs:,} PRs cached, fewer than the {MIN_LEARN_PRS} a profile of its own is "
                "learned from; the generic profile answers until then"
            )
        if self.outcome in ("learned", "relearned"):
            again = "learned again" if self.outcome == "relearned" else "learned"
            changed = self.reclassified.changed if self.reclassified else 0
            return (
                f"{self.repo}: profile {again} from {self.learned_prs:,} PRs and the repository reclassified "
                f"({changed:,} changed); `prdigest profile learn --repo {self.repo}` shows it"
            )
        return None


def learn_if_due(
    store: PRStore, settings: Choosing, repo: str, *, clone: Clone | None = None, workers: int | None = None
) -> Learning:
    """Learn (or learn again) ``repo``'s profile when no profile is configured for it and its
    history is long enough (or has grown enough), keep it in the cache and reclassify with it."""
    prs = store.count(repo)
    if configured(settings, repo) is not None or choose(settings, repo).how == "bundled":
        return Learning(repo, "configured", prs)
    row = read_learned(store.db, repo)
    if row is None and prs < MIN_LEARN_PRS:
        return Learning(repo, "too-few", prs)
    if row is not None and prs < row.prs * (1 + RELEARN_GROWTH):
        return Learning(repo, "current", prs, row.prs)
    previous = tomllib.loads(row.toml) if row is not None else None
    learned = learn_from_cache(store, repo, clone=clone, previous=previous)
    with write_transaction(store.db):
        write_learned(store.db, repo, learned.toml(), learned.prs, datetime.now(UTC))
    profile = choose(settings, repo, store.db).profile
    from commands.title_keys import ProfileTitleKeys

    store.title_keys = ProfileTitleKeys(profile)
    result = reclassify(store, profile, repo, workers=workers)
    return Learning(repo, "relearned" if row else "learned", prs, learned.prs, result)


def after_write(
    store: PRStore,
    settings: Choosing,
    repos: list[str],
    *,
    clone: Clone | None = None,
    workers: int | None = None,
) -> list[str]:
    """After a sync or an import of ``repos``: learn where due (``learn_if_due``), count each
    repository's title topics with its own profile, and say what the user should know."""
    from commands.title_keys import ProfileTitleKeys

    said: list[str] = []
    for repo in repos:
        done = learn_if_due(store, settings, repo, clone=clone, workers=workers)
        if done.outcome not in ("learned", "relearned"):
            store.title_keys = ProfileTitleKeys(choose(settings, repo, store.db).profile)
            store.count_title_topics(repo)
        message = done.message()
        if message:
            said.append(message)
    return said
