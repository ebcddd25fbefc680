"""What a command may use: the cache and the rule profile of the repository asked about (``Context``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

from classify.rules import Profile
from commands.model import Invocation, UsageError
from storage.prs import PRStore

CHAT_PLATFORMS = ("slack", "discord")


class ProfileChoice(Protocol):
    """Which profile answers for a repository and why (``bot.config.repo_profiles.Choice``)."""

    @property
    def profile(self) -> Profile: ...

    @property
    def how(self) -> str: ...

    @property
    def prs(self) -> int: ...

    @property
    def automatic(self) -> bool: ...

    @property
    def needed(self) -> int: ...


class Profiles(Protocol):
    """Each repository's profile (the front end knows the settings and the cache that choose it)."""

    def choice(self, repo: str | None) -> ProfileChoice: ...


@dataclass
class Context:
    """What a command may use: the cache and the rule profile of the repository asked about
    (``profiles`` chooses it per repository; without it ``profile`` answers for every one)."""

    store: PRStore
    profile: Profile
    stored_storylines: bool = True
    """closed periods' storylines read from and stored in the cache (``commands.report.stored_themes``);
    off: found again at every digest (benchmarks, the tests that compare both)"""
    profiles: Profiles | None = None
    chosen: ProfileChoice | None = field(default=None, repr=False)
    """how ``profile`` was chosen, when ``profiles`` chose it"""

    def for_repo(self, repo: str | None) -> Context:
        """This context with the profile that answers for ``repo`` (itself without ``profiles``)."""
        if self.profiles is None:
            return self
        choice = self.profiles.choice(repo)
        if choice.profile is self.profile and self.chosen is not None:
            return self
        return replace(self, profile=choice.profile, chosen=choice)

    def guess_repo(self, inv: Invocation) -> str | None:
        """The repository an invocation is about before its words are parsed: its ``--repo``
        option, the front end's default, else the only one in the cache."""
        named = inv.options.get("repo")
        if isinstance(named, str) and named.strip():
            return named.strip()
        if inv.repo:
            return inv.repo
        repos = self.store.repos()
        return repos[0] if len(repos) == 1 else None

    def resolve_repo(self, inv: Invocation, named: str | None = None, *, cached: bool = True) -> str:
        """The repository to answer about: ``named`` (a PR URL's), else the invocation's, else
        the only one in the cache.

        A chat front end sets ``inv.allowed_repos``: any other repository is refused before
        anything is read or fetched. With ``cached`` (every command but ``pr``, which may fetch a
        PR on demand) a repository the cache does not hold is refused, naming the ones it holds:
        an empty report about a misspelt name would read as "nothing happened there".
        """
        wanted = named or inv.repo
        if inv.allowed_repos is not None and wanted:
            allowed = inv.allowed_repos or tuple(self.store.repos())
            same = [r for r in allowed if r.lower() == wanted.lower()]
            if not same:
                raise UsageError("error.repo_not_served", repo=wanted[:100], repos=", ".join(allowed) or "—")
            wanted = same[0]
        if named:
            return wanted or named
        inv = replace(inv, repo=wanted) if wanted else inv
        repos = self.store.repos()
        if inv.repo:
            if not cached:
                return inv.repo
            same = [r for r in repos if r.lower() == inv.repo.lower()]
            if same:
                return same[0]
            if not repos:
                raise UsageError("error.repo_not_cached_empty", repo=inv.repo[:100])
            raise UsageError("error.repo_not_cached", repo=inv.repo[:100], repos=", ".join(repos))
        if len(repos) == 1:
            return repos[0]
        if not repos:
            raise UsageError("error.cache_empty")
        chat = inv.platform in CHAT_PLATFORMS
        raise UsageError(
            "error.several_repos_chat" if chat else "error.several_repos", repos=", ".join(repos)
        )
