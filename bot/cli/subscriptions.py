"""``prdigest deliver | subscribe | subscriptions | unsubscribe | subscription | deliveries``.

``deliver`` runs every due delivery once and exits (cron, systemd timers, containers, tests;
``--now`` stands in for the clock, ``--dry-run`` prints what would be posted where). The others
manage subscriptions and the delivery ledger from a terminal — the same parsing as the chat
commands (``commands.subscription_spec``), so a bad time zone or ``25:00`` gets the same one-line
answer, exit 2, and nothing is stored.
"""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click

from bot.chat.platforms import poster_for, step_poster_for
from bot.chat.post import PLATFORMS, Poster, PostError
from bot.cli.ledger_view import delivery_table, folded
from bot.cli.setup import read_profile as _profile  # one way to read settings and the profile
from bot.cli.setup import read_settings as _settings
from bot.config.errors import EXIT_FAILED, UserError, named_setting
from bot.config.settings import ConfigError, Settings
from bot.delivery.deliverer import MISSING, Deliverer, Outcome
from bot.ingest.refresh import github_refresh
from bot.prose.setup import prose_writer
from classify.schedule import next_due
from commands.model import UsageError
from commands.subscription_spec import SETTABLE, build, changes, describe
from storage.db import StoreError, StoreUnavailable, connect
from storage.deliveries import DeliveryStore
from storage.prs import PRStore, iso
from storage.subscriptions import Subscription, SubscriptionStore

log = logging.getLogger(__name__)

_DB_HELP = "SQLite cache (default PRDIGEST_DB)."


def _say(message: str) -> None:
    click.echo(f"prdigest: {message}", err=True)


def _db(settings: Settings, db: Path | None) -> Any:
    """The cache, its writers waiting for another writer's lock up to PRDIGEST_LOCK_TIMEOUT (a
    wait over a second is said on stderr); a lock held longer, a full or read-only disk is one
    line and exit 1 (``bot.cli.main``), a path that is not a cache one line and exit 2."""
    try:
        return connect(db or settings.prdigest_db, lock_timeout=settings.prdigest_lock_timeout, on_wait=_say)
    except StoreUnavailable:
        raise
    except StoreError as exc:
        raise named_setting(UserError(str(exc)), "PRDIGEST_DB" if db is None else None) from None


def _usage(exc: UsageError) -> UserError:
    return UserError(str(exc))  # the English message, the commands it names as a terminal types them


def catchup(settings: Settings) -> timedelta:
    return timedelta(hours=settings.prdigest_catchup)


def _now(text: str | None) -> datetime:
    if not text:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UserError(f"--now {text!r}: use an ISO time such as 2026-05-11T07:05:00Z") from None
    if moment.tzinfo is None:
        raise UserError(f"--now {text!r}: give the zone too, e.g. 2026-05-11T07:05:00Z")
    return moment.astimezone(UTC)


def _ledger_note(ledger: DeliveryStore, sub: Subscription) -> str:
    assert sub.id is not None
    recent = ledger.for_subscription(sub.id, limit=1)
    if not recent:
        return "no delivery yet"
    d = recent[0]
    note = f"last: {d.period_start} {d.state}"
    return note + (f" ({d.reason})" if d.reason and d.state != "posted" else "")


# -- deliver ---------------------------------------------------------------------------------------


@click.command("deliver")
@click.option("--dry-run", is_flag=True, help="Print what would be posted where; claim and post nothing.")
@click.option(
    "--now", "now_text", default=None, metavar="ISO-TIME", help="Stand-in for the clock (tests, replays)."
)
@click.option("--db", type=click.Path(path_type=Path), default=None, help=_DB_HELP)
def deliver(dry_run: bool, now_text: str | None, db: Path | None) -> None:
    """Run every due scheduled digest once and exit (for cron and systemd timers); exit 1 while
    a digest is missing anything (failed, unknown, partial, waiting to be retried)."""
    settings = _settings()
    profile = _profile(settings)
    now = _now(now_text)
    database = _db(settings, db)
    deliverer = Deliverer(
        database,
        profile,
        lambda platform: step_poster_for(platform, settings),
        catchup=catchup(settings),
        refresh=None if dry_run else github_refresh(settings, database, profile),
        prose=None if dry_run else prose_writer(settings, database),
    )
    outcomes: list[Outcome] = asyncio.run(deliverer.run(now, dry_run=dry_run))
    for line in folded(outcomes):
        click.echo(line)
    if not outcomes:
        click.echo(f"nothing due at {iso(now)}")
    # anything undelivered (failed, unknown, partial, waiting to be retried) is a non-zero exit,
    # so cron and systemd say so
    if any(o.state in MISSING for o in outcomes):
        raise SystemExit(EXIT_FAILED)


# -- subscribe and friends ---------------------------------------------------------------------------


