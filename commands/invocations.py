"""Every ``Invocation`` is made here.

A request to run a command comes from a front end — the terminal, Slack, Discord — which adds
the defaults its settings give (``Defaults``: the repository, the ones chat may act on, the
language and time zone), or from a subscription, whose digest is asked for as its words say
(a scheduled delivery, ``/preview``). One function builds them all, so what a request carries,
and where its defaults come from, is decided once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol, cast

from commands.model import Invocation, Lang


@dataclass(frozen=True)
class Defaults:
    """What a front end gives every command it runs, unless the command names otherwise."""

    repo: str | None = None
    allowed_repos: tuple[str, ...] | None = None
    """the repositories chat may act on (empty: those in the cache); None: any (the terminal)"""
    lang: Lang = "en"
    timezone: str = "UTC"


def invocation(
    command: str,
    *,
    platform: str,
    defaults: Defaults,
    args: Sequence[str] = (),
    text: str | None = None,
    options: Mapping[str, object] | None = None,
    flags: frozenset[str] = frozenset(),
    lang: Lang | None = None,
    user: str | None = None,
    channel: str | None = None,
    now: datetime | None = None,
    program: str = "prdigest",
) -> Invocation:
    """A request to run ``command`` from ``platform``: a command line's ``args``, a chat
    message's ``text`` or a platform's typed ``options`` (see ``Invocation``); ``lang`` overrides
    the front end's language (the terminal's ``--lang``); ``program``: how a terminal user
    invoked prdigest, for hints that run as printed."""
    return Invocation(
        command=command,
        args=tuple(args),
        text=text,
        options=dict(options or {}),
        flags=flags,
        repo=defaults.repo,
        allowed_repos=defaults.allowed_repos,
        lang=lang or defaults.lang,
        timezone=defaults.timezone,
        platform=platform,
        user=user,
        channel=channel,
        now=now if now is not None else datetime.now(UTC),
        program=program,
    )


class Subscribed(Protocol):
    """What a subscription's digest is asked with (``storage.subscriptions.Subscription``)."""

    @property
    def repo(self) -> str: ...

    @property
    def lang(self) -> str: ...

    @property
    def timezone(self) -> str: ...

    @property
    def modules(self) -> Sequence[str]: ...

    @property
    def flags(self) -> Sequence[str]: ...

    @property
    def match(self) -> str: ...


def digest_words(sub: Subscribed, period: str) -> tuple[str, ...]:
    """The words of the ``digest`` command a subscription posts for ``period`` — what a person
    would type to see the same view: ``digest 2026-W19 rocm core-path``."""
    words = [period, *sub.modules, *sub.flags]
    if sub.modules and sub.match != "any":
        words.append(sub.match)
    return tuple(words)


def subscription_digest(
    sub: Subscribed,
    period: str,
    *,
    platform: str,
    now: datetime,
    user: str | None = None,
    channel: str | None = None,
) -> Invocation:
    """The digest ``sub`` gets for ``period`` (a period word: ``2026-W19``, ``this-week``), in its
    repository, language and time zone."""
    lang = cast("Lang", sub.lang)  # storage.subscriptions stores only the languages there are
    return invocation(
        "digest",
        platform=platform,
        defaults=Defaults(repo=sub.repo, lang=lang, timezone=sub.timezone),
        args=digest_words(sub, period),
        user=user,
        channel=channel,
        now=now,
    )
