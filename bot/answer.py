"""Answer an Invocation at the edge: the registry, plus what only the edges may do.

``commands/`` cannot reach the network, so a ``pr`` for a PR missing from the cache comes back
``not_found``; here, when GITHUB_TOKEN is configured, the PR is fetched, classified and cached,
and the command is answered again from the cache. CLI and chat adapters both call ``answer``.
"""

from __future__ import annotations

from bot.config import Settings
from commands.model import Invocation, Reply
from commands.registry import Context, dispatch


def answer(inv: Invocation, ctx: Context, settings: Settings | None) -> Reply:
    reply = dispatch(inv, ctx)
    if settings is None or reply.command != "pr" or reply.data.get("error") != "not cached":
        return reply
    from bot.sync import on_demand_fetcher  # httpx is imported only when a fetch may happen

    fetch = on_demand_fetcher(settings, ctx.store, ctx.profile)
    if fetch is None:
        return reply
    repo, number = str(reply.data["repo"]), int(reply.data["number"])
    try:
        stored = fetch(repo, number)
    except RuntimeError as exc:
        return Reply.not_found("pr", f"PR #{number} is not cached and fetching it from GitHub failed: {exc}")
    if stored is None:
        return Reply.not_found("pr", f"{repo} has no merged PR #{number}")
    return dispatch(inv, ctx)