def _target(text: str) -> tuple[str, str]:
    platform, _, channel = text.partition(":")
    platform, channel = platform.strip().lower(), channel.strip().removeprefix("#")
    if platform not in PLATFORMS or not channel:
        forms = ", ".join(f"{name}:CHANNEL_ID" for name in PLATFORMS)
        raise UserError(f"target {text!r}: use {forms}, e.g. slack:C0123456789")
    return platform, channel


async def _check_channel(poster: Poster, channel: str, *, thread: bool = True) -> None:
    """Make sure the bot can use the channel, so that one it cannot use is refused now, not on
    Monday: Slack joins it (channels:join), so that the bot can post and read back its own posts;
    Discord checks the bot's permissions there (``check``; the thread ones for the thread layout)."""
    join: Any = getattr(poster, "join", None)
    check: Any = getattr(poster, "check", None)
    try:
        if check is not None:
            await check(channel, thread=thread)
        elif join is not None:
            await join(channel)
    finally:
        await poster.close()


@click.command("subscribe")
@click.argument("target")
@click.option(
    "--repo",
    default=None,
    metavar="OWNER/NAME",
    help="Repository (default PRDIGEST_REPO, else the cache's only one).",
)
@click.option("--at", "at", default="mon 09:00", show_default=True, help="Weekday and local time.")
@click.option("--tz", default=None, help="IANA time zone (default PRDIGEST_TIMEZONE).")
@click.option(
    "--every", default="1", show_default=True, metavar="N", help="Every N weeks; a digest covers them all."
)
@click.option("--lang", default=None, help="en or zh (default PRDIGEST_LANG).")
@click.option("--modules", default="", help="Module filter, comma-separated.")
@click.option("--match", default="any", show_default=True, help="any, all or only (how --modules filters).")
@click.option(
    "--flags", default="", help="Also every PR with one of these risk flags (core-path, breaking, …)."
)
@click.option("--layout", default="thread", show_default=True, help="thread (lead + replies) or single.")
@click.option(
    "--quiet",
    default="line",
    show_default=True,
    help="A quiet week gets a one-line post (line) or nothing (silent).",
)
@click.option(
    "--prose",
    default="on",
    show_default=True,
    help="off: computed text only, even where a language model is configured (docs/prose.md).",
)
@click.option("--paused", is_flag=True, help="Store it paused.")
@click.option(
    "--no-check", is_flag=True, help="Do not join (Slack) or check (Discord) the channel now (offline setup)."
)
@click.option(
    "--now", "now_text", default=None, metavar="ISO-TIME", help="Stand-in for the clock (tests, replays)."
)
@click.option("--db", type=click.Path(path_type=Path), default=None, help=_DB_HELP)
def subscribe(
    target: str, no_check: bool, paused: bool, now_text: str | None, db: Path | None, **given: str | None
) -> None:
    """Subscribe PLATFORM:CHANNEL to the scheduled digest."""
    settings = _settings()
    profile = _profile(settings)
    platform, channel = _target(target)
    database = _db(settings, db)
    repos = PRStore(database).repos()
    defaults = {
        "tz": settings.prdigest_timezone,
        "lang": settings.prdigest_lang,
        **({"repo": settings.default_repo} if settings.default_repo else {}),
        **({"repo": repos[0]} if not settings.prdigest_repo and len(repos) == 1 else {}),
    }
    values = {k: str(v) for k, v in given.items() if v not in (None, "")}
    now = _now(now_text)
    try:
        sub = build(platform, channel, values, profile, now=now, defaults=defaults, created_by="cli")
    except UsageError as exc:
        raise _usage(exc) from None
    if not no_check:
        try:
            asyncio.run(
                _check_channel(poster_for(platform, settings), channel, thread=sub.layout == "thread")
            )
        except ConfigError as exc:
            raise UserError(f"{exc} (or use --no-check to store it without checking the channel)") from None
        except PostError as exc:
            raise UserError(f"cannot use {target}: {exc}") from None
    if paused:
        from dataclasses import replace

        sub = replace(sub, paused=True)
    stored = SubscriptionStore(database).add(sub, now=now)
    click.echo(f"subscribed: {describe(stored)}")
    if not stored.paused:
        click.echo(f"next digest: {iso(next_due(stored, now).due)}{_passed_note(stored, now)}")


def _passed_note(sub: Subscription, now: datetime) -> str:
    """`` (this week's mon 09:00 Europe/Berlin passed at …: the first digest is the next one)``
    when the subscription's time already passed this week, so that nobody waits for a digest that
    a subscription made minutes too late does not post."""
    from classify.schedule import describe_at, last_due_index, period_of

    k = last_due_index(sub, now)
    if k < 0:
        return ""
    last = period_of(sub, k).due
    here, then = now.astimezone(sub.zone), last.astimezone(sub.zone)
    if last > now or here.isocalendar()[:2] != then.isocalendar()[:2]:
        return ""
    return f" (this week's {describe_at(sub)} passed at {iso(last)}: the first digest is the next one)"


