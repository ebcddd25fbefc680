"""Answer an Invocation at the edge: the registry, plus what only the edges may do.

``commands/`` cannot reach the network, so ``pr`` for a PR missing from the cache comes back with
``Reply.not_cached`` set; here, when GITHUB_TOKEN is configured, the PR is fetched, classified and
cached, and the command is answered again from the cache. The CLI calls ``answer``; the server's
runner calls ``fetch_missing`` in its own lane, so a slow GitHub never holds the command threads.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from commands.locale import t
from commands.model import Invocation, NotCached, Reply
from commands.registry import Context, dispatch

if TYPE_CHECKING:  # the CLI's one-shot reads import this module without pydantic (bot.config.read_settings)
    from bot.config.settings import Settings


def fetch_missing(missing: NotCached, reply: Reply, ctx: Context, settings: Settings) -> Reply | None:
    """Fetch the PR ``reply`` did not find: None once it is cached (answer again), else the Reply
    to show (``reply`` itself without a token; a one-line not-found when GitHub fails or has no
    such merged PR)."""
    from bot.ingest.sync import on_demand_fetcher  # httpx is imported only when a fetch may happen

    fetch = on_demand_fetcher(settings, ctx.store, ctx.for_repo(missing.repo).profile)
    if fetch is None:
        return reply
    try:
        stored = fetch(missing.repo, missing.number)
    except RuntimeError as exc:
        text = t(reply.lang, "pr.fetch_failed", number=missing.number, reason=exc)
        return replace(Reply.not_found("pr", text), lang=reply.lang)
    if stored is None:
        text = t(reply.lang, "pr.no_such", repo=missing.repo, number=missing.number)
        return replace(Reply.not_found("pr", text), lang=reply.lang)
    return None


def answer(inv: Invocation, ctx: Context, settings: Settings | None) -> Reply:
    reply = dispatch(inv, ctx)
    if reply.not_cached is None or settings is None:
        return reply
    outcome = fetch_missing(reply.not_cached, reply, ctx, settings)
    return dispatch(inv, ctx) if outcome is None else outcome
