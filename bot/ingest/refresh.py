"""Bringing a repository's cache up to date before a scheduled digest, and every hour in ``serve``.

``github_refresh`` returns the ``Refresh`` hook ``bot.delivery.deliverer.Deliverer`` calls before building a
digest: an incremental API sync from the watermark (a few requests for a week), with rate-limit
waits bounded by ``max_wait`` so that a Monday digest is late by seconds, not hours. It never
raises: without ``GITHUB_TOKEN``, or when GitHub cannot be reached, the digest goes out from the
cache and says how fresh the cache is. The reason is a fixed code (``no_token``, ``unreachable``,
``rate_limited``, ``rejected``), shown in the subscriber's language — nothing of an exception's
text ever reaches a channel; the log has the details.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import sqlite_utils

from bot.config.settings import Settings, secret
from bot.ingest import github as gh
from bot.ingest.sync import classifier_for, sync_api
from classify.rules import Profile
from commands.title_keys import ProfileTitleKeys
from storage.prs import PRStore

log = logging.getLogger(__name__)

SYNC_MAX_WAIT = 30.0  # seconds a sync before a digest may wait for a rate limit
Refresh = Callable[[str], Awaitable[str | None]]


def sync_now(
    settings: Settings,
    db: sqlite_utils.Database,
    profile: Profile | Callable[[str], Profile],
    repo: str,
    *,
    max_wait: float,
    client_options: Mapping[str, Any] | None = None,
) -> str | None:
    """One incremental sync of ``repo`` on this thread's connection; None when it worked, else
    the reason code (and one log line). ``profile``: one profile, or each repository's
    (``profile(repo)``). ``client_options`` go to the GitHub client (tests: its ``sleep``). A
    repository with no configured profile has its profile learned when due (``bot.ingest.learn``)."""
    if not secret(settings.github_token):
        return "no_token"
    try:
        client = gh.client_from_settings(settings, max_wait=max_wait, **(client_options or {}))
    except (gh.GitHubError, ValueError) as exc:
        log.warning("sync of %s not started: %s", repo, exc)
        return "no_token" if isinstance(exc, gh.MissingToken) else "unreachable"
    chosen = profile(repo) if callable(profile) else profile
    store = PRStore(db, title_keys=ProfileTitleKeys(chosen))
    try:
        report = sync_api(store, client, classifier_for(chosen), repo)
    except gh.TokenRejected as exc:
        log.error("sync of %s: %s", repo, exc)
        return "rejected"
    except gh.RateLimitExceeded as exc:
        log.warning("sync of %s: %s", repo, exc)
        return "rate_limited"
    except Exception as exc:  # network, 5xx, GraphQL errors: the digest still goes out
        log.warning("sync of %s failed: %s: %s", repo, type(exc).__name__, exc)
        return "unreachable"
    finally:
        client.close()
    log.info("synced %s: %s", repo, report.summary_line())
    from bot.ingest.learn import after_write

    try:  # in the server's own thread: classified in-process, no worker processes
        for note in after_write(store, settings, [repo], workers=1):
            log.info("%s", note)
    except Exception:  # a failed learning leaves the profile as it was; the digest still goes out
        log.exception("learning the profile of %s failed", repo)
    return None


def github_refresh(
    settings: Settings,
    db: sqlite_utils.Database,
    profile: Profile | Callable[[str], Profile],
    *,
    max_wait: float = SYNC_MAX_WAIT,
    client_options: Mapping[str, Any] | None = None,
) -> Refresh:
    """The hook for ``Deliverer(refresh=…)`` (runs on the deliverer's own thread and connection)."""

    async def refresh(repo: str) -> str | None:
        return sync_now(settings, db, profile, repo, max_wait=max_wait, client_options=client_options)

    return refresh