@click.command("subscriptions")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--db", type=click.Path(path_type=Path), default=None, help=_DB_HELP)
def subscriptions(fmt: str, db: Path | None) -> None:
    """List subscriptions with their next due time and last delivery (failed, unknown and
    skipped ones with the reason)."""
    settings = _settings()
    database = _db(settings, db)
    subs = SubscriptionStore(database).all()
    ledger = DeliveryStore(database)
    now = datetime.now(UTC)
    if fmt == "json":
        rows = []
        for s in subs:
            assert s.id is not None
            row = s.as_dict()
            row["next_due"] = None if s.paused else iso(next_due(s, now).due)
            row["deliveries"] = [d.as_dict() for d in ledger.for_subscription(s.id, limit=5)]
            rows.append(row)
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not subs:
        click.echo("no subscriptions (add one with prdigest subscribe slack:C0123456789 --repo OWNER/NAME)")
    for s in subs:
        due = "paused" if s.paused else f"next {iso(next_due(s, now).due)}"
        click.echo(f"{describe(s)} · {due} · {_ledger_note(ledger, s)}")


@click.command("unsubscribe")
@click.argument("sub_id", type=int, metavar="ID")
@click.option("--db", type=click.Path(path_type=Path), default=None, help=_DB_HELP)
def unsubscribe(sub_id: int, db: Path | None) -> None:
    """Remove subscription ID (its delivery history stays in the ledger)."""
    settings = _settings()
    if not SubscriptionStore(_db(settings, db)).remove(sub_id):
        raise UserError(f"no subscription #{sub_id} (see prdigest subscriptions)")
    click.echo(f"unsubscribed #{sub_id}")


@click.command("subscription")
@click.argument("sub_id", type=int, metavar="ID")
@click.option("--pause", is_flag=True, help="Stop deliveries until --resume.")
@click.option("--resume", is_flag=True, help="Deliver again from now on (paused weeks are not caught up).")
@click.option(
    "--set", "sets", multiple=True, metavar="KEY=VALUE", help=f"Change a field: {', '.join(SETTABLE)}."
)
@click.option("--db", type=click.Path(path_type=Path), default=None, help=_DB_HELP)
def subscription(sub_id: int, pause: bool, resume: bool, sets: tuple[str, ...], db: Path | None) -> None:
    """Show, pause, resume or change subscription ID."""
    settings = _settings()
    profile = _profile(settings)
    store = SubscriptionStore(_db(settings, db))
    current = store.get(sub_id)
    if current is None:
        raise UserError(f"no subscription #{sub_id} (see prdigest subscriptions)")
    if pause and resume:
        raise UserError("--pause and --resume together: pick one")
    values: dict[str, str] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq:
            raise UserError(f"--set {item!r}: use KEY=VALUE, e.g. --set at='fri 16:00'")
        values[key.strip()] = value.strip()
    try:
        fields = changes(values, profile)
    except UsageError as exc:
        raise _usage(exc) from None
    if pause or resume:
        fields["paused"] = pause
    if fields:
        modules = fields.get("modules", current.modules)
        if fields.get("match", current.match) != "any" and not modules:
            raise UserError("match all/only needs modules (--set modules=…)")
        if "timezone" in fields or "every_weeks" in fields:
            from zoneinfo import ZoneInfo

            from classify.schedule import first_anchor

            now = datetime.now(UTC)
            fields["anchor"] = first_anchor(
                now,
                ZoneInfo(fields.get("timezone", current.timezone)),
                fields.get("every_weeks", current.every_weeks),
            )
            fields.setdefault("since", now)
        current = store.update(sub_id, **fields)
    click.echo(describe(current))


@click.command("deliveries")
@click.option(
    "--retry",
    "retry_id",
    type=int,
    default=None,
    metavar="ID",
    help="Retry a failed or skipped delivery, or resolve an unknown one (it is checked for an earlier post first).",
)
@click.option("--limit", type=click.IntRange(1, 1000), default=30, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--db", type=click.Path(path_type=Path), default=None, help=_DB_HELP)
def deliveries(retry_id: int | None, limit: int, fmt: str, db: Path | None) -> None:
    """The delivery ledger, newest first; --retry ID makes one eligible for the next run."""
    settings = _settings()
    ledger = DeliveryStore(_db(settings, db))
    if retry_id is not None:
        try:
            d = ledger.retry(retry_id)
        except KeyError:
            raise UserError(f"no delivery {retry_id} (see prdigest deliveries)") from None
        except ValueError as exc:
            raise UserError(str(exc)) from None
        click.echo(f"delivery {d.id} will be retried by the next run (prdigest deliver, or serve)")
        return
    rows = ledger.recent(limit=limit)
    if fmt == "json":
        click.echo(json.dumps([d.as_dict() for d in rows], ensure_ascii=False, indent=2))
        return
    if not rows:
        click.echo("no deliveries yet")
        return
    for line in delivery_table(rows):
        click.echo(line)
